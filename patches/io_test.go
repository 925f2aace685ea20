package patches

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sameRGBA64 reports whether a and b have the same bounds size and the
// same 16-bit premultiplied colours.
func sameRGBA64(a, b image.Image) bool {
	ba, bb := a.Bounds(), b.Bounds()
	if ba.Dx() != bb.Dx() || ba.Dy() != bb.Dy() {
		return false
	}
	for y := range ba.Dy() {
		for x := range ba.Dx() {
			r1, g1, b1, a1 := a.At(ba.Min.X+x, ba.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

func random16(rng *rand.Rand, m interface{ Set(int, int, color.Color) }, w, h int, alpha bool) {
	for y := range h {
		for x := range w {
			a := uint16(0xffff)
			if alpha {
				a = uint16(rng.UintN(0x10000))
			}
			c := color.NRGBA64{uint16(rng.UintN(0x10000)), uint16(rng.UintN(0x10000)), uint16(rng.UintN(0x10000)), a}
			m.Set(x, y, c)
		}
	}
}

func TestSaveLoad16Bit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 13, 7
	g16 := image.NewGray16(image.Rect(0, 0, w, h))
	random16(rng, g16, w, h, false)
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	random16(rng, rgba64, w, h, false)
	nrgba64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	random16(rng, nrgba64, w, h, true)
	g8 := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g8.Pix {
		g8.Pix[i] = uint8(rng.UintN(256))
	}

	dir := t.TempDir()
	for _, ext := range []string{".png", ".tif", ".TIFF"} {
		for name, img := range map[string]image.Image{"gray16": g16, "rgba64": rgba64, "nrgba64": nrgba64, "gray": g8} {
			path := filepath.Join(dir, name+ext)
			if err := Save(path, img); err != nil {
				t.Fatal(err)
			}
			got, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if !sameRGBA64(img, got) {
				t.Errorf("%s%s: round trip not exact (got %T)", name, ext, got)
			}
			switch got.(type) {
			case *image.Gray16, *image.RGBA64, *image.NRGBA64:
				if name == "gray" {
					t.Errorf("%s%s: 8-bit grey came back as %T", name, ext, got)
				}
			case *image.Gray:
				if name != "gray" {
					t.Errorf("%s%s: came back as %T", name, ext, got)
				}
			default:
				t.Errorf("%s%s: came back as %T", name, ext, got)
			}
		}
	}
	// The planes of a 16-bit image are on the 0..255 scale.
	got, _ := Load(filepath.Join(dir, "gray16.png"))
	p := Luminance(got)
	if want := float64(g16.Gray16At(3, 2).Y) / 257; p.At(3, 2) != want {
		t.Errorf("16-bit plane sample %v, want %v", p.At(3, 2), want)
	}
	if !sameRGBA64(FromPlane(p, true), g16) {
		t.Error("FromPlane(Luminance(gray16), true) differs from the image")
	}

	if err := Save(filepath.Join(dir, "x.jpg"), g8); err == nil || !strings.Contains(err.Error(), "unsupported extension") {
		t.Errorf("Save .jpg: err = %v", err)
	}
	if err := Save(filepath.Join(dir, "missing", "x.png"), g8); err == nil {
		t.Error("Save into a missing folder: no error")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	text := write("notes.png", []byte("these are not the pixels you are looking for\n"))
	_, err := Load(text)
	if !errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), "not an image: "+text) {
		t.Errorf("text file: err = %v", err)
	}
	if _, err := Load(write("empty.png", nil)); !errors.Is(err, ErrNotImage) {
		t.Errorf("empty file: err = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "absent.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}

	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	full := encodePNG(t, img)
	for _, cut := range []int{20, 40, len(full) / 2, len(full) - 5} {
		path := write("cut.png", full[:cut])
		_, err := Load(path)
		if err == nil || errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), path) {
			t.Errorf("PNG cut at %d of %d bytes: err = %v", cut, len(full), err)
		}
	}

	// A PNG whose header claims 20000×20000 pixels.
	huge := encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	ihdr := huge[8:] // length, "IHDR", data, CRC
	binary.BigEndian.PutUint32(ihdr[8:], 20000)
	binary.BigEndian.PutUint32(ihdr[12:], 20000)
	binary.BigEndian.PutUint32(ihdr[8+13:], crc32.ChecksumIEEE(ihdr[4:8+13]))
	_, err = Load(write("huge.png", huge))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "20000×20000") {
		t.Errorf("huge header: err = %v", err)
	}
	small := write("small.png", encodePNG(t, image.NewGray(image.Rect(0, 0, 10, 10))))
	if _, err := Load(small, MaxPixels(99)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxPixels(99) on 100 pixels: err = %v", err)
	}
	if _, err := Load(small, MaxPixels(100)); err != nil {
		t.Errorf("MaxPixels(100) on 100 pixels: err = %v", err)
	}
	if _, err := Decode(strings.NewReader("GIF89a")); err == nil || errors.Is(err, ErrNotImage) {
		t.Errorf("Decode of a truncated GIF: err = %v", err)
	}
}

// withOrientation inserts an APP1 segment holding an EXIF block with the
// given orientation tag right after the SOI marker of a JPEG stream.
func withOrientation(jpg []byte, orientation uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")                       // big-endian TIFF header
	binary.Write(&tiff, binary.BigEndian, uint32(8))     // offset of IFD0
	binary.Write(&tiff, binary.BigEndian, uint16(1))     // one entry
	binary.Write(&tiff, binary.BigEndian, uint16(0x112)) // Orientation
	binary.Write(&tiff, binary.BigEndian, uint16(3))     // SHORT
	binary.Write(&tiff, binary.BigEndian, uint32(1))     // count
	binary.Write(&tiff, binary.BigEndian, orientation)   // value, left-justified
	binary.Write(&tiff, binary.BigEndian, uint16(0))     // padding
	binary.Write(&tiff, binary.BigEndian, uint32(0))     // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)

	var out bytes.Buffer
	out.Write(jpg[:2]) // SOI
	out.Write([]byte{0xff, 0xe1})
	binary.Write(&out, binary.BigEndian, uint16(2+len(payload)))
	out.Write(payload)
	out.Write(jpg[2:])
	return out.Bytes()
}

func TestLoadEXIFOrientation(t *testing.T) {
	// 16×8, dark left half, bright right half.
	const w, h = 16, 8
	src := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if x >= w/2 {
				src.Pix[y*w+x] = 230
			} else {
				src.Pix[y*w+x] = 20
			}
		}
	}
	colour := image.NewRGBA(src.Rect)
	for i, v := range src.Pix {
		colour.Pix[4*i], colour.Pix[4*i+1], colour.Pix[4*i+2], colour.Pix[4*i+3] = v, v/2, 255-v, 255
	}
	dir := t.TempDir()
	for name, img := range map[string]image.Image{"grey": src, "colour": colour} {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
			t.Fatal(err)
		}
		// Orientation 6: the stored image must be turned 90° clockwise
		// for display, which puts the dark left half on top.
		path := filepath.Join(dir, name+".jpg")
		if err := os.WriteFile(path, withOrientation(buf.Bytes(), 6), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		b := got.Bounds()
		if b.Dx() != h || b.Dy() != w {
			t.Fatalf("%s: loaded %d×%d, want %d×%d", name, b.Dx(), b.Dy(), h, w)
		}
		p := Luminance(got)
		if top, bottom := p.At(h/2, 2), p.At(h/2, w-3); top > 60 || bottom < 120 {
			t.Errorf("%s: top %v, bottom %v: not rotated clockwise", name, top, bottom)
		}
		if _, ok := got.(*image.Gray); ok != (name == "grey") {
			t.Errorf("%s: loaded as %T", name, got)
		}

		raw, err := Load(path, AutoOrientation(false))
		if err != nil {
			t.Fatal(err)
		}
		if b := raw.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("%s: AutoOrientation(false) loaded %d×%d, want %d×%d", name, b.Dx(), b.Dy(), w, h)
		}
	}
}

// TestLoadSharedTestdata loads the shared photographs when they are there.
func TestLoadSharedTestdata(t *testing.T) {
	const dir = "../../shared/testdata"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no shared test data")
	}
	img, err := Load(filepath.Join(dir, "gray", "barbara.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := img.(*image.Gray); !ok {
		t.Errorf("barbara.png loaded as %T", img)
	}
	if !sameRGBA64(FromPlane(Luminance(img), false), img) {
		t.Error("barbara: FromPlane(Luminance) is not the image")
	}
	img, err = Load(filepath.Join(dir, "kodak", "kodim01.png"))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx()*b.Dy() != 768*512 {
		t.Errorf("kodim01 is %v", b)
	}
	if !sameRGBA64(FromYCbCr(YCbCr(img), false), img) {
		t.Error("kodim01: FromYCbCr(YCbCr) is not the image")
	}
}

// TestSaveLoadNetpbm: .pgm and .ppm files are written by Save and read
// back by Load with the same pixels.
func TestSaveLoadNetpbm(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 4, 3))
	c := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 21)
	}
	for i := range c.Pix {
		c.Pix[i] = uint8(i * 5)
		if i%4 == 3 {
			c.Pix[i] = 255
		}
	}
	for name, img := range map[string]image.Image{"g.pgm": g, "c.ppm": c} {
		path := filepath.Join(dir, name)
		if err := Save(path, img); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				if back.At(x, y) != img.At(x, y) {
					t.Fatalf("%s: pixel (%d,%d) %v, want %v", name, x, y, back.At(x, y), img.At(x, y))
				}
			}
		}
	}
}

// TestDecodePNGAsImagePNG checks that Decode returns image/png's type and
// pixels for the PNG kinds read by internal/pngfast (8-bit grey, RGB,
// RGBA) and for one left to image/png (16-bit grey), from a file and from
// a reader.
func TestDecodePNGAsImagePNG(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 41, 23))
	for i := range g.Pix {
		g.Pix[i] = byte(i*i/7 + i%13) // varied rows: image/png picks several filters
	}
	rgb := image.NewRGBA(image.Rect(0, 0, 13, 7))
	nrgba := image.NewNRGBA(rgb.Rect)
	for i := range rgb.Pix {
		rgb.Pix[i] = g.Pix[i%len(g.Pix)] | byte(i%4/3*255)
		nrgba.Pix[i] = g.Pix[(3*i)%len(g.Pix)]
	}
	g16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	for i := range g16.Pix {
		g16.Pix[i] = byte(7 * i)
	}
	dir := t.TempDir()
	for name, m := range map[string]image.Image{"grey": g, "rgb": rgb, "nrgba": nrgba, "grey16": g16} {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".png")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fromFile, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		fromReader, err := Decode(io.MultiReader(bytes.NewReader(b.Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []image.Image{fromFile, fromReader} {
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %T %v, image/png %T %v, or other pixels", name, got, got.Bounds(), want, want.Bounds())
			}
		}
	}
}

// TestLoadInto checks the Into option: an 8-bit grey PNG or PGM of the
// given image's size, or of fewer pixels, loads into its memory, with the
// pixels and bounds Load reads without it; a file of more pixels loads
// into a new image, and Load without Into (nil) as before.
func TestLoadInto(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 24))
	a, b := image.NewGray(image.Rect(0, 0, 37, 21)), image.NewGray(image.Rect(0, 0, 37, 21))
	for i := range a.Pix {
		a.Pix[i], b.Pix[i] = byte(rng.IntN(256)), byte(rng.IntN(256))
	}
	small := image.NewGray(image.Rect(0, 0, 36, 21))
	for _, ext := range []string{".png", ".pgm"} {
		pa, pb, ps := filepath.Join(dir, "a"+ext), filepath.Join(dir, "b"+ext), filepath.Join(dir, "s"+ext)
		for p, m := range map[string]image.Image{pa: a, pb: b, ps: small} {
			if err := Save(p, m); err != nil {
				t.Fatal(err)
			}
		}
		first, err := Load(pa, Into(nil))
		if err != nil {
			t.Fatal(err)
		}
		second, err := Load(pb, Into(first))
		if err != nil {
			t.Fatal(err)
		}
		g, ok := second.(*image.Gray)
		if !ok || &g.Pix[0] != &first.(*image.Gray).Pix[0] || !bytes.Equal(g.Pix, b.Pix) || g.Rect != b.Rect {
			t.Errorf("%s: Load Into an image of the size: not into it, or not the file's pixels", ext)
		}
		other, err := Load(ps, Into(second))
		if err != nil {
			t.Fatal(err)
		}
		if o := other.(*image.Gray); &o.Pix[0] != &g.Pix[0] || !bytes.Equal(o.Pix, small.Pix) || o.Rect != small.Rect {
			t.Errorf("%s: Load Into an image of more pixels: not into it, or other pixels or bounds", ext)
		}
		bigger, err := Load(pa, Into(image.NewGray(image.Rect(0, 0, 36, 21))))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bigger.(*image.Gray).Pix, a.Pix) {
			t.Errorf("%s: Load Into an image of fewer pixels: other pixels", ext)
		}
	}
}
