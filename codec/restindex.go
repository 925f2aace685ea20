package codec

import "math"

// restTable holds the cell finders of a channel's rest quantisers
// (cellFinder) flattened for restIndicesAVX, which finds four
// dimensions' indices at once: per dimension its bucket's offset and
// scale and last bucket, and where its first table and thresholds start
// in first and t (first holds absolute positions in t). A finder without
// a table has one bucket, 0.
//
// index's scan from first[b] to the index of a value of bucket b stops
// by first[b+1] (len(t) for the last bucket): every threshold of a lower
// bucket is below the value and every one of a higher bucket above it
// (bucket is non-decreasing). The kernel takes steps, the most
// thresholds in one bucket, steps without a test of whether to go on
// (the steps past the index compare with thresholds at least the value
// and move nothing): a branch per scan step mispredicted and left the
// kernel barely faster than the Go loop. Each dimension's thresholds
// end with +Inf, so a step past them stays at len(t).
//
// Most values fall in their quantiser's dead zone (94 % of a colour
// batch's rest values, and all four of a group in 87 % of the groups:
// kodim13-24, c8b): centre holds per group of 4 dimensions their dead
// zones' bounds lo (4 values) then hi (4), zero the dead zone's index of
// each dimension, and the kernel sets a group whose four values all
// lie in lo < v <= hi to zero's indices without its gathers. The index
// of such a value is zero's, the count of the thresholds below it, as
// the scan finds for strictly increasing thresholds; a dimension whose
// thresholds are not (or has none) has the empty bounds (+Inf, -Inf), and NaN fails
// both tests.
type restTable struct {
	lo, scale, last []float64
	firstAt, tAt    []int64
	first           []int32
	t               []float64
	steps           int
	centre          []float64
	zero            []int32
}

// maxRestSteps bounds restTable.steps: quantisers with more thresholds
// in a bucket (unevenly spaced ones) keep index's loop. A dead-zone
// quantiser's buckets hold at most one.
const maxRestSteps = 3

func newRestTable(fs []cellFinder) *restTable {
	rt := &restTable{
		lo: make([]float64, len(fs)), scale: make([]float64, len(fs)), last: make([]float64, len(fs)),
		firstAt: make([]int64, len(fs)), tAt: make([]int64, len(fs)),
	}
	for j, f := range fs {
		rt.firstAt[j], rt.tAt[j] = int64(len(rt.first)), int64(len(rt.t))
		first := f.first
		if first == nil {
			first = []int32{0}
		} else {
			rt.lo[j], rt.scale[j] = f.lo, f.scale
		}
		rt.last[j] = float64(len(first) - 1)
		for b, i := range first {
			rt.first = append(rt.first, int32(rt.tAt[j])+i)
			next := int32(len(f.t))
			if b+1 < len(first) {
				next = first[b+1]
			}
			rt.steps = max(rt.steps, int(next-i))
		}
		rt.t = append(append(rt.t, f.t...), math.Inf(1))
	}
	rt.steps = max(rt.steps, 1)
	if len(rt.t) > math.MaxInt32 || rt.steps > maxRestSteps {
		return nil
	}
	groups := (len(fs) + 3) / 4
	rt.centre, rt.zero = make([]float64, 8*groups), make([]int32, 4*groups)
	for j := range 4 * groups {
		lo, hi, z := math.Inf(1), math.Inf(-1), 0
		if j < len(fs) && increasing(fs[j].t) {
			t := fs[j].t
			lo, hi = math.Inf(-1), math.Inf(1)
			for z < len(t) && t[z] < 0 {
				z++
			}
			if z > 0 {
				lo = t[z-1]
			}
			if z < len(t) {
				hi = t[z]
			}
		}
		g, l := j/4, j%4
		rt.centre[8*g+l], rt.centre[8*g+4+l], rt.zero[j] = lo, hi, int32(z)
	}
	return rt
}

// restIndices sets out[j] to rest[j].index(row[j]) for every j (the three
// of the same length), four at a time in AVX2 where the channel has a
// restTable.
func restIndices(out []int32, row []float64, rest []cellFinder, rt *restTable) {
	j := 0
	if rt != nil && hasGather {
		j = len(rest) &^ 3
		if j > 0 {
			if len(out) < j || len(row) < j || len(rt.lo) < j {
				panic("codec: restIndices: short row")
			}
			restIndicesAVX(out[:j], row[:j], rt)
		}
	}
	for ; j < len(rest); j++ {
		out[j] = int32(rest[j].index(row[j]))
	}
}
