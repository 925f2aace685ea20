package codec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// gamma0ColourModel is smallColorModel (4:2:0) with gamma 0: a colour
// model whose 8-bit images Encode writes at version 10 (8 before it, and
// with Options.NoLoopFilter).
func gamma0ColourModel(t testing.TB) *Model {
	t.Helper()
	o := DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution = 300, 1024
	o.Patch, o.Step, o.Gamma, o.Color, o.Subsample = 3, 12, 0, true, true
	return cachedTrain(t, fmt.Sprintf("gamma0ColourModel %#v", o), func() (*Model, error) {
		return Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	})
}

// TestGoldenColourV8 pins the version-8 file of a gamma-0 colour model
// and its pixels to the sums spca wrote before version 10 (c76e2fb,
// Encode's file then): old colour files still decode bit for bit, and
// Options.NoLoopFilter writes them byte for byte.
func TestGoldenColourV8(t *testing.T) {
	if !goldenReference {
		t.Skipf("%s: training fuses multiply-adds here (see TestGolden)", runtime.GOARCH)
	}
	img := testimages.ColorTexture(61, 45, 21)
	m := gamma0ColourModel(t)
	var v8, off bytes.Buffer
	if err := encodeVersion(&v8, img, m, nil, formatVersionShifts); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&off, img, m, &Options{NoLoopFilter: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		file []byte
	}{{"version 8", v8.Bytes()}, {"NoLoopFilter", off.Bytes()}} {
		got, err := Decode(bytes.NewReader(c.file), m)
		if err != nil {
			t.Fatal(err)
		}
		if spc, pix := sum8(c.file), sum8(pixelBytes(t, got)); spc != "649e2752f00abe22" || pix != "451377445c097c9b" {
			t.Errorf("%s: spc %s pixels %s, want 649e2752f00abe22 451377445c097c9b", c.name, spc, pix)
		}
	}
}

// rgbSSE is the squared error of b's R, G and B against a's.
func rgbSSE(a, b image.Image) float64 {
	var s float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r0, g0, b0, _ := a.At(x, y).RGBA()
			r1, g1, b1, _ := b.At(x-r.Min.X+b.Bounds().Min.X, y-r.Min.Y+b.Bounds().Min.Y).RGBA()
			for _, d := range []float64{float64(r0>>8) - float64(r1>>8), float64(g0>>8) - float64(g1>>8), float64(b0>>8) - float64(b1>>8)} {
				s += d * d
			}
		}
	}
	return s
}

// withoutLoopFilter returns file with its header's loop filter set to
// none (the kind and taps zero), checksum recomputed.
func withoutLoopFilter(t *testing.T, file []byte) []byte {
	t.Helper()
	_, body, err := parseHeader(file)
	if err != nil {
		t.Fatal(err)
	}
	f := bytes.Clone(file)
	at := len(f) - len(body) - loopFilterBytes
	clear(f[at : at+loopFilterBytes])
	return checksum.Refresh(f)
}

// TestColourLoopFilterVersion checks format version 10: Encode writes it
// for 8-bit colour images with a gamma-0 model, the same bytes twice,
// version 8's bytes and loopFilterBytes more; a blurred image gets a
// filter and decodes with less squared error in R, G and B than version
// 8, a texture with no more; without its filter (the header's none) a
// file decodes to version 8's pixels; NoLoopFilter writes version 8 and
// so does EncodeAtRate with it (else version 10). Version 10 cannot be
// written for grey or 16-bit images, and its headers of them, an unknown
// filter kind, taps without a filter and every truncation are
// FormatErrors; a colour file called version 9 is one too.
func TestColourLoopFilterVersion(t *testing.T) {
	m := gamma0ColourModel(t)
	_, test := images()
	for _, c := range []struct {
		name   string
		img    image.Image
		filter bool // must get a loop filter
	}{{"texture", testimages.ColorTexture(70, 52, 9), false}, {"blurred", blurredRGBA(test[1]), true}} {
		var b8, b10, again, off bytes.Buffer
		if err := encodeVersion(&b8, c.img, m, nil, formatVersionShifts); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b10, c.img, m, nil); err != nil {
			t.Fatal(err)
		}
		if v := b10.Bytes()[len(Magic)]; v != formatVersionColourFilter {
			t.Fatalf("%s: a gamma-0 colour model wrote version %d for an 8-bit colour image", c.name, v)
		}
		if err := Encode(&again, c.img, m, nil); err != nil || !bytes.Equal(again.Bytes(), b10.Bytes()) {
			t.Fatalf("%s: two encodes differ (%v)", c.name, err)
		}
		if err := Encode(&off, c.img, m, &Options{NoLoopFilter: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(off.Bytes(), b8.Bytes()) {
			t.Errorf("%s: NoLoopFilter wrote another file than version 8", c.name)
		}
		if b10.Len() != b8.Len()+loopFilterBytes {
			t.Errorf("%s: version 8 %d bytes, version 10 %d", c.name, b8.Len(), b10.Len())
		}
		h, err := DecodeHeader(bytes.NewReader(b10.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if c.filter && h.LoopFilter == nil {
			t.Errorf("%s: no loop filter", c.name)
		}
		dec := func(b []byte) *image.RGBA {
			img, err := Decode(bytes.NewReader(b), m)
			if err != nil {
				t.Fatal(err)
			}
			return img.(*image.RGBA)
		}
		d8, d10, dnone := dec(b8.Bytes()), dec(b10.Bytes()), dec(withoutLoopFilter(t, b10.Bytes()))
		e8, e10 := rgbSSE(c.img, d8), rgbSSE(c.img, d10)
		t.Logf("%s: loop filter %v, squared error %.0f -> %.0f", c.name, h.LoopFilter, e8, e10)
		if e10 > e8 || (c.filter && !(e10 < e8)) {
			t.Errorf("%s: version 10 squared error %.0f (filter %v), version 8 %.0f", c.name, e10, h.LoopFilter, e8)
		}
		if !bytes.Equal(dnone.Pix, d8.Pix) {
			t.Errorf("%s: version 10 without its loop filter decodes to other pixels than version 8", c.name)
		}
		if h.LoopFilter != nil && bytes.Equal(d10.Pix, d8.Pix) {
			t.Errorf("%s: the loop filter %v changed no pixel", c.name, h.LoopFilter)
		}
		for n := len(Magic) + 1; n < b10.Len(); n += 1 + b10.Len()/61 {
			_, err := Decode(bytes.NewReader(b10.Bytes()[:n]), m)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: truncated to %d bytes: %v, want a *FormatError", c.name, n, err)
			}
		}
		rate := 0.8 * 8 * float64(b8.Len()) / float64(c.img.Bounds().Dx()*c.img.Bounds().Dy())
		for _, noLoop := range []bool{false, true} {
			var r bytes.Buffer
			if _, _, err := EncodeAtRate(&r, c.img, m, rate, &Options{NoLoopFilter: noLoop}); err != nil {
				t.Fatal(err)
			}
			want := formatVersionColourFilter
			if noLoop {
				want = formatVersionShifts
			}
			if v := r.Bytes()[len(Magic)]; int(v) != want {
				t.Errorf("%s: EncodeAtRate (NoLoopFilter %v) wrote version %d, want %d", c.name, noLoop, v, want)
			}
		}
	}
	// Hostile headers, checksums recomputed.
	var b bytes.Buffer
	if err := Encode(&b, blurredRGBA(test[1]), m, nil); err != nil {
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
		{"one channel", func(p []byte) { p[len(Magic)+1+32+8] = 1 }},
		{"16-bit samples", func(p []byte) { p[len(Magic)+1+32+9] = 16 }},
		{"version 9", func(p []byte) { p[len(Magic)] = formatVersionFilter }},
		{"version 8", func(p []byte) { p[len(Magic)] = formatVersionShifts }},
	} {
		p := append([]byte(nil), b.Bytes()[:b.Len()-4]...)
		c.patch(p)
		p = checksum.Append(p)
		var fe *FormatError
		if _, err := Decode(bytes.NewReader(p), m); !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError", c.name, err)
		}
	}
	// Version 10 holds 8-bit colour images only.
	g16 := image.NewRGBA64(image.Rect(0, 0, 20, 14))
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 5)
	}
	refuseVersion(t, formatVersionColourFilter, []versionCase{{"grey", test[0], stepModel(t)}, {"16-bit colour", g16, m}})
}

// TestLoopFilterLuma checks loopFilterLuma against its definition (each
// sample moved by the change loopFilterGray makes to the plane rounded
// by patches.Quantize8) on planes of every width 1..41 and some heights,
// with out-of-range, NaN and infinite samples, with the kernels and
// with the pure-Go paths.
func TestLoopFilterLuma(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 10))
	taps := [loopTaps]int8{40, 38, -12, -10, 9, 8, 3, 2, -4, -3, 5, -6}
	for _, k := range lumaKernelSwitches() {
		restore := k.set()
		for w := 1; w <= 41; w++ {
			for _, h := range []int{1, 2, 5, 9} {
				p := patches.NewPlane(w, h)
				for i := range p.Pix {
					p.Pix[i] = lumaTestValue(rng)
				}
				y8 := make([]uint8, w*h)
				for i, v := range p.Pix {
					y8[i] = patches.Quantize8(v)
				}
				f := bytes.Clone(y8)
				loopFilterGray(f, w, w, h, &taps)
				want := make([]float64, w*h)
				for i, v := range p.Pix {
					want[i] = v + float64(int(f[i])-int(y8[i]))
				}
				loopFilterLuma(p, &taps)
				for i, v := range p.Pix {
					if math.Float64bits(v) != math.Float64bits(want[i]) && !(math.IsNaN(v) && math.IsNaN(want[i])) {
						t.Fatalf("%s: %d×%d, sample %d: %v, want %v", k.name, w, h, i, v, want[i])
					}
				}
			}
		}
		restore()
	}
}

// lumaTestValue is a luma sample for the kernel tests: mostly in range,
// halves and their neighbours (the rounding's ties), out of range, -0,
// NaN and ±Inf.
func lumaTestValue(rng *rand.Rand) float64 {
	switch rng.IntN(12) {
	case 0:
		return float64(rng.IntN(256)) + 0.5
	case 1:
		return math.Nextafter(float64(rng.IntN(256))+0.5, math.Inf(-rng.IntN(2)))
	case 2:
		return -300 + 900*rng.Float64()
	case 3:
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 254.5, 255, 255.49999999999997, -0.5, 1e300}[rng.IntN(9)]
	}
	return 256 * rng.Float64()
}

// TestLumaKernels compares the luma loop filter's kernels (the rounding
// into the filter's window, the move by the change, the encoder's
// target) with their Go definitions on random and edge values, at
// every length 0..70 and from unaligned starts; with the kernels off
// they do nothing.
func TestLumaKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	for _, k := range lumaKernelSwitches() {
		restore := k.set()
		for n := 0; n <= 70; n++ {
			for off := 0; off < 3; off++ {
				src, orig := make([]float64, n+off), make([]float64, n+off)
				out, in := make([]uint8, n+off), make([]int32, n+off)
				for i := range src {
					src[i], orig[i] = lumaTestValue(rng), lumaTestValue(rng)
					out[i], in[i] = uint8(rng.IntN(256)), int32(rng.IntN(256))
				}
				s, o := src[off:], orig[off:]
				d := make([]int32, n+1)
				d[n] = -7 // past the end: untouched
				done := roundLumaKernel(d[:n], s)
				for i := 0; i < done; i++ {
					if d[i] != int32(patches.Quantize8(s[i])) {
						t.Fatalf("%s: roundLumaKernel, n %d, %d: %d from %v", k.name, n, i, d[i], s[i])
					}
				}
				if d[n] != -7 || done%8 != 0 || done > n {
					t.Fatalf("%s: roundLumaKernel, n %d: did %d, wrote past the end", k.name, n, done)
				}
				row := bytes.Clone(float64Bytes(s))
				moved := append([]float64(nil), s...)
				done = moveLumaKernel(moved, out[off:], in[off:])
				for i, v := range moved {
					want := s[i]
					if i < done {
						want += float64(int32(out[off+i]) - in[off+i])
					}
					if math.Float64bits(v) != math.Float64bits(want) && !(math.IsNaN(v) && math.IsNaN(want)) {
						t.Fatalf("%s: moveLumaKernel, n %d, %d: %v, want %v", k.name, n, i, v, want)
					}
				}
				if !bytes.Equal(row, float64Bytes(s)) || done%8 != 0 {
					t.Fatalf("%s: moveLumaKernel changed its source or did %d", k.name, done)
				}
				y8, t8 := make([]uint8, n+1), make([]uint8, n+1)
				y8[n], t8[n] = 77, 77
				done = lumaTargetKernel(y8[:n], t8[:n], s, o)
				for i := 0; i < done; i++ {
					q := patches.Quantize8(s[i])
					if y8[i] != q || t8[i] != patches.Quantize8(o[i]-s[i]+float64(q)) {
						t.Fatalf("%s: lumaTargetKernel, n %d, %d: %d %d from %v %v", k.name, n, i, y8[i], t8[i], s[i], o[i])
					}
				}
				if y8[n] != 77 || t8[n] != 77 || done%8 != 0 || done > n {
					t.Fatalf("%s: lumaTargetKernel, n %d: did %d, wrote past the end", k.name, n, done)
				}
				if k.target != (done > 0) && n >= 8 {
					t.Fatalf("%s: lumaTargetKernel did %d of %d", k.name, done, n)
				}
				if !k.target && done != 0 {
					t.Fatalf("%s: a kernel ran", k.name)
				}
			}
		}
		restore()
	}
}

// float64Bytes is v's bits, for comparing planes NaN for NaN.
func float64Bytes(v []float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = fmt.Appendf(b, "%016x", math.Float64bits(x))
	}
	return b
}

// TestChooseLumaLoopFilter: a luma reconstructed exactly (whole numbers
// in range) gets no filter; a blurred one gets one that lowers its
// error.
func TestChooseLumaLoopFilter(t *testing.T) {
	_, test := images()
	orig := patches.Luminance(squeezed(test[2], 0, 256))
	rec := patches.Luminance(blurred(test[2]))
	exact := patches.NewPlane(orig.W, orig.H)
	copy(exact.Pix, orig.Pix)
	if taps := chooseLumaLoopFilter(orig, exact, 0, 6, 3); taps != nil {
		t.Errorf("taps %v for an exact reconstruction", taps)
	}
	blur := patches.NewPlane(rec.W, rec.H)
	copy(blur.Pix, rec.Pix)
	taps := chooseLumaLoopFilter(orig, blur, 0, 6, 3)
	if taps == nil {
		t.Fatal("no filter for a blurred luma")
	}
	before, after := 0.0, 0.0
	filtered := patches.NewPlane(rec.W, rec.H)
	copy(filtered.Pix, rec.Pix)
	loopFilterLuma(filtered, loopTapsOf(taps))
	for i, o := range orig.Pix {
		before += (o - rec.Pix[i]) * (o - rec.Pix[i])
		after += (o - filtered.Pix[i]) * (o - filtered.Pix[i])
	}
	t.Logf("blurred luma: taps %v, squared error %.0f -> %.0f", taps, before, after)
	if !(after < 0.8*before) {
		t.Errorf("the filter leaves %.0f of %.0f", after, before)
	}
}
