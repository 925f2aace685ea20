package patches

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/spcalab/spca/internal/netpbm"
)

// TestIntoBatch decodes a batch of files each into the memory of the
// image before it, as a batch encode does, and checks every image
// against the file decoded alone: landscape then portrait, grey after
// colour and colour after grey, 16 bits after 8, fewer and more pixels,
// and files that fail in the middle (a PGM cut in its raster, a PNG cut
// in its data, which may have written into the memory given) followed by
// a file read into that memory. Review of session 12's Into (800cce8).
func TestIntoBatch(t *testing.T) {
	grey := func(w, h int, seed int) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(i*seed + i/w*7)
		}
		return g
	}
	rgb := func(w, h int, seed int) *image.RGBA {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range c.Pix {
			c.Pix[i] = uint8(i*seed + 3)
			if i%4 == 3 {
				c.Pix[i] = 255
			}
		}
		return c
	}
	nrgba := func(w, h int, seed int) *image.NRGBA {
		c := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range c.Pix {
			c.Pix[i] = uint8(i*seed + 5)
		}
		return c
	}
	g16 := func(w, h int) *image.Gray16 {
		g := image.NewGray16(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				g.SetGray16(x, y, color.Gray16{uint16(x*2000 + y*37)})
			}
		}
		return g
	}
	enc := func(name string, img image.Image) []byte { return encodeAs(t, name, img) }
	bigPGM := enc("pgm", grey(40, 30, 3))
	bigPNG := enc("png", grey(40, 30, 5))
	files := []struct {
		name string
		data []byte
	}{
		{"grey PNG 40×24", enc("png", grey(40, 24, 3))},
		{"grey PNG 24×40", enc("png", grey(24, 40, 5))},
		{"grey PGM 17×9", enc("pgm", grey(17, 9, 7))},
		{"RGB PNG 30×20", enc("png", rgb(30, 20, 11))},
		{"grey PNG 30×20", enc("png", grey(30, 20, 13))},
		{"RGB PNG 20×30", enc("png", rgb(20, 30, 17))},
		{"RGBA PNG 20×30", enc("png", nrgba(20, 30, 19))},
		{"RGB PNG 10×10", enc("png", rgb(10, 10, 23))},
		{"grey PGM 24×40", enc("pgm", grey(24, 40, 29))},
		{"16-bit PGM 24×40", enc("pgm", g16(24, 40))},
		{"16-bit PNG 20×30", enc("png", g16(20, 30))},
		{"grey PGM 40×30", bigPGM},
		{"grey PGM cut in its raster", bigPGM[:len(bigPGM)-300]},
		{"grey PGM 30×40", enc("pgm", grey(30, 40, 31))},
		{"grey PNG cut in its data", bigPNG[:len(bigPNG)-30]},
		{"grey PNG 5×3", enc("png", grey(5, 3, 37))},
		{"grey PNG 40×30", bigPNG},
		{"grey PNG 1×1", enc("png", grey(1, 1, 41))},
		{"RGB PNG 3×2", enc("png", rgb(3, 2, 43))},
	}
	var prev image.Image
	reused := 0
	for i, f := range files {
		alone, aerr := Decode(bytes.NewReader(f.data))
		got, err := Decode(bytes.NewReader(f.data), Into(prev))
		if (err == nil) != (aerr == nil) {
			t.Fatalf("%d %s: into the previous image %v, alone %v", i, f.name, err, aerr)
		}
		if err != nil {
			continue // prev, given up, stays given up: the next file reads into it
		}
		if got.Bounds() != alone.Bounds() || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", alone) || !sameImage(got, alone) {
			t.Errorf("%d %s: into the previous image %T %v differs from alone %T %v", i, f.name, got, got.Bounds(), alone, alone.Bounds())
		}
		if pixOf(got) != nil && pixOf(prev) != nil && &pixOf(got)[0] == &pixOf(prev)[0] {
			reused++
		}
		prev = got
	}
	// Files that fit the memory before them (same type, no more pixels):
	// at least 5 of them.
	t.Logf("%d of %d images read into the previous one's memory", reused, len(files))
	if reused < 5 {
		t.Errorf("%d images read into the previous one's memory, want at least 5 (Into not taken?)", reused)
	}
}

// encodeAs returns img as a PGM or PPM file (name "pgm" or "ppm") or a
// PNG file (image/png's, otherwise).
func encodeAs(t testing.TB, name string, img image.Image) []byte {
	var b bytes.Buffer
	var err error
	if name == "pgm" || name == "ppm" {
		err = netpbm.Encode(&b, img)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pixOf returns the pixels of an 8-bit grey or RGB image, nil otherwise.
func pixOf(img image.Image) []uint8 {
	switch m := img.(type) {
	case *image.Gray:
		return m.Pix
	case *image.RGBA:
		return m.Pix
	}
	return nil
}
