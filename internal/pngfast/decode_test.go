package pngfast

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/internal/rgbrows"
	"github.com/spcalab/spca/testimages"
)

// sameImage reports whether a and b have the same type, bounds, stride
// and pixels.
func sameImage(a, b image.Image) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) || a.Bounds() != b.Bounds() {
		return false
	}
	switch a := a.(type) {
	case *image.Gray:
		b := b.(*image.Gray)
		return a.Stride == b.Stride && bytes.Equal(a.Pix, b.Pix)
	case *image.RGBA:
		b := b.(*image.RGBA)
		return a.Stride == b.Stride && bytes.Equal(a.Pix, b.Pix)
	case *image.NRGBA:
		b := b.(*image.NRGBA)
		return a.Stride == b.Stride && bytes.Equal(a.Pix, b.Pix)
	}
	return false
}

// testPNGs returns PNG files of the three supported kinds written by
// image/png (which picks every filter type on a textured image) at two
// compression levels and by Encode, plus kinds left to image/png.
func testPNGs(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	g := testimages.Texture(67, 29, 2)
	rgb := image.NewRGBA(image.Rect(0, 0, 33, 21))
	nrgba := image.NewNRGBA(image.Rect(0, 0, 19, 17))
	for i := range rgb.Pix {
		rgb.Pix[i] = g.Pix[i%len(g.Pix)] + byte(i%4*40)
		if i%4 == 3 {
			rgb.Pix[i] = 0xff
		}
		nrgba.Pix[i%len(nrgba.Pix)] = byte(rng.IntN(256))
	}
	g16 := image.NewGray16(image.Rect(0, 0, 5, 4))
	pal := image.NewPaletted(image.Rect(0, 0, 6, 3), color.Palette{color.Black, color.White})
	files := map[string][]byte{}
	for name, m := range map[string]image.Image{"grey": g, "rgb": rgb, "nrgba": nrgba, "grey16": g16, "paletted": pal,
		"grey 1x1": image.NewGray(image.Rect(0, 0, 1, 1))} {
		for _, level := range []png.CompressionLevel{png.DefaultCompression, png.NoCompression} {
			var b bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: level}).Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			files[name+" image/png "+string(rune('0'-level))] = b.Bytes()
		}
		var b bytes.Buffer
		if err := Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		files[name+" pngfast"] = b.Bytes()
	}
	return files
}

// TestDecodeMatchesImagePNG checks that Decode returns image/png's type
// and pixels for every supported file, and ErrUnsupported for the others.
func TestDecodeMatchesImagePNG(t *testing.T) {
	for name, data := range testPNGs(t) {
		want, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: image/png: %v", name, err)
		}
		got, err := Decode(bytes.NewReader(data), nil)
		switch want.(type) {
		case *image.Gray, *image.RGBA, *image.NRGBA:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if !sameImage(got, want) {
				t.Errorf("%s: %T %v differs from image/png's %T %v", name, got, got.Bounds(), want, want.Bounds())
			}
		default:
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s (%T): got %v, want ErrUnsupported", name, want, err)
			}
		}
	}
	// Photographs, if present (not in CI).
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "testdata", "kodak", "kodim0[1-3].png"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := png.Decode(bytes.NewReader(data))
		got, err := Decode(bytes.NewReader(data), nil)
		if err != nil || !sameImage(got, want) {
			t.Errorf("%s: %v, or pixels differ from image/png's", p, err)
		}
	}
}

// chunk returns a PNG chunk with its length and CRC.
func chunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// ihdr returns IHDR data: 8-bit, colour type ct, not interlaced.
func ihdr(w, h uint32, ct byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, w)
	b = binary.BigEndian.AppendUint32(b, h)
	return append(b, 8, ct, 0, 0, 0)
}

// zlibOf compresses b.
func zlibOf(b []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// file joins a signature and chunks.
func file(chunks ...[]byte) []byte {
	return bytes.Join(append([][]byte{[]byte(pngSignature)}, chunks...), nil)
}

// TestDecodeCorrupt checks crafted bad files: an error of the right kind,
// no panic, and whenever image/png also reads the file, an error from it too.
func TestDecodeCorrupt(t *testing.T) {
	rows := bytes.Repeat([]byte{0, 1, 2, 3}, 4) // 4 rows of filter 0 + 3 grey pixels
	good := file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", zlibOf(rows)), chunk("IEND", nil))
	if _, err := Decode(bytes.NewReader(good), nil); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 1
	badFilter := file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", zlibOf(append([]byte{5, 1, 2, 3}, rows[4:]...))), chunk("IEND", nil))
	idat := zlibOf(rows)
	badAdler := bytes.Clone(idat)
	badAdler[len(badAdler)-1] ^= 1
	interlaced := ihdr(3, 4, 0)
	interlaced[12] = 1
	deep := ihdr(3, 4, 0)
	deep[8] = 16
	for _, c := range []struct {
		name string
		data []byte
		want error // nil: any FormatError
	}{
		{"empty", nil, ErrNotPNG},
		{"JPEG", []byte("\xff\xd8\xff\xe0 not a png"), ErrNotPNG},
		{"bad chunk CRC", badCRC, nil},
		{"bad filter", badFilter, nil},
		{"bad Adler-32", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", badAdler), chunk("IEND", nil)), nil},
		{"short pixel data", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", zlibOf(rows[:12])), chunk("IEND", nil)), nil},
		{"too much pixel data", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", zlibOf(append(rows, 0))), chunk("IEND", nil)), nil},
		{"bytes after the stream", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", append(zlibOf(rows), 7)), chunk("IEND", nil)), nil},
		{"no IEND", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", idat)), nil},
		{"no IDAT", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IEND", nil)), nil},
		{"no IHDR", file(chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"two IHDR", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"split IDAT", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("IDAT", idat[:5]), chunk("tEXt", []byte("a\x00b")), chunk("IDAT", idat[5:]), chunk("IEND", nil)), nil},
		{"zero width", file(chunk("IHDR", ihdr(0, 4, 0)), chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"negative height", file(chunk("IHDR", ihdr(3, 1<<31, 0)), chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"interlaced", file(chunk("IHDR", interlaced), chunk("IDAT", idat), chunk("IEND", nil)), ErrUnsupported},
		{"16-bit", file(chunk("IHDR", deep), chunk("IDAT", idat), chunk("IEND", nil)), ErrUnsupported},
		{"palette", file(chunk("IHDR", ihdr(3, 4, 3)), chunk("IDAT", idat), chunk("IEND", nil)), ErrUnsupported},
		{"tRNS", file(chunk("IHDR", ihdr(3, 4, 0)), chunk("tRNS", []byte{0, 0}), chunk("IDAT", idat), chunk("IEND", nil)), ErrUnsupported},
		{"huge image, tiny data", file(chunk("IHDR", ihdr(1<<30, 1<<30, 6)), chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"largest image, tiny data", file(chunk("IHDR", ihdr(1<<31-1, 1<<31-1, 6)), chunk("IDAT", idat), chunk("IEND", nil)), nil},
		{"huge chunk length", append(file(chunk("IHDR", ihdr(3, 4, 0))), "\x7f\xff\xff\xf0IDAT\x78\x9c"...), nil},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := Decode(bytes.NewReader(c.data), nil)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%s: allocated %d bytes", c.name, alloc)
		}
		var fe FormatError
		switch {
		case err == nil:
			t.Errorf("%s: decoded a %v image", c.name, img.Bounds())
		case c.want == nil && !errors.As(err, &fe):
			t.Errorf("%s: got %v, want a FormatError", c.name, err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// Every truncation of a good file is an error.
	for n := range len(good) {
		if _, err := Decode(bytes.NewReader(good[:n]), nil); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(good))
		}
	}
	// MaxPixels.
	if _, err := Decode(bytes.NewReader(good), &DecodeOptions{MaxPixels: 11}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("12 pixels, MaxPixels 11: got %v, want ErrTooLarge", err)
	}
}

// FuzzDecode checks that Decode never panics and, whenever it returns an
// image, image/png returns the same (type, bounds and pixels); so whenever
// image/png fails, Decode fails too; and that decoding from a reader of one
// byte a call, or into a reused image (DecodeOptions.Into), gives the same.
// The seeds run in plain go test.
func FuzzDecode(f *testing.F) {
	for _, data := range testPNGs(f) {
		f.Add(data)
	}
	rows := bytes.Repeat([]byte{4, 200, 3, 9, 1, 7, 250, 0}, 3)
	seed := file(chunk("IHDR", ihdr(7, 3, 0)), chunk("IDAT", zlibOf(rows)), chunk("IEND", nil))
	f.Add(seed)
	f.Add(file(chunk("IHDR", ihdr(1, 3, 2)), chunk("pHYs", make([]byte, 9)), chunk("IDAT", zlibOf(rows[:12])), chunk("IEND", nil)))
	// Bytes after the zlib stream: in IDAT chunks after its own (read),
	// after tEXt (read), in its own chunk (refused).
	z := zlibOf(rows)
	head := chunk("IHDR", ihdr(7, 3, 0))
	f.Add(file(head, chunk("IDAT", z), chunk("IDAT", []byte{1, 2, 3}), chunk("IEND", nil)))
	f.Add(file(head, chunk("IDAT", z), chunk("tEXt", []byte("k\x00v")), chunk("IDAT", z), chunk("IEND", nil)))
	f.Add(file(head, chunk("IDAT", append(bytes.Clone(z), 1)), chunk("IEND", nil)))
	rng := rand.New(rand.NewPCG(15, 8)) // crafted: Paeth and Average rows, long codes
	for i, ct := range []byte{0, 2, 6, 0} {
		f.Add(craftedPNG(rng, 3+2*i, 4, ct, []byte{5}, []float64{0, 3, 30, 0.7}[i], []int{1, -2, 9, 0}[i], false))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Also with every chunk's CRC recomputed: a byte mutated inside a
		// chunk fails its CRC, so the IHDR checks, the inflater and the
		// unfilter kernels behind it saw little but the seeds' chunks.
		for i, d := range [][]byte{data, hostile.PNGWithCRCs(data)} {
			if i == 1 && bytes.Equal(d, data) {
				continue // the CRCs valid already: the same input again
			}
			fuzzDecodeOne(t, d)
		}
	})
}

// fuzzDecodeOne is FuzzDecode's check of one input.
func fuzzDecodeOne(t *testing.T, data []byte) {
	const maxPixels = 1 << 20
	got, err := Decode(bytes.NewReader(data), &DecodeOptions{MaxPixels: maxPixels})
	// From a reader of one byte a call, with no Size or Seek: the
	// same image or an error where the bytes give one.
	one, oerr := Decode(iotest.OneByteReader(bytes.NewReader(data)), &DecodeOptions{MaxPixels: maxPixels})
	if (oerr == nil) != (err == nil) || err == nil && !sameImage(one, got) {
		t.Fatalf("one byte a call: %v; from the bytes: %v, or other pixels", oerr, err)
	}
	checkPacked(t, data, got, err)
	if err != nil {
		return
	}
	if n := got.Bounds().Dx() * got.Bounds().Dy(); n > maxPixels {
		t.Fatalf("decoded %d pixels, more than MaxPixels", n)
	}
	want, werr := png.Decode(bytes.NewReader(data))
	if werr != nil {
		t.Fatalf("decoded a %T %v that image/png rejects: %v", got, got.Bounds(), werr)
	}
	// Nor from a reader of one byte a call (it reads bytes after the
	// zlib stream or not as its reader splits the file).
	if _, werr := png.Decode(iotest.OneByteReader(bytes.NewReader(data))); werr != nil {
		t.Fatalf("decoded a %T %v that image/png rejects one byte a call: %v", got, got.Bounds(), werr)
	}
	if !sameImage(got, want) {
		t.Fatalf("decoded %T %v, image/png %T %v, or other pixels", got, got.Bounds(), want, want.Bounds())
	}
	// Into a reused image of the kind, turned (reshaped), whose
	// pixels are all 0x5a and run on into guard bytes: the same
	// image, every pixel set, no byte past them written.
	b := got.Bounds()
	into, buf := dirtyLike(got, image.Rect(0, 0, b.Dy(), b.Dx()))
	again, err := Decode(bytes.NewReader(data), &DecodeOptions{MaxPixels: maxPixels, Into: into})
	if err != nil || !sameImage(again, got) {
		t.Fatalf("into a reused %T %v: %v, or other pixels than a fresh image's", into, into.Bounds(), err)
	}
	if n := len(buf) - intoGuard; !bytes.Equal(buf[n:], bytes.Repeat([]byte{0x5a}, intoGuard)) {
		t.Fatalf("into a reused %T %v: wrote past its %d bytes", into, into.Bounds(), n)
	}
}

// intoGuard is how many bytes follow the pixels of dirtyLike's images.
const intoGuard = 64

// checkPacked decodes data with PackedRGB, fresh and into a reused
// *rgbrows.Image whose memory is all 0x5a and runs on into guard bytes:
// an error where Decode gave one (err), else Decode's image got, as rows
// of 3 bytes a pixel if got is an *image.RGBA (8-bit RGB: its pixels, no
// byte past the reused memory written), as it is otherwise.
func checkPacked(t *testing.T, data []byte, got image.Image, err error) {
	const maxPixels = 1 << 20
	var rows []*rgbrows.Image
	into := []image.Image{nil}
	var buf []byte
	if err == nil {
		b := got.Bounds()
		n := b.Dy() * (1 + 3*b.Dx())
		buf = bytes.Repeat([]byte{0x5a}, n+intoGuard)
		into = append(into, &rgbrows.Image{Mem: buf[:n]})
	}
	for _, in := range into {
		p, perr := Decode(bytes.NewReader(data), &DecodeOptions{MaxPixels: maxPixels, Into: in, PackedRGB: true})
		if (perr == nil) != (err == nil) {
			t.Fatalf("PackedRGB: %v, without: %v", perr, err)
		}
		if err != nil {
			return
		}
		r, packed := p.(*rgbrows.Image)
		if _, rgb := got.(*image.RGBA); packed != rgb || !packed && !sameImage(p, got) {
			t.Fatalf("PackedRGB: %T, without: %T, or other pixels", p, got)
		}
		if packed {
			rows = append(rows, r)
		}
	}
	for _, r := range rows {
		m, b := got.(*image.RGBA), got.Bounds()
		if r.Bounds() != b {
			t.Fatalf("PackedRGB: bounds %v, want %v", r.Bounds(), b)
		}
		for y := range b.Dy() {
			row := r.Row(y)
			for x := range b.Dx() {
				if c := m.RGBAAt(x, y); [3]byte(row[3*x:]) != [3]byte{c.R, c.G, c.B} || r.RGBAAt(x, y) != c {
					t.Fatalf("PackedRGB: pixel (%d,%d) %v, want %v", x, y, row[3*x:3*x+3], c)
				}
			}
		}
	}
	if len(rows) == 2 {
		if &rows[1].Mem[0] != &buf[0] {
			t.Fatal("PackedRGB into a reused image with room: other memory")
		}
		if n := len(buf) - intoGuard; !bytes.Equal(buf[n:], bytes.Repeat([]byte{0x5a}, intoGuard)) {
			t.Fatal("PackedRGB into a reused image: wrote past its memory")
		}
	}
}

// dirtyLike returns an image of img's type with bounds r, its pixels all
// 0x5a, and the buffer holding them, which runs on intoGuard bytes of
// 0x5a past them.
func dirtyLike(img image.Image, r image.Rectangle) (image.Image, []byte) {
	px := 4
	if _, ok := img.(*image.Gray); ok {
		px = 1
	}
	n := px * r.Dx() * r.Dy()
	buf := bytes.Repeat([]byte{0x5a}, n+intoGuard)
	switch img.(type) {
	case *image.Gray:
		return &image.Gray{Pix: buf[:n], Stride: r.Dx(), Rect: r}, buf
	case *image.RGBA:
		return &image.RGBA{Pix: buf[:n], Stride: 4 * r.Dx(), Rect: r}, buf
	}
	return &image.NRGBA{Pix: buf[:n], Stride: 4 * r.Dx(), Rect: r}, buf
}

// BenchmarkDecode reads a 768×512 grey PNG written by image/png with
// this package and with image/png (the baseline), from memory.
// SPCA_BENCH_PNG names another file to read.
func BenchmarkDecode(b *testing.B) {
	data := func() []byte {
		if p := os.Getenv("SPCA_BENCH_PNG"); p != "" {
			d, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}
		var w bytes.Buffer
		if err := png.Encode(&w, testimages.Texture(768, 512, 7)); err != nil {
			b.Fatal(err)
		}
		return w.Bytes()
	}()
	b.Run("pngfast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Decode(bytes.NewReader(data), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("image-png", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A file that is not a PNG (a PGM, tried first by patches.Decode) is
// refused from its first bytes, before Decode sizes a buffer for the
// file's data: that buffer was 393 KB of fresh memory for a 768×512 PGM.
func TestDecodeNotPNGAllocatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.pgm")
	pgm := append([]byte("P5\n768 512\n255\n"), make([]byte, 768*512)...)
	if err := os.WriteFile(path, pgm, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	before := st.TotalAlloc
	for range 10 {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(f, nil); !errors.Is(err, ErrNotPNG) {
			t.Fatalf("Decode of a PGM: %v, want ErrNotPNG", err)
		}
	}
	runtime.ReadMemStats(&st)
	if n := st.TotalAlloc - before; n > 256<<10 {
		t.Errorf("10 Decodes of a 768×512 PGM allocated %d bytes, want less than 256 KB (no buffer for its data)", n)
	}
}

// TestUnfilterPair checks that unfiltering two grey rows at once gives
// what unfiltering them one after the other gives, for each pair of
// Average and Paeth, on rows of 1 to 40 random bytes (and of 0s and 255s).
func TestUnfilterPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	for n := 1; n <= 40; n++ {
		for trial := range 20 {
			rows := make([][]byte, 3)
			for k := range rows {
				rows[k] = make([]byte, n)
				for i := range rows[k] {
					rows[k][i] = []byte{0, 255, byte(rng.IntN(256))}[min(trial%4, 2)]
					if trial%4 == 3 {
						rows[k][i] = byte(rng.IntN(256))
					}
				}
			}
			for _, f := range [][2]byte{{3, 3}, {3, 4}, {4, 3}, {4, 4}} {
				want0, want1 := bytes.Clone(rows[1]), bytes.Clone(rows[2])
				if err := unfilter(f[0], want0, rows[0], 1); err != nil {
					t.Fatal(err)
				}
				if err := unfilter(f[1], want1, want0, 1); err != nil {
					t.Fatal(err)
				}
				got0, got1 := bytes.Clone(rows[1]), bytes.Clone(rows[2])
				unfilterPair(f[0] == 4, f[1] == 4, got0, got1, rows[0])
				if !bytes.Equal(got0, want0) || !bytes.Equal(got1, want1) {
					t.Fatalf("filters %v, %d bytes: %v %v, want %v %v", f, n, got0, got1, want0, want1)
				}
			}
		}
	}
}
