package colorspace

import (
	"math"
	"testing"
)

func TestMallettBasis(t *testing.T) {
	r, g, b := MallettBasis()
	for i := range r {
		for _, v := range []float64{r[i], g[i], b[i]} {
			if v < 0 || v > 1 {
				t.Fatalf("%v nm: basis value %v outside [0, 1]", Wavelength(i), v)
			}
		}
		if s := r[i] + g[i] + b[i]; !near(s, 1, 2e-5) {
			t.Errorf("%v nm: the basis sums to %v, want 1", Wavelength(i), s)
		}
	}
	// Each basis spectrum peaks where its primary does.
	peak := func(s Spectrum) float64 {
		k := 0
		for i := range s {
			if s[i] > s[k] {
				k = i
			}
		}
		return Wavelength(k)
	}
	if pr, pg, pb := peak(r), peak(g), peak(b); !(pr > 600 && pg > 500 && pg < 600 && pb < 480) {
		t.Errorf("peaks at %v, %v, %v nm", pr, pg, pb)
	}
}

// TestReflectanceFromRGB: upsampled spectra are reflectances, and
// rendering them under D65 gives the colour back.
func TestReflectanceFromRGB(t *testing.T) {
	worst := 0.0
	const n = 8
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			for k := 0; k <= n; k++ {
				c := LinearRGB{float64(i) / n, float64(j) / n, float64(k) / n}
				s := ReflectanceFromRGB(c)
				for l, v := range s {
					if v < 0 || v > 1+1e-6 {
						t.Fatalf("%v: %v at %v nm", c, v, Wavelength(l))
					}
				}
				got := Render(s, IlluminantD65()).LinearRGB()
				for q := range 3 {
					worst = max(worst, math.Abs(got[q]-c[q]))
				}
			}
		}
	}
	t.Logf("largest round-trip error in linear sRGB: %.5f", worst)
	if worst > 0.001 {
		t.Errorf("round trip sRGB → spectrum → D65 render is off by %v", worst)
	}
	// Components outside [0, 1] are clipped.
	if ReflectanceFromRGB(LinearRGB{2, -1, 0.5}) != ReflectanceFromRGB(LinearRGB{1, 0, 0.5}) {
		t.Error("out-of-range components are not clipped")
	}
	if s := ReflectanceFromRGB(LinearRGB{1, 1, 1}); !near(s[0], 1, 1e-6) || !near(s[40], 1, 1e-6) {
		t.Errorf("white upsamples to %v … %v, want 1", s[0], s[40])
	}
}

func TestRelightMatrix(t *testing.T) {
	for _, il := range []Spectrum{IlluminantA(), IlluminantD65()} {
		m := RelightMatrix(il)
		for _, c := range []LinearRGB{{0.2, 0.5, 0.9}, {1, 0, 0}, {0.7, 0.7, 0.1}, {1, 1, 1}} {
			want := Render(ReflectanceFromRGB(c), il)
			if got := m.Apply(XYZ(c)); !near3(got, want, 1e-12) {
				t.Errorf("%v: matrix gives %v, render %v", c, got, want)
			}
		}
		// White relights to the illuminant's white point.
		if got, want := m.Apply(XYZ{1, 1, 1}), WhitePoint(il); !near3(got, want, 1e-6) {
			t.Errorf("white relights to %v, want %v", got, want)
		}
	}
}

func TestColorChecker(t *testing.T) {
	p := ColorChecker()
	if len(p) != 24 || p[0].Name != "dark skin" || p[14].Name != "red" || p[23].Name != "black 2 (1.5 D)" {
		t.Fatalf("%d patches, %q, %q, %q", len(p), p[0].Name, p[14].Name, p[23].Name)
	}
	for _, q := range p {
		for i, v := range q.Reflectance {
			if !(v > 0 && v < 1) {
				t.Fatalf("%s: %v at %v nm", q.Name, v, Wavelength(i))
			}
		}
	}
	p[0].Reflectance[0] = 7
	if ColorChecker()[0].Reflectance[0] == 7 {
		t.Fatal("ColorChecker returns shared storage")
	}
	// The neutral row (patches 19-24) gets darker and stays neutral, and
	// its luminances under D65 are those of the chart's specification
	// (Munsell values 9.5, 8, 6.5, 5, 3.5, 2: Y ≈ 0.90, 0.59, 0.36, 0.19,
	// 0.09, 0.03).
	wantY := []float64{0.90, 0.59, 0.36, 0.19, 0.09, 0.03}
	d65 := IlluminantD65()
	for i, w := range wantY {
		c := Render(p[18+i].Reflectance, d65)
		lab := c.Lab(WhiteD65)
		t.Logf("%-22s Y %.3f L* %.1f a* %.1f b* %.1f", p[18+i].Name, c[1], lab[0], lab[1], lab[2])
		if !near(c[1], w, 0.04) || math.Hypot(lab[1], lab[2]) > 3 {
			t.Errorf("%s: Y %.3f (want about %v), chroma %.1f", p[18+i].Name, c[1], w, math.Hypot(lab[1], lab[2]))
		}
	}
	// Red is red, blue is blue, under D65.
	if lab := Render(p[14].Reflectance, d65).Lab(WhiteD65); !(lab[1] > 40 && lab[2] > 10) {
		t.Errorf("red patch: %v", lab)
	}
	if lab := Render(p[12].Reflectance, d65).Lab(WhiteD65); !(lab[2] < -40) {
		t.Errorf("blue patch: %v", lab)
	}
}
