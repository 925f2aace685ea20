package colorspace

import (
	"math"
	"testing"
)

// Physical holds for every light and for no imaginary colour: spectral
// lights, sums of them, the sRGB cube, surfaces under A; not (1, 0, 0),
// negative values, or chromaticities beyond the locus.
func TestPhysical(t *testing.T) {
	xb, yb, zb := CMF1931()
	var sum XYZ
	for i := range xb {
		c := XYZ{xb[i], yb[i], zb[i]}
		if !c.Physical() {
			t.Errorf("spectral light at %v nm: not physical", Wavelength(i))
		}
		// Beyond the locus, away from the white: imaginary.
		x, y := c.Chromaticity()
		dx, dy := x-1.0/3, y-1.0/3
		k := 0.02 / math.Hypot(dx, dy)
		if out := XYZFromChromaticity(x+k*dx, y+k*dy, 1); out.Physical() {
			t.Errorf("%v nm pushed 0.02 out of the locus, %v: physical", Wavelength(i), out)
		}
		sum = XYZ{sum[0] + 3*c[0], sum[1] + 3*c[1], sum[2] + 3*c[2]}
	}
	if !sum.Physical() {
		t.Errorf("the sum of the spectral lights %v: not physical", sum)
	}
	for r := 0.0; r <= 1; r += 0.25 {
		for g := 0.0; g <= 1; g += 0.25 {
			for b := 0.0; b <= 1; b += 0.25 {
				if c := (LinearRGB{r, g, b}).XYZ(); !c.Physical() {
					t.Errorf("linear sRGB %v, %v: not physical", LinearRGB{r, g, b}, c)
				}
			}
		}
	}
	for _, p := range ColorChecker() {
		if c := Render(p.Reflectance, IlluminantA()); !c.Physical() {
			t.Errorf("%s under A, %v: not physical", p.Name, c)
		}
	}
	for _, c := range []XYZ{{}, WhiteD65, WhiteA, {1e10, 1e10, 1e10}} {
		if !c.Physical() {
			t.Errorf("%v: not physical", c)
		}
	}
	for _, c := range []XYZ{{1e10, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-0.1, 0.5, 0.5}, {0.5, -0.01, 0.5},
		{-1, -1, -1}, {1, -1, 0}, {math.Inf(1), 1, 1}, {math.NaN(), 1, 1}, {0.05, 0.2, 0.75}} {
		if c.Physical() {
			t.Errorf("%v: physical", c)
		}
	}
}
