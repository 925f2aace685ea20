package colorspace

// LMS is a cone excitation (L, M, S): the responses of the long-, middle-
// and short-wavelength cones. The package's cone space is the
// Hunt–Pointer–Estévez space normalised to D65 (see XYZToLMS), so the sRGB
// white WhiteD65 has LMS (1, 1, 1).
type LMS [3]float64

// HPECone is the Hunt–Pointer–Estévez XYZ→LMS matrix, M_HPE, as published
// with CIECAM02 (CIE 159:2004; M. D. Fairchild, Color Appearance Models,
// 3rd ed., Wiley 2013), derived from the cone fundamentals of Estévez
// (1979) and Hunt & Pointer (1985). It is normalised so that the
// equal-energy white (1, 1, 1) has almost equal cone responses,
// (1.00001, 1.00000, 1.00000).
//
// The package uses its own copy: changing this variable does not change
// what its functions compute.
var HPECone = Mat3{
	0.38971, 0.68898, -0.07868,
	-0.22981, 1.18340, 0.04641,
	0, 0, 1,
}

var hpeCone = HPECone

// Matrices between XYZ and the package's LMS cone space.
//
// XYZToLMS is HPECone with each row divided by the corresponding cone
// response of WhiteD65, diag(HPECone·WhiteD65)⁻¹·HPECone, so that
// WhiteD65 maps to LMS (1, 1, 1) exactly up to rounding. To four decimals
// it is the D65-normalised Hunt–Pointer–Estévez matrix found in the
// literature (e.g. Fairchild, op. cit., for RLAB):
//
//	 0.4002  0.7076  −0.0808
//	−0.2263  1.1653   0.0457
//	 0.0000  0.0000   0.9182
//
// LMSToXYZ is its inverse. Because the scaling is diagonal, von Kries
// adaptation in this space equals von Kries adaptation with HPECone.
//
// The package uses its own copies: changing these variables does not
// change what its functions compute.
var (
	XYZToLMS = normaliseRows(hpeCone, whiteD65)
	LMSToXYZ = mustInverse(XYZToLMS)
)

// The package's own copies.
var (
	xyzToLMS = XYZToLMS
	lmsToXYZ = LMSToXYZ
)

// normaliseRows returns m with row i divided by (m·w)_i, so that the
// result maps w to (1, 1, 1).
func normaliseRows(m Mat3, w XYZ) Mat3 {
	r := m.mulVec(w)
	return Diag([3]float64{1 / r[0], 1 / r[1], 1 / r[2]}).Mul(m)
}

// LMS returns the cone excitation of c: XYZToLMS·c.
func (c XYZ) LMS() LMS {
	return LMS(xyzToLMS.mulVec(c))
}

// XYZ returns the tristimulus value of the cone excitation c: LMSToXYZ·c.
func (c LMS) XYZ() XYZ {
	return XYZ(lmsToXYZ.mulVec(c))
}
