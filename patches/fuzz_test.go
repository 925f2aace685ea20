package patches

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/internal/netpbm"
)

// fuzzMaxPixels is the pixel budget of FuzzDecode: small, so that a
// mutated header cannot make a run allocate much.
const fuzzMaxPixels = 1 << 16

// FuzzDecode checks Decode, the entry point of every image the commands
// read (PNG by internal/pngfast or image/png, JPEG, GIF, TIFF, BMP, WebP,
// PGM/PPM), on hostile bytes: no panic, no image beyond the pixel budget,
// an error or an image with positive bounds, and within the allocation
// bound of its input (hostile.Check). Seeds: small images of each format
// that has an encoder, grey and colour, 8 and 16 bits, and a huge PNG
// header.
func FuzzDecode(f *testing.F) {
	grey := image.NewGray(image.Rect(0, 0, 7, 5))
	rgba := image.NewNRGBA(image.Rect(0, 0, 6, 4))
	g16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	for i := range grey.Pix {
		grey.Pix[i] = uint8(i * 37)
	}
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 53)
	}
	opaque := image.NewRGBA(rgba.Rect)
	for i := range opaque.Pix {
		opaque.Pix[i] = uint8(i*29) | uint8(255*(i%4/3))
	}
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 91)
	}
	pal := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White, color.Gray{128}})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 3)
	}
	for _, enc := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return png.Encode(b, grey) },
		func(b *bytes.Buffer) error { return png.Encode(b, rgba) },
		func(b *bytes.Buffer) error { return png.Encode(b, g16) },
		func(b *bytes.Buffer) error { return png.Encode(b, pal) },
		func(b *bytes.Buffer) error { return jpeg.Encode(b, grey, nil) },
		func(b *bytes.Buffer) error { return jpeg.Encode(b, rgba, nil) },
		func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) },
		func(b *bytes.Buffer) error { return tiff.Encode(b, grey, nil) },
		func(b *bytes.Buffer) error { return tiff.Encode(b, rgba, &tiff.Options{Compression: tiff.Deflate}) },
		func(b *bytes.Buffer) error { return bmp.Encode(b, rgba) },
		func(b *bytes.Buffer) error { return netpbm.Encode(b, grey) },
		func(b *bytes.Buffer) error { return netpbm.Encode(b, g16) },
		func(b *bytes.Buffer) error { return netpbm.Encode(b, opaque) },
	} {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
		f.Add(b.Bytes()[:b.Len()/2])
	}
	f.Add(hostile.ZeroPNG(1024, 1024))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecodeOne(t, data)
		// A PNG also with its chunks' CRCs recomputed: a byte mutated
		// inside a chunk fails its CRC, so the decoders behind that check
		// would see little but the seeds' chunks.
		if bytes.HasPrefix(data, []byte(pngSignature)) {
			if d := hostile.PNGWithCRCs(data); !bytes.Equal(d, data) {
				fuzzDecodeOne(t, d)
			}
		}
	})
}

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// fuzzDecodeOne is FuzzDecode's check of one input.
func fuzzDecodeOne(t *testing.T, data []byte) {
	var img image.Image
	var err error
	hostile.Check(t, "image", len(data), func() { img, err = Decode(bytes.NewReader(data), MaxPixels(fuzzMaxPixels)) })
	if err != nil {
		return
	}
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 || int64(b.Dx())*int64(b.Dy()) > fuzzMaxPixels {
		t.Fatalf("decoded %v, want positive bounds within %d pixels", b, fuzzMaxPixels)
	}
	// From a stream (no Seek: read through replay) the same image.
	s, err := Decode(struct{ io.Reader }{bytes.NewReader(data)}, MaxPixels(fuzzMaxPixels))
	if err != nil || s.Bounds() != b || !sameImage(s, img) {
		t.Fatalf("from a stream: %v (%v), from a file %v", err, s, b)
	}
}

// A GIF with a non-empty screen whose first frame is 48×0 (found by
// FuzzDecode, kept in testdata/fuzz) decoded to an empty image; it is an
// error naming the empty size.
func TestDecodeEmptyGIFFrame(t *testing.T) {
	data := []byte("GIF87a00\x04\x00\x8100000000000000,0 \x00\x000\x00\x00\x000\x05\x000")
	img, err := Decode(bytes.NewReader(data))
	if err == nil || !strings.Contains(err.Error(), "empty image 48×0") {
		t.Fatalf("got %v, %v; want an error naming the empty image", img, err)
	}
}

// FuzzICCProfile checks the package's own ICC parsing on hostile bytes:
// the profile of a PNG (iCCP) or JPEG (APP2) stream, and the sRGB test of
// a profile (tag table, XYZ, desc and mluc tags): no panic, and within the
// allocation bound of the input. Decode reaches them only through a valid
// image, which FuzzDecode seldom builds.
func FuzzICCProfile(f *testing.F) {
	srgb := [3][3]float64{{0.4361, 0.2225, 0.0139}, {0.3851, 0.7169, 0.0971}, {0.1431, 0.0606, 0.7141}}
	for _, p := range [][]byte{iccProfile("RGB ", "sRGB IEC61966-2.1", &srgb), iccProfile("RGB ", "Display P3", nil), iccProfile("GRAY", "Dot Gain 20%", nil)} {
		f.Add(p)
		f.Add(withPNGProfile(f, p))
		f.Add(withJPEGProfile(f, p))
	}
	mluc := append([]byte("mluc\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0cenUS\x00\x00\x00\x08\x00\x00\x00\x1c"), 0, 's', 0, 'R', 0, 'G', 0, 'B')
	f.Add(mluc)
	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Check(t, "profile", len(data), func() {
			profileIsSRGB(data)
			profileDescription(data)
			for _, format := range []string{"png", "jpeg"} {
				if p, err := embeddedProfile(bytes.NewReader(data), format); err == nil && len(p) > maxProfile {
					t.Fatalf("%s: profile of %d bytes, more than %d", format, len(p), maxProfile)
				}
			}
		})
	})
}

// sameImage reports whether a and b have the same bounds and colours.
func sameImage(a, b image.Image) bool {
	r := a.Bounds()
	if r != b.Bounds() {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}
