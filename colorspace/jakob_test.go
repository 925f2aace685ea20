package colorspace

import (
	"math"
	"testing"
)

// TestJakobHanika checks the Jakob-Hanika (2019) upsampling: spectra in
// (0, 1), greys flat, and the round trip (spectrum rendered under D65)
// back to the sRGB colour over a 9³ grid of the cube.
func TestJakobHanika(t *testing.T) {
	var sum, worstIn, worstEdge float64
	n := 0
	for r := 0; r <= 8; r++ {
		for g := 0; g <= 8; g++ {
			for b := 0; b <= 8; b++ {
				c := LinearRGB{float64(r) / 8, float64(g) / 8, float64(b) / 8}
				s := JakobHanikaReflectance(c)
				for i, v := range s {
					if !(v > 0 && v < 1) {
						t.Fatalf("%v: reflectance %v at %v nm", c, v, Wavelength(i))
					}
				}
				got := Render(s, IlluminantD65()).Lab(jhTab().white)
				want := c.XYZ().Lab(jhTab().white)
				e := DeltaE2000(got, want)
				sum += e
				n++
				if r%8 == 0 || g%8 == 0 || b%8 == 0 {
					worstEdge = max(worstEdge, e)
				} else {
					worstIn = max(worstIn, e)
				}
			}
		}
	}
	t.Logf("round trip ΔE00 over %d colours: mean %.4f, largest %.4f inside the cube, %.4f on its faces", n, sum/float64(n), worstIn, worstEdge)
	if worstIn > 1e-3 {
		t.Errorf("largest round-trip ΔE00 inside the cube %.4f, want <= 0.001", worstIn)
	}
	if worstEdge > 0.05 || sum/float64(n) > 0.01 {
		t.Errorf("round trip on the faces: largest ΔE00 %.4f (want <= 0.05), mean %.4f (want <= 0.01)", worstEdge, sum/float64(n))
	}
	for _, v := range []float64{0.05, 0.2, 0.5, 0.9} {
		c := JakobHanikaCoefficients(LinearRGB{v, v, v})
		s := JakobHanikaSpectrum(c)
		lo, hi := s[0], s[0]
		for _, x := range s {
			lo, hi = min(lo, x), max(hi, x)
		}
		if hi-lo > 0.02 {
			t.Errorf("grey %v: spectrum spans %.4f..%.4f, want flat within 0.02", v, lo, hi)
		}
	}
	// Non-linear in the colour: the sum of two colours' spectra is not the
	// spectrum of their sum.
	a, b := JakobHanikaReflectance(LinearRGB{0.4, 0.1, 0.05}), JakobHanikaReflectance(LinearRGB{0.05, 0.1, 0.4})
	ab := JakobHanikaReflectance(LinearRGB{0.45, 0.2, 0.45})
	d := 0.0
	for i := range ab {
		d = max(d, math.Abs(ab[i]-a[i]-b[i]))
	}
	if d < 0.01 {
		t.Errorf("spectrum of a sum within %.4f of the sum of spectra: want a non-linear upsampling", d)
	}
}
