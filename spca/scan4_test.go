package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScanNodes4 checks scanNodes4, by its kernel where the CPU has AVX2
// and by its Go loop, against the scan by dist2 (scanNearest, nodeTree's
// reference): the first of the closest points, ties included. Points on an
// integer grid with repeats queried at grid and half-grid points (many
// equidistant points in different lanes), random points, far queries
// (products overflowing to +Inf), NaN in a query and in points, ±Inf and
// -0 coordinates; 0-40 points and 4096 (the restart nodes), the columns
// at an unaligned start.
func TestScanNodes4(t *testing.T) {
	defer func(k bool) { hasScan4Kernel = k }(hasScan4Kernel)
	if !hasScan4Kernel {
		t.Log("no AVX2: the Go loop only")
	}
	kernels := []bool{hasScan4Kernel, false}
	rng := rand.New(rand.NewPCG(31, 32))
	special := []float64{math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), 0, 1e300, -1e300}
	for trial := range 3000 {
		n := trial % 41
		if trial%50 == 0 {
			n = restartNodes
		}
		x := make([]float64, 4*n)
		for i := range x {
			switch trial % 4 {
			case 0:
				x[i] = float64(rng.IntN(4))
			case 1:
				x[i] = rng.NormFloat64()
			case 2:
				x[i] = float64(rng.IntN(3)) / 2
			default:
				x[i] = float64(rng.IntN(5))
				if rng.IntN(20) == 0 {
					x[i] = special[rng.IntN(len(special))]
				}
			}
		}
		var z [4]float64
		for j := range z {
			switch rng.IntN(5) {
			case 0:
				z[j] = float64(rng.IntN(9)) / 2
			case 1:
				z[j] = 1e200 * rng.NormFloat64()
			case 2:
				z[j] = special[rng.IntN(len(special))]
			default:
				z[j] = 4 * rng.Float64()
			}
		}
		want := scanNearest(x, 4, z[:])
		// Columns at an odd offset: the kernel's loads unaligned.
		cols := append(make([]float64, 1, 1+4*n), columns4(x)...)[1:]
		for _, on := range kernels {
			hasScan4Kernel = on
			if got := scanNodes4(cols, n, &z); got != want {
				t.Fatalf("%d points, query %v, kernel %v: point %d, the scan gives %d", n, z, on, got, want)
			}
		}
	}
}
