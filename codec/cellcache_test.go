package codec

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCellCache checks that the cache of cell inverses returns exactly
// the inverse of the cell asked for, many cells sharing its few slots,
// cells asked for again at random.
func TestCellCache(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 3, 12, 0 })
	c := m.Channels[0]
	li := c.levelInverse()
	strides := c.cellStrides()
	if li == nil || strides == nil {
		t.Fatal("gamma-0 model without a separable inverse or cell numbers")
	}
	k := c.Leading()
	cc := newCellCache(k, 8) // 256 slots: cells collide
	s := c.SPCA.NewMetricScratch()
	rng := rand.New(rand.NewPCG(1, 2))
	cell, want := make([]int, k), make([]float64, k)
	var seen [][]int
	for trial := 0; trial < 20000; trial++ {
		if len(seen) > 0 && rng.IntN(3) == 0 {
			copy(cell, seen[rng.IntN(len(seen))])
		} else {
			for j := range cell {
				cell[j] = rng.IntN(c.Bins[j])
			}
			seen = append(seen, slices.Clone(cell))
		}
		var key uint64
		for j, v := range cell {
			key += uint64(v) * strides[j]
		}
		got := cc.invert(li, cell, key, s)
		li.Invert(want, cell, s)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, cell %v: cached %v, inverse %v", trial, cell, got, want)
		}
	}
}
