package colorspace

// XYZ is a CIE 1931 tristimulus value (X, Y, Z). The package scales
// tristimulus values so that a white has Y = 1, not 100.
type XYZ [3]float64

// Reference whites, scaled to Y = 1.
//
// The package uses its own copies: changing these variables does not
// change what its functions compute.
var (
	// WhiteD65 is CIE D65 as the sRGB standard (IEC 61966-2-1) and
	// ITU-R BT.709 define it, by its chromaticity (x, y) = (0.3127, 0.3290).
	// It is the white of LinearRGB and of the LMS normalisation.
	WhiteD65 = XYZ{0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290}

	// WhiteD50 is CIE D50, (x, y) = (0.34567, 0.35850) (CIE 15:2004,
	// 2° observer), the white of ICC profile connection spaces.
	WhiteD50 = XYZFromChromaticity(0.34567, 0.35850, 1)

	// WhiteA is CIE standard illuminant A, (x, y) = (0.44757, 0.40745)
	// (CIE 15:2004, 2° observer).
	WhiteA = XYZFromChromaticity(0.44757, 0.40745, 1)
)

// whiteD65 is the package's own copy of WhiteD65.
var whiteD65 = WhiteD65

// XYZFromChromaticity returns the tristimulus value with chromaticity
// (x, y) and luminance Y = lum. For y = 0 it returns (0, 0, 0).
func XYZFromChromaticity(x, y, lum float64) XYZ {
	if y == 0 {
		return XYZ{}
	}
	return XYZ{x * lum / y, lum, (1 - x - y) * lum / y}
}

// Chromaticity returns the CIE 1931 chromaticity coordinates
// x = X/(X+Y+Z) and y = Y/(X+Y+Z) of c. For X+Y+Z = 0 (black) it returns
// (0, 0).
func (c XYZ) Chromaticity() (x, y float64) {
	s := c[0] + c[1] + c[2]
	if s == 0 {
		return 0, 0
	}
	return c[0] / s, c[1] / s
}

// UV returns the CIE 1976 UCS chromaticity coordinates
// u' = 4X/(X+15Y+3Z) and v' = 9Y/(X+15Y+3Z) of c. For X+15Y+3Z = 0 it
// returns (0, 0).
func (c XYZ) UV() (u, v float64) {
	d := c[0] + 15*c[1] + 3*c[2]
	if d == 0 {
		return 0, 0
	}
	return 4 * c[0] / d, 9 * c[1] / d
}

// ChromaticityToUV converts CIE 1931 (x, y) to CIE 1976 (u', v'):
// u' = 4x/(-2x+12y+3), v' = 9y/(-2x+12y+3).
func ChromaticityToUV(x, y float64) (u, v float64) {
	d := -2*x + 12*y + 3
	return 4 * x / d, 9 * y / d
}

// UVToChromaticity converts CIE 1976 (u', v') to CIE 1931 (x, y):
// x = 9u'/(6u'-16v'+12), y = 4v'/(6u'-16v'+12).
func UVToChromaticity(u, v float64) (x, y float64) {
	d := 6*u - 16*v + 12
	return 9 * u / d, 4 * v / d
}
