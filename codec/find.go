package codec

import "math"

// cellFinder finds the cell of a value among a quantiser's thresholds as
// ScalarQuantizer.Index does (the first threshold not below the value) in
// constant time on average: a uniform table over the thresholds' span
// gives where to start, and a short scan ends it. Encoding asks for a
// cell for every coefficient of every patch; a binary search over the
// hundreds of cells of the entropy-constrained mode took a tenth of the
// time of a 4×4 encode.
type cellFinder struct {
	t     []float64
	lo    float64
	scale float64
	// first[b] counts the thresholds in buckets before b: all of them are
	// below any value of bucket b, because bucket is non-decreasing.
	first []int32
}

// findBuckets is the number of buckets per threshold.
const findBuckets = 4

func newCellFinder(t []float64) cellFinder {
	f := cellFinder{t: t}
	if len(t) < 2 || !(t[len(t)-1] > t[0]) {
		return f // no table: the scan from 0 is as short
	}
	nb := findBuckets * len(t)
	f.lo = t[0]
	f.scale = float64(nb) / (t[len(t)-1] - t[0])
	if math.IsInf(f.scale, 0) {
		return cellFinder{t: t}
	}
	f.first = make([]int32, nb+1)
	i := 0
	for b := range f.first {
		for i < len(t) && f.bucket(t[i]) < b {
			i++
		}
		f.first[b] = int32(i)
	}
	return f
}

// bucket is a non-decreasing function of v (IEEE subtraction and
// multiplication round monotonically), clamped to the table.
func (f *cellFinder) bucket(v float64) int {
	x := (v - f.lo) * f.scale
	switch {
	case !(x >= 0):
		return 0
	case x >= float64(len(f.first)-1):
		return len(f.first) - 1
	}
	return int(x)
}

// index returns the smallest i with t[i] >= v, or len(t).
func (f *cellFinder) index(v float64) int {
	i := 0
	if f.first != nil {
		i = int(f.first[f.bucket(v)])
	}
	for i < len(f.t) && f.t[i] < v {
		i++
	}
	return i
}

// finders returns the cell finders of the channel's quantisers (the SPCA
// responses' in the entropy-constrained mode, then the rest), built on
// first use.
func (c *Channel) finders() (lead, rest []cellFinder) {
	c.findOnce.Do(func() {
		c.leadFind = make([]cellFinder, len(c.Lead))
		for j, q := range c.Lead {
			c.leadFind[j] = newCellFinder(q.Thresholds)
		}
		c.restFind = make([]cellFinder, len(c.Rest))
		for j, q := range c.Rest {
			c.restFind[j] = newCellFinder(q.Thresholds)
		}
		c.restTab = newRestTable(c.restFind)
	})
	return c.leadFind, c.restFind
}

// levelTable holds the levels of a channel's rest quantisers in one
// slice, for levelsAVX2 and restFarAVX2: dimension j's start in flat and its count,
// biased by 0x80000000 (the kernel compares them signed).
type levelTable struct {
	at, lenB []int32
	flat     []float64
	// ctr and ctrLev: each dimension's centre index and its level
	// (levelsCentreAVX2), nil if a centre lies outside its levels.
	ctr    []int32
	ctrLev []float64
}

// restLevels returns the levels of the channel's rest quantisers in one
// table, built on first use; nil if they are too many for int32 places.
func (c *Channel) restLevels() *levelTable {
	c.levOnce.Do(func() {
		t := &levelTable{at: make([]int32, len(c.Rest)), lenB: make([]int32, len(c.Rest))}
		for j, q := range c.Rest {
			t.at[j], t.lenB[j] = int32(len(t.flat)), int32(uint32(len(q.Levels))^0x80000000)
			t.flat = append(t.flat, q.Levels...)
			if len(t.flat) > math.MaxInt32 {
				return
			}
		}
		k := c.Leading()
		t.ctr, t.ctrLev = make([]int32, len(c.Rest)), make([]float64, len(c.Rest))
		for j, q := range c.Rest {
			ctr := -1
			if k+j < len(c.Centre) {
				ctr = c.Centre[k+j]
			}
			if ctr < 0 || ctr >= len(q.Levels) {
				t.ctr, t.ctrLev = nil, nil
				break
			}
			t.ctr[j], t.ctrLev[j] = int32(ctr), q.Levels[ctr]
		}
		c.restLev = t
	})
	return c.restLev
}
