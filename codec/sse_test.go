package codec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSSELanes checks sseLanesKernel (the AVX-512 kernel where it runs,
// then the AVX2 one, then Go's loop) against sseLanesGo, lane by lane to
// the bit, for every length 0..200 at offsets 0..3 (unaligned), with
// samples that are NaN, ±Inf, ±0 or subnormal, and sseLanes (rows of 37)
// against sseFloat's sum within the bound that searchDeblockAt gives it.
func TestSSELanes(t *testing.T) {
	defer func(a, b bool) { hasAVX2, hasAVX512 = a, b }(hasAVX2, hasAVX512)
	for _, on := range [][2]bool{{true, true}, {true, false}, {false, false}} {
		a, b := hasAVX2, hasAVX512
		hasAVX2, hasAVX512 = a && on[0], b && on[1]
		testSSELanes(t)
		hasAVX2, hasAVX512 = a, b
	}
}

func testSSELanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	sample := func(special bool) float64 {
		if special {
			switch rng.IntN(12) {
			case 0:
				return math.NaN()
			case 1:
				return math.Inf(1 - 2*rng.IntN(2))
			case 2:
				return math.Copysign(0, -1)
			case 3:
				return 5e-324 * float64(rng.IntN(4))
			}
		}
		return 255*rng.Float64() - 10
	}
	bits := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	kernels := 0
	for n := range 201 {
		for off := range 4 {
			special := n%3 == 0
			rec, orig := make([]float64, off+n), make([]float64, off+n)
			for i := range rec {
				rec[i], orig[i] = sample(special), sample(special)
			}
			rec, orig = rec[off:], orig[off:]
			var got, want [32]float64
			for l := range got {
				got[l] = float64(rng.IntN(3)) // lanes that already hold sums
				want[l] = got[l]
			}
			m := sseLanesKernel(rec, orig, &got)
			if m != n&^31 {
				t.Fatalf("n %d: the kernel took %d samples, want %d", n, m, n&^31)
			}
			sseLanesGo(rec, orig, m, &want)
			for l := range got {
				if !bits(got[l], want[l]) && !(math.IsNaN(got[l]) && math.IsNaN(want[l])) {
					t.Fatalf("n %d offset %d lane %d: %v, the Go loop gives %v", n, off, l, got[l], want[l])
				}
			}
			if m > 0 {
				kernels++
			}
			if special {
				continue
			}
			var lanes sseLanes
			for i := 0; i < n; i += 37 { // rows of 37
				lanes.addRow(rec[i:min(i+37, n)], orig[i:])
			}
			s, ref := lanes.sum(), sseFloat(rec, orig)
			if math.Abs(s-ref) > 4*float64(n)*0x1p-53*s {
				t.Fatalf("n %d: sseLanes %v, sseFloat %v: beyond the search's bound", n, s, ref)
			}
		}
	}
	if kernels == 0 {
		t.Fatal("no length reached the kernel")
	}
}
