package patches

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

func TestHasChroma(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for i := range rgba.Pix {
		rgba.Pix[i] = 200
	}
	if HasChroma(rgba) {
		t.Error("a grey RGBA image has chroma")
	}
	rgba.Set(3, 2, color.RGBA{200, 201, 200, 255})
	if !HasChroma(rgba) {
		t.Error("one coloured pixel, the last, not seen")
	}
	if HasChroma(image.NewGray16(image.Rect(0, 0, 2, 2))) {
		t.Error("a Gray16 image has chroma")
	}
	ycc := image.NewYCbCr(image.Rect(0, 0, 2, 2), image.YCbCrSubsampleRatio420)
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = 128, 128
	}
	if HasChroma(ycc) {
		t.Error("a YCbCr image with neutral chroma has chroma")
	}
	ycc.Cr[0] = 200
	if !HasChroma(ycc) {
		t.Error("a YCbCr image with red chroma has none")
	}
}

// The byte scans of RGBA and NRGBA images answer as At does, on random
// images with few coloured pixels (low alphas among them), sub-images
// included.
func TestHasChromaFastPathsAsAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	byAt := func(img image.Image) bool {
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r != g || g != bl {
					return true
				}
			}
		}
		return false
	}
	seen := map[bool]int{}
	for trial := range 400 {
		r := image.Rect(rng.IntN(5)-2, rng.IntN(5)-2, 3+rng.IntN(6), 3+rng.IntN(6))
		rgba, nrgba := image.NewRGBA(r), image.NewNRGBA(r)
		for i := 0; i < len(rgba.Pix); i += 4 {
			v, a := uint8(rng.IntN(256)), uint8(rng.IntN(256))
			if trial%3 == 0 {
				a = uint8(rng.IntN(3)) // premultiplied to equal values
			}
			copy(rgba.Pix[i:], []uint8{v, v, v, 255})
			copy(nrgba.Pix[i:], []uint8{v, v, v, a})
			if rng.IntN(40) == 0 {
				rgba.Pix[i+rng.IntN(3)] ^= 1
				nrgba.Pix[i+rng.IntN(3)] += uint8(1 + rng.IntN(20))
			}
		}
		sub := image.Rect(r.Min.X+1, r.Min.Y+1, r.Max.X, r.Max.Y)
		for _, img := range []image.Image{rgba, nrgba, rgba.SubImage(sub), nrgba.SubImage(sub)} {
			want := byAt(img)
			seen[want]++
			if got := HasChroma(img); got != want {
				t.Fatalf("trial %d, %T %v: HasChroma %v, At says %v", trial, img, img.Bounds(), got, want)
			}
		}
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("cases with chroma / without: %d / %d, want both >= 100", seen[true], seen[false])
	}
}
