package testimages

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/spcalab/spca/colorspace"
)

func TestRelightPhoto(t *testing.T) {
	img := image.NewRGBA(image.Rect(3, 5, 3+16, 5+4))
	for y := range 4 {
		for x := range 16 {
			img.Set(3+x, 5+y, color.RGBA{uint8(17 * x), uint8(255 - 60*y), uint8(11*x + 40*y), 255})
		}
	}
	img.Set(3, 5, color.RGBA{255, 255, 255, 255})
	for _, exposure := range []float64{1, 0.5} {
		b, truth := RelightPhoto(img, exposure)
		if b.Bounds() != image.Rect(0, 0, 16, 4) || truth.Bounds() != b.Bounds() {
			t.Fatalf("bounds %v %v", b.Bounds(), truth.Bounds())
		}
		// White: red at the exposure in B (orange, nothing clipped), and
		// the truth is A's white scaled by the exposure.
		w := b.NRGBA64At(0, 0)
		lin := func(v uint16) float64 { return colorspace.SRGBToLinear(float64(v) / 0xffff) }
		if !near(lin(w.R), exposure, 1e-4) || !(w.R > w.G && w.G > w.B) {
			t.Errorf("exposure %v: B white %v", exposure, w)
		}
		wb, wt := PhotoWhites(exposure)
		if got := (colorspace.LinearRGB{lin(w.R), lin(w.G), lin(w.B)}).XYZ(); !near3(got, wb, 1e-3) {
			t.Errorf("B white %v, PhotoWhites %v", got, wb)
		}
		if x, y := wb.Chromaticity(); !near(x, 0.4476, 1e-3) || !near(y, 0.4074, 1e-3) {
			t.Errorf("B white chromaticity (%v, %v), want illuminant A's", x, y)
		}
		if x, y := wt.Chromaticity(); !near(x, 0.3127, 1e-3) || !near(y, 0.3290, 1e-3) {
			t.Errorf("truth white chromaticity (%v, %v), want D65's", x, y)
		}
		for y := range 4 {
			for x := range 16 {
				a := img.RGBAAt(3+x, 5+y)
				ca := colorspace.SRGB{float64(a.R) / 255, float64(a.G) / 255, float64(a.B) / 255}.Linear()
				tr := truth.NRGBA64At(x, y)
				for k, v := range []uint16{tr.R, tr.G, tr.B} {
					if !near(lin(v), exposure*ca[k], 1e-3) {
						t.Fatalf("exposure %v (%d, %d): truth %v, want %v × A %v", exposure, x, y, tr, exposure, ca)
					}
				}
				// B is the upsampled spectrum rendered under A, exposed.
				want := colorspace.Render(colorspace.ReflectanceFromRGB(ca), colorspace.IlluminantA())
				k := wb[1] / colorspace.WhitePoint(colorspace.IlluminantA())[1]
				want = colorspace.XYZ{want[0] * k, want[1] * k, want[2] * k}
				got := b.NRGBA64At(x, y)
				gx := (colorspace.LinearRGB{lin(got.R), lin(got.G), lin(got.B)}).XYZ()
				wl := want.LinearRGB()
				if min(wl[0], wl[1], wl[2]) >= 0 && !near3(gx, want, 1e-3) {
					t.Fatalf("exposure %v (%d, %d): B %v, spectral render %v", exposure, x, y, gx, want)
				}
				if got.A != 0xffff {
					t.Fatal("alpha not kept")
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("exposure 0 did not panic")
		}
	}()
	RelightPhoto(img, 0)
}

// TestSceneTruth: the colour-only truth has B's geometry (its luminance
// follows B's shadows) and A's colours (D65).
func TestSceneTruth(t *testing.T) {
	const w, h, seed = 48, 36, 5
	r := RenderScene(w, h, seed)
	tr := SceneTruth(w, h, seed).(*image.NRGBA64)
	if tr.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatal(tr.Bounds())
	}
	set := SceneTruthSet(2, 20, 10, seed)
	if len(set) != 2 || set[1].Bounds().Dx() != 20 {
		t.Fatal("SceneTruthSet")
	}
	var yt, yb, ya []float64
	var duvB, duvT float64
	for i := range w * h {
		p := tr.NRGBA64At(i%w, i/w)
		lin := func(v uint16) float64 { return colorspace.SRGBToLinear(float64(v) / 0xffff) }
		c := (colorspace.LinearRGB{lin(p.R), lin(p.G), lin(p.B)}).XYZ()
		yt, yb, ya = append(yt, c[1]), append(yb, r.B[i][1]), append(ya, r.A[i][1])
		// Chromaticities: compare against A's, which has the same
		// illuminant.
		ua, va := r.A[i].UV()
		ub, vb := r.B[i].UV()
		ut, vt := c.UV()
		duvB += math.Hypot(ub-ua, vb-va)
		duvT += math.Hypot(ut-ua, vt-va)
	}
	cb, ca := corr(yt, yb), corr(yt, ya)
	t.Logf("luminance correlation truth-B %.3f, truth-A %.3f; mean du'v' to A: B %.4f, truth %.4f",
		cb, ca, duvB/(w*h), duvT/(w*h))
	if !(cb > 0.97 && cb > ca) || !(duvT < duvB/4) {
		t.Error("the truth does not have B's geometry and A's colours")
	}
}

func corr(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func near3(a, b colorspace.XYZ, tol float64) bool {
	return near(a[0], b[0], tol) && near(a[1], b[1], tol) && near(a[2], b[2], tol)
}

// TestRelightPhotoSmits: with Smits's upsampling A is the spectra under
// D65, B under illuminant A with B's white's red at the exposure, the
// truth A times the exposure; Mallett-Yuksel's A is the photo itself.
func TestRelightPhotoSmits(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 8, 2))
	for x := range 8 {
		img.Set(x, 0, color.RGBA{uint8(30 * x), uint8(200 - 20*x), uint8(90 + 10*x), 255})
		img.Set(x, 1, color.RGBA{255, 255, 255, uint8(255 - x)})
	}
	lin := func(v uint16) float64 { return colorspace.SRGBToLinear(float64(v) / 0xffff) }
	for _, u := range Upsamplings() {
		if p, err := ParseUpsampling(u.String()); p != u || err != nil {
			t.Fatalf("ParseUpsampling(%q) = %v, %v", u, p, err)
		}
		a, b, truth := RelightPhotoWith(img, 0.5, u)
		wb, _ := PhotoWhitesWith(0.5, u)
		w := b.NRGBA64At(0, 1)
		if got := (colorspace.LinearRGB{lin(w.R), lin(w.G), lin(w.B)}).XYZ(); !near3(got, wb, 1e-3) || !near(lin(w.R), 0.5, 1e-4) {
			t.Errorf("%v: B white %v (red %v), PhotoWhitesWith %v", u, got, lin(w.R), wb)
		}
		render := colorspace.SmitsRenderer(colorspace.IlluminantD65())
		if u == JakobHanika2019 {
			render = func(c colorspace.LinearRGB) colorspace.XYZ {
				return colorspace.Render(colorspace.JakobHanikaReflectance(c), colorspace.IlluminantD65())
			}
		}
		for x := range 8 {
			src := img.RGBAAt(x, 0)
			ca := colorspace.SRGB{float64(src.R) / 255, float64(src.G) / 255, float64(src.B) / 255}.Linear()
			pa, pt := a.NRGBA64At(x, 0), truth.NRGBA64At(x, 0)
			la := colorspace.LinearRGB{lin(pa.R), lin(pa.G), lin(pa.B)}
			want := colorspace.LinearRGB(ca)
			if u != MallettYuksel2019 {
				want = render(ca).LinearRGB()
			}
			for k := range 3 {
				if want[k] >= 0 && want[k] <= 1 && !near(la[k], want[k], 1e-3) {
					t.Fatalf("%v (%d, 0): A %v, want %v", u, x, la, want)
				}
				if lt := []float64{lin(pt.R), lin(pt.G), lin(pt.B)}[k]; want[k] >= 0 && want[k] <= 1 && !near(lt, 0.5*want[k], 2e-3) {
					t.Fatalf("%v (%d, 0): truth %v, want 0.5 × A %v", u, x, pt, la)
				}
			}
		}
		if a.NRGBA64At(3, 1).A != b.NRGBA64At(3, 1).A || a.NRGBA64At(3, 1).A == 0xffff {
			t.Errorf("%v: alpha not kept", u)
		}
	}
	if _, err := ParseUpsampling("jakob2020"); err == nil {
		t.Error("unknown upsampling accepted")
	}
}
