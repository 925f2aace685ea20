package colorspace

import "math"

// SRGB is an sRGB colour with non-linearly encoded components (R', G', B'),
// nominally in [0, 1], as stored in 8-bit images divided by 255.
type SRGB [3]float64

// LinearRGB is an sRGB colour with linear-light components (R, G, B),
// nominally in [0, 1]: the encoded components decoded by SRGBToLinear.
// (1, 1, 1) is the D65 white WhiteD65 with Y = 1.
type LinearRGB [3]float64

// SRGBToLinear decodes one sRGB component with the IEC 61966-2-1 transfer
// function:
//
//	v/12.92                    v ≤ 0.04045
//	((v + 0.055)/1.055)^2.4    v > 0.04045
//
// Values outside [0, 1] follow the same two pieces (the linear piece below
// zero), so the function is invertible on the whole real line.
func SRGBToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// LinearToSRGB encodes one linear-light component with the IEC 61966-2-1
// transfer function:
//
//	12.92 v                    v ≤ 0.0031308
//	1.055 v^(1/2.4) − 0.055    v > 0.0031308
//
// It is the inverse of SRGBToLinear except within the 5e-9 wide interval
// (0.0031308, 0.04045/12.92] where the standard's rounded thresholds
// disagree; there the two pieces differ by less than 1e-7.
func LinearToSRGB(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// Linear decodes c to linear light with SRGBToLinear.
func (c SRGB) Linear() LinearRGB {
	return LinearRGB{SRGBToLinear(c[0]), SRGBToLinear(c[1]), SRGBToLinear(c[2])}
}

// XYZ returns the tristimulus value of the sRGB colour c.
func (c SRGB) XYZ() XYZ {
	return c.Linear().XYZ()
}

// Lab returns the CIELAB value of the sRGB colour c relative to the sRGB
// white WhiteD65.
func (c SRGB) Lab() Lab {
	return c.Linear().XYZ().Lab(whiteD65)
}

// SRGB encodes c with LinearToSRGB.
func (c LinearRGB) SRGB() SRGB {
	return SRGB{LinearToSRGB(c[0]), LinearToSRGB(c[1]), LinearToSRGB(c[2])}
}

// XYZ returns the tristimulus value of c: LinearRGBToXYZ·c.
func (c LinearRGB) XYZ() XYZ {
	return XYZ(rgbToXYZ.mulVec(c))
}

// LinearRGB returns the linear sRGB value of c: XYZToLinearRGB·c. Colours
// outside the sRGB gamut have components outside [0, 1]; they are not
// clipped.
func (c XYZ) LinearRGB() LinearRGB {
	return LinearRGB(xyzToRGB.mulVec(c))
}

// SRGB returns the encoded sRGB value of c, not clipped to [0, 1].
func (c XYZ) SRGB() SRGB {
	return c.LinearRGB().SRGB()
}

// Matrices between linear sRGB and XYZ.
//
// LinearRGBToXYZ is derived in float64 from the chromaticities that
// IEC 61966-2-1 (and ITU-R BT.709) specify, red (0.64, 0.33),
// green (0.30, 0.60), blue (0.15, 0.06) and white D65 (0.3127, 0.3290), by
// scaling the primaries' columns so that RGB (1, 1, 1) gives WhiteD65.
// Rounded to four decimals it is the matrix printed in the standard,
//
//	0.4124 0.3576 0.1805
//	0.2126 0.7152 0.0722
//	0.0193 0.1192 0.9505
//
// and XYZToLinearRGB is its exact inverse (the standard prints the inverse
// of the rounded matrix, to four decimals). Deriving rather than rounding
// keeps the white exact: WhiteD65 maps to RGB (1, 1, 1) to rounding error.
//
// The package uses its own copies: changing these variables does not
// change what its functions compute.
var (
	LinearRGBToXYZ = primariesToXYZ([3][2]float64{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}}, whiteD65)
	XYZToLinearRGB = mustInverse(LinearRGBToXYZ)
)

// The package's own copies.
var (
	rgbToXYZ = LinearRGBToXYZ
	xyzToRGB = XYZToLinearRGB
)

// primariesToXYZ returns the matrix whose columns are the tristimulus
// values of the three primaries with chromaticities p, scaled so that the
// primaries at unit drive add up to white.
func primariesToXYZ(p [3][2]float64, white XYZ) Mat3 {
	var cols Mat3
	for j, xy := range p {
		c := XYZFromChromaticity(xy[0], xy[1], 1)
		cols[j], cols[3+j], cols[6+j] = c[0], c[1], c[2]
	}
	s := mustInverse(cols).mulVec(white)
	return cols.Mul(Diag(s))
}
