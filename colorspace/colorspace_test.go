package colorspace

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func near3(a, b [3]float64, tol float64) bool {
	return near(a[0], b[0], tol) && near(a[1], b[1], tol) && near(a[2], b[2], tol)
}

func TestSRGBTransfer(t *testing.T) {
	for _, c := range []struct{ enc, lin float64 }{
		{0, 0},
		{1, 1},
		{0.04045, 0.04045 / 12.92},
		{0.02, 0.02 / 12.92},
		{0.5, 0.21404114048223255}, // ((0.5+0.055)/1.055)^2.4
		{-0.1, -0.1 / 12.92},
	} {
		if got := SRGBToLinear(c.enc); !near(got, c.lin, 1e-15) {
			t.Errorf("SRGBToLinear(%v) = %v, want %v", c.enc, got, c.lin)
		}
	}
	if got := LinearToSRGB(0.0031308); got != 12.92*0.0031308 {
		t.Errorf("LinearToSRGB(0.0031308) = %v, want the linear piece", got)
	}
	// The two pieces meet at the thresholds to within the precision of the
	// standard's rounded constants.
	lo := 12.92 * 0.0031308
	hi := 1.055*math.Pow(0.0031308, 1/2.4) - 0.055
	if !near(lo, hi, 1e-7) {
		t.Errorf("pieces of LinearToSRGB differ by %g at 0.0031308", lo-hi)
	}
	lo = 0.04045 / 12.92
	hi = math.Pow((0.04045+0.055)/1.055, 2.4)
	if !near(lo, hi, 1e-8) {
		t.Errorf("pieces of SRGBToLinear differ by %g at 0.04045", lo-hi)
	}
	// Round trip on a fine grid over and beyond [0, 1].
	for i := -1000; i <= 11000; i++ {
		v := float64(i) / 10000
		if got := LinearToSRGB(SRGBToLinear(v)); !near(got, v, 1e-9) {
			t.Fatalf("LinearToSRGB(SRGBToLinear(%v)) = %v", v, got)
		}
		if got := SRGBToLinear(LinearToSRGB(v)); !near(got, v, 1e-9) {
			t.Fatalf("SRGBToLinear(LinearToSRGB(%v)) = %v", v, got)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		s := SRGB{rnd.Float64(), rnd.Float64(), rnd.Float64()}
		lin := s.Linear()
		if got := lin.SRGB(); !near3(got, s, 1e-9) {
			t.Fatalf("sRGB→linear→sRGB: %v → %v", s, got)
		}
		xyz := lin.XYZ()
		if got := xyz.LinearRGB(); !near3(got, lin, 1e-9) {
			t.Fatalf("linear→XYZ→linear: %v → %v", lin, got)
		}
		lms := xyz.LMS()
		if got := lms.XYZ(); !near3(got, xyz, 1e-9) {
			t.Fatalf("XYZ→LMS→XYZ: %v → %v", xyz, got)
		}
		xyz2 := lms.XYZ()
		lab := xyz2.Lab(WhiteD65)
		if got := lab.XYZ(WhiteD65); !near3(got, xyz2, 1e-9) {
			t.Fatalf("XYZ→Lab→XYZ: %v → %v", xyz2, got)
		}
		if got := lab.XYZ(WhiteD65).SRGB(); !near3(got, s, 1e-9) {
			t.Fatalf("full chain: %v → %v", s, got)
		}
		if got := s.Lab(); !near3(got, lab, 1e-9) {
			t.Fatalf("SRGB.Lab = %v, chain gives %v", got, lab)
		}
	}
	// Lab round trip for other whites and through the linear piece of f.
	for i := 0; i < 1000; i++ {
		c := XYZ{rnd.Float64() * 1.2, rnd.Float64(), rnd.Float64() * 1.2}
		if i%2 == 0 {
			c = XYZ{c[0] * 0.01, c[1] * 0.01, c[2] * 0.01}
		}
		for _, w := range []XYZ{WhiteA, WhiteD50} {
			if got := c.Lab(w).XYZ(w); !near3(got, c, 1e-12) {
				t.Fatalf("XYZ→Lab→XYZ with white %v: %v → %v", w, c, got)
			}
		}
	}
}

func TestSRGBWhite(t *testing.T) {
	if got := WhiteD65.SRGB(); !near3(got, SRGB{1, 1, 1}, 1e-12) {
		t.Errorf("sRGB of D65 white = %v, want (1, 1, 1)", got)
	}
	if got := (SRGB{1, 1, 1}).XYZ(); !near3(got, WhiteD65, 1e-12) {
		t.Errorf("XYZ of sRGB white = %v, want %v", got, WhiteD65)
	}
	if got := (SRGB{1, 1, 1}).Lab(); !near3(got, Lab{100, 0, 0}, 1e-12) {
		t.Errorf("Lab of sRGB white = %v, want (100, 0, 0)", got)
	}
	if got := (SRGB{}).Lab(); !near3(got, Lab{}, 1e-12) {
		t.Errorf("Lab of black = %v, want (0, 0, 0)", got)
	}
}

func TestSRGBPrimaries(t *testing.T) {
	// Columns of the IEC 61966-2-1 matrix.
	for _, c := range []struct {
		rgb SRGB
		xyz XYZ
	}{
		{SRGB{1, 0, 0}, XYZ{0.4124, 0.2126, 0.0193}},
		{SRGB{0, 1, 0}, XYZ{0.3576, 0.7152, 0.1192}},
		{SRGB{0, 0, 1}, XYZ{0.1805, 0.0722, 0.9505}},
	} {
		if got := c.rgb.XYZ(); !near3(got, c.xyz, 1e-4) {
			t.Errorf("XYZ of %v = %v, want %v", c.rgb, got, c.xyz)
		}
	}
	iec := Mat3{
		0.4124, 0.3576, 0.1805,
		0.2126, 0.7152, 0.0722,
		0.0193, 0.1192, 0.9505,
	}
	for i := range iec {
		if !near(LinearRGBToXYZ[i], iec[i], 5e-5) {
			t.Errorf("LinearRGBToXYZ[%d] = %.6f does not round to %.4f", i, LinearRGBToXYZ[i], iec[i])
		}
	}
	// Primary chromaticities.
	for j, want := range [3][2]float64{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}} {
		var rgb LinearRGB
		rgb[j] = 1
		x, y := rgb.XYZ().Chromaticity()
		if !near(x, want[0], 1e-12) || !near(y, want[1], 1e-12) {
			t.Errorf("primary %d chromaticity (%v, %v), want %v", j, x, y, want)
		}
	}
	// Known CIELAB of sRGB red relative to its white (D65).
	if got := (SRGB{1, 0, 0}).Lab(); !near3(got, Lab{53.24, 80.09, 67.20}, 0.01) {
		t.Errorf("Lab of sRGB red = %v", got)
	}
}

func TestLMS(t *testing.T) {
	if got := WhiteD65.LMS(); !near3(got, LMS{1, 1, 1}, 1e-12) {
		t.Errorf("LMS of D65 white = %v, want (1, 1, 1)", got)
	}
	if got := (SRGB{1, 1, 1}).XYZ().LMS(); !near3(got, LMS{1, 1, 1}, 1e-12) {
		t.Errorf("LMS of sRGB white = %v, want (1, 1, 1)", got)
	}
	// The D65-normalised HPE matrix as published to four decimals.
	want := Mat3{
		0.4002, 0.7076, -0.0808,
		-0.2263, 1.1653, 0.0457,
		0, 0, 0.9182,
	}
	for i := range want {
		if !near(XYZToLMS[i], want[i], 5e-5) {
			t.Errorf("XYZToLMS[%d] = %.6f does not round to %.4f", i, XYZToLMS[i], want[i])
		}
	}
	// Rows are proportional to those of HPECone.
	for i := 0; i < 3; i++ {
		k := XYZToLMS[3*i+2] / HPECone[3*i+2]
		for j := 0; j < 3; j++ {
			if !near(XYZToLMS[3*i+j], k*HPECone[3*i+j], 1e-15) {
				t.Errorf("row %d of XYZToLMS is not a multiple of HPECone", i)
			}
		}
	}
	// HPE has equal cone responses for the equal-energy white.
	if got := HPECone.Apply(XYZ{1, 1, 1}); !near3(got, XYZ{1, 1, 1}, 2e-5) {
		t.Errorf("HPECone·E = %v", got)
	}
	if got := XYZToLMS.Mul(LMSToXYZ); !near3([3]float64(got[:3]), [3]float64{1, 0, 0}, 1e-15) {
		t.Errorf("XYZToLMS·LMSToXYZ = %v", got)
	}
}

func TestLab(t *testing.T) {
	w := WhiteD65
	scale := func(k float64) XYZ { return XYZ{k * w[0], k * w[1], k * w[2]} }
	for _, c := range []struct {
		xyz XYZ
		L   float64
	}{
		{scale(1), 100},
		{scale(0.18), 116*math.Cbrt(0.18) - 16},
		{scale(0.001), 0.001 * 24389 / 27}, // linear piece, κ = 24389/27
		{scale(216.0 / 24389), 8},          // the junction, L* = 8
		{scale(0), 0},
	} {
		got := c.xyz.Lab(w)
		if !near3(got, Lab{c.L, 0, 0}, 1e-12) {
			t.Errorf("Lab of %v = %v, want (%v, 0, 0)", c.xyz, got, c.L)
		}
	}
	// f is continuous at the junction.
	e := 216.0 / 24389
	if !near(labF(e), labF(math.Nextafter(e, 1)), 1e-12) {
		t.Error("f is discontinuous at (6/29)³")
	}
	// Sign of a*, b*: more X is redder, more Z is bluer.
	if lab := (XYZ{1.1 * w[0], w[1], w[2]}).Lab(w); lab[1] <= 0 || lab[2] != 0 {
		t.Errorf("extra X gives %v", lab)
	}
	if lab := (XYZ{w[0], w[1], 1.1 * w[2]}).Lab(w); lab[2] >= 0 || lab[1] != 0 {
		t.Errorf("extra Z gives %v", lab)
	}
}

func TestChromaticity(t *testing.T) {
	x, y := WhiteD65.Chromaticity()
	if !near(x, 0.3127, 1e-15) || !near(y, 0.3290, 1e-15) {
		t.Errorf("D65 chromaticity (%v, %v)", x, y)
	}
	u, v := WhiteD65.UV()
	if !near(u, 0.19783, 1e-5) || !near(v, 0.46832, 1e-5) {
		t.Errorf("D65 u'v' (%v, %v), want (0.19783, 0.46832)", u, v)
	}
	u2, v2 := ChromaticityToUV(x, y)
	if !near(u, u2, 1e-15) || !near(v, v2, 1e-15) {
		t.Errorf("ChromaticityToUV (%v, %v), XYZ.UV (%v, %v)", u2, v2, u, v)
	}
	x2, y2 := UVToChromaticity(u, v)
	if !near(x, x2, 1e-15) || !near(y, y2, 1e-15) {
		t.Errorf("UVToChromaticity (%v, %v), want (%v, %v)", x2, y2, x, y)
	}
	if got := XYZFromChromaticity(x, y, 2); !near3(got, XYZ{2 * WhiteD65[0], 2, 2 * WhiteD65[2]}, 1e-15) {
		t.Errorf("XYZFromChromaticity = %v", got)
	}
	for _, c := range []struct {
		white XYZ
		x, y  float64
	}{{WhiteA, 0.44757, 0.40745}, {WhiteD50, 0.34567, 0.35850}} {
		x, y := c.white.Chromaticity()
		if !near(x, c.x, 1e-15) || !near(y, c.y, 1e-15) || c.white[1] != 1 {
			t.Errorf("white %v: (%v, %v), want (%v, %v)", c.white, x, y, c.x, c.y)
		}
	}
	if x, y := (XYZ{}).Chromaticity(); x != 0 || y != 0 {
		t.Errorf("black chromaticity (%v, %v)", x, y)
	}
	if u, v := (XYZ{}).UV(); u != 0 || v != 0 {
		t.Errorf("black u'v' (%v, %v)", u, v)
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	saved := WhiteD65
	WhiteD65 = XYZ{1, 1, 1}
	defer func() { WhiteD65 = saved }()
	if got := (SRGB{1, 1, 1}).XYZ(); !near3(got, saved, 1e-12) {
		t.Errorf("changing WhiteD65 changed the sRGB white to %v", got)
	}
}
