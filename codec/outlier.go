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
	// shift holds, per patch, the shift of its first PCA coefficient in
	// steps (version 8, see endShifts), or is nil; shifted counts the
	// patches with a nonzero shift.
	shift   []int32
	shifted int
}

// maxShift bounds an end-cell shift, in steps: it is coded in a byte.
const maxShift = 127

// endCell reports whether patch i's first SPCA index (of a channel with
// SPCA dimensions) is an end cell of its dimension: the cells whose
// reconstruction the lattice's ends bound.
func (c *Channel) endCell(idx []int32, i int) bool {
	b := int(idx[i*c.Dims()])
	return c.Leading() > 0 && (b == 0 || b == c.Bins[0]-1)
}

// endShifts returns, for every patch whose first SPCA index is an end cell,
// how many steps its first PCA coefficient lies beyond its cell's
// reconstruction (rounded, at most maxShift), 0 for the others; nil for a
// channel without SPCA. Responses saturate at the lattice's ends, so a
// patch darker or brighter than any of the training data lands in an end
// cell, reconstructed at the edge of the data: the shift moves it back
// along the first PCA axis (the patch mean for natural images).
func (c *Channel) endShifts(y *mat.Dense, idx []int32, step float64, sc *encodeScratch) []int32 {
	k := c.Leading()
	if k == 0 {
		return nil
	}
	sc = sc.or()
	n, dims := y.Dims()
	shifts := zeroed(sc.shifts, n)
	sc.shifts = shifts
	at := sc.at[:0]
	for i := 0; i < n; i++ {
		if c.endCell(idx, i) {
			at = append(at, i)
		}
	}
	sc.at = at
	if len(at) == 0 {
		return shifts
	}
	sc.rows = indexRows(sc.rows, idx, at, dims)
	lead := c.leadRows(sc.rows, len(at))
	for a, i := range at {
		s := math.Round((y.At(i, 0) - lead.row(a, k)[0]) / step)
		shifts[i] = int32(max(-maxShift, min(maxShift, s)))
	}
	return shifts
}

// indexRows returns the index rows (dims each) of the patches at, copied
// into one slice sized once (growing it by append re-copied most of it):
// into dst's array if large enough, else a new one with a quarter more
// room (in a batch, each image with more such patches than any before
// took a new array of fresh memory: ~0.8 MB of a grey batch's 21).
func indexRows(dst, idx []int32, at []int, dims int) []int32 {
	sub := dst[:0]
	if cap(sub) < len(at)*dims {
		sub = make([]int32, 0, len(at)*dims*5/4)
	}
	for _, i := range at {
		sub = append(sub, idx[i*dims:(i+1)*dims]...)
	}
	return sub
}

// appendShifts appends the shift stream of version 8 to dst: a byte per
// patch whose first index is an end cell (see endCell), in patch order,
// the zigzag-coded shift of out (0 for outliers).
func appendShifts(dst []byte, c *Channel, idx []int32, out *outliers, es *encodeScratch) []byte {
	es = es.or()
	b := es.bytes[:0]
	for i := range len(idx) / c.Dims() {
		if !c.endCell(idx, i) {
			continue
		}
		var s int32
		if out != nil && out.shift != nil && out.at[i] < 0 {
			s = out.shift[i]
		}
		b = append(b, byte(s<<1^s>>31))
	}
	es.bytes = b
	var sc fse.Scratch
	return packStream(dst, b, &sc)
}

// setShifts reads the decoded shift stream b of the patches idx into o.
func (o *outliers) setShifts(c *Channel, idx []int32, b []byte) error {
	n := len(idx) / c.Dims()
	o.shift = make([]int32, n)
	for i := 0; i < n; i++ {
		if !c.endCell(idx, i) {
			continue
		}
		if len(b) == 0 {
			return errors.New("too few end-cell shifts")
		}
		z := int32(b[0])
		b = b[1:]
		if z > 2*maxShift {
			return errors.New("end-cell shift out of range")
		}
		if o.shift[i] = z>>1 ^ -(z & 1); o.shift[i] != 0 {
			o.shifted++
		}
	}
	if len(b) != 0 {
		return errors.New("too many end-cell shifts")
	}
	return nil
}

// shiftPixels adds the end-cell shift of patch i (not an outlier) to its
// pixels pix: shift·step times the first PCA basis vector (weights row 0,
// see pixelWeights), each product rounded as pixel rounds them.
func (o *outliers) shiftPixels(i int, pix, weights []float64) {
	if o == nil || o.shift == nil || o.shift[i] == 0 || o.at[i] >= 0 {
		return
	}
	d := float64(o.shift[i]) * o.step
	for p := range pix {
		pix[p] += float64(weights[p] * d)
	}
}

// moves reports whether shiftPixels moves the pixels of patch i.
func (o *outliers) moves(i int) bool {
	return o != nil && o.shift != nil && o.shift[i] != 0 && o.at[i] < 0
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
//
// shifts, if not nil, are the patches' end-cell shifts (endShifts), which
// their inverses then include; the outliers keep them, 0 for an outlier.
func (c *Channel) findOutliers(y *mat.Dense, idx []int32, step float64, slow []int, shifts []int32, sc *encodeScratch) *outliers {
	sc = sc.or()
	n, dims := y.Dims()
	k := c.Leading()
	flag, cand := zeroed(sc.flag, n), zeroed(sc.cand, n)
	sc.flag, sc.cand = flag, cand
	for _, i := range slow {
		cand[i] = true
	}
	limit := outlierMiss * step
	safe := c.restSafe(limit)
	// With AVX2 the first 8*(m/8) rest dimensions of a patch are tested
	// 8 at a time (restFarAVX2), and the loop below takes the rest, or
	// the whole patch where the kernel leaves it the decision.
	m8 := 0
	var far restFar
	if hasGather && c.restLevels() != nil {
		m8 = (dims - k) &^ 7
		far = newRestFar(c, safe[:m8], sc)
	}
	const rowsPerTask = 1024
	parallel.For((n+rowsPerTask-1)/rowsPerTask, func(t int) {
		for i := t * rowsPerTask; i < min(n, (t+1)*rowsPerTask); i++ {
			row, cell := y.RawRowView(i), idx[i*dims:(i+1)*dims]
			rest, safe := cell[k:], safe[:dims-k]
			from := 0
			if m8 > 0 {
				switch restFarAVX2(rest[:m8], row[k:k+m8], far.lo, far.span, far.at, far.lenB, far.flat, limit) {
				case 0:
					from = m8
				case 1:
					flag[i] = true
					from = len(rest)
				}
			}
			for j := from; j < len(rest); j++ {
				q := rest[j]
				if uint32(q-safe[j].lo) > safe[j].span && math.Abs(row[k+j]-c.Rest[j].Levels[q]) > limit {
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
		at := sc.at[:0]
		for i, ok := range cand {
			if ok && !flag[i] {
				at = append(at, i)
			}
		}
		sc.at = at
		var lead leadCells
		if len(at) > 0 {
			sc.rows = indexRows(sc.rows, idx, at, dims)
			lead = c.leadRows(sc.rows, len(at))
		}
		for a, i := range at {
			row, e := y.RawRowView(i), 0.0
			for j, v := range lead.row(a, k) {
				if j == 0 && shifts != nil {
					v += float64(float64(shifts[i]) * step) // rounded product: no FMA
				}
				e += float64((row[j] - v) * (row[j] - v))
			}
			flag[i] = e > float64(k)*limit*limit
		}
	}
	o := &outliers{at: resize(sc.outAt, n), vals: sc.vals[:0], step: step, shift: shifts}
	defer func() { sc.outAt, sc.vals = o.at, o.vals }()
	for i, f := range flag {
		o.at[i] = -1
		if !f {
			if shifts != nil && shifts[i] != 0 {
				o.shifted++
			}
			continue
		}
		if shifts != nil {
			shifts[i] = 0
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

// restFar holds restFarAVX2's tables for the first rest quantisers of a
// channel: their safe runs (lo, span biased by 0x80000000) and their
// levels (the channel's restLevels).
type restFar struct {
	lo, span []int32
	*levelTable
}

// newRestFar returns the tables of the first len(safe) rest quantisers of
// c with safe runs safe, lo and span in sc's buffer.
func newRestFar(c *Channel, safe []cellRange, sc *encodeScratch) restFar {
	m := len(safe)
	ints := resize(sc.farInts, 2*m)
	sc.farInts = ints
	f := restFar{lo: ints[:m], span: ints[m:], levelTable: c.restLevels()}
	for j, s := range safe {
		f.lo[j], f.span[j] = s.lo, int32(s.span^0x80000000)
	}
	return f
}

// cellRange is a run of cells lo..lo+span of a quantiser.
type cellRange struct {
	lo   int32
	span uint32
}

// restSafe returns, for each rest quantiser, a run of cells where a
// coefficient cannot lie farther than limit from its level, so that
// findOutliers need not read the coefficients of those cells. The rest
// indices are the quantisers' Index (the first threshold at or above the
// value), so a value v in an inner cell q has t[q-1] < v <= t[q], and
// since rounding is monotonic and symmetric, |fl(v-L)| is at most the
// larger of fl(t[q]-L) and fl(L-t[q-1]): a cell where both are within
// limit cannot miss. The end cells are unbounded. The run is the longest
// of such cells (for the models trained so far, every inner cell); with
// none, lo is past every cell.
func (c *Channel) restSafe(limit float64) []cellRange {
	safe := make([]cellRange, len(c.Rest))
	for j, q := range c.Rest {
		t := q.Thresholds
		best, found := cellRange{lo: int32(len(q.Levels))}, false // no cell: q-lo < 0
		for i, run := 1, 0; i < len(t) && i < len(q.Levels); i++ {
			if l := q.Levels[i]; !(t[i]-l <= limit && l-t[i-1] <= limit) {
				run = 0
				continue
			}
			if run++; !found || uint32(run-1) > best.span {
				best, found = cellRange{lo: int32(i - run + 1), span: uint32(run - 1)}, true
			}
		}
		safe[j] = best
	}
	return safe
}

// appendOutliers appends the two streams of o to dst: a flag per patch
// (0 or 1) and the zigzag-coded cells as 4-byte little-endian values.
func appendOutliers(dst []byte, o *outliers, es *encodeScratch) []byte {
	es = es.or()
	b := resize(es.bytes, len(o.at)+4*len(o.vals))
	es.bytes = b
	flags, vals := b[:len(o.at)], b[len(o.at):len(o.at)]
	for i, a := range o.at {
		flags[i] = 0
		if a >= 0 {
			flags[i] = 1
		}
	}
	for _, v := range o.vals {
		vals = binary.LittleEndian.AppendUint32(vals, uint32(v<<1^v>>31))
	}
	var sc fse.Scratch
	dst = packStream(dst, flags, &sc)
	return packStream(dst, vals, &sc)
}

// parseOutlierStreams reads the headers of the two streams of
// appendOutliers for blocks patches of dims coefficients: the flags and
// the values, still entropy-coded.
func parseOutlierStreams(body []byte, blocks, dims int) ([2]packedStream, []byte, error) {
	var raw [2]packedStream
	var err error
	for k, limit := range []int64{int64(blocks), 4 * int64(blocks) * int64(dims)} {
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
