package patches

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/spcalab/spca/internal/rgbrows"
)

// TestPackedRGB decodes a batch with PackedRGB, each file into the image
// before it, and checks that 8-bit RGB PNGs and PPMs come back as packed
// rows whose pixels are those of the file decoded as usual, others as
// usual; that the packed images reuse the memory before them where it
// holds them; and that the conversions (YCbCr420To, YCbCr, Luminance,
// HasChroma) give the packed image the planes of its *image.RGBA to the
// last bit, at widths with and without a tail for the kernels.
func TestPackedRGB(t *testing.T) {
	rgb := func(w, h int, seed int, grey bool) *image.RGBA {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range c.Pix {
			c.Pix[i] = uint8(i*seed + i*i/7 + 3)
			if grey {
				c.Pix[i] = uint8(i/4*seed + 1)
			}
			if i%4 == 3 {
				c.Pix[i] = 255
			}
		}
		return c
	}
	enc := func(name string, img image.Image) []byte { return encodeAs(t, name, img) }
	// A pixmap whose maximum is 100: its samples are scaled.
	low := []byte("P6\n5 3\n100\n")
	for i := range 45 {
		low = append(low, byte(i*7%101))
	}
	grey := image.NewGray(image.Rect(0, 0, 9, 7))
	files := []struct {
		name string
		data []byte
	}{
		{"RGB PNG 40×24", enc("png", rgb(40, 24, 3, false))},
		{"RGB PNG 24×40", enc("png", rgb(24, 40, 5, false))},
		{"RGB PPM 33×17", enc("ppm", rgb(33, 17, 7, false))},
		{"RGB PNG 17×33", enc("png", rgb(17, 33, 11, false))},
		{"grey PNG 9×7", enc("png", grey)},
		{"RGB PPM 16×9", enc("ppm", rgb(16, 9, 13, false))},
		{"grey RGB PNG 23×11", enc("png", rgb(23, 11, 17, true))},
		{"RGB PPM of maximum 100", low},
		{"RGB PNG 1×1", enc("png", rgb(1, 1, 19, false))},
		{"RGB PNG 64×2", enc("png", rgb(64, 2, 23, false))},
		{"RGB PPM 8×8", enc("ppm", rgb(8, 8, 29, false))},
	}
	var prev image.Image
	reused := 0
	for i, f := range files {
		alone, err := Decode(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("%d %s: %v", i, f.name, err)
		}
		var known bool
		got, err := Decode(bytes.NewReader(f.data), Into(prev), PackedRGB(), NoAlpha(&known))
		if err != nil {
			t.Fatalf("%d %s: packed: %v", i, f.name, err)
		}
		p, packed := got.(*rgbrows.Image)
		if _, rgba := alone.(*image.RGBA); packed != rgba {
			t.Fatalf("%d %s: packed %T, as usual %T", i, f.name, got, alone)
		}
		if !packed && fmt.Sprintf("%T", got) != fmt.Sprintf("%T", alone) {
			t.Fatalf("%d %s: %T with PackedRGB, %T without", i, f.name, got, alone)
		}
		if !sameImage(got, alone) {
			t.Fatalf("%d %s: the packed image's pixels differ", i, f.name)
		}
		if !known {
			t.Errorf("%d %s: NoAlpha not set", i, f.name)
		}
		if q, ok := prev.(*rgbrows.Image); ok && packed && &q.Mem[0] == &p.Mem[0] {
			reused++
		}
		prev = got
		if !packed {
			continue
		}
		m := alone.(*image.RGBA)
		if HasChroma(p) != HasChroma(m) {
			t.Errorf("%d %s: HasChroma %v, of the RGBA image %v", i, f.name, HasChroma(p), HasChroma(m))
		}
		w, h := m.Rect.Dx(), m.Rect.Dy()
		planes := func(img image.Image) []Plane {
			c := YCbCr420To([3][]float64{}, img)
			f := YCbCr(img)
			return []Plane{c[0], c[1], c[2], f[0], f[1], f[2], Luminance(img), LuminanceTo(make([]float64, w*h), img)}
		}
		want, have := planes(m), planes(p)
		for k := range want {
			for j, v := range have[k].Pix {
				if math.Float64bits(v) != math.Float64bits(want[k].Pix[j]) || have[k].W != want[k].W {
					t.Fatalf("%d %s: plane %d sample %d: %v, of the RGBA image %v", i, f.name, k, j, v, want[k].Pix[j])
				}
			}
		}
	}
	t.Logf("%d packed images read into the previous one's memory", reused)
	// The packed files after a packed one of as many bytes or more.
	if reused < 4 {
		t.Errorf("%d packed images read into the previous one's memory, want at least 4", reused)
	}
}
