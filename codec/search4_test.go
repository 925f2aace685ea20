package codec

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestSearch4 checks search4 (assembly on amd64) against search4Go from
// random states of refine4's search: small grids whose cells reach
// their edges, a cache of 64 slots whose cells collide and miss (each
// miss filled as refine4 fills it, and the search resumed), inverses on a
// coarse grid so that moves tie (the first tried wins), and rate weights
// from none to one that forbids every move. The two must stop at the
// same misses and end in the same state, field by field.
func TestSearch4(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 41))
	moved, misses, longest := 0, 0, 0
	for trial := range 20000 {
		var p refine4Run
		for j := range 4 {
			p.top[j] = 1 + rng.IntN(6)
			p.ctr[j] = rng.IntN(p.top[j])
		}
		s := uint64(1)
		for j := 3; j >= 0; j-- {
			p.st[j] = s
			s *= uint64(p.top[j])
		}
		p.lambda = []float64{0, 0.01, 0.25, 1, 100}[rng.IntN(5)]
		// inverse is a cell's inverse: a curved grid in steps of 1/4.
		inverse := func(cell *[4]int) [4]float64 {
			var v [4]float64
			for j := range v {
				c := float64(cell[j])
				v[j] = float64(int(4*(c+0.1*c*float64(cell[(j+1)%4])))) / 4
			}
			return v
		}
		var out [4]int32
		for j := range out {
			out[j] = int32(rng.IntN(p.top[j]))
		}
		var x [4]float64
		for j := range x {
			x[j] = float64(out[j]) + float64(rng.IntN(9)-4)/4
		}
		// Two caches of 64 slots, refine4's layout (newCellCache's).
		caches := [2]*cellCache{newCellCache(4, 6), newCellCache(4, 6)}
		put := func(k int, h, key uint64, v [4]float64) {
			caches[k].slots[h*8] = key + 1
			copy(caches[k].row(int(h)), v[:])
		}
		// Some slots hold cells (right or colliding) from the start.
		for range rng.IntN(64) {
			var cell [4]int
			for j := range cell {
				cell[j] = rng.IntN(p.top[j])
			}
			key := uint64(cell[0])*p.st[0] + uint64(cell[1])*p.st[1] + uint64(cell[2])*p.st[2] + uint64(cell[3])*p.st[3]
			h := (key * 0x9E3779B97F4A7C15) >> 32 & 63
			v := inverse(&cell)
			for k := range 2 {
				put(k, h, key, v)
			}
		}
		var ps [2]refine4Run
		for k := range 2 {
			q := &ps[k]
			*q = p
			q.x, q.slots, q.mask = &x, unsafe.Pointer(&caches[k].slots[0]), 63
			q.start(&out)
			// The cell's own inverse, as refine4 finds it.
			h := (q.key * 0x9E3779B97F4A7C15) >> 32 & 63
			v := inverse(&q.cell)
			put(k, h, q.key, v)
			q.best = dist4(&v, q.x) + q.lambda*float64(q.r)
		}
		start := ps[0].cell
		for call := 0; ; call++ {
			if call > 100 {
				t.Fatalf("trial %d: no end after %d calls", trial, call)
			}
			missGo, miss := search4Go(&ps[0]), search4(&ps[1])
			a, b := ps[0], ps[1]
			a.x, b.x, a.slots, b.slots = nil, nil, nil, nil
			if missGo != miss || a != b {
				t.Fatalf("trial %d call %d: search4 returned %v with state\n%+v\nsearch4Go %v with\n%+v", trial, call, miss, b, missGo, a)
			}
			if !miss {
				break
			}
			misses++
			for k := range 2 {
				q := &ps[k]
				j, d := q.c>>1, q.c&1*2-1
				try := q.cell
				try[j] += d
				key := q.key + uint64(d)*q.st[j]
				h := (key * 0x9E3779B97F4A7C15) >> 32 & 63
				put(k, h, key, inverse(&try))
			}
		}
		if ps[0].cell != start {
			moved++
		}
		if ps[0].move == maxRefine {
			longest++
		}
	}
	t.Logf("%d of 20000 searches moved, %d of them maxRefine times; %d misses resumed", moved, longest, misses)
	if moved < 2000 || longest < 200 || misses < 2000 {
		t.Errorf("too few moves (%d), searches to maxRefine (%d) or misses (%d) to exercise the search", moved, longest, misses)
	}
}
