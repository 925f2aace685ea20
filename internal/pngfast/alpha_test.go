package pngfast

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestEncodeKeepsAlphaAnywhere checks that a single transparent pixel, at
// any place of an image or of a sub-image (its first and last columns and
// rows among them), sends Encode to image/png and survives: written as
// 8-bit RGB it would come back opaque. TestEncodeDecodes's translucent
// image has it at one place; an opacity check that skipped the last
// column passed it.
func TestEncodeKeepsAlphaAnywhere(t *testing.T) {
	full := image.Rect(0, 0, 11, 4)
	for _, r := range []image.Rectangle{full, image.Rect(2, 1, 9, 4)} {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				m := image.NewRGBA(full)
				for i := range m.Pix {
					m.Pix[i] = 0xff
				}
				copy(m.Pix[m.PixOffset(x, y):], []byte{0, 0, 0, 0})
				var b bytes.Buffer
				if err := Encode(&b, m.SubImage(r)); err != nil {
					t.Fatal(err)
				}
				back, err := png.Decode(&b)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, _, a := back.At(x-r.Min.X, y-r.Min.Y).RGBA(); a != 0 {
					t.Fatalf("%v of %v transparent: alpha %#x after Encode", image.Pt(x, y), r, a)
				}
			}
		}
	}
}
