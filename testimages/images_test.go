package testimages

import (
	"bytes"
	"math"
	"testing"
)

func TestTexture(t *testing.T) {
	a := Texture(97, 61, 1)
	if b := a.Bounds(); b.Dx() != 97 || b.Dy() != 61 || b.Min.X != 0 || b.Min.Y != 0 {
		t.Fatalf("bounds %v", b)
	}
	if !bytes.Equal(a.Pix, Texture(97, 61, 1).Pix) {
		t.Error("same seed gave different images")
	}
	if bytes.Equal(a.Pix, Texture(97, 61, 2).Pix) {
		t.Error("different seeds gave the same image")
	}
	// Contrast, and most neighbouring pixels close (smooth regions) but
	// some far apart (edges).
	var sum, sum2 float64
	small, large := 0, 0
	for y := range 61 {
		for x := range 97 {
			v := float64(a.Pix[y*a.Stride+x])
			sum += v
			sum2 += v * v
			if x > 0 {
				d := math.Abs(v - float64(a.Pix[y*a.Stride+x-1]))
				if d <= 8 {
					small++
				}
				if d >= 30 {
					large++
				}
			}
		}
	}
	n := float64(97 * 61)
	sd := math.Sqrt(sum2/n - (sum/n)*(sum/n))
	if sd < 20 {
		t.Errorf("standard deviation %v: too flat", sd)
	}
	if pairs := 96 * 61; small < pairs/2 || large == 0 {
		t.Errorf("%d of %d neighbour differences ≤ 8, %d ≥ 30", small, pairs, large)
	}
	if e := Texture(0, 5, 1); len(e.Pix) != 0 {
		t.Error("empty image has pixels")
	}
}

func TestColorTexture(t *testing.T) {
	c := ColorTexture(80, 50, 3)
	g := Texture(80, 50, 3)
	if !bytes.Equal(c.Pix, ColorTexture(80, 50, 3).Pix) {
		t.Error("same seed gave different images")
	}
	var diff, chroma float64
	for i := range g.Pix {
		r, gg, b := float64(c.Pix[4*i]), float64(c.Pix[4*i+1]), float64(c.Pix[4*i+2])
		if c.Pix[4*i+3] != 255 {
			t.Fatal("not opaque")
		}
		diff += math.Abs(0.299*r + 0.587*gg + 0.114*b - float64(g.Pix[i]))
		chroma += math.Abs(r-gg) + math.Abs(b-gg)
	}
	n := float64(len(g.Pix))
	if diff/n > 2 {
		t.Errorf("luma differs from Texture by %v on average", diff/n)
	}
	if chroma/n < 10 {
		t.Errorf("mean channel difference %v: almost grey", chroma/n)
	}
}

func BenchmarkTexture(b *testing.B) {
	for b.Loop() {
		Texture(768, 512, 1)
	}
}

// TestColorTextureChromaSeed checks that the chroma of ColorTexture, not
// only its luma, depends on the seed: few pixels of two seeds' images
// share their Cb and Cr within a level (4 of 3072 for seeds 1 and 2; 177
// with the chroma's generator seeded by a constant, which TestColorTexture
// passed).
func TestColorTextureChromaSeed(t *testing.T) {
	cbcr := func(p []uint8) (cb, cr float64) {
		r, g, b := float64(p[0]), float64(p[1]), float64(p[2])
		y := 0.299*r + 0.587*g + 0.114*b
		return (b - y) / 1.772, (r - y) / 1.402
	}
	for _, seeds := range [][2]uint64{{1, 2}, {3, 4}, {5, 6}} {
		a, b := ColorTexture(64, 48, seeds[0]), ColorTexture(64, 48, seeds[1])
		same := 0
		for i := 0; i < len(a.Pix); i += 4 {
			cb1, cr1 := cbcr(a.Pix[i:])
			cb2, cr2 := cbcr(b.Pix[i:])
			if math.Abs(cb1-cb2) <= 1 && math.Abs(cr1-cr2) <= 1 {
				same++
			}
		}
		if same > len(a.Pix)/4/100 {
			t.Errorf("seeds %v: %d of %d pixels of the same chroma", seeds, same, len(a.Pix)/4)
		}
	}
}
