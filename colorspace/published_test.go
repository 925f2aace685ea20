package colorspace

import (
	"errors"
	"math"
	"testing"
)

// TestCATPublished checks the CAT02 and CAT16 transforms against values
// published independently of this package. Their other tests check only
// the rows' sums (TestConeMatricesEqualEnergy) and the whites
// (TestAdaptationWhites), which a cone matrix with two entries of a row
// swapped still passes, and so did adapt's tests.
func TestCATPublished(t *testing.T) {
	checkMat := func(name string, got, want Mat3, tol float64) {
		t.Helper()
		for i := range want {
			if !near(got[i], want[i], tol) {
				t.Errorf("%s =\n%v\nwant\n%v", name, got, want)
				return
			}
		}
	}
	// The inverses as printed with the matrices: M_CAT02⁻¹ in CIE 159:2004
	// (CIECAM02) and M16⁻¹ in Li et al. (2017), to 6 and 8 decimals; the
	// inverse of the matrix rounded to 4 or 6 decimals differs from them by
	// a few units of their last place.
	inv02, err := CAT02Cone.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	checkMat("CAT02Cone⁻¹", inv02, Mat3{
		1.096124, -0.278869, 0.182745,
		0.454369, 0.473533, 0.072098,
		-0.009628, -0.005698, 1.015326,
	}, 2e-6)
	inv16, err := CAT16Cone.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	checkMat("CAT16Cone⁻¹", inv16, Mat3{
		1.86206786, -1.01125463, 0.14918677,
		0.38752654, 0.62144744, -0.00897398,
		-0.01584150, -0.03412294, 1.04996444,
	}, 2e-6)

	// CAT02 adaptation matrices and a corresponding colour as colour-science
	// (colour/adaptation/tests/test_vonkries.py, its default transform
	// CAT02) tests them, to 7 decimals.
	d65 := XYZ{0.95045593, 1, 1.08905775}
	checkMat("CAT02(D65, D50)", CAT02(d65, XYZ{0.96429568, 1, 0.82510460}), Mat3{
		1.04257389, 0.03089108, -0.05281257,
		0.02219345, 1.00185663, -0.02107375,
		-0.00116488, -0.00342053, 0.76178907,
	}, 1.5e-7)
	checkMat("CAT02(D65, A)", CAT02(d65, XYZ{1.09846607, 1, 0.35582280}), Mat3{
		1.17159793, 0.16088780, -0.16158366,
		0.11462057, 0.96182051, -0.06497572,
		-0.00413024, -0.00912739, 0.33871096,
	}, 1.5e-7)
	got := CAT02(d65, XYZ{0.96429568, 1, 0.82510460}).Apply(XYZ{0.20654008, 0.12197225, 0.05136952})
	if want := (XYZ{0.21638819, 0.12570000, 0.03847494}); !near3(got, want, 1.5e-7) {
		t.Errorf("CAT02 D65→D50 of (0.20654008, 0.12197225, 0.05136952) = %v, want %v", got, want)
	}
}

// TestCIETableSums checks the hand-entered CIE tables entry by entry
// through their sums and first moments (Σ v_i and Σ i·v_i over the 81
// samples): a wrong digit changes the sum, two entries swapped the moment.
// The references are those of the published tables: the CIE 1931 observer
// of CIE 15:2004 is the CIE 1 nm data (CVRL's ciexyz31_1, as colour-science
// 0.4.6 ships it) at every fifth nm rounded to six decimals, whose sums
// 21.371524, 21.371327 and 21.371540 are the ones CIE 15 prints; D65 is
// its 5 nm table. Neither the white points nor the renders of
// TestWhitePoints and TestRender notice a swap of two neighbouring entries.
func TestCIETableSums(t *testing.T) {
	moments := func(s Spectrum) (sum, first float64) {
		for i, v := range s {
			sum += v
			first += float64(i) * v
		}
		return sum, first
	}
	x, y, z := CMF1931()
	for _, c := range []struct {
		name       string
		s          Spectrum
		sum, first float64
		tol        float64 // below one unit of the table's last decimal
	}{
		{"x̄", x, 21.371524, 819.67136, 5e-7},
		{"ȳ", y, 21.371327, 770.187844, 5e-7},
		{"z̄", z, 21.371540, 316.68686, 5e-7},
		{"D65", IlluminantD65(), 7092.7234, 264174.727, 5e-5},
	} {
		sum, first := moments(c.s)
		if !near(sum, c.sum, c.tol) || !near(first, c.first, c.tol) {
			t.Errorf("%s: Σ = %.7f, Σ i·v = %.7f; the CIE table gives %.7f, %.7f", c.name, sum, first, c.sum, c.first)
		}
	}
}

// TestPhysicalTolerance checks Physical's margin at its documented size,
// LocusTolerance: a chromaticity half of it beyond the locus is physical,
// three times it beyond is not. TestPhysical's points 0.02 beyond the locus
// let a margin ten times too wide pass.
func TestPhysicalTolerance(t *testing.T) {
	xb, yb, zb := CMF1931()
	for i := range xb {
		x, y := XYZ{xb[i], yb[i], zb[i]}.Chromaticity()
		// Outwards, perpendicular to the chord to the neighbouring samples
		// (the locus is convex between 420 and 700 nm; elsewhere samples
		// bunch and the chord is short).
		if Wavelength(i) < 420 || Wavelength(i) > 700 {
			continue
		}
		px, py := XYZ{xb[i-1], yb[i-1], zb[i-1]}.Chromaticity()
		nx, ny := XYZ{xb[i+1], yb[i+1], zb[i+1]}.Chromaticity()
		// The locus runs clockwise with wavelength around the white, so
		// the outward normal of the chord prev→next is its left-hand one.
		ex, ey := nx-px, ny-py
		l := math.Hypot(ex, ey)
		ox, oy := -ey/l, ex/l
		if (x-1.0/3)*ox+(y-1.0/3)*oy < 0 {
			t.Fatalf("%v nm: normal (%v, %v) points inwards", Wavelength(i), ox, oy)
		}
		in := XYZFromChromaticity(x+0.5*LocusTolerance*ox, y+0.5*LocusTolerance*oy, 1)
		out := XYZFromChromaticity(x+3*LocusTolerance*ox, y+3*LocusTolerance*oy, 1)
		if !in.Physical() {
			t.Errorf("%v nm moved LocusTolerance/2 out of the locus: not physical", Wavelength(i))
		}
		if out.Physical() {
			t.Errorf("%v nm moved 3 LocusTolerance out of the locus: physical", Wavelength(i))
		}
	}
}

// TestInverseNotFinite checks the documented ErrSingular for a matrix whose
// determinant overflows: without the check Inverse returns a matrix of zeros
// and no error.
func TestInverseNotFinite(t *testing.T) {
	for _, m := range []Mat3{
		Diag([3]float64{1e200, 1e200, 1e200}),
		{math.Inf(1), 0, 0, 0, 1, 0, 0, 0, 1},
	} {
		if inv, err := m.Inverse(); !errors.Is(err, ErrSingular) {
			t.Errorf("Inverse of %v = %v, %v; want ErrSingular", m, inv, err)
		}
	}
}
