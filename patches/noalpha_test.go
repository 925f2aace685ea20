package patches

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/spcalab/spca/internal/opacity"
)

// NoAlpha reports the files without alpha (grey and RGB PNG, PGM, PPM),
// whose images are opaque, and says nothing of the others: RGBA PNG
// (opaque or not), a PNG with a tRNS chunk, JPEG, GIF. A failed decode
// resets it.
func TestNoAlpha(t *testing.T) {
	rgba := func(alpha uint8) *image.NRGBA {
		m := image.NewNRGBA(image.Rect(0, 0, 5, 3))
		for i := range m.Pix {
			m.Pix[i] = uint8(40 * (i % 5))
			if i%4 == 3 {
				m.Pix[i] = alpha
			}
		}
		return m
	}
	grey := image.NewGray(image.Rect(0, 0, 5, 3))
	grey.Pix[4] = 200
	paletted := image.NewPaletted(image.Rect(0, 0, 5, 3), color.Palette{color.Transparent, color.White})
	pngOf := func(m image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	var jpg, gf bytes.Buffer
	if err := jpeg.Encode(&jpg, rgba(255), nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, paletted, nil); err != nil {
		t.Fatal(err)
	}
	var pgm, ppm bytes.Buffer
	fmt.Fprintf(&pgm, "P5\n5 3\n255\n%s", bytes.Repeat([]byte{9}, 15))
	fmt.Fprintf(&ppm, "P6\n5 3\n255\n%s", bytes.Repeat([]byte{9}, 45))
	cases := []struct {
		name string
		data []byte
		want bool
	}{
		{"RGB PNG", pngOf(rgba(255)), true}, // image/png writes an opaque image as RGB
		{"grey PNG", pngOf(grey), true},
		{"RGBA PNG", pngOf(rgba(128)), false},
		{"palette PNG", pngOf(paletted), false},
		{"PGM", pgm.Bytes(), true},
		{"PPM", ppm.Bytes(), true},
		{"JPEG", jpg.Bytes(), false},
		{"GIF", gf.Bytes(), false},
	}
	for _, c := range cases {
		known := !c.want // a stale value is overwritten
		img, err := Decode(bytes.NewReader(c.data), NoAlpha(&known))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if known != c.want {
			t.Errorf("%s: NoAlpha %v, want %v", c.name, known, c.want)
		}
		if known && !opacity.Of(img) {
			t.Errorf("%s: NoAlpha, but its image is not opaque", c.name)
		}
	}
	known := true
	if _, err := Decode(bytes.NewReader(ppm.Bytes()[:20]), NoAlpha(&known)); err == nil || known {
		t.Errorf("a truncated PPM: error %v, NoAlpha %v; want an error and false", err, known)
	}
}
