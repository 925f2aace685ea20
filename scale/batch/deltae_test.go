package batch

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"
)

// TestMeanDeltaE checks the manifest's ΔE*ab against published CIELAB
// values of sRGB colours (D65): black to white is 100, black to sRGB red
// (53.2408, 80.0925, 67.2032) is 117.33; half the pixels so gives half of
// it; the two images may have other origins. TestAdaptMatchesCLI checks
// only that ΔE is positive and finite: a ΔE relative to another white, or
// over mismatched pixels of sub-images, passed it.
func TestMeanDeltaE(t *testing.T) {
	fill := func(r image.Rectangle, c color.Color) *image.RGBA {
		m := image.NewRGBA(r)
		draw.Draw(m, r, image.NewUniform(c), image.Point{}, draw.Src)
		return m
	}
	black := fill(image.Rect(0, 0, 40, 30), color.Black)
	red := color.RGBA{255, 0, 0, 255}
	for _, c := range []struct {
		name string
		b    image.Image
		want float64
	}{
		{"white", fill(image.Rect(0, 0, 40, 30), color.White), 100},
		{"red", fill(image.Rect(0, 0, 40, 30), red), 117.327},
		{"red, other origin", fill(image.Rect(5, 7, 45, 37), red), 117.327},
		{"black", black, 0},
	} {
		if got := meanDeltaE(black, c.b); math.Abs(got-c.want) > 0.01 {
			t.Errorf("black against %s: ΔE %.4f, want %.3f", c.name, got, c.want)
		}
	}
	// The left half red, in a sub-image of a larger image.
	half := fill(image.Rect(0, 0, 60, 50), color.Black)
	draw.Draw(half, image.Rect(10, 10, 30, 40), image.NewUniform(red), image.Point{}, draw.Src)
	if got := meanDeltaE(black, half.SubImage(image.Rect(10, 10, 50, 40))); math.Abs(got-117.327/2) > 0.01 {
		t.Errorf("black against half red: ΔE %.4f, want %.3f", got, 117.327/2)
	}
}
