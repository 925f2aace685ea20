package patches

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/spcalab/spca/internal/netpbm"
	"github.com/spcalab/spca/internal/pngfast"
)

// TestMaxPixelsExact checks the budget at its edge for the formats that
// image.DecodeConfig sizes (PPM, 16-bit PNG, JPEG): an image of exactly
// MaxPixels decodes, one pixel fewer is too large. TestLoadErrors checks it
// on an 8-bit PNG only, which internal/pngfast sizes.
func TestMaxPixelsExact(t *testing.T) {
	const w, h = 12, 10
	var ppm, png16, jpg bytes.Buffer
	rgb := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 3; i < len(rgb.Pix); i += 4 {
		rgb.Pix[i] = 0xff
	}
	if err := netpbm.Encode(&ppm, rgb); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&png16, image.NewGray16(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	jpg.Write(withJPEGProfile(t, iccProfile("GRAY", "grey", nil))) // 8×8
	for name, c := range map[string]struct {
		data []byte
		n    int
	}{"PPM": {ppm.Bytes(), w * h}, "16-bit PNG": {png16.Bytes(), w * h}, "JPEG": {jpg.Bytes(), 64}} {
		if _, err := Decode(bytes.NewReader(c.data), MaxPixels(c.n)); err != nil {
			t.Errorf("%s of %d pixels, MaxPixels(%d): %v", name, c.n, c.n, err)
		}
		if _, err := Decode(bytes.NewReader(c.data), MaxPixels(c.n-1)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s of %d pixels, MaxPixels(%d): %v, want ErrTooLarge", name, c.n, c.n-1, err)
		}
	}
}

// TestStreamLimitFitsUncompressed checks the stream budget against its
// reason: an image of n pixels stored without compression at 16 bits and
// four channels (8 bytes a pixel) fits twice over, so a large 16-bit PPM
// or TIFF on standard input is not refused (the 64 MB floor hid a factor 4
// too small from every test below 30 megapixels).
func TestStreamLimitFitsUncompressed(t *testing.T) {
	for _, n := range []int64{1, 1 << 20, 30_000_000, DefaultMaxPixels, 1 << 40} {
		if l := streamLimit(n); l < 2*8*n {
			t.Errorf("streamLimit(%d) = %d, less than %d bytes", n, l, 2*8*n)
		}
	}
	for _, n := range []int64{0, -1} {
		if l := streamLimit(n); l != 1<<63-1 {
			t.Errorf("streamLimit(%d) = %d, want no limit", n, l)
		}
	}
}

// TestSaveBestSpeed checks that PNGCompression(png.BestSpeed) writes grey
// and opaque RGB images with internal/pngfast, as documented: the file's
// bytes are pngfast.Encode's. Decoded, image/png's file is the same, so no
// other test noticed the choice reversed.
func TestSaveBestSpeed(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	g := image.NewGray(image.Rect(0, 0, 33, 7))
	c := image.NewRGBA(image.Rect(0, 0, 9, 5))
	for i := range g.Pix {
		g.Pix[i] = uint8(rng.IntN(256))
	}
	for i := range c.Pix {
		c.Pix[i] = uint8(rng.IntN(256)) | uint8(0xff*(i%4/3))
	}
	for name, img := range map[string]image.Image{"grey": g, "rgb": c} {
		path := filepath.Join(dir, name+".png")
		if err := Save(path, img, PNGCompression(png.BestSpeed)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := pngfast.Encode(&want, img); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: Save at BestSpeed wrote %d bytes, not pngfast's %d", name, len(got), want.Len())
		}
	}
}

// TestSampleWithoutReplacement checks that Sample draws distinct
// positions when it draws nearly all of them, where Floyd's algorithm
// meets most collisions. TestSample's 100 of 235 positions let a wrong
// replacement on collision (j-1 for j) through.
func TestSampleWithoutReplacement(t *testing.T) {
	p := counting(9, 7)
	total := 9 * 7
	for seed := range uint64(20) {
		for _, count := range []int{total - 1, total - 5, total / 2} {
			x := Sample([]Plane{p}, 1, count, seed)
			seen := map[float64]bool{}
			for i := range count {
				v := x.At(i, 0)
				if seen[v] {
					t.Fatalf("seed %d, %d of %d: position %v drawn twice", seed, count, total, v)
				}
				seen[v] = true
			}
		}
	}
}

// hidden hides the concrete type of an image: its planes are computed by
// the generic path (color.NRGBA64Model), exact for colours that are
// color.NRGBA64 or color.Gray16.
type hidden struct{ image.Image }

// TestPlaneFastPathsAsGeneric checks YCbCr and Luminance of non-premultiplied
// 8- and 16-bit images, with alpha and as sub-images, against the generic
// path of the same values as 16-bit non-premultiplied colours: exactly
// equal. No test read a colour NRGBA64 image (16-bit PNGs with alpha):
// its blue sample's bytes swapped passed.
func TestPlaneFastPathsAsGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := image.Rect(0, 0, 11, 6)
	n8, n8as16, n16, g16 := image.NewNRGBA(r), image.NewNRGBA64(r), image.NewNRGBA64(r), image.NewGray16(r)
	for y := range r.Dy() {
		for x := range r.Dx() {
			c := color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))}
			n8.Set(x, y, c)
			n8as16.Set(x, y, color.NRGBA64{uint16(c.R) * 257, uint16(c.G) * 257, uint16(c.B) * 257, uint16(c.A) * 257})
			n16.Set(x, y, color.NRGBA64{uint16(rng.IntN(65536)), uint16(rng.IntN(65536)), uint16(rng.IntN(65536)), uint16(rng.IntN(65536))})
			g16.Set(x, y, color.Gray16{uint16(rng.IntN(65536))})
		}
	}
	sub := image.Rect(2, 1, 9, 6)
	for name, c := range map[string]struct{ img, ref image.Image }{
		"NRGBA": {n8, n8as16}, "NRGBA64": {n16, n16}, "Gray16": {g16, g16},
		"NRGBA sub":   {n8.SubImage(sub), n8as16.SubImage(sub)},
		"NRGBA64 sub": {n16.SubImage(sub), n16.SubImage(sub)},
		"Gray16 sub":  {g16.SubImage(sub), g16.SubImage(sub)},
	} {
		img := c.img
		got, want := YCbCr(img), YCbCr(hidden{c.ref})
		for k := range got {
			for i, v := range got[k].Pix {
				if v != want[k].Pix[i] {
					t.Fatalf("%s: plane %d sample %d = %v, generic path %v", name, k, i, v, want[k].Pix[i])
				}
			}
		}
		lum := Luminance(img)
		for i, v := range lum.Pix {
			if v != want[0].Pix[i] {
				t.Fatalf("%s: Luminance sample %d = %v, generic path %v", name, i, v, want[0].Pix[i])
			}
		}
	}
}
