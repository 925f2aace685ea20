package patches

import (
	"image"
	"image/color"
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
