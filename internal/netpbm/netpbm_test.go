package netpbm

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/spcalab/spca/internal/rgbrows"
)

func testImages() []image.Image {
	r := image.Rect(0, 0, 5, 3)
	g, g16, c, c16 := image.NewGray(r), image.NewGray16(r), image.NewRGBA(r), image.NewRGBA64(r)
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			v := uint8(x*50 + y*7)
			g.SetGray(x, y, color.Gray{v})
			g16.SetGray16(x, y, color.Gray16{uint16(v)*257 + uint16(y)})
			c.SetRGBA(x, y, color.RGBA{v, 255 - v, uint8(y), 255})
			c16.SetRGBA64(x, y, color.RGBA64{uint16(v) * 3, 65535 - uint16(v), uint16(y), 65535})
		}
	}
	return []image.Image{g, g16, c, c16}
}

// TestRoundTrip writes each kind of image and reads it back: same type,
// same pixels.
func TestRoundTrip(t *testing.T) {
	for _, img := range testImages() {
		var buf bytes.Buffer
		if err := Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, format, err := image.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%T: %v", img, err)
		}
		if want := map[bool]string{true: "pgm", false: "ppm"}[strings.HasPrefix(buf.String(), "P5")]; format != want {
			t.Errorf("%T: format %q, want %q", img, format, want)
		}
		if got.ColorModel() != img.ColorModel() || got.Bounds() != img.Bounds() {
			t.Fatalf("%T: read back %T %v", img, got, got.Bounds())
		}
		for y := 0; y < 3; y++ {
			for x := 0; x < 5; x++ {
				if a, b := got.At(x, y), img.At(x, y); a != b {
					t.Fatalf("%T: pixel (%d,%d) %v, want %v", img, x, y, a, b)
				}
			}
		}
	}
}

// TestSubImageAndOpacity: a sub-image writes only its pixels; a
// transparent image is refused.
func TestSubImageAndOpacity(t *testing.T) {
	g := testImages()[0].(*image.Gray).SubImage(image.Rect(1, 1, 3, 3))
	var buf bytes.Buffer
	if err := Encode(&buf, g); err != nil {
		t.Fatal(err)
	}
	want := "P5\n2 2\n255\n" + string([]byte{57, 107, 64, 114})
	if buf.String() != want {
		t.Errorf("sub-image written as %q, want %q", buf.String(), want)
	}
	if err := Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 2, 2))); !errors.Is(err, ErrNotOpaque) {
		t.Errorf("transparent image: %v, want ErrNotOpaque", err)
	}
}

// TestEncodeOpaque: EncodeOpaque writes every kind of opaque image as
// Encode does, and an RGBA image with transparent pixels as if opaque
// (its colour bytes; Encode refuses it).
func TestEncodeOpaque(t *testing.T) {
	for _, img := range testImages() {
		var a, b bytes.Buffer
		if err := Encode(&a, img); err != nil {
			t.Fatal(err)
		}
		if err := EncodeOpaque(&b, img); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%T: EncodeOpaque %v, %d bytes; Encode %d bytes", img, err, b.Len(), a.Len())
		}
	}
	c := testImages()[2].(*image.RGBA)
	var want bytes.Buffer
	if err := Encode(&want, c); err != nil {
		t.Fatal(err)
	}
	c.Pix[3], c.Pix[len(c.Pix)-1] = 0, 17
	var got bytes.Buffer
	if err := Encode(&got, c); !errors.Is(err, ErrNotOpaque) {
		t.Fatalf("transparent RGBA: %v, want ErrNotOpaque", err)
	}
	got.Reset()
	if err := EncodeOpaque(&got, c); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("transparent RGBA by EncodeOpaque: %v, %q, want %q", err, got.Bytes(), want.Bytes())
	}
}

// TestHeaderForms reads comments, other whitespace and a maximum value
// below 255, scaled to 0..255.
func TestHeaderForms(t *testing.T) {
	img, err := Decode(strings.NewReader("P5 # a comment\n# another\r\n2\t1\n15 \x00\x0f"))
	if err != nil {
		t.Fatal(err)
	}
	if g := img.(*image.Gray); g.Pix[0] != 0 || g.Pix[1] != 255 {
		t.Errorf("maxval 15 samples 0, 15 read as %v, want 0, 255", g.Pix)
	}
	img, err = Decode(strings.NewReader("P5 1 1 1000\n\x01\xf4"))
	if err != nil {
		t.Fatal(err)
	}
	if v := img.(*image.Gray16).Gray16At(0, 0).Y; v != 32768 {
		t.Errorf("maxval 1000 sample 500 read as %d, want 32768", v)
	}
	cfg, err := DecodeConfig(strings.NewReader("P6 7 9 65535\n"))
	if err != nil || cfg.Width != 7 || cfg.Height != 9 || cfg.ColorModel != color.RGBA64Model {
		t.Errorf("DecodeConfig: %+v, %v", cfg, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "truncated header",
		"P2 1 1 255\n0":                 "magic number",
		"P5 0 1 255\n":                  "size 0",
		"P5 2000000 1 255\n":            "size 2000000",
		"P5 1 1 0\n":                    "maximum value 0",
		"P5 1 1 70000\n":                "maximum value 70000",
		"P5 1 1 255":                    "no whitespace",
		"P5 1 x 255\n":                  "unexpected byte",
		"P5 1 1 255\n":                  "truncated raster",
		"P5 2 2 255\n\x00":              "truncated raster",
		"P5 1000000 1000 255\n\x00\x00": "truncated raster",
		"P5 1 1 100\n\xff":              "above the maximum",
		"P5 1 1 99999999999\n":          "too large",
	} {
		_, err := Decode(strings.NewReader(in))
		var fe FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want a FormatError containing %q", in, err, want)
		}
	}
	// Rasters of 2^32 bytes and more: on a 32-bit platform their size
	// wrapped (to 0 for these) and Decode returned a 65536×65536 image
	// without pixels, whose first access panicked. Refused as too large
	// there, as truncated elsewhere.
	for _, in := range []string{
		"P5 65536 65536 255\n\x00",
		"P6 65536 65536 65535\n\x00",
		"P5 1048576 1048576 255\n\x00",
		"P6 1048576 1048576 255\n\x00",
	} {
		_, err := Decode(strings.NewReader(in))
		var fe FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "truncated raster") && !strings.Contains(err.Error(), "too large") {
			t.Errorf("Decode(%q) = %v, want a FormatError (truncated raster, or too large)", in, err)
		}
	}
}

// FuzzDecode: no panic, what decodes re-encodes and decodes to the same
// pixels, and DecodeInto a reused image of other pixels (8-bit grey or
// RGBA, the file's shape or turned) gives Decode's pixels or error, and
// writes nothing past the image's pixels; so does Decode from a reader of
// one byte a call.
func FuzzDecode(f *testing.F) {
	for _, img := range testImages() {
		var buf bytes.Buffer
		Encode(&buf, img)
		f.Add(buf.Bytes())
	}
	f.Add([]byte("P5 # c\n2 1\n15 \x00\x0f"))
	f.Add([]byte("P6 1 1 1000\n\x01\xf4\x00\x00\x03\xe8"))
	// 8-bit pixmaps (DecodePacked's rows): maximum 100 (scaled), a
	// sample above it, a short raster, a huge declared size.
	f.Add([]byte("P6 2 1 100\n\x00\x01\x32\x63\x64\x07"))
	f.Add([]byte("P6 2 1 100\n\x00\x01\x32\x63\x65\x07"))
	f.Add([]byte("P6 3 2 255\n\x01\x02\x03\x04\x05"))
	f.Add([]byte("P6 100000 100000 255\n\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(bytes.NewReader(data))
		checkDecodeInto(t, data, img, err)
		checkPacked(t, data, img, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if back.At(x, y) != img.At(x, y) {
					t.Fatalf("pixel (%d,%d) changed", x, y)
				}
			}
		}
	})
}

// checkPacked decodes data by DecodePacked, fresh and into a reused
// *rgbrows.Image whose memory is all 0x5a and runs on into guard bytes:
// an error where Decode gave one (err), else Decode's image img, as its
// raster of 3 bytes a pixel if img is an 8-bit pixmap (*image.RGBA: its
// pixels, no byte past the reused memory written), as it is otherwise.
func checkPacked(t *testing.T, data []byte, img image.Image, err error) {
	const guard = 64
	into := []image.Image{nil}
	var buf []byte
	if err == nil {
		b := img.Bounds()
		buf = bytes.Repeat([]byte{0x5a}, 3*b.Dx()*b.Dy()+guard)
		into = append(into, &rgbrows.Image{Mem: buf[:len(buf)-guard]})
	}
	for k, in := range into {
		p, perr := DecodePacked(bytes.NewReader(data), in)
		if (perr == nil) != (err == nil) {
			t.Fatalf("DecodePacked: %v, Decode: %v", perr, err)
		}
		if err != nil {
			return
		}
		r, packed := p.(*rgbrows.Image)
		m, rgb := img.(*image.RGBA)
		if packed != rgb {
			t.Fatalf("DecodePacked: %T, Decode: %T", p, img)
		}
		b := img.Bounds()
		if p.Bounds() != b {
			t.Fatalf("DecodePacked: bounds %v, Decode's %v", p.Bounds(), b)
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if p.At(x, y) != img.At(x, y) || packed && [3]byte(r.Row(y)[3*x:]) != [3]byte(m.Pix[m.PixOffset(x, y):]) {
					t.Fatalf("DecodePacked: pixel (%d,%d) %v, Decode's %v", x, y, p.At(x, y), img.At(x, y))
				}
			}
		}
		if packed && k == 1 {
			if &r.Mem[0] != &buf[0] {
				t.Fatal("DecodePacked into a reused image with room: other memory")
			}
			if n := len(buf) - guard; !bytes.Equal(buf[n:], bytes.Repeat([]byte{0x5a}, guard)) {
				t.Fatal("DecodePacked into a reused image: wrote past its memory")
			}
		}
	}
}

// checkDecodeInto decodes data into reused images whose pixels are all
// 0x5a and run on into guard bytes (a decode must write none): 16 pixels
// of grey and of RGBA, and, if Decode gave img, images of img's type of
// its shape and turned. Each gives img's pixels, or fails where Decode
// failed (err).
func checkDecodeInto(t *testing.T, data []byte, img image.Image, err error) {
	const guard = 64
	dirty := func(n int) (pix, buf []byte) {
		buf = bytes.Repeat([]byte{0x5a}, n+guard)
		return buf[:n], buf
	}
	var intos []image.Image
	var bufs [][]byte
	add := func(m image.Image, buf []byte) { intos, bufs = append(intos, m), append(bufs, buf) }
	r := image.Rect(0, 0, 4, 4)
	g, gb := dirty(16)
	c, cb := dirty(64)
	add(&image.Gray{Pix: g, Stride: 4, Rect: r}, gb)
	add(&image.RGBA{Pix: c, Stride: 16, Rect: r}, cb)
	if err == nil {
		b := img.Bounds()
		for _, r := range []image.Rectangle{b, image.Rect(0, 0, b.Dy(), b.Dx())} {
			switch img.(type) {
			case *image.Gray:
				p, buf := dirty(r.Dx() * r.Dy())
				add(&image.Gray{Pix: p, Stride: r.Dx(), Rect: r}, buf)
			case *image.RGBA:
				p, buf := dirty(4 * r.Dx() * r.Dy())
				add(&image.RGBA{Pix: p, Stride: 4 * r.Dx(), Rect: r}, buf)
			}
		}
	}
	// nil: Decode from a reader of one byte a call.
	for i, into := range append(intos, nil) {
		var got image.Image
		var gerr error
		if into == nil {
			got, gerr = Decode(iotest.OneByteReader(bytes.NewReader(data)))
			if (gerr == nil) != (err == nil) {
				t.Fatalf("Decode one byte a call: %v; of the bytes: %v", gerr, err)
			}
			if err == nil && !sameImage(got, img) {
				t.Fatalf("Decode one byte a call: other pixels")
			}
			continue
		}
		got, gerr = DecodeInto(bytes.NewReader(data), into)
		if n := len(bufs[i]) - guard; !bytes.Equal(bufs[i][n:], bytes.Repeat([]byte{0x5a}, guard)) {
			t.Fatalf("DecodeInto a %T %v wrote past its %d bytes", into, into.Bounds(), n)
		}
		if (gerr == nil) != (err == nil) {
			t.Fatalf("DecodeInto a %T %v: %v; Decode: %v", into, into.Bounds(), gerr, err)
		}
		if err != nil {
			continue
		}
		if !sameImage(got, img) {
			t.Fatalf("DecodeInto a %T %v: %v, other pixels than Decode's %v", into, into.Bounds(), got.Bounds(), img.Bounds())
		}
	}
}

// sameImage reports whether a and b have the same bounds and colours.
func sameImage(a, b image.Image) bool {
	r := a.Bounds()
	if b.Bounds() != r {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// TestDecodeInto checks that DecodeInto reads an 8-bit greymap into the
// image given when it has the size or as many pixels in another shape
// (same pixels as Decode, into's memory, no raster allocated), and
// allocates otherwise: fewer pixels, a sub-image, 16 bits, a pixmap.
func TestDecodeInto(t *testing.T) {
	imgs := testImages()
	var pgm, pgm16, ppm bytes.Buffer
	for b, img := range map[*bytes.Buffer]image.Image{&pgm: imgs[0], &pgm16: imgs[1], &ppm: imgs[2]} {
		if err := Encode(b, img); err != nil {
			t.Fatal(err)
		}
	}
	into := image.NewGray(image.Rect(0, 0, 5, 3))
	for i := range into.Pix {
		into.Pix[i] = 99
	}
	got, err := DecodeInto(bytes.NewReader(pgm.Bytes()), into)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := got.(*image.Gray)
	if !ok || &g.Pix[0] != &into.Pix[0] || !bytes.Equal(g.Pix, imgs[0].(*image.Gray).Pix) || g.Rect != into.Rect {
		t.Fatalf("DecodeInto a 5×3 image: not into it, or other pixels")
	}
	if n := testing.AllocsPerRun(20, func() { DecodeInto(bytes.NewReader(pgm.Bytes()), into) }); n > 3 {
		t.Errorf("DecodeInto a 5×3 image: %v allocations per call, want at most 3 (no raster, no reader)", n)
	}
	// 3×5 is as many pixels: read into them, with the file's bounds.
	tall := image.NewGray(image.Rect(0, 0, 3, 5))
	got, err = DecodeInto(bytes.NewReader(pgm.Bytes()), tall)
	if g, ok := got.(*image.Gray); err != nil || !ok || &g.Pix[0] != &tall.Pix[0] || g.Rect != imgs[0].Bounds() || g.Stride != 5 ||
		!bytes.Equal(g.Pix, imgs[0].(*image.Gray).Pix) {
		t.Fatalf("DecodeInto a 3×5 image: not into it, or other bounds or pixels (%v)", err)
	}
	big := image.NewGray(image.Rect(0, 0, 4, 3)) // fewer pixels
	sub := image.NewGray(image.Rect(0, 0, 6, 3)).SubImage(image.Rect(0, 0, 5, 3))
	for name, c := range map[string]struct {
		data []byte
		into image.Image
	}{
		"smaller": {pgm.Bytes(), big}, "sub-image": {pgm.Bytes(), sub},
		"16-bit": {pgm16.Bytes(), into}, "pixmap": {ppm.Bytes(), into}, "nil": {pgm.Bytes(), nil},
	} {
		want, _ := Decode(bytes.NewReader(c.data))
		got, err := DecodeInto(bytes.NewReader(c.data), c.into)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g, ok := got.(*image.Gray); ok && len(g.Pix) > 0 && (&g.Pix[0] == &big.Pix[0] || &g.Pix[0] == &into.Pix[0]) {
			t.Errorf("%s: decoded into the image given", name)
		}
		if got.Bounds() != want.Bounds() || got.ColorModel() != want.ColorModel() {
			t.Errorf("%s: %T %v, want %T %v", name, got, got.Bounds(), want, want.Bounds())
		}
	}
}

// TestColourRows checks the row copies of *image.RGBA and *image.RGBA64
// (whole images and sub-images) against the per-pixel path of any other
// image type: the same bytes.
func TestColourRows(t *testing.T) {
	type hidden struct{ image.Image } // not *image.RGBA: the per-pixel path
	for _, img := range testImages()[2:] {
		sub := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(1, 1, 4, 3))
		for _, m := range []image.Image{img, sub} {
			var got, want bytes.Buffer
			if err := Encode(&got, m); err != nil {
				t.Fatal(err)
			}
			if err := Encode(&want, hidden{m}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%T %v: %q, per pixel %q", m, m.Bounds(), got.Bytes(), want.Bytes())
			}
		}
	}
}

// TestOpaqueRows checks Encode's own opacity test of *image.RGBA and
// *image.RGBA64 against their Opaque: one pixel at a time made
// transparent by one alpha byte (either byte of a 16-bit alpha), in whole
// images and in sub-images that hold it or not.
func TestOpaqueRows(t *testing.T) {
	for _, img := range testImages()[2:] {
		var pix []byte
		bps := 1
		switch m := img.(type) {
		case *image.RGBA:
			pix = m.Pix
		case *image.RGBA64:
			pix, bps = m.Pix, 2
		}
		subs := []image.Rectangle{img.Bounds(), image.Rect(1, 1, 4, 3), image.Rect(0, 0, 2, 1), image.Rect(3, 2, 5, 3)}
		for i := 4*bps - 1; i < len(pix); i += 4 * bps {
			for _, j := range []int{i, i - bps + 1} {
				pix[j] = 0xfe
				for _, r := range subs {
					m := img.(interface {
						SubImage(image.Rectangle) image.Image
					}).SubImage(r)
					err := Encode(io.Discard, m)
					if want := m.(interface{ Opaque() bool }).Opaque(); errors.Is(err, ErrNotOpaque) == want || (want && err != nil) {
						t.Errorf("%T %v, alpha byte %d off: %v, Opaque %v", img, r, j, err, want)
					}
				}
				pix[j] = 0xff
			}
		}
	}
}

// TestDecodeIntoPixmap: an 8-bit pixmap is read into the memory of an
// *image.RGBA of enough pixels that holds them alone, whatever it held,
// with the file's bounds and Decode's pixels (also for a maximum value
// below 255); a smaller image or a sub-image is left alone; a truncated
// raster or a sample above the maximum is an error.
func TestDecodeIntoPixmap(t *testing.T) {
	var ppm bytes.Buffer
	if err := Encode(&ppm, testImages()[2]); err != nil {
		t.Fatal(err)
	}
	low := []byte("P6 3 2 15\n")
	for i := range 18 {
		low = append(low, byte(i%16))
	}
	dirty := func(w, h int) *image.RGBA {
		m := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = 7
		}
		return m
	}
	lowPix := make([]byte, 0, 24) // scaled to 0..255, opaque
	for i := range 18 {
		if lowPix = append(lowPix, byte((i%16*255+7)/15)); i%3 == 2 {
			lowPix = append(lowPix, 0xff)
		}
	}
	for i, data := range [][]byte{ppm.Bytes(), low} {
		want, err := Decode(bytes.NewReader(data))
		if wantPix := [][]byte{testImages()[2].(*image.RGBA).Pix, lowPix}[i]; err != nil || !bytes.Equal(want.(*image.RGBA).Pix, wantPix) {
			t.Fatalf("Decode: %v, pixels %v, want %v", err, want.(*image.RGBA).Pix, wantPix)
		}
		wb := want.Bounds()
		for _, into := range []*image.RGBA{dirty(wb.Dx(), wb.Dy()), dirty(wb.Dy(), wb.Dx()), dirty(9, 9)} {
			got, err := DecodeInto(bytes.NewReader(data), into)
			g, ok := got.(*image.RGBA)
			if err != nil || !ok || &g.Pix[0] != &into.Pix[0] || g.Rect != wb || g.Stride != 4*wb.Dx() ||
				!bytes.Equal(g.Pix, want.(*image.RGBA).Pix) {
				t.Fatalf("into %v: not into it, or other bounds or pixels (%v)", into.Rect, err)
			}
		}
		for name, into := range map[string]image.Image{"smaller": dirty(2, 2), "sub-image": dirty(9, 9).SubImage(image.Rect(1, 1, 8, 8))} {
			got, err := DecodeInto(bytes.NewReader(data), into)
			g, ok := got.(*image.RGBA)
			if err != nil || !ok || !bytes.Equal(g.Pix, want.(*image.RGBA).Pix) || g.Rect != wb {
				t.Fatalf("%s: %v", name, err)
			}
			if m := into.(*image.RGBA); &g.Pix[0] == &m.Pix[0] || m.Pix[len(m.Pix)-1] != 7 {
				t.Errorf("%s: decoded into the image given", name)
			}
		}
	}
	// Widths 1 to 21: none to 5 groups of 4 pixels spread by two loads
	// and two stores, and tails of 0 to 3, into a dirty image.
	for w := 1; w <= 21; w++ {
		m := image.NewRGBA(image.Rect(0, 0, w, 2))
		for i := range m.Pix {
			if m.Pix[i] = byte(i*37 + w); i%4 == 3 {
				m.Pix[i] = 0xff
			}
		}
		var buf bytes.Buffer
		if err := Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeInto(bytes.NewReader(buf.Bytes()), dirty(w, 2))
		if g, ok := got.(*image.RGBA); err != nil || !ok || !bytes.Equal(g.Pix, m.Pix) {
			t.Fatalf("width %d: %v, or other pixels", w, err)
		}
	}
	bad := append([]byte("P6 3 2 15\n"), low[10:]...)
	bad[12] = 16
	for name, data := range map[string][]byte{"truncated": ppm.Bytes()[:ppm.Len()-1], "above the maximum": bad} {
		if _, err := DecodeInto(bytes.NewReader(data), dirty(5, 3)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestDropAlpha8 checks dropAlpha8 against a byte loop for rows of 0 to
// 69 pixels (the shuffle kernel's groups of 4 where the CPU has it, then
// groups of 8 and 4 and single pixels), with the destination's spare byte
// and beyond left alone.
func TestDropAlpha8(t *testing.T) {
	for w := range 70 {
		src := make([]byte, 4*w)
		for i := range src {
			src[i] = byte(7*i + 3)
		}
		want := make([]byte, 3*w+5)
		for i := range want {
			want[i] = 0xee
		}
		got := bytes.Clone(want)
		for x := range w {
			copy(want[3*x:3*x+3], src[4*x:4*x+3])
		}
		dropAlpha8(got[:3*w+1], src)
		if !bytes.Equal(got[:3*w], want[:3*w]) || !bytes.Equal(got[3*w+1:], want[3*w+1:]) {
			t.Errorf("%d pixels: %v, want %v", w, got, want)
		}
	}
}

// TestSpreadRGB checks spreadRGB against a byte loop for rows of 0 to 69
// pixels (the shuffle kernel's groups of 4 where the CPU has it, then
// groups of 8 and 4 and single pixels).
func TestSpreadRGB(t *testing.T) {
	for w := range 70 {
		row := make([]byte, 4*w)
		for i := range row {
			row[i] = byte(11*i + 5)
		}
		want := make([]byte, 4*w)
		for x := range w {
			copy(want[4*x:4*x+3], row[w+3*x:w+3*x+3])
			want[4*x+3] = 0xff
		}
		spreadRGB(row, w)
		if !bytes.Equal(row, want) {
			t.Errorf("%d pixels: %v, want %v", w, row, want)
		}
	}
}
