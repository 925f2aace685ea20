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
// Most values fall in their quantiser's dead zone or next to it (94 %
// of a colour batch's rest values in the zone, and all four of a group in
// 87 % of the groups: kodim13-24, c8b). near holds per group of 4
// dimensions a window of three cells around each zone, the cells s, s+1
// and s+2 of thresholds t[s-1] < v <= t[s+2] (s = z-1, the zone z, moved
// into the thresholds at the ends, ±Inf past them): the window's bounds
// lo (4 values), hi (4), then t[s] (4) and t[s+1] (4); base holds s per
// dimension. The kernel sets a group whose four values all lie in their
// windows to s + [t[s] < v] + [t[s+1] < v], without its gathers: the
// count of the thresholds below v, which is what the scan finds for
// strictly increasing thresholds (or none: a window of all but -Inf,
// index 0; the colour model's chroma has such dimensions, which sent
// every group holding one to the gathers). A dimension
// whose thresholds do not increase has the empty window (+Inf, -Inf),
// and NaN fails both tests.
type restTable struct {
	lo, scale, last []float64
	firstAt, tAt    []int64
	first           []int32
	t               []float64
	steps           int
	near            []float64
	base            []int64
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
	rt.near, rt.base = make([]float64, 16*groups), make([]int64, 4*groups)
	inf := math.Inf(1)
	for j := range 4 * groups {
		lo, hi, m1, m2, b := inf, -inf, inf, inf, 0
		if j < len(fs) && (len(fs[j].t) == 0 || increasing(fs[j].t)) {
			t := fs[j].t
			z := 0
			for z < len(t) && t[z] < 0 {
				z++
			}
			b = max(0, min(z-1, len(t)-2))
			at := func(i int, out float64) float64 {
				if i < 0 || i >= len(t) {
					return out
				}
				return t[i]
			}
			lo, hi, m1, m2 = at(b-1, -inf), at(b+2, inf), at(b, inf), at(b+1, inf)
		}
		g, l := j/4, j%4
		rt.near[16*g+l], rt.near[16*g+4+l], rt.near[16*g+8+l], rt.near[16*g+12+l] = lo, hi, m1, m2
		rt.base[j] = int64(b)
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
