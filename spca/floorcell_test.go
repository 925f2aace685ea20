package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloorCell compares floorCell with the clamp of math.Floor it
// replaces on values around every boundary: NaN, ±Inf, ±0, whole and
// half numbers, values below 0 and past the top, beyond 2^63, random
// ones; tops from -2 up. Planted bugs fail it: int(p)+1, int(p+0.5), a
// missing lower clamp.
func TestFloorCell(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.5, 1, 1.5, 2, 2.999999, 3,
		-0.5, -1, -1.5, 1e300, -1e300, math.Ldexp(1, 63), -math.Ldexp(1, 63), math.Ldexp(1, 62), math.Nextafter(1, 0)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		vals = append(vals, (rng.Float64()-0.3)*40)
	}
	for _, top := range []int{-2, -1, 0, 1, 2, 14, 30} {
		for _, p := range vals {
			want := max(0, min(top, int(math.Floor(p))))
			if got := floorCell(p, top); got != want {
				t.Fatalf("floorCell(%v, %d) = %d, want %d", p, top, got, want)
			}
		}
	}
}
