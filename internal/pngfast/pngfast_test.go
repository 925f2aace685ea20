package pngfast

import (
	"bytes"
	"errors"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestEncodeDecodes checks that image/png reads back the pixels of grey
// images of 8 and 16 bits (photograph-like and random, odd sizes, a
// sub-image with its own stride and origin) and of a colour image (image/png's path).
func TestEncodeDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := image.NewGray16(image.Rect(0, 0, 37, 5))
	for i := range noise.Pix {
		noise.Pix[i] = byte(rng.IntN(256))
	}
	g := testimages.Texture(65, 33, 4)
	rgba := image.NewRGBA(image.Rect(0, 0, 9, 4))
	for i := range rgba.Pix {
		rgba.Pix[i] = byte(rng.IntN(256)) // alpha set to opaque below
	}
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i] = 255
	}
	translucent := image.NewRGBA(rgba.Rect)
	copy(translucent.Pix, rgba.Pix)
	copy(translucent.Pix[4:8], []byte{0, 0, 0, 0})   // one transparent pixel: image/png writes it exactly
	wide := image.NewRGBA(image.Rect(0, 0, 3000, 7)) // rows of more than one 64 KB band
	for i := range wide.Pix {
		wide.Pix[i] = byte(rng.IntN(256)) | byte(i%4/3*255)
	}
	// Byte values found only in rows that the Huffman tables' sample
	// skips (sampleRows): they still need codes.
	unsampled := image.NewGray(image.Rect(0, 0, 50, 300))
	for y := range 300 {
		if y%sampleRows != 0 {
			for x := range 50 {
				unsampled.Pix[y*50+x] = byte(rng.IntN(256))
			}
		}
	}
	for name, m := range map[string]image.Image{
		"unsampled":     unsampled,
		"grey":          g,
		"grey sub":      g.SubImage(image.Rect(3, 5, 40, 30)),
		"grey 1x1":      image.NewGray(image.Rect(0, 0, 1, 1)),
		"grey16 noise":  noise,
		"grey16 sub":    noise.SubImage(image.Rect(1, 1, 2, 5)),
		"rgba":          rgba,
		"rgba sub":      rgba.SubImage(image.Rect(2, 1, 9, 3)),
		"rgba wide":     wide,
		"rgba fallback": translucent,
		"grey tall":     testimages.Texture(5, 40000, 1),
	} {
		var b bytes.Buffer
		if err := Encode(&b, m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: image/png cannot read it: %v", name, err)
		}
		r := m.Bounds()
		if back.Bounds().Size() != r.Size() {
			t.Fatalf("%s: size %v, want %v", name, back.Bounds().Size(), r.Size())
		}
		for y := 0; y < r.Dy(); y++ {
			for x := 0; x < r.Dx(); x++ {
				a := color.RGBA64Model.Convert(m.At(r.Min.X+x, r.Min.Y+y))
				c := color.RGBA64Model.Convert(back.At(x, y))
				if a != c {
					t.Fatalf("%s: pixel (%d, %d) %v, read back %v", name, x, y, a, c)
				}
			}
		}
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestEncodeWriteError checks that a failing writer's error is returned.
func TestEncodeWriteError(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 300, 300))
	for _, n := range []int{0, 10, 40, 1000} {
		if err := Encode(&failWriter{n: n}, m); err == nil || err.Error() != "disk full" {
			t.Errorf("writer failing after %d bytes: got %v", n, err)
		}
	}
}

// sizesWriter records the size of each Write.
type sizesWriter struct {
	bytes.Buffer
	sizes []int
}

func (w *sizesWriter) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// TestEncodeWritesWhole checks that Encode writes a file of less than
// writeBytes in one Write, and a larger one (RGB noise, two files in a row:
// the kept buffer) in Writes of at least writeBytes but the last: fewer
// write(2) calls, the same bytes.
func TestEncodeWritesWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	big := image.NewRGBA(image.Rect(0, 0, 1100, 700))
	for i := range big.Pix {
		big.Pix[i] = byte(rng.Uint32()) | byte(i%4/3*255)
	}
	for _, m := range []image.Image{testimages.Texture(300, 200, 3), big, big, testimages.Texture(7, 5, 3)} {
		var w sizesWriter
		if err := EncodeOpaque(&w, m); err != nil {
			t.Fatal(err)
		}
		n := w.Len()
		if n < writeBytes && len(w.sizes) != 1 {
			t.Fatalf("a file of %d bytes in %d Writes (%v), not one", n, len(w.sizes), w.sizes)
		}
		for i, k := range w.sizes[:len(w.sizes)-1] {
			if k < writeBytes {
				t.Fatalf("a file of %d bytes: Write %d of %d bytes (%v)", n, i, k, w.sizes)
			}
		}
		if n > writeBytes && len(w.sizes) < 2 {
			t.Fatalf("a file of %d bytes in one Write", n)
		}
		samePixels(t, m, w.Bytes())
	}
}

// BenchmarkEncode writes a 768×512 grey photograph-like image with this
// package and with image/png at BestSpeed (the baseline), reporting the
// bytes written.
func BenchmarkEncode(b *testing.B) {
	g := testimages.Texture(768, 512, 7)
	for _, c := range []struct {
		name string
		enc  func(*bytes.Buffer) error
	}{
		{"pngfast", func(w *bytes.Buffer) error { return Encode(w, g) }},
		{"image-png-bestspeed", func(w *bytes.Buffer) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, g)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var w bytes.Buffer
			for i := 0; i < b.N; i++ {
				w.Reset()
				if err := c.enc(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.Len()), "bytes")
		})
	}
}

// TestSubAdler checks the eight-bytes-at-a-time Sub filter and its
// Adler-32 sums against a byte loop and hash/adler32, and count against a
// plain count: random rows of every length up to 40 and both depths, and
// long rows (past the 64 KB reduction of the sums) of random bytes and
// of filtered bytes all 255 (the largest sums), each row after the
// previous ones.
func TestSubAdler(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	long := make([]byte, 200_003)
	for i := range long {
		long[i] = byte(rng.IntN(256))
	}
	var rows [][]byte
	for n := 0; n <= 40; n++ {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		rows = append(rows, src)
	}
	rows = append(rows, long)
	for _, bpp := range []int{1, 2} {
		// Each byte one less than the byte bpp before it: all filtered
		// bytes 255, the largest sums.
		down := make([]byte, 140_001)
		for i := range down {
			down[i] = byte(255 - i/bpp)
		}
		h := newHuffWriter()
		h.reset()
		var all []byte
		for _, src := range append(rows, down) {
			if len(src) < bpp {
				continue
			}
			got := make([]byte, len(src))
			h.subAdler(got, src, bpp)
			h.count(got)
			for i := range src {
				want := src[i]
				if i >= bpp {
					want -= src[i-bpp]
				}
				if got[i] != want {
					t.Fatalf("bpp %d, %d bytes: byte %d is %d, want %d", bpp, len(src), i, got[i], want)
				}
			}
			all = append(all, got...)
			if a, want := h.adlerB<<16|h.adlerA, adler32.Checksum(all); a != want {
				t.Fatalf("bpp %d, after a row of %d bytes: Adler-32 %#x, want %#x", bpp, len(src), a, want)
			}
		}
		var want [256]uint32
		for _, b := range all {
			want[b]++
		}
		for s := range 256 {
			if c := h.counts[0][s] + h.counts[1][s] + h.counts[2][s] + h.counts[3][s]; c != want[s] {
				t.Fatalf("bpp %d: byte %d counted %d times, want %d", bpp, s, c, want[s])
			}
		}
	}
}

// benchImages decodes the PNGs of the directory SPCA_BENCH_PNG; it skips
// without them.
func benchImages(b *testing.B) []image.Image {
	dir := os.Getenv("SPCA_BENCH_PNG")
	if dir == "" {
		b.Skip("SPCA_BENCH_PNG (a directory of PNG files) not set")
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	var ims []image.Image
	for _, n := range names {
		f, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		m, err := png.Decode(bytes.NewReader(f))
		if err != nil {
			b.Fatal(err)
		}
		ims = append(ims, m)
	}
	if len(ims) == 0 {
		b.Skip("no PNG files in SPCA_BENCH_PNG")
	}
	return ims
}

// BenchmarkEncodeReal writes the PNGs of the directory SPCA_BENCH_PNG
// (decoded photographs, say), reporting the time and bytes per image; it
// skips without it.
func BenchmarkEncodeReal(b *testing.B) {
	ims := benchImages(b)
	var w bytes.Buffer
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		total = 0
		for _, m := range ims {
			w.Reset()
			if err := Encode(&w, m); err != nil {
				b.Fatal(err)
			}
			total += w.Len()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ims)), "us/img")
	b.ReportMetric(float64(total)/float64(len(ims)), "bytes/img")
}

// TestSubRGB checks subRGB against a byte loop for rows of 0 to 13
// pixels of random bytes (none to three word groups, and the pixels
// after), and subBytes on every pair of byte values in each byte.
func TestSubRGB(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	for w := range 14 {
		src := make([]byte, 4*w)
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		got, want := make([]byte, 3*w), make([]byte, 3*w)
		var prev [3]byte
		for x := range w {
			for c := range 3 {
				want[3*x+c] = src[4*x+c] - prev[c]
				prev[c] = src[4*x+c]
			}
		}
		subRGB(got, src)
		if !bytes.Equal(got, want) {
			t.Errorf("%d pixels: %v, want %v", w, got, want)
		}
	}
	for x := range 256 {
		for y := range 256 {
			k := (x + y) % 8
			fill := uint64(rng.Uint64())
			xs, ys := fill&^(0xff<<(8*k))|uint64(x)<<(8*k), fill>>1&^(0xff<<(8*k))|uint64(y)<<(8*k)
			if got := byte(subBytes(xs, ys) >> (8 * k)); got != byte(x-y) {
				t.Fatalf("subBytes: byte %d of %#x − %#x is %d, want %d", k, xs, ys, got, byte(x-y))
			}
		}
	}
}

// TestEncodeOpaque checks that EncodeOpaque writes the bytes Encode
// writes for opaque images (RGBA, wide and sub-images, grey), and an
// RGBA image as RGB without its alpha: a translucent one reads back
// with its colours, opaque.
func TestEncodeOpaque(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	rgba := image.NewRGBA(image.Rect(0, 0, 3000, 9)) // rows of more than one 64 KB band
	for i := range rgba.Pix {
		rgba.Pix[i] = byte(rng.IntN(256)) | byte(i%4/3*255)
	}
	for name, m := range map[string]image.Image{
		"rgba":     rgba,
		"rgba sub": rgba.SubImage(image.Rect(5, 2, 700, 9)),
		"grey":     testimages.Texture(65, 33, 4),
	} {
		var a, b bytes.Buffer
		if err := Encode(&a, m); err != nil {
			t.Fatal(err)
		}
		if err := EncodeOpaque(&b, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: EncodeOpaque wrote other bytes than Encode", name)
		}
	}
	translucent := image.NewRGBA(image.Rect(0, 0, 7, 3))
	copy(translucent.Pix, rgba.Pix)
	translucent.Pix[7] = 10
	var b bytes.Buffer
	if err := EncodeOpaque(&b, translucent); err != nil {
		t.Fatal(err)
	}
	if ct := b.Bytes()[25]; ct != 2 { // IHDR's colour type, after the signature, length, type, size and depth
		t.Errorf("EncodeOpaque of an RGBA image: colour type %d, want 2 (RGB)", ct)
	}
	back, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 21; i++ {
		got := color.RGBAModel.Convert(back.At(i%7, i/7)).(color.RGBA)
		p := translucent.Pix[4*i : 4*i+3]
		if got != (color.RGBA{p[0], p[1], p[2], 255}) {
			t.Fatalf("pixel %d: %v, want the colours %v, opaque", i, got, p)
		}
	}
}
