package codec

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/klauspost/compress/fse"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/parallel"
)

// Outlier patches (see the package documentation): patches far outside
// the training data, coded in the entropy-constrained mode as PCA
// coefficients on the unbounded lattice k·step.

// outliers lists the outlier patches of a channel.
type outliers struct {
	// at holds, per patch, the position of its values in vals divided by
	// the number of dimensions, or -1 for a patch coded by the model.
	at []int32
	// vals holds the dead-zone cells of every coefficient of each
	// outlier patch, in patch order.
	vals []int32
	n    int     // number of outlier patches
	step float64 // the model's step
}

// patch writes the coefficients of patch i into y and reports true if it
// is an outlier; o may be nil (no outliers).
func (o *outliers) patch(i int, y []float64) bool {
	if o == nil || o.at[i] < 0 {
		return false
	}
	for j, v := range o.vals[int(o.at[i])*len(y):][:len(y)] {
		y[j] = float64(v) * o.step
	}
	return true
}

// outlierMiss is how far beyond its cell, in steps, a coefficient
// may be reconstructed before its patch becomes an outlier: a cell is one
// step wide (4/3 for the zero cell), so within the quantisers' reach the
// error stays below a step.
const outlierMiss = 1.0

// findOutliers returns the outlier patches among the rows y (PCA
// coefficients) quantised to idx, and resets their indices to the centre
// of each dimension, the cheapest symbols. A patch is an outlier when a
// coefficient beyond SPCA is farther than a step from its reconstruction
// level, or when the inverse of its SPCA cell misses its leading
// coefficients by more than a step per dimension (root mean square).
//
// The inverse is computed where SPCA may not represent the patch: where
// a response is in an end cell (responses saturate there), and in the
// patches slow, which took the exact transform (all of them with
// Options.Exact): far outside its lattice the geodesic projection lands
// on the lattice's boundary, and its response can be any cell (a flat
// saturated colour after natural images). Elsewhere the projection has
// converged and, one response unit being one step of the unfolded
// coordinate, the cell bounds the error. On a 768×512 test texture with
// 4×4 patches, 528 of the 535 outliers that inverting every patch finds
// are in end cells, and inverting only the candidates costs a tenth.
func (c *Channel) findOutliers(y *mat.Dense, idx []int32, step float64, slow []int) *outliers {
	n, dims := y.Dims()
	k := c.Leading()
	flag := make([]bool, n)
	cand := make([]bool, n)
	for _, i := range slow {
		cand[i] = true
	}
	limit := outlierMiss * step
	const rowsPerTask = 1024
	parallel.For((n+rowsPerTask-1)/rowsPerTask, func(t int) {
		for i := t * rowsPerTask; i < min(n, (t+1)*rowsPerTask); i++ {
			row, cell := y.RawRowView(i), idx[i*dims:(i+1)*dims]
			for j := k; j < dims; j++ {
				if math.Abs(row[j]-c.Rest[j-k].Levels[cell[j]]) > limit {
					flag[i] = true
					break
				}
			}
			for j := 0; j < k && !flag[i]; j++ {
				if cell[j] == 0 || int(cell[j]) == c.Bins[j]-1 {
					cand[i] = true
				}
			}
		}
	})
	if k > 0 {
		var sub []int32
		var at []int
		for i, ok := range cand {
			if ok && !flag[i] {
				sub = append(sub, idx[i*dims:(i+1)*dims]...)
				at = append(at, i)
			}
		}
		var lead leadCells
		if len(at) > 0 {
			lead = c.leadRows(sub, len(at))
		}
		for a, i := range at {
			row, e := y.RawRowView(i), 0.0
			for j, v := range lead.row(a, k) {
				e += float64((row[j] - v) * (row[j] - v))
			}
			flag[i] = e > float64(k)*limit*limit
		}
	}
	o := &outliers{at: make([]int32, n), step: step}
	for i, f := range flag {
		o.at[i] = -1
		if !f {
			continue
		}
		o.at[i] = int32(o.n)
		o.n++
		row := y.RawRowView(i)
		for j := 0; j < dims; j++ {
			o.vals = append(o.vals, int32(deadZoneCell(row[j], step)))
			idx[i*dims+j] = int32(c.Centre[j])
		}
	}
	return o
}

// appendOutliers appends the two streams of o to dst: a flag per patch
// (0 or 1) and the zigzag-coded cells as 4-byte little-endian values.
func appendOutliers(dst []byte, o *outliers) []byte {
	flags := make([]byte, len(o.at))
	for i, a := range o.at {
		if a >= 0 {
			flags[i] = 1
		}
	}
	vals := make([]byte, 0, 4*len(o.vals))
	for _, v := range o.vals {
		vals = binary.LittleEndian.AppendUint32(vals, uint32(v<<1^v>>31))
	}
	var sc fse.Scratch
	dst = append(dst, packStream(nil, flags, &sc)...)
	return append(dst, packStream(nil, vals, &sc)...)
}

// parseOutlierStreams reads the headers of the two streams of
// appendOutliers for blocks patches of dims coefficients: the flags and
// the values, still entropy-coded.
func parseOutlierStreams(body []byte, blocks, dims int) ([2]packedStream, []byte, error) {
	var raw [2]packedStream
	var err error
	for k, limit := range []int{blocks, 4 * blocks * dims} {
		if raw[k], body, err = parseStream(body, limit); err != nil {
			return raw, nil, err
		}
	}
	return raw, body, nil
}

// newOutliers rebuilds the outliers of blocks patches from the decoded
// flag and value streams.
func newOutliers(flags, vals []byte, blocks, dims int, step float64) (*outliers, error) {
	if len(flags) != blocks {
		return nil, errors.New("outlier flags do not match the patches")
	}
	o := &outliers{at: make([]int32, blocks), step: step}
	for i, f := range flags {
		switch f {
		case 0:
			o.at[i] = -1
		case 1:
			o.at[i] = int32(o.n)
			o.n++
		default:
			return nil, errors.New("outlier flag not 0 or 1")
		}
	}
	if len(vals) != 4*dims*o.n {
		return nil, errors.New("outlier values do not match the flags")
	}
	o.vals = make([]int32, dims*o.n)
	for i := range o.vals {
		u := binary.LittleEndian.Uint32(vals[4*i:])
		o.vals[i] = int32(u>>1) ^ -int32(u&1)
	}
	return o, nil
}
