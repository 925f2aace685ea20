package colorspace

import (
	"math"
	"testing"
)

func TestWavelengths(t *testing.T) {
	w := Wavelengths()
	if NumWavelengths != 81 || len(w) != 81 || w[0] != 380 || w[80] != 780 {
		t.Fatalf("grid: %d samples, %v … %v", len(w), w[0], w[len(w)-1])
	}
	for i := 1; i < len(w); i++ {
		if w[i]-w[i-1] != 5 {
			t.Fatalf("step %v at %d", w[i]-w[i-1], i)
		}
	}
	if Wavelength(36) != 560 {
		t.Errorf("Wavelength(36) = %v", Wavelength(36))
	}
}

func TestCMF1931(t *testing.T) {
	x, y, z := CMF1931()
	// ȳ is the photopic luminous efficiency V(λ), 1 at 555 nm.
	if y[35] != 1 || x[35] != 0.512050 || z[35] != 0.005750 {
		t.Errorf("555 nm: %v %v %v", x[35], y[35], z[35])
	}
	for i := range y {
		if y[i] > 1 || x[i] < 0 || y[i] < 0 || z[i] < 0 {
			t.Errorf("%v nm: %v %v %v", Wavelength(i), x[i], y[i], z[i])
		}
	}
	// The equal-energy illuminant E has (x, y) = (1/3, 1/3) to the precision
	// of the table.
	cx, cy := WhitePoint(Constant(1)).Chromaticity()
	if !near(cx, 1.0/3, 2e-4) || !near(cy, 1.0/3, 2e-4) {
		t.Errorf("E: (%v, %v)", cx, cy)
	}
}

func TestIlluminants(t *testing.T) {
	a := IlluminantA()
	d := IlluminantD65()
	if a[36] != 100 || d[36] != 100 {
		t.Errorf("at 560 nm: A %v, D65 %v, want 100", a[36], d[36])
	}
	// Values of A as tabulated by CIE 15:2004 (six significant figures).
	for _, c := range []struct {
		i int
		v float64
	}{{0, 9.7951}, {24, 59.8611}, {44, 129.043}, {80, 241.675}} {
		if !near(a[c.i], c.v, 1e-5*c.v) {
			t.Errorf("A(%v nm) = %v, want %v", Wavelength(c.i), a[c.i], c.v)
		}
	}
	if d[0] != 49.9755 || d[80] != 63.3828 {
		t.Errorf("D65 ends: %v, %v", d[0], d[80])
	}
}

func TestWhitePoints(t *testing.T) {
	for _, c := range []struct {
		name  string
		s     Spectrum
		x, y  float64
		white XYZ
	}{
		{"A", IlluminantA(), 0.44758, 0.40745, WhiteA},
		{"D65", IlluminantD65(), 0.31270, 0.32900, WhiteD65},
	} {
		w := WhitePoint(c.s)
		x, y := w.Chromaticity()
		if !near(x, c.x, 5e-4) || !near(y, c.y, 5e-4) || w[1] != 1 {
			t.Errorf("%s white point %v: (%.5f, %.5f), want (%.5f, %.5f)", c.name, w, x, y, c.x, c.y)
		}
		if !near3(w, c.white, 5e-4) {
			t.Errorf("%s white point %v, reference white %v", c.name, w, c.white)
		}
	}
}

func TestRender(t *testing.T) {
	d65 := IlluminantD65()
	half := Render(Constant(0.5), d65)
	w := WhitePoint(d65)
	if !near3(half, XYZ{w[0] / 2, w[1] / 2, w[2] / 2}, 1e-15) {
		t.Errorf("grey 0.5: %v, white %v", half, w)
	}
	// The scale of the illuminant does not matter.
	var d2 Spectrum
	for i, v := range d65 {
		d2[i] = 3 * v
	}
	if got := WhitePoint(d2); !near3(got, w, 1e-15) {
		t.Errorf("scaled illuminant: %v, want %v", got, w)
	}
	// Linear in the reflectance.
	var r1, r2, sum Spectrum
	for i := range r1 {
		r1[i] = 0.5 + 0.5*math.Sin(float64(i)/10)
		r2[i] = float64(i) / 80
		sum[i] = r1[i] + r2[i]
	}
	x1, x2, xs := Render(r1, d65), Render(r2, d65), Render(sum, d65)
	if !near3(xs, XYZ{x1[0] + x2[0], x1[1] + x2[1], x1[2] + x2[2]}, 1e-14) {
		t.Errorf("Render is not additive")
	}
	if got := Render(Spectrum{}, d65); got != (XYZ{}) {
		t.Errorf("black: %v", got)
	}
}
