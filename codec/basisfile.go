package codec

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/spcalab/spca/internal/gridcode"
)

// The step basis section (model files since session 15): what a channel
// of an entropy-constrained model needs to derive its quantisers and
// centres at another step (stepBasis), stored so that a process coding
// at another step (--bpp, --step, or decoding such a file) neither
// inflates the training sample nor unfolds it (about 60 % of a stepped
// one-process decode with the 8×8 model). It is computed from the
// model's own content, so it is kept out of the model ID; it carries the
// ID to refuse a section of another model. Layout (little-endian):
//
//	version u8 (1), the model's ID (32 bytes), patches n u32, k u8 (the
//	SPCA dimensions), rest u8 (1 if the sorted columns follow, 0 if the
//	training sample holds values that are not multiples of 2^-6),
//	ext (k f64), mid (2k f64),
//	norm: k columns of n f64 (sample order), each as 8 byte planes of
//	  its IEEE bits (low bytes first),
//	resp: the same, of the bits of resp XOR those of norm (almost all
//	  zero: they differ by at most a rounding),
//	if rest, per coefficient after the SPCA ones: runs u32, bytes u32,
//	  then that many bytes: the first value (zigzag varint, units of
//	  2^-6), each next value less the previous less one (uvarint), then
//	  each run's count less one (uvarint).
const stepBasisVersion = 1

// writeStepBasis writes the step basis bs of a channel with k SPCA
// dimensions of the model with ID id.
func (e *modelWriter) stepBasis(bs *stepBasis, id ModelID, k int) {
	e.u8(stepBasisVersion)
	e.put(id[:])
	e.u32(uint32(bs.n))
	e.u8(uint8(k))
	if bs.rest != nil {
		e.u8(1)
	} else {
		e.u8(0)
	}
	for _, v := range bs.ext {
		e.f64(v)
	}
	for _, m := range bs.mid {
		e.f64(m[0])
		e.f64(m[1])
	}
	n := bs.n
	col := make([]int64, n)
	for _, pass := range []int{0, 1} {
		for j := 0; j < k; j++ {
			for i := range col {
				b := math.Float64bits(bs.norm[i*k+j])
				if pass == 1 {
					b ^= math.Float64bits(bs.resp[i*k+j])
				}
				col[i] = int64(b)
			}
			gridcode.Planes(col, 8, e.put)
		}
	}
	var buf []byte
	for _, s := range bs.rest {
		buf = buf[:0]
		prev := int64(0)
		for i, v := range s.vals {
			q := int64(v / trainRes)
			if i == 0 {
				buf = binary.AppendVarint(buf, q)
			} else {
				buf = binary.AppendUvarint(buf, uint64(q-prev-1))
			}
			prev = q
		}
		for i := range s.vals {
			buf = binary.AppendUvarint(buf, uint64(s.at[i+1]-s.at[i]-1))
		}
		e.u32(uint32(len(s.vals)))
		e.u32(uint32(len(buf)))
		e.put(buf)
	}
}

// stepBasis reads a step-basis section of channel c of the model with ID
// id: the basis newStepBasis would compute from the model, if the file
// is the one written.
func (r *modelReader) stepBasis(c *Channel, id ModelID) (*stepBasis, error) {
	if v := r.u8(); r.err == nil && v != stepBasisVersion {
		return nil, &ModelError{fmt.Sprintf("step basis version %d (this build reads 1)", v)}
	}
	var got ModelID
	copy(got[:], r.take(len(got)))
	n, k, rest := r.u32(), r.u8(), r.u8()
	if r.err != nil {
		return nil, r.err
	}
	if got != id {
		return nil, &ModelError{"step basis of another model (its ID differs)"}
	}
	dims := c.Dims()
	if n != c.TrainingPatches() || k != c.Leading() || k < 1 || rest > 1 || rest == 1 && n > 1<<21 {
		return nil, &ModelError{fmt.Sprintf("step basis of %d patches, %d SPCA dimensions (rest %d) for a channel of %d, %d",
			n, k, rest, c.TrainingPatches(), c.Leading())}
	}
	// Two n×k arrays of float64, and a scratch column.
	if int64(n)*int64(k)*16 > int64(len(r.b)) || r.charge(int64(n)*int64(2*k+1)*8, "the step basis") != nil {
		return nil, cmp.Or[error](r.err, &ModelError{"step basis truncated"})
	}
	bs := &stepBasis{n: n, ext: r.f64s(k), mid: make([][2]float64, k)}
	for j := range bs.mid {
		bs.mid[j] = [2]float64{r.f64(), r.f64()}
	}
	bs.norm, bs.resp = make([]float64, n*k), make([]float64, n*k)
	col := make([]int64, n)
	for pass := 0; pass < 2 && r.err == nil; pass++ {
		for j := 0; j < k && r.err == nil; j++ {
			p := r.take(8 * n)
			if p == nil {
				break
			}
			for b := 0; b < 8; b++ {
				gridcode.AddPlane(col, p[b*n:(b+1)*n], b)
			}
			for i, u := range col {
				b := uint64(u)
				if pass == 1 {
					b ^= math.Float64bits(bs.norm[i*k+j])
				}
				v := math.Float64frombits(b)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, &ModelError{"non-finite step basis"}
				}
				if pass == 0 {
					bs.norm[i*k+j] = v
				} else {
					bs.resp[i*k+j] = v
				}
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	// ext is a range, and mid two of each column's values (those its
	// median interpolates): a crafted extent of 0 was refused as the
	// user's "invalid option" by spca (Scale values must be finite and
	// > 0), a median of 1e300 was taken.
	for j := range k {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := j; i < len(bs.norm); i += k {
			lo, hi = min(lo, bs.norm[i]), max(hi, bs.norm[i])
		}
		if !(bs.ext[j] > 0) {
			return nil, &ModelError{fmt.Sprintf("SPCA dimension %d's extent %v is not positive", j+1, bs.ext[j])}
		}
		if !(bs.mid[j][0] >= lo && bs.mid[j][0] <= hi && bs.mid[j][1] >= lo && bs.mid[j][1] <= hi) {
			return nil, &ModelError{fmt.Sprintf("SPCA dimension %d's median between %v and %v lies outside its responses [%v, %v]", j+1, bs.mid[j][0], bs.mid[j][1], lo, hi)}
		}
	}
	if rest == 0 {
		return bs, nil
	}
	bs.rest = make([]sortedColumn, dims-k)
	for j := range bs.rest {
		runs, size := r.u32(), r.u32()
		if r.err == nil && size > len(r.b) {
			return nil, &ModelError{"step basis truncated"}
		}
		if r.err == nil && (runs < 1 || runs > n) {
			return nil, &ModelError{fmt.Sprintf("step basis: column of %d runs", runs)}
		}
		if r.charge(int64(runs)*20, "the step basis") != nil {
			return nil, r.err
		}
		s, err := readRuns(r.take(size), runs, n)
		if err != nil {
			return nil, err
		}
		bs.rest[j] = s
	}
	return bs, nil
}

// readRuns decodes a sorted column of runs runs and n values written by
// writeStepBasis from p (all of it).
func readRuns(p []byte, runs, n int) (sortedColumn, error) {
	bad := func(what string) (sortedColumn, error) {
		return sortedColumn{}, &ModelError{"step basis: sorted column " + what}
	}
	s := sortedColumn{vals: make([]float64, runs), at: make([]int32, runs+1), sum: make([]int64, runs+1)}
	q := make([]int64, runs)
	for i := range q {
		if i == 0 {
			v, w := binary.Varint(p)
			if w <= 0 {
				return bad("truncated")
			}
			q[0], p = v, p[w:]
		} else {
			d, w := binary.Uvarint(p)
			if w <= 0 || d >= 1<<32 {
				return bad("truncated or out of range")
			}
			q[i], p = q[i-1]+int64(d)+1, p[w:]
		}
		if !(q[i] > -1<<31 && q[i] < 1<<31) {
			return bad("value out of range")
		}
		s.vals[i] = float64(q[i]) * trainRes
	}
	at, sum := int64(0), int64(0)
	for i := range q {
		d, w := binary.Uvarint(p)
		if w <= 0 || d >= uint64(n) {
			return bad("truncated or count out of range")
		}
		p = p[w:]
		at += int64(d) + 1
		sum += (int64(d) + 1) * q[i]
		if at > int64(n) {
			return bad("counts exceed the patches")
		}
		s.at[i+1], s.sum[i+1] = int32(at), sum
	}
	if at != int64(n) || len(p) != 0 {
		return bad("counts or length do not match")
	}
	return s, nil
}
