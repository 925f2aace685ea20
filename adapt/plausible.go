package adapt

import "github.com/spcalab/spca/colorspace"

// MaxPlausibleLuminance is the luminance Y (white 1) above which
// Implausible counts a colour: ten times the white is no surface colour,
// and colour lists given with white Y = 100 (the CIE tables' scale) land
// there.
const MaxPlausibleLuminance = 10

// Implausible reports whether c is no colour an adaptation map can mean
// anything for: an imaginary colour (colorspace.XYZ.Physical: outside the
// spectral locus, such as XYZ (1, 0, 0)) or one brighter than
// MaxPlausibleLuminance. Mappers map such colours without an error (the
// gamut mapping of SPCAMap takes XYZ (1e10, 0, 0) to black); callers that
// take colours from users count them (spca adapt map warns).
func Implausible(c colorspace.LMS) bool {
	x := c.XYZ()
	return !x.Physical() || x[1] > MaxPlausibleLuminance
}
