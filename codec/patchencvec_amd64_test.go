package codec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPatchEncVector codes random patches of 1 to 64 dimensions through
// patchEncDual with its AVX-512 prologue (patchRun's vec) and without,
// from the same coder and model: the same bytes, coder state,
// probabilities and patch state (listed dimensions, counts). The rows
// hold residuals of every size (Exp-Golomb ones too) and neighbours at
// every distance (capped at arDevMax, and far beyond), and a patch's
// dimensions need not fill the prologue's last 16 lanes.
func TestPatchEncVector(t *testing.T) {
	if !patchEncVector {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(25, 1))
	value := func(c int32) int32 {
		switch r := rng.IntN(10); {
		case r < 5:
			return c
		case r < 8:
			return c + int32(rng.IntN(7)) - 3
		case r < 9:
			return c + int32(rng.IntN(61)) - 30
		default:
			return c + int32(rng.IntN(2001)) - 1000
		}
	}
	dimsList := []int{1, 2, 3, 15, 16, 17, 31, 32, 33, 36, 48, 63, 64}
	for range 24 {
		dimsList = append(dimsList, 1+rng.IntN(64))
	}
	for _, dims := range dimsList {
		for trial := range 30 {
			centre := make([]int32, dims)
			row, left, up := make([]int32, dims), make([]int32, dims), make([]int32, dims)
			for j := range centre {
				centre[j] = int32(rng.IntN(4000))
				row[j], left[j], up[j] = value(centre[j]), value(centre[j]), value(centre[j])
			}
			if rng.IntN(4) == 0 { // a missing neighbour stands at the centre
				copy(left, centre)
			}
			lead := 1 + rng.IntN(dims)
			from := 1 + rng.IntN(dims)
			counted := 0
			for j := from; j < dims; j++ {
				if row[j] != centre[j] {
					counted++
				}
			}
			model := newARModel(dims)
			// Probabilities off one half, as a coded image leaves them.
			for k := range 50 * dims {
				e := newRangeEncoder(true)
				d := &model.dims[rng.IntN(dims)]
				e.bit(&d.zero[rng.IntN(arActivity)][rng.IntN(arBusy)], k&1)
				e.bit(&d.sign[rng.IntN(3)], rng.IntN(2))
				e.bit(&d.mag[rng.IntN(3)][rng.IntN(arMaxUnary)], rng.IntN(2))
			}
			start := newRangeEncoder(true)
			start.low, start.rng = rng.Uint64N(1<<32), 1<<24+rng.Uint32N(0xFFFFFFFF-1<<24)
			start.cache, start.cacheSize = byte(rng.IntN(256)), 1+rng.IntN(3)
			start.out = []byte{1, 2, 3}
			act0 := rng.IntN(arActivity)
			type result struct {
				out       []byte
				low       uint64
				rng       uint32
				cache     byte
				size      int
				model     *arModel
				listed    []int32
				j, nl     int
				cnt, bcur int
			}
			code := func(vec int) result {
				m := newARModel(dims)
				copy(m.dims, model.dims)
				m.flag, m.count, m.countExp = model.flag, model.count, model.countExp
				e := *start
				e.out = slices.Clone(start.out)
				listed := make([]int32, dims)
				c := slices.Clone(centre)
				pe := &patchRun{centre: &c[0], listed: &listed[0], lead: lead, dims: dims, vec: vec}
				pe.row, pe.act0 = &row[0], act0
				pe.j, pe.end, pe.cnt, pe.step, pe.boff, pe.bcur = 0, min(from, dims), 0, 1, 0, int(arBusyCounts[0])
				pe.rest, pe.counted = min(counted, 1), counted
				if from < dims {
					pe.pending = 1
					pe.flag = &m.flag[rng.IntN(contexts)][0]
					pe.count = &m.count[0][0]
				}
				room := 2 * ((2+arMaxUnary)*dims + 1 + arMaxUnary)
				e.out = slices.Grow(e.out, e.cacheSize+room)
				if st := patchEncDual(&e, &m.dims[0], &left[0], &up[0], pe); st != 0 {
					e.patchEncRest(st, pe, m, m.dims, left, up, row, c, listed, room)
				}
				return result{e.out, e.low, e.rng, e.cache, e.cacheSize, m, listed[:pe.nl], pe.j, pe.nl, pe.cnt, pe.bcur}
			}
			seed := rng.Uint64()
			rng = rand.New(rand.NewPCG(seed, 2))
			a := code(0)
			rng = rand.New(rand.NewPCG(seed, 2))
			b := code(1)
			if !bytes.Equal(a.out, b.out) || a.low != b.low || a.rng != b.rng || a.cache != b.cache || a.size != b.size {
				t.Fatalf("%d dimensions, trial %d: the prologue codes other bytes or leaves another coder", dims, trial)
			}
			if !slices.Equal(a.listed, b.listed) || a.j != b.j || a.nl != b.nl || a.cnt != b.cnt || a.bcur != b.bcur {
				t.Fatalf("%d dimensions, trial %d: the patch's state differs: %+v against %+v", dims, trial,
					[]int{a.j, a.nl, a.cnt, a.bcur}, []int{b.j, b.nl, b.cnt, b.bcur})
			}
			if !slices.Equal(a.model.dims, b.model.dims) || a.model.flag != b.model.flag || a.model.count != b.model.count {
				t.Fatalf("%d dimensions, trial %d: the probabilities differ", dims, trial)
			}
		}
	}
}
