package colorspace

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSmits: the basis is the published table at its wavelengths; the
// renderer agrees with rendering the spectrum; greys are flat; the
// spectrum is continuous across the orderings of the components; white
// renders under D65 to sRGB white; and, unlike Mallett-Yuksel, relighting
// is not a 3×3 matrix.
func TestSmits(t *testing.T) {
	basis := SmitsBasis()
	for k, tab := range smits1999 {
		for j, v := range tab {
			l := 380 + float64(j)*340/9
			i := int(math.Round((l - MinWavelength) / WavelengthStep))
			if math.Abs(Wavelength(i)-l) < 1e-9 && basis[k][i] != v {
				t.Errorf("basis %d at %v nm: %v, want the table's %v", k, l, basis[k][i], v)
			}
		}
		if basis[k][NumWavelengths-1] != tab[9] {
			t.Errorf("basis %d beyond 720 nm: %v, want the 720 nm value %v", k, basis[k][NumWavelengths-1], tab[9])
		}
	}
	rng := rand.New(rand.NewPCG(1999, 1))
	d65, a := IlluminantD65(), IlluminantA()
	renderA := SmitsRenderer(a)
	for range 200 {
		c := LinearRGB{rng.Float64(), rng.Float64(), rng.Float64()}
		want := Render(SmitsReflectance(c), a)
		if got := renderA(c); maxAbs(got, want) > 1e-12 {
			t.Fatalf("%v: renderer %v, Render %v", c, got, want)
		}
	}
	g := SmitsReflectance(LinearRGB{0.4, 0.4, 0.4})
	for i, v := range g {
		if !near(v, 0.4*basis[smitsWhite][i], 1e-15) {
			t.Fatalf("grey 0.4 at %v nm: %v, want 0.4 × white", Wavelength(i), v)
		}
	}
	// Continuity across the ordering boundaries.
	for _, c := range []LinearRGB{{0.3, 0.5, 0.5}, {0.5, 0.3, 0.5}, {0.5, 0.5, 0.3}, {0.2, 0.2, 0.7}, {0.7, 0.2, 0.2}} {
		for k := range 3 {
			lo, hi := c, c
			lo[k] -= 1e-9
			hi[k] += 1e-9
			sl, sh := SmitsReflectance(lo), SmitsReflectance(hi)
			for i := range sl {
				if math.Abs(sl[i]-sh[i]) > 1e-8 {
					t.Fatalf("%v ± 1e-9 in component %d: spectrum jumps by %v at %v nm", c, k, sl[i]-sh[i], Wavelength(i))
				}
			}
		}
	}
	renderD65 := SmitsRenderer(d65)
	if w := renderD65(LinearRGB{1, 1, 1}).LinearRGB(); maxAbs(XYZ(w), XYZ{1, 1, 1}) > 1e-3 {
		t.Errorf("white under D65: linear sRGB %v, want (1, 1, 1) within 1e-3", w)
	}
	worst := 0.0
	for _, c := range []LinearRGB{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}, {0.5, 0.2, 0.1}} {
		back := renderD65(c).LinearRGB()
		worst = max(worst, maxAbs(XYZ(back), XYZ(c)))
	}
	t.Logf("D65 round trip of the sRGB primaries and secondaries: largest error %.4f (linear sRGB)", worst)
	if worst > 0.1 {
		t.Errorf("D65 round trip error %.4f > 0.1", worst)
	}
	// Relighting with D65 → A: the best 3×3 matrix from the D65 rendering
	// to the A rendering of random colours leaves a residual (metamerism
	// beyond a matrix), which the Mallett-Yuksel basis does not.
	res := func(renderD, renderA func(LinearRGB) XYZ) float64 {
		const n = 2000
		x := mat.NewDense(n, 3, nil)
		y := mat.NewDense(n, 3, nil)
		for i := range n {
			c := LinearRGB{rng.Float64(), rng.Float64(), rng.Float64()}
			d, a := renderD(c), renderA(c)
			x.SetRow(i, d[:])
			y.SetRow(i, a[:])
		}
		var m, fit, diff mat.Dense
		if err := m.Solve(x, y); err != nil {
			t.Fatal(err)
		}
		fit.Mul(x, &m)
		diff.Sub(y, &fit)
		return mat.Norm(&diff, 2) / mat.Norm(y, 2)
	}
	mallett := func(ill Spectrum) func(LinearRGB) XYZ {
		m := RelightMatrix(ill)
		return func(c LinearRGB) XYZ { return m.Apply(XYZ(c)) }
	}
	rs, rm := res(renderD65, renderA), res(mallett(d65), mallett(a))
	t.Logf("relative residual of the best 3×3 matrix D65 → A: Smits %.4f, Mallett-Yuksel %.2g", rs, rm)
	if rs < 0.001 || rm > 1e-9 {
		t.Errorf("residual of a 3×3 relighting: Smits %.4f (want >= 0.001), Mallett-Yuksel %.2g (want ~0)", rs, rm)
	}
}

func maxAbs(a, b XYZ) float64 {
	return max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1]), math.Abs(a[2]-b[2]))
}
