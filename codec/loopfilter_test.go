package codec

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// loopFilterReference is the loop filter as its definition reads (see
// loopFilterGray): pixel by pixel, coordinates clamped into the image.
func loopFilterReference(src []uint8, w, h int, taps *[loopTaps]int8) []uint8 {
	at := func(y, x int) int32 { return int32(src[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]) }
	out := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := at(y, x)
			var s int32
			for k, o := range loopOffsets {
				s += int32(taps[k]) * (at(y+o[0], x+o[1]) + at(y-o[0], x-o[1]) - 2*r)
			}
			out[y*w+x] = uint8(min(max(r+((s+64)>>7), 0), 255))
		}
	}
	return out
}

// TestLoopFilterGray checks the decoder's loop filter against its
// definition on random pixels and taps (the extremes included), images
// narrower and shorter than the support and a stride wider than the
// rows (widths of whole, half and no steps of the kernels), with each
// kernel; with no taps it changes nothing, and a flat image stays flat.
func TestLoopFilterGray(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	sizes := [][2]int{{1, 1}, {2, 5}, {7, 3}, {4, 9}, {33, 17}, {64, 48}, {24, 7}, {47, 9}}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		for trial := 0; trial < 4; trial++ {
			var taps [loopTaps]int8
			for k := range taps {
				switch trial {
				case 0:
					taps[k] = -128
				case 1:
					taps[k] = 127
				default:
					taps[k] = int8(rng.IntN(256) - 128)
				}
			}
			src := make([]uint8, w*h)
			for i := range src {
				src[i] = uint8(rng.IntN(256))
			}
			want := loopFilterReference(src, w, h, &taps)
			stride := w + 5
			pix := make([]uint8, stride*h)
			for y := 0; y < h; y++ {
				copy(pix[y*stride:], src[y*w:(y+1)*w])
				pix[y*stride+w] = 77 // beyond the row: must stay
			}
			// The AVX-512 kernel, the AVX2 one, then the Go loop alone.
			for _, k := range [][2]bool{{hasAVX2, loopAVX512}, {hasAVX2, false}, {false, false}} {
				avx := k[0]
				for y := 0; y < h; y++ {
					copy(pix[y*stride:], src[y*w:(y+1)*w])
				}
				was, was512 := hasAVX2, loopAVX512
				hasAVX2, loopAVX512 = k[0], k[1]
				loopFilterGray(pix, stride, w, h, &taps)
				hasAVX2, loopAVX512 = was, was512
				for y := 0; y < h; y++ {
					for x := 0; x < w; x++ {
						if got := pix[y*stride+x]; got != want[y*w+x] {
							t.Fatalf("%d×%d taps %v (AVX2 %v): pixel (%d,%d) %d, want %d", w, h, taps, avx, x, y, got, want[y*w+x])
						}
					}
					if pix[y*stride+w] != 77 {
						t.Fatalf("%d×%d: the filter wrote beyond row %d", w, h, y)
					}
				}
			}
			if trial == 2 {
				var zero [loopTaps]int8
				same := append([]uint8(nil), src...)
				loopFilterGray(same, w, w, h, &zero)
				if !bytes.Equal(same, src) {
					t.Fatalf("%d×%d: the filter without taps changed the image", w, h)
				}
				flat := bytes.Repeat([]byte{200}, w*h)
				loopFilterGray(flat, w, w, h, &taps)
				if !bytes.Equal(flat, bytes.Repeat([]byte{200}, w*h)) {
					t.Fatalf("%d×%d: a flat image did not stay flat", w, h)
				}
			}
		}
	}
}

// blurred returns img in grey blurred by a 3×3 box: an image whose
// reconstruction a Wiener filter can sharpen back (the fit's test).
func blurred(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	lum := func(x, y int) int {
		x, y = min(max(x, 0), b.Dx()-1), min(max(y, 0), b.Dy()-1)
		return int(color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y)
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			s := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					s += lum(x+dx, y+dy)
				}
			}
			g.Pix[y*g.Stride+x] = uint8((s + 4) / 9)
		}
	}
	return g
}

// blurredFit returns a test texture, its blurred copy, the texture's
// values as the encoder's float64 plane, and the taps fitted to undo the
// blur (failing the test when none are).
func blurredFit(t *testing.T) (orig, rec *image.Gray, o []float64, taps [loopTaps]int8) {
	t.Helper()
	_, test := images()
	orig = squeezed(test[0], 0, 256)
	rec = blurred(orig)
	o = make([]float64, len(orig.Pix))
	for i, v := range orig.Pix {
		o[i] = float64(v)
	}
	taps, ok := fitLoopFilter(o, nil, rec.Pix, orig.Rect.Dx(), orig.Rect.Dy())
	if !ok {
		t.Fatal("no filter fitted to a blurred texture")
	}
	return orig, rec, o, taps
}

// TestFitLoopFilter checks the encoder's fit: the taps that undo a
// known blur of a texture lower its squared error, and a reconstruction
// equal to its original gets no filter.
func TestFitLoopFilter(t *testing.T) {
	orig, rec, o, taps := blurredFit(t)
	w, h := orig.Rect.Dx(), orig.Rect.Dy()
	before, after := loopFilterGain(o, nil, rec.Pix, w, h, &taps)
	t.Logf("blurred texture: taps %v, squared error %.0f -> %.0f", taps, before, after)
	if !(after < 0.8*before) {
		t.Errorf("the fitted filter leaves %.0f of %.0f of the blur's squared error", after, before)
	}
	if taps, ok := fitLoopFilter(o, nil, orig.Pix, w, h); ok {
		t.Errorf("taps %v fitted to a perfect reconstruction", taps)
	}
}

// TestLoopFilterVersion checks format version 9: Encode writes it for an
// 8-bit grey image with a gamma-0 model (not for colour and 16-bit
// images), the same bytes twice, and decodes it with no more squared
// error than version 8 in loopFilterBytes more bytes; without the loop
// filter it decodes to version 8's pixels; a blurred image gets a
// filter. Every truncation, an unknown filter kind, taps without a filter
// and a version-9 header of a colour image are FormatErrors, and so is
// version 10.
func TestLoopFilterVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	for _, c := range []struct {
		name   string
		img    *image.Gray
		filter bool // must get a loop filter
	}{{"texture", squeezed(test[0], 0, 256), false}, {"blurred", blurred(test[1]), true}} {
		var b8, b9, again, off bytes.Buffer
		if err := encodeVersion(&b8, c.img, m, nil, formatVersionShifts); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b9, c.img, m, nil); err != nil {
			t.Fatal(err)
		}
		if v := b9.Bytes()[len(Magic)]; v != formatVersionFilter {
			t.Fatalf("%s: a gamma-0 model wrote version %d for a grey image", c.name, v)
		}
		if err := Encode(&again, c.img, m, nil); err != nil || !bytes.Equal(again.Bytes(), b9.Bytes()) {
			t.Fatalf("%s: two encodes differ (%v)", c.name, err)
		}
		if err := Encode(&off, c.img, m, &Options{NoLoopFilter: true}); err != nil {
			t.Fatal(err)
		}
		h, err := DecodeHeader(bytes.NewReader(b9.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if c.filter && h.LoopFilter == nil {
			t.Errorf("%s: no loop filter", c.name)
		}
		if b9.Len() != b8.Len()+loopFilterBytes || off.Len() != b9.Len() {
			t.Errorf("%s: version 8 %d bytes, version 9 %d, without its filter %d", c.name, b8.Len(), b9.Len(), off.Len())
		}
		dec := func(b []byte) *image.Gray {
			img, err := Decode(bytes.NewReader(b), m)
			if err != nil {
				t.Fatal(err)
			}
			return img.(*image.Gray)
		}
		d8, d9, doff := dec(b8.Bytes()), dec(b9.Bytes()), dec(off.Bytes())
		e8, e9 := sse(c.img, d8), sse(c.img, d9)
		t.Logf("%s: loop filter %v, squared error %.0f -> %.0f", c.name, h.LoopFilter, e8, e9)
		if e9 > e8 || (h.LoopFilter != nil) != (e9 < e8) {
			t.Errorf("%s: version 9 squared error %.0f (filter %v), version 8 %.0f", c.name, e9, h.LoopFilter, e8)
		}
		if !bytes.Equal(doff.Pix, d8.Pix) {
			t.Errorf("%s: version 9 without its loop filter decodes to other pixels than version 8", c.name)
		}
		for n := len(Magic) + 1; n < b9.Len(); n += 1 + b9.Len()/61 {
			_, err := Decode(bytes.NewReader(b9.Bytes()[:n]), m)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: truncated to %d bytes: %v, want a *FormatError", c.name, n, err)
			}
		}
	}
	// Hostile headers, checksums recomputed.
	var b bytes.Buffer
	if err := Encode(&b, blurred(test[1]), m, nil); err != nil {
		t.Fatal(err)
	}
	_, body, err := parseHeader(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	at := b.Len() - len(body) - loopFilterBytes // the filter's kind byte
	for _, c := range []struct {
		name  string
		patch func(p []byte)
	}{
		{"unknown filter kind", func(p []byte) { p[at] = 2 }},
		{"taps without a filter", func(p []byte) { p[at] = loopKindNone }},
		{"three channels", func(p []byte) { p[len(Magic)+1+32+8] = 3 }},
		{"16-bit samples", func(p []byte) { p[len(Magic)+1+32+9] = 16 }},
		{"version 10 (colour)", func(p []byte) { p[len(Magic)] = formatVersionColourFilter }},
		{"a later version", func(p []byte) { p[len(Magic)] = lastFormatVersion + 1 }},
	} {
		p := append([]byte(nil), b.Bytes()[:b.Len()-4]...)
		c.patch(p)
		p = checksum.Append(p)
		var fe *FormatError
		if _, err := Decode(bytes.NewReader(p), m); !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError", c.name, err)
		}
		if _, err := DecodeHeader(bytes.NewReader(p)); !errors.As(err, &fe) {
			t.Errorf("%s: DecodeHeader %v, want a *FormatError", c.name, err)
		}
	}
	// A colour image coded by the grey model: its luminance (not whole
	// numbers, the fit's float path) is the original; blurred, it gets a
	// filter too.
	var c9 bytes.Buffer
	if err := Encode(&c9, blurredRGBA(test[2]), m, nil); err != nil {
		t.Fatal(err)
	}
	if v := c9.Bytes()[len(Magic)]; v != formatVersionFilter {
		t.Errorf("a colour image coded by a grey model: version %d", v)
	}
	if h, err := DecodeHeader(bytes.NewReader(c9.Bytes())); err != nil || h.LoopFilter == nil {
		t.Errorf("a blurred colour image coded by a grey model: header %+v, %v, want a loop filter", h, err)
	}
	if _, err := Decode(bytes.NewReader(c9.Bytes()), m); err != nil {
		t.Fatal(err)
	}
	// Colour and 16-bit grey images stay at version 8; version 9 cannot
	// be written for them.
	col := smallColorModel(t, false)
	cimg := image.NewRGBA(image.Rect(0, 0, 20, 14))
	for i := range cimg.Pix {
		cimg.Pix[i] = uint8(i * 7)
	}
	g16 := image.NewGray16(image.Rect(0, 0, 20, 14))
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 5)
	}
	refuseVersion(t, formatVersionFilter, []versionCase{{"colour", cimg, col}, {"16-bit grey", g16, m}})
}

// versionCase is an image, named, and the model refuseVersion codes it
// with.
type versionCase struct {
	name string
	img  image.Image
	m    *Model
}

// refuseVersion checks that Encode does not write version v for any of
// the cases' images and that encodeVersion refuses to.
func refuseVersion(t *testing.T, v int, cases []versionCase) {
	t.Helper()
	for _, c := range cases {
		var b bytes.Buffer
		if err := Encode(&b, c.img, c.m, nil); err != nil {
			t.Fatal(err)
		}
		if got := b.Bytes()[len(Magic)]; int(got) == v {
			t.Errorf("%s image: version %d", c.name, got)
		}
		if err := encodeVersion(&b, c.img, c.m, nil, v); err == nil {
			t.Errorf("version %d written for a %s image", v, c.name)
		}
	}
}

// BenchmarkLoopFilter measures the loop filter on a 768×512 grey
// texture: the decoder's pass (gray) and the encoder's fit and check
// (fit; fit8 from an 8-bit original, the encoder's case), against the deblocking filter's pass at strength 4 (deblock),
// the decoder's other post filter.
func BenchmarkLoopFilter(b *testing.B) {
	orig := squeezed(testimages.Texture(768, 512, 42), 0, 256)
	rec := blurred(orig)
	w, h := orig.Rect.Dx(), orig.Rect.Dy()
	o := make([]float64, w*h)
	for i, v := range orig.Pix {
		o[i] = float64(v)
	}
	taps, _ := fitLoopFilter(o, nil, rec.Pix, w, h)
	work := image.NewGray(rec.Rect)
	b.Run("gray", func(b *testing.B) {
		for range b.N {
			copy(work.Pix, rec.Pix)
			loopFilterGray(work.Pix, w, w, h, &taps)
		}
	})
	b.Run("deblock", func(b *testing.B) {
		for range b.N {
			copy(work.Pix, rec.Pix)
			deblockImage(work, 4, 30, 8)
		}
	})
	b.Run("fit", func(b *testing.B) {
		for range b.N {
			copy(work.Pix, rec.Pix)
			chooseLoopFilter(o, nil, work, 0, 30, 8, 1, nil)
		}
	})
	// The encoder's case: an 8-bit original.
	b.Run("fit8", func(b *testing.B) {
		for range b.N {
			copy(work.Pix, rec.Pix)
			chooseLoopFilter(o, orig.Pix, work, 0, 30, 8, 1, nil)
		}
	})
}

// TestDotInt16 checks the fit's dot products (the AVX2 kernel in chunks,
// then the Go loop alone) against int64 sums, at the extremes of the
// differences (±510) and lengths around the kernel's steps and chunks.
func TestDotInt16(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 32, 47, 48, 100, dotChunk - 1, dotChunk - 16, dotChunk, dotChunk + 31, 3*dotChunk + 5} {
		for trial := 0; trial < 3; trial++ {
			a, b := make([]int16, n), make([]int16, n)
			var want int64
			for i := range a {
				switch trial {
				case 0:
					a[i], b[i] = 510, 510
				case 1:
					a[i], b[i] = -510, 510
				default:
					a[i], b[i] = int16(rng.IntN(1021)-510), int16(rng.IntN(1021)-510)
				}
				want += int64(a[i]) * int64(b[i])
			}
			// AVX-512 (where the machine has it), AVX2 alone, Go.
			for _, k := range [][2]bool{{hasAVX2, hasAVX512BW}, {hasAVX2, false}, {false, false}} {
				was, was512 := hasAVX2, hasAVX512BW
				hasAVX2, hasAVX512BW = k[0], k[1]
				got := dotInt16(a, b)
				hasAVX2, hasAVX512BW = was, was512
				if got != want {
					t.Fatalf("n %d trial %d (AVX2 %v, AVX-512 %v): %d, want %d", n, trial, k[0], k[1], got, want)
				}
			}
		}
	}
}

// TestDotInt16x4 checks the fit's dot products 4 at a time (the
// AVX-512 kernel in chunks, then the Go loop alone) against int64 sums,
// at the extremes of the differences (±510), with 4 different planes,
// lengths around the kernel's steps and chunks, unaligned starts.
func TestDotInt16x4(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 100, dotChunk - 1, dotChunk - 16, dotChunk, dotChunk + 31, 3*dotChunk + 5} {
		for trial := 0; trial < 3; trial++ {
			off := trial
			a := make([]int16, n+off)[off:]
			var b [4][]int16
			for i := range b {
				b[i] = make([]int16, n+i)[i:]
			}
			var want [4]int64
			for x := range a {
				switch trial {
				case 0:
					a[x] = 510
				case 1:
					a[x] = -510
				default:
					a[x] = int16(rng.IntN(1021) - 510)
				}
				for i := range b {
					switch {
					case trial < 2 && i%2 == 0:
						b[i][x] = 510
					case trial < 2:
						b[i][x] = -510
					default:
						b[i][x] = int16(rng.IntN(1021) - 510)
					}
					want[i] += int64(a[x]) * int64(b[i][x])
				}
			}
			// AVX-512 (where the machine has it), AVX2 alone, Go.
			for _, k := range [][2]bool{{hasAVX2, hasAVX512BW}, {hasAVX2, false}, {false, false}} {
				if got := dot4With(k, a, b); got != want {
					t.Fatalf("n %d trial %d (AVX2 %v, AVX-512 %v): %v, want %v", n, trial, k[0], k[1], got, want)
				}
			}
		}
	}
}

// dot4With is dotInt16x4(a, &b) with hasAVX2 and hasAVX512BW set to k.
func dot4With(k [2]bool, a []int16, b [4][]int16) [4]int64 {
	was, was512 := hasAVX2, hasAVX512BW
	hasAVX2, hasAVX512BW = k[0], k[1]
	defer func() { hasAVX2, hasAVX512BW = was, was512 }()
	return dotInt16x4(a, &b)
}

// TestDotInt16x4Short checks dotInt16x4's kernels (AVX-512BW where the
// machine has it, AVX2 alone) against its Go loop at every length 0 to
// 300 with unaligned starts: random differences within ±510, at ±510,
// and beyond that bound up to ±4096 (products to 2^24: the kernels'
// 32-bit lanes sum at most 2·ceil(300/16) of them here, so they stay
// exact though the fit never makes them).
func TestDotInt16x4Short(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 2))
	for n := 0; n <= 300; n++ {
		for trial := 0; trial < 4; trial++ {
			a := make([]int16, n+n%3)[n%3:]
			var b [4][]int16
			for i := range b {
				off := (n + i) % 5
				b[i] = make([]int16, n+off+7)[off : off+n]
			}
			for x := range a {
				switch trial {
				case 0: // the bound, every sign
					a[x] = int16(510 - 1020*rng.IntN(2))
					for i := range b {
						b[i][x] = int16(510 - 1020*rng.IntN(2))
					}
				case 1: // the bound, one sign: the largest sums
					a[x] = -510
					for i := range b {
						b[i][x] = int16(-510 + 1020*(i%2))
					}
				case 2:
					a[x] = int16(rng.IntN(1021) - 510)
					for i := range b {
						b[i][x] = int16(rng.IntN(1021) - 510)
					}
				default: // beyond the fit's bound
					a[x] = int16(rng.IntN(8193) - 4096)
					for i := range b {
						b[i][x] = int16(4096 - 8192*rng.IntN(2))
					}
				}
			}
			want := dot4With([2]bool{false, false}, a, b)
			var sum [4]int64
			for x := range a {
				for i := range b {
					sum[i] += int64(a[x]) * int64(b[i][x])
				}
			}
			if want != sum {
				t.Fatalf("n %d trial %d: Go loop %v, sums %v", n, trial, want, sum)
			}
			for _, k := range [][2]bool{{hasAVX2, hasAVX512BW}, {hasAVX2, false}} {
				if got := dot4With(k, a, b); got != want {
					t.Fatalf("n %d trial %d (AVX2 %v, AVX-512 %v): %v, want %v", n, trial, k[0], k[1], got, want)
				}
			}
		}
	}
}

// blurredRGBA is blurred's grey levels in an RGBA image with a colour
// cast, whose luminance is not whole numbers.
func blurredRGBA(img image.Image) *image.RGBA {
	g := blurred(img)
	out := image.NewRGBA(g.Rect)
	for i, v := range g.Pix {
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = v, v/2+60, 255-v/3, 255
	}
	return out
}

// TestLoopFilterGain8 checks fitLoopFilter and loopFilterGain from an
// 8-bit original (the encoder's) against the same from its float64
// values.
func TestLoopFilterGain8(t *testing.T) {
	orig, rec, o, taps := blurredFit(t)
	w, h := orig.Rect.Dx(), orig.Rect.Dy()
	if taps8, ok8 := fitLoopFilter(o, orig.Pix, rec.Pix, w, h); taps8 != taps || !ok8 {
		t.Errorf("taps from 8-bit pixels %v (%v), from float64 ones %v", taps8, ok8, taps)
	}
	b0, a0 := loopFilterGain(o, nil, rec.Pix, w, h, &taps)
	b8, a8 := loopFilterGain(o, orig.Pix, rec.Pix, w, h, &taps)
	if b8 != b0 || a8 != a0 || !(a0 < b0) {
		t.Errorf("from 8-bit pixels %v -> %v, from float64 ones %v -> %v", b8, a8, b0, a0)
	}
}

// TestLoopFilterGainRowByRow checks loopFilterGain, which filters row by
// row, against the squared errors of a filtered copy, and that it leaves
// the reconstruction as it was.
func TestLoopFilterGainRowByRow(t *testing.T) {
	orig, rec, o, taps := blurredFit(t)
	w, h := orig.Rect.Dx(), orig.Rect.Dy()
	f := slices.Clone(rec.Pix)
	loopFilterGray(f, w, w, h, &taps)
	var before, after float64
	for i, v := range o {
		d0, d1 := v-float64(rec.Pix[i]), v-float64(f[i])
		before += d0 * d0
		after += d1 * d1
	}
	if before == after {
		t.Fatal("the filter changed nothing: no test")
	}
	kept := slices.Clone(rec.Pix)
	for _, orig8 := range [][]uint8{nil, orig.Pix} {
		if b, a := loopFilterGain(o, orig8, rec.Pix, w, h, &taps); b != before || a != after {
			t.Errorf("8-bit original %v: squared error %v -> %v, of a filtered copy %v -> %v", orig8 != nil, b, a, before, after)
		}
		if !slices.Equal(rec.Pix, kept) {
			t.Fatal("loopFilterGain changed the reconstruction")
		}
	}
}

// TestLoopFilterGainRows checks loopFilterGain8 over every sy-th row
// (chooseLumaLoopFilter's sample) against the squared errors of those
// rows of a filtered copy.
func TestLoopFilterGainRows(t *testing.T) {
	orig, rec, _, taps := blurredFit(t)
	w, h := orig.Rect.Dx(), orig.Rect.Dy()
	f := slices.Clone(rec.Pix)
	loopFilterGray(f, w, w, h, &taps)
	for _, sy := range []int{1, 2, 3} {
		var before, after float64
		for y := 0; y < h; y += sy {
			for x := range w {
				i := y*w + x
				d0, d1 := float64(orig.Pix[i])-float64(rec.Pix[i]), float64(orig.Pix[i])-float64(f[i])
				before += d0 * d0
				after += d1 * d1
			}
		}
		if b, a := loopFilterGain8(orig.Pix, rec.Pix, w, h, sy, &taps); b != before || a != after || before == after {
			t.Errorf("every %d rows: squared error %v -> %v, of a filtered copy %v -> %v", sy, b, a, before, after)
		}
	}
}

// TestFitLoopFilter8 checks that the fit from an 8-bit original (byte
// planes, evenDiff's kernel) finds the taps of the fit from the same
// original in float64 (int32 planes, the same integer sums), on images
// of odd and even sizes, small ones (every pixel) and rows longer than
// the kernel's steps, on blurred noise and on images at 0 and 255.
func TestFitLoopFilter8(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	for _, sz := range [][2]int{{5, 7}, {16, 16}, {17, 33}, {33, 65}, {100, 37}, {131, 64}, {768, 48}} {
		w, h := sz[0], sz[1]
		for kind := range 3 {
			orig := image.NewGray(image.Rect(0, 0, w, h))
			for i := range orig.Pix {
				switch kind {
				case 0:
					orig.Pix[i] = byte(rng.IntN(256))
				case 1:
					orig.Pix[i] = byte(255 * (i / 3 % 2))
				default:
					orig.Pix[i] = byte(128 + 60*math.Sin(float64(i%w)/3)*math.Cos(float64(i/w)/5) + 10*rng.NormFloat64())
				}
			}
			rec := blurred(orig)
			o := make([]float64, w*h)
			for i, v := range orig.Pix {
				o[i] = float64(v)
			}
			want, wok := fitLoopFilter(o, nil, rec.Pix, w, h)
			got, ok := fitLoopFilter(o, orig.Pix, rec.Pix, w, h)
			if got != want || ok != wok {
				t.Errorf("%d×%d kind %d: taps %v %v from 8 bits, %v %v from float64", w, h, kind, got, ok, want, wok)
			}
		}
	}
}

// TestEvenDiff checks evenDiff (its kernel for steps of 2) against the
// formula at the extremes (0 and 255 bytes: differences of ±510) for
// lengths around the kernel's 16, with inputs just long enough or
// longer.
func TestEvenDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 24))
	for n := range 70 {
		for _, step := range []int{1, 2} {
			in := make([][]uint8, 3)
			for i := range in {
				in[i] = make([]uint8, max(0, step*(n-1)+1)+rng.IntN(2)*7)
				for j := range in[i] {
					in[i][j] = []uint8{0, 255, byte(rng.IntN(256))}[rng.IntN(3)]
				}
			}
			d := make([]int16, n)
			evenDiff(d, in[0], in[1], in[2], step)
			for i, v := range d {
				p := i * step
				if want := int(in[0][p]) + int(in[1][p]) - 2*int(in[2][p]); int(v) != want {
					t.Fatalf("n %d step %d: d[%d] = %d, want %d", n, step, i, v, want)
				}
			}
		}
	}
}

// TestWidenKernel checks the loop filter's row copy kernel against the
// Go loop: every length up to 70, the pixels it returns as copied
// (widened without sign), the rest of dst untouched.
func TestWidenKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	for n := 0; n <= 70; n++ {
		src := make([]uint8, n)
		for i := range src {
			src[i] = uint8(rng.IntN(256))
		}
		src = append(src, 255, 128) // beyond len(src): not read into dst
		src = src[:n]
		dst := make([]int32, n+3)
		for i := range dst {
			dst[i] = -7
		}
		got := widenKernel(dst[:n], src)
		if hasAVX2 && got != n&^7 || !hasAVX2 && got != 0 {
			t.Fatalf("n %d: kernel took %d pixels", n, got)
		}
		for i := range dst {
			want := int32(-7)
			if i < got {
				want = int32(src[i])
			}
			if dst[i] != want {
				t.Fatalf("n %d: dst[%d] = %d, want %d", n, i, dst[i], want)
			}
		}
	}
}

// TestChooseLoopFilterSearchErrors checks that the deblocking search's
// exact errors at each strength (deblockErrorsGray8) are the squared
// errors of the image deblocked at it, which chooseLoopFilter takes for
// its gain's before, and that it chooses with them what it chooses
// without them: on a blurred texture with blocks of 8×8 moved apart
// (edges the deblocking filter takes at some strengths, not at others).
func TestChooseLoopFilterSearchErrors(t *testing.T) {
	orig, rec, o, _ := blurredFit(t)
	w := orig.Rect.Dx()
	for i := range rec.Pix {
		x, y := i%w, i/w
		d := (x/8*7+y/8*3)%9 - 4
		rec.Pix[i] = uint8(min(255, max(0, int(rec.Pix[i])+d)))
	}
	const step, n = 30.0, 8
	errs := deblockErrorsGray8(orig.Pix, rec, step, n, 1)
	changed, filtered := 0, 0
	for k := 0; k <= maxDeblock; k++ {
		work := image.NewGray(rec.Rect)
		copy(work.Pix, rec.Pix)
		deblockImage(work, k, step, n)
		if e := float64(sse8(work.Pix, orig.Pix)); e != errs[k] {
			t.Fatalf("strength %d: the search's error %v, the deblocked image's %v", k, errs[k], e)
		}
		if errs[k] != errs[0] {
			changed++
		}
		a, b := image.NewGray(rec.Rect), image.NewGray(rec.Rect)
		copy(a.Pix, rec.Pix)
		copy(b.Pix, rec.Pix)
		with, without := chooseLoopFilter(o, orig.Pix, a, k, step, n, 1, errs), chooseLoopFilter(o, orig.Pix, b, k, step, n, 1, nil)
		if !slices.Equal(with, without) {
			t.Fatalf("strength %d: the loop filter %v with the search's errors, %v without", k, with, without)
		}
		if with != nil {
			filtered++
		}
	}
	if changed == 0 || filtered == 0 {
		t.Fatalf("no test: %d strengths changed the image, %d kept a loop filter", changed, filtered)
	}
	t.Logf("%d of %d strengths changed the image, %d kept a loop filter", changed, maxDeblock+1, filtered)
}
