package codec

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDeblockGray checks that the 8-bit filter of the decoder
// (deblockGray) sets the same pixels as deblockEdges with rounding and
// clamping accessors, on smooth and noisy images (some edges filtered,
// some not, some clamped), at every strength and several steps.
func TestDeblockGray(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const w, h, n = 37, 29, 4
	for trial := 0; trial < 6; trial++ {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			v := 128 + 100*math.Sin(float64(i%w)/7+float64(trial)) + float64(rng.IntN(1+8*trial))
			img.Pix[i] = uint8(math.Max(0, math.Min(255, v)))
		}
		for k := 1; k <= maxDeblock; k++ {
			for _, step := range []float64{4, 15, 60} {
				alpha, beta, tc := deblockParams(k, step, n)
				want := bytes.Clone(img.Pix)
				get := func(i int) float64 { return float64(want[i]) }
				set := func(i int, v float64) { want[i] = uint8(math.Max(0, math.Min(255, math.Round(v)))) }
				deblockEdges(get, set, w, w, h, n, alpha, beta, tc)
				got := bytes.Clone(img.Pix)
				deblockGray(got, w, w, h, n, alpha, beta, tc)
				if !bytes.Equal(got, want) {
					t.Fatalf("trial %d, strength %d, step %g: deblockGray differs from deblockEdges", trial, k, step)
				}
				if trial == 5 && k == maxDeblock && step == 60 && bytes.Equal(got, img.Pix) {
					t.Fatal("no pixel filtered: the test exercises nothing")
				}
			}
		}
	}
}
