// Package colorspace provides the colorimetry used for colour adaptation
// across illuminants: conversions between sRGB, CIE XYZ, a cone (LMS) space
// and CIELAB, chromaticity coordinates, the CIEDE2000 colour difference,
// von Kries chromatic adaptation transforms, and the spectral rendering of
// reflectances under CIE illuminants with the CIE 1931 observer.
//
// # Colour types
//
// Every colour is a float64 triple with its own named type, so that values
// in different spaces are not mixed by accident; conversions are methods:
//
//	SRGB       non-linear sRGB (R', G', B') in [0, 1]
//	LinearRGB  linear-light sRGB (R, G, B)
//	XYZ        CIE 1931 tristimulus values, white at Y = 1
//	LMS        cone excitations, Hunt–Pointer–Estévez normalised to D65
//	Lab        CIE 1976 L*a*b*, relative to a given reference white
//
// For example SRGB{1, 0, 0}.Linear().XYZ().Lab(WhiteD65) is the CIELAB
// value of sRGB red. The types share the underlying type [3]float64, so a
// conversion such as XYZ(v) reinterprets a triple at no cost.
//
// The sRGB transfer functions (SRGBToLinear, LinearToSRGB) are the
// piecewise ones of IEC 61966-2-1. The linear sRGB primaries and white are
// those of the same standard (and of ITU-R BT.709); the matrix
// LinearRGBToXYZ is derived from them in float64 and equals the standard's
// four-decimal matrix when rounded. The white of sRGB, WhiteD65, maps to
// LinearRGB (1, 1, 1) and to LMS (1, 1, 1).
//
// # Cone space and chromatic adaptation
//
// XYZ.LMS uses the Hunt–Pointer–Estévez matrix of CIECAM02 (HPECone) with
// its rows rescaled so that WhiteD65 has LMS (1, 1, 1); see XYZToLMS.
//
// A von Kries transform scales the three cone responses independently by
// the ratio of the destination to the source white's responses. VonKries
// builds it, as a Mat3 acting on XYZ, for any cone matrix; Bradford, CAT02
// and HPE use the linearised Bradford, the CIECAM02 CAT02 and the
// Hunt–Pointer–Estévez matrix. Adaptation is complete (D = 1). Mat3 is a
// row-major 3×3 matrix with Apply, Mul and Inverse.
//
// # Spectral colorimetry
//
// Spectra are sampled from 380 nm to 780 nm every 5 nm (NumWavelengths =
// 81 samples, type Spectrum). The package holds the CIE 1931 2° colour-
// matching functions (CMF1931) and the relative spectral power of CIE
// illuminant D65 as tabulated by CIE 15:2004, and computes illuminant A
// from its defining Planck formula. Render sums R·S·x̄ (and ȳ, z̄) over the
// grid and normalises by Σ S·ȳ, so the perfect white has Y = 1 under every
// illuminant; WhitePoint is that white.
//
// # Colour difference
//
// DeltaE2000 is CIEDE2000 with unit parametric factors, checked against
// the 34 test pairs of Sharma, Wu and Dalal (2005).
//
// # Units and conventions
//
// Tristimulus values are relative, white Y = 1 (multiply by 100 for the
// CIE's convention). Chromaticities are (x, y) of CIE 1931 and (u', v') of
// CIE 1976. Wavelengths are in nanometres. No function clips: colours
// outside the sRGB gamut give components outside [0, 1].
package colorspace
