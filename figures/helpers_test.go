package figures

import (
	"math"
	"testing"
)

// TestInterpAt checks the interpolation behind the summary's "at equal
// rate" PSNR differences: exact on a line, at the knots and between them,
// NaN outside the curve and on an empty one. TestQuick checks only that
// the numbers are finite: an interpolation 10 % short passed it.
func TestInterpAt(t *testing.T) {
	// A function linear between the knots (a kink at 1): its
	// interpolation is itself.
	f := func(x float64) float64 { return 30 + 2*x + 3*math.Abs(x-1) }
	xs := []float64{0.25, 0.5, 1, 2, 4}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = f(x)
	}
	for _, x := range []float64{0.25, 0.3, 0.5, 0.75, 1, 1.5, 3.999, 4} {
		if got := interpAt(xs, ys, x); math.Abs(got-f(x)) > 1e-12 {
			t.Errorf("interpAt(%v) = %v, want %v", x, got, f(x))
		}
	}
	for _, x := range []float64{0.2, 4.01, math.NaN()} {
		if got := interpAt(xs, ys, x); !math.IsNaN(got) {
			t.Errorf("interpAt(%v) outside the curve = %v, want NaN", x, got)
		}
	}
	if got := interpAt(nil, nil, 1); !math.IsNaN(got) {
		t.Errorf("interpAt on no curve = %v", got)
	}
}
