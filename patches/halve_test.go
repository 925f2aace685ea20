package patches

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHalveRowsKernel checks halveRows with its AVX2 kernel against its
// Go loop, bit for bit (NaN for NaN), on rows of 0-41 samples with
// values of every kind (infinities, signed zeros, subnormals, values
// whose sum rounds), into destinations of every length up to the
// means: the kernel must sum in Halve's order.
func TestHalveRowsKernel(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2: the Go loop only")
	}
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	special := []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 5e-324, 1e308, -1e308, 1 + 0x1p-52, 0x1p53}
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 2000 {
		w := trial % 42
		r0, r1 := make([]float64, w), make([]float64, w)
		for _, r := range [][]float64{r0, r1} {
			for i := range r {
				r[i] = 255 * rng.Float64()
				if rng.IntN(8) == 0 {
					r[i] = special[rng.IntN(len(special))]
				}
			}
		}
		n := (w + 1) / 2
		if trial%3 == 1 {
			n = rng.IntN(n + 1)
		}
		var got [2][]float64
		for k, on := range []bool{kernel, false} {
			hasAVX2 = on
			got[k] = make([]float64, n+2)
			halveRows(got[k][:n], r0, r1)
		}
		for x := range got[0] {
			a, b := got[0][x], got[1][x]
			if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("width %d, %d means: mean %d is %v by the kernel, %v by Go", w, n, x, a, b)
			}
		}
	}
}
