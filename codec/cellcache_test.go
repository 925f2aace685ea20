package codec

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
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

// TestCellCacheHint checks the addresses hint gives refineNearest's
// prefetches: a cell's slot (key and row) and its neighbours' one bin
// away in each dimension, none beyond the bins (at the first and last
// bin of a dimension a neighbour is missing), and no more than
// maxHintDims dimensions' neighbours; hint4 and hintLines4 the same as hint
// for k = 4.
func TestCellCacheHint(t *testing.T) {
	for _, k := range []int{1, 4, maxHintDims + 2} {
		bins := make([]int, k)
		for j := range bins {
			bins[j] = 3 + j
		}
		strides := make([]uint64, k)
		p := uint64(1)
		for j := k - 1; j >= 0; j-- {
			strides[j] = p
			p *= uint64(bins[j])
		}
		cc := newCellCache(k, 6)
		// A slot's lines: its first and, if another, its last.
		addr := func(key uint64) []uintptr {
			h := cc.slot(key)
			a := uintptr(unsafe.Pointer(&cc.slots[h*cc.sw]))
			b := uintptr(unsafe.Pointer(&cc.row(h)[k-1]))
			if a>>6 == b>>6 {
				return []uintptr{a}
			}
			return []uintptr{a, b}
		}
		rng := rand.New(rand.NewPCG(3, uint64(k)))
		for trial := 0; trial < 200; trial++ {
			cell := make([]int32, k)
			var key uint64
			for j := range cell {
				switch rng.IntN(3) {
				case 0:
					cell[j] = 0
				case 1:
					cell[j] = int32(bins[j] - 1)
				default:
					cell[j] = int32(rng.IntN(bins[j]))
				}
				key += uint64(cell[j]) * strides[j]
			}
			var pf [maxPrefetch]uintptr
			pf[0], pf[1] = 7, 9 // before n: kept
			n := cc.hint(&pf, 2, key, cell, strides, bins)
			want := []uintptr{7, 9}
			want = append(want, addr(key)...)
			for j := 0; j < min(k, maxHintDims); j++ {
				if cell[j] > 0 {
					want = append(want, addr(key-strides[j])...)
				}
				if int(cell[j]) < bins[j]-1 {
					want = append(want, addr(key+strides[j])...)
				}
			}
			if !slices.Equal(pf[:n], want) {
				t.Fatalf("k %d, cell %v: hint gave %d addresses %v, want %d %v", k, cell, n, pf[:n], len(want), want)
			}
			if k == 4 {
				// refine4's layout: a slot a line, aligned.
				if len(addr(key)) != 1 || cc.sw*8 != slot4Bytes || uintptr(unsafe.Pointer(&cc.slots[0]))&63 != 0 {
					t.Fatalf("k = 4: a slot of %d bytes (refine4's %d) in %d lines, slots at %p", cc.sw*8, slot4Bytes, len(addr(key)), &cc.slots[0])
				}
				p := refine4Run{slots: unsafe.Pointer(&cc.slots[0]), mask: uint64(cc.mask),
					st: [4]uint64(strides), top: [4]int(bins)}
				for _, hint := range []func(*[maxPrefetch]uintptr) int{
					func(pf *[maxPrefetch]uintptr) int { return hint4(&p, pf, 2, key, (*[4]int32)(cell)) },
					func(pf *[maxPrefetch]uintptr) int { return hintLines4(&p, pf, 2, key, (*[4]int32)(cell)) },
				} {
					var pf4 [maxPrefetch]uintptr
					pf4[0], pf4[1] = 7, 9
					if n := hint(&pf4); !slices.Equal(pf4[:n], want) {
						t.Fatalf("cell %v: hint4 or hintLines4 gave %d addresses %v, want %d %v", cell, n, pf4[:n], len(want), want)
					}
				}
			}
		}
	}
}

// TestTakeCellCacheSize checks the caches' sizes: 2^12 slots for a plane
// of 1536 patches, 2^14 for 6144 and more; a kept cache too small for a
// plane is not handed out for it, a larger one is.
func TestTakeCellCacheSize(t *testing.T) {
	for _, c := range []struct{ patches, bits int }{{0, 10}, {1, 10}, {300, 10}, {1536, 12}, {2047, 12}, {2048, 13}, {6144, 14}, {24576, 14}, {1 << 30, 14}} {
		if got := cellCacheBitsFor(c.patches); got != c.bits {
			t.Errorf("cellCacheBitsFor(%d) = %d, want %d", c.patches, got, c.bits)
		}
	}
	m := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 3, 12, 0 })
	c := m.Channels[0]
	small := c.takeCellCache(1536)
	if small.mask+1 != 1<<12 {
		t.Fatalf("a cache of %d slots for 1536 patches", small.mask+1)
	}
	c.putCellCache(small)
	large := c.takeCellCache(6144)
	if large == small || large.mask+1 != 1<<14 {
		t.Fatalf("a cache of %d slots for 6144 patches (the small one: %v)", large.mask+1, large == small)
	}
	c.putCellCache(large)
	if got := c.takeCellCache(1536); got != large {
		t.Error("the kept cache of 2^14 slots not handed out for 1536 patches")
	}
}
