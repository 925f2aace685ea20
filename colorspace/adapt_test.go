package colorspace

import (
	"math"
	"testing"
)

func TestAdaptationWhites(t *testing.T) {
	d65 := WhitePoint(IlluminantD65())
	a := WhitePoint(IlluminantA())
	for name, f := range map[string]func(src, dst XYZ) Mat3{
		"Bradford": Bradford, "CAT02": CAT02, "HPE": HPE,
	} {
		if got := f(d65, a).Apply(d65); !near3(got, a, 1e-6) {
			t.Errorf("%s D65→A of the D65 white = %v, want %v", name, got, a)
		}
		if got := f(a, d65).Apply(a); !near3(got, d65, 1e-6) {
			t.Errorf("%s A→D65 of the A white = %v, want %v", name, got, d65)
		}
		p := f(d65, a).Mul(f(a, d65))
		for i := range p {
			if !near(p[i], Identity3[i], 1e-12) {
				t.Fatalf("%s(D65, A)·%s(A, D65) = %v", name, name, p)
			}
		}
		p = f(d65, d65)
		for i := range p {
			if !near(p[i], Identity3[i], 1e-15) {
				t.Fatalf("%s(D65, D65) = %v", name, p)
			}
		}
	}
}

func TestBradfordD65ToD50(t *testing.T) {
	// The Bradford matrix from D65 to D50 as tabulated (to 7 decimals) by
	// B. Lindbloom, for the whites (0.95047, 1, 1.08883) and
	// (0.96422, 1, 0.82521).
	want := Mat3{
		1.0478112, 0.0228866, -0.0501270,
		0.0295424, 0.9904844, -0.0170491,
		-0.0092345, 0.0150436, 0.7521316,
	}
	got := Bradford(XYZ{0.95047, 1, 1.08883}, XYZ{0.96422, 1, 0.82521})
	for i := range want {
		if !near(got[i], want[i], 1e-7) {
			t.Fatalf("Bradford(D65, D50) =\n%v\nwant\n%v", got, want)
		}
	}
}

func TestVonKriesRowScaling(t *testing.T) {
	// Scaling the rows of the cone matrix leaves the transform unchanged.
	a := VonKries(HPECone, WhiteD65, WhiteA)
	b := HPE(WhiteD65, WhiteA)
	for i := range a {
		if !near(a[i], b[i], 1e-14) {
			t.Fatalf("VonKries(HPECone) = %v, HPE = %v", a, b)
		}
	}
}

// TestConeMatricesEqualEnergy checks the published CAT02 and CAT16
// matrices by their normalisation: both give the equal-energy white
// (1, 1, 1) the cone responses (1, 1, 1), to the 4 and 6 decimals printed.
func TestConeMatricesEqualEnergy(t *testing.T) {
	for name, tc := range map[string]struct {
		m   Mat3
		tol float64
	}{"CAT02": {CAT02Cone, 1e-4}, "CAT16": {CAT16Cone, 1e-6}} {
		for r := range 3 {
			sum := tc.m[3*r] + tc.m[3*r+1] + tc.m[3*r+2]
			if math.Abs(sum-1) > tc.tol {
				t.Errorf("%s row %d sums to %.7f, want 1", name, r+1, sum)
			}
		}
	}
	// CAT16 from a white to itself is the identity, and maps src to dst.
	a, d65 := WhitePoint(IlluminantA()), WhitePoint(IlluminantD65())
	got := CAT16(a, d65).Apply(a)
	for k := range 3 {
		if math.Abs(got[k]-d65[k]) > 1e-12 {
			t.Errorf("CAT16 maps A's white to %v, want %v", got, d65)
		}
	}
}
