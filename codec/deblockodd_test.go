package codec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearchDeblockAtOddSizes checks the deblocking search against the
// reference written before its kernels (searchDeblockAtRef), bit for bit,
// with the kmin kernels on and off, on planes of every width and height
// around the patch size: planes with no edge (narrower than n+2), one
// edge, edges whose rows leave 1-3 edges to the Go loop after the
// kernels' steps of 4, and bands cut by the plane's bottom; patches of
// 4, 5, 7 and 8 samples (searchDeblockFloat takes smaller patches, whose
// edges' samples overlap, to deblockErrors).
func TestSearchDeblockAtOddSizes(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(21, 16))
	bits := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	moved := 0
	for _, n := range []int{4, 5, 7, 8} {
		sizes := []int{1, 2, n, n + 1, n + 2, n + 3, 2*n + 1, 4*n + 2, 5*n + 3, 9*n + 1}
		for i, w := range sizes {
			for j, h := range sizes {
				trial := (i + j) % 4
				rec := blockyPlane(rng, w, h, n, trial, true)
				orig := rec.Clone()
				for k := range orig.Pix {
					orig.Pix[k] += rng.NormFloat64() * float64(1+trial)
				}
				step := []float64{15, 60, 200}[(i+2*j)%3]
				params := func(k int) (alpha, beta, tc float64) { return deblockParams(k, step, n) }
				want := searchDeblockAtRef(orig, rec, n, params)
				for _, on := range []bool{kernel, false} {
					hasAVX2 = on
					got := searchDeblockAt(orig, rec, n, params, 1)
					if !bits(got.errs, want.errs) || !bits(got.bound, want.bound) || !slices.Equal(got.same, want.same) {
						t.Fatalf("%dx%d, n %d, step %v, kernels %v: errors %v bounds %v same %v, the reference gives %v %v %v",
							w, h, n, step, on, got.errs, got.bound, got.same, want.errs, want.bound, want.same)
					}
				}
				if !want.same[maxDeblock] {
					moved++
				}
			}
		}
	}
	if moved < 100 {
		t.Fatalf("the deblocking moved samples in only %d of %d searches", moved, 4*100)
	}
	t.Log(fmt.Sprintf("%d searches moved samples", moved))
}
