package patches

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/testimages"
)

func TestLuminance(t *testing.T) {
	g := image.NewGray(image.Rect(2, 3, 5, 5)) // bounds not at the origin
	for i := range g.Pix {
		g.Pix[i] = uint8(40 * i)
	}
	p := Luminance(g)
	if p.W != 3 || p.H != 2 || p.At(2, 1) != 200 {
		t.Errorf("grey: %+v", p)
	}

	// A sub-image: rows shorter than the stride.
	big := image.NewGray(image.Rect(0, 0, 9, 7))
	for i := range big.Pix {
		big.Pix[i] = uint8(i * 11)
	}
	sub := big.SubImage(image.Rect(2, 1, 7, 6)).(*image.Gray)
	ps := Luminance(sub)
	for y := range ps.H {
		for x := range ps.W {
			if got, want := ps.At(x, y), float64(sub.GrayAt(x+2, y+1).Y); got != want {
				t.Fatalf("grey sub-image (%d,%d): %v, want %v", x, y, got, want)
			}
		}
	}

	g16 := image.NewGray16(image.Rect(0, 0, 1, 1))
	g16.SetGray16(0, 0, color.Gray16{Y: 1000})
	if got := Luminance(g16).Pix[0]; got != 1000.0/257 {
		t.Errorf("grey 16: %v", got)
	}

	c := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	c.SetNRGBA(0, 0, color.NRGBA{200, 100, 50, 255})
	c.SetNRGBA(1, 0, color.NRGBA{77, 77, 77, 255})
	c.SetNRGBA(2, 0, color.NRGBA{200, 100, 50, 10}) // alpha ignored
	p = Luminance(c)
	want := 0.299*200 + 0.587*100 + 0.114*50
	if math.Abs(p.Pix[0]-want) > 1e-12 || p.Pix[1] != 77 || math.Abs(p.Pix[2]-want) > 1e-12 {
		t.Errorf("colour: %v, want [%v 77 %v]", p.Pix, want, want)
	}
	// Premultiplied and generic colour images agree with NRGBA.
	rgba := image.NewRGBA(c.Rect)
	pal := image.NewPaletted(c.Rect, color.Palette{color.NRGBA{200, 100, 50, 255}, color.NRGBA{77, 77, 77, 255}})
	pal.Pix = []uint8{0, 1, 0}
	for x := range 2 {
		rgba.Set(x, 0, c.At(x, 0))
	}
	for name, m := range map[string]image.Image{"RGBA": rgba, "Paletted": pal} {
		q := Luminance(m)
		if q.Pix[0] != p.Pix[0] || q.Pix[1] != p.Pix[1] {
			t.Errorf("%s: %v, want %v", name, q.Pix[:2], p.Pix[:2])
		}
	}
}

func TestYCbCrRoundTrip(t *testing.T) {
	img := testimages.ColorTexture(37, 23, 5)
	ps := YCbCr(img)
	for i := range ps[0].Pix {
		px := img.Pix[4*i : 4*i+3]
		r, g, b := toRGB(ps[0].Pix[i], ps[1].Pix[i], ps[2].Pix[i])
		for c, v := range [3]float64{r, g, b} {
			if math.Abs(v-float64(px[c])) > 1e-9 {
				t.Fatalf("pixel %d channel %d: %v, want %d", i, c, v, px[c])
			}
		}
	}
	back := FromYCbCr(ps, false)
	if !sameRGBA64(back, img) {
		t.Error("8-bit FromYCbCr(YCbCr) is not the image")
	}

	// Random float colours, and after quantising Y'CbCr to 8 bits each
	// channel is within one level.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		r, g, b := 255*rng.Float64(), 255*rng.Float64(), 255*rng.Float64()
		y := luma(r, g, b)
		cb, cr := chromaZero+(b-y)/cbScale, chromaZero+(r-y)/crScale
		r2, g2, b2 := toRGB(y, cb, cr)
		if math.Abs(r2-r) > 1e-9 || math.Abs(g2-g) > 1e-9 || math.Abs(b2-b) > 1e-9 {
			t.Fatalf("float round trip of %v %v %v: %v %v %v", r, g, b, r2, g2, b2)
		}
		if cb < 0 || cb > 255 || cr < 0 || cr > 255 {
			t.Fatalf("chroma out of 0..255: %v %v", cb, cr)
		}
	}
	for i := range ps {
		for j, v := range ps[i].Pix {
			ps[i].Pix[j] = math.Round(v)
		}
	}
	q := FromYCbCr(ps, false).(*image.RGBA)
	for i := range q.Pix {
		if d := int(q.Pix[i]) - int(img.Pix[i]); d < -1 || d > 1 {
			t.Fatalf("sample %d: %d after 8-bit Y'CbCr, want %d ± 1", i, q.Pix[i], img.Pix[i])
		}
	}

	// 16-bit output keeps the fraction of the 8-bit scale.
	p := [3]Plane{{1, 1, []float64{100.25}}, {1, 1, []float64{128}}, {1, 1, []float64{128}}}
	if got := FromYCbCr(p, true).(*image.RGBA64).RGBA64At(0, 0); got.R != 25764 || got.G != 25764 || got.B != 25764 || got.A != 0xffff {
		t.Errorf("16-bit grey 100.25: %v", got)
	}

	// Grey images have neutral chroma; JPEG images give their planes.
	gp := YCbCr(testimages.Texture(9, 4, 1))
	for _, v := range append(gp[1].Pix, gp[2].Pix...) {
		if v != 128 {
			t.Fatalf("grey chroma %v", v)
		}
	}
	ycc := image.NewYCbCr(image.Rect(0, 0, 4, 2), image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(10 * i)
	}
	ycc.Cb[0], ycc.Cb[1], ycc.Cr[0], ycc.Cr[1] = 90, 100, 140, 150
	yp := YCbCr(ycc)
	if yp[0].At(3, 1) != 70 || yp[1].At(3, 1) != 100 || yp[2].At(0, 1) != 140 || Luminance(ycc).At(2, 0) != 20 {
		t.Errorf("YCbCr of *image.YCbCr: %v", yp)
	}
}

func TestFromPlaneClamps(t *testing.T) {
	p := Plane{W: 5, H: 1, Pix: []float64{-3, 0.49, 254.5, 300, math.NaN()}}
	g := FromPlane(p, false).(*image.Gray)
	if want := []uint8{0, 0, 255, 255, 0}; string(g.Pix) != string(want) {
		t.Errorf("8-bit: %v, want %v", g.Pix, want)
	}
	g16 := FromPlane(p, true).(*image.Gray16)
	for x, want := range []uint16{0, 126, 65407, 65535, 0} {
		if got := g16.Gray16At(x, 0).Y; got != want {
			t.Errorf("16-bit sample %d: %d, want %d", x, got, want)
		}
	}
}

// TestRoundPositive checks the rounding of Quantize8 and Quantize16
// against math.Round at and around every half-integer of their ranges and
// at random values.
func TestRoundPositive(t *testing.T) {
	check := func(v float64) {
		if got, want := roundPositive(v), int(math.Round(v)); got != want {
			t.Fatalf("roundPositive(%v) = %d, math.Round %d", v, got, want)
		}
	}
	for k := 0; k <= 65535; k++ {
		for _, v := range []float64{float64(k), float64(k) + 0.5} {
			for _, w := range []float64{math.Nextafter(v, 0), v, math.Nextafter(v, math.Inf(1))} {
				if w > 0 {
					check(w)
				}
			}
		}
	}
	check(math.SmallestNonzeroFloat64)
	check(0.49999999999999994)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1_000_000; i++ {
		check(rng.Float64() * 65536)
	}
}

// LuminanceTo gives Luminance's plane whatever buf held, in buf's storage
// where it is large enough, and for a *image.RGBA (opaque pixels and not)
// the luma of visitRGB's values.
func TestLuminanceTo(t *testing.T) {
	g := image.NewGray(image.Rect(3, 2, 20, 13))
	g16 := image.NewGray16(g.Rect)
	rgba := image.NewRGBA(g.Rect)
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 7)
	}
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 5)
	}
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 3)
		if i%8 == 3 || i%12 == 7 {
			rgba.Pix[i] = 0xff // opaque pixels among the others
		}
	}
	for _, img := range []image.Image{g, g16, rgba, rgba.SubImage(image.Rect(4, 3, 17, 12))} {
		want := Luminance(img)
		if _, ok := img.(*image.RGBA); ok {
			var vals []float64
			visitRGB(img, func(i int, r, g, b float64) { vals = append(vals, luma(r, g, b)) })
			if !slices.Equal(vals, want.Pix) {
				t.Fatalf("%v: Luminance of a *image.RGBA is not visitRGB's luma", img.Bounds())
			}
		}
		buf := make([]float64, len(want.Pix)+3)
		for i := range buf {
			buf[i] = math.NaN()
		}
		got := LuminanceTo(buf, img)
		if got.W != want.W || got.H != want.H || !slices.Equal(got.Pix, want.Pix) {
			t.Fatalf("%T: LuminanceTo differs from Luminance", img)
		}
		if &got.Pix[0] != &buf[0] {
			t.Errorf("%T: buffer not reused", img)
		}
		if short := LuminanceTo(make([]float64, 2), img); !slices.Equal(short.Pix, want.Pix) {
			t.Errorf("%T: short buffer differs", img)
		}
	}
}

// BenchmarkLuminanceTo converts a 768×512 grey image into a kept plane,
// as the encoder does for each image.
func BenchmarkLuminanceTo(b *testing.B) {
	g := image.NewGray(image.Rect(0, 0, 768, 512))
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 7)
	}
	buf := make([]float64, len(g.Pix))
	for range b.N {
		LuminanceTo(buf, g)
	}
}
