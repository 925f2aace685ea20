package colorspace

// Cone-response matrices of linear chromatic adaptation transforms, mapping
// XYZ to the sharpened "cone" space in which VonKries scales.
//
// The package uses its own copies: changing these variables does not
// change what its functions compute.
var (
	// BradfordCone is the linearised Bradford matrix M_BFD (K. M. Lam,
	// 1985; as used by ICC.1 and CIECAM97s without its non-linear blue
	// exponent).
	BradfordCone = Mat3{
		0.8951, 0.2664, -0.1614,
		-0.7502, 1.7135, 0.0367,
		0.0389, -0.0685, 1.0296,
	}

	// CAT02Cone is M_CAT02 of CIECAM02 (CIE 159:2004).
	CAT02Cone = Mat3{
		0.7328, 0.4296, -0.1624,
		-0.7036, 1.6975, 0.0061,
		0.0030, 0.0136, 0.9834,
	}

	// CAT16Cone is M16 of CAM16 (C. Li et al., "Comprehensive color
	// solutions: CAM16, CAT16, and CAM16-UCS", Color Res. Appl. 42, 2017).
	CAT16Cone = Mat3{
		0.401288, 0.650173, -0.051461,
		-0.250268, 1.204414, 0.045854,
		-0.002079, 0.048952, 0.953127,
	}
)

// The package's own copies.
var (
	bradfordCone = BradfordCone
	cat02Cone    = CAT02Cone
	cat16Cone    = CAT16Cone
)

// VonKries returns the von Kries chromatic adaptation transform, in the
// cone space that the matrix cone maps XYZ to, from the source white src to
// the destination white dst:
//
//	M = cone⁻¹ · diag(cone·dst ./ cone·src) · cone.
//
// M applies to XYZ: M.Apply(c) is the corresponding colour under dst of the
// colour c seen under src, and M.Apply(src) = dst. Adaptation is complete
// (degree of adaptation D = 1). Scaling the rows of cone does not change M.
// cone must be invertible and give src non-zero cone responses; otherwise
// VonKries panics.
func VonKries(cone Mat3, src, dst XYZ) Mat3 {
	inv, err := cone.Inverse()
	if err != nil {
		panic(err)
	}
	s := cone.mulVec(src)
	d := cone.mulVec(dst)
	if s[0] == 0 || s[1] == 0 || s[2] == 0 {
		panic("colorspace: source white has a zero cone response")
	}
	return inv.Mul(Diag([3]float64{d[0] / s[0], d[1] / s[1], d[2] / s[2]})).Mul(cone)
}

// Bradford returns the linearised Bradford chromatic adaptation matrix from
// the white src to the white dst: VonKries(BradfordCone, src, dst).
func Bradford(src, dst XYZ) Mat3 {
	return VonKries(bradfordCone, src, dst)
}

// CAT02 returns the CIECAM02 chromatic adaptation matrix with complete
// adaptation from the white src to the white dst:
// VonKries(CAT02Cone, src, dst).
func CAT02(src, dst XYZ) Mat3 {
	return VonKries(cat02Cone, src, dst)
}

// CAT16 returns the CAT16 chromatic adaptation matrix with complete
// adaptation from the white src to the white dst (the one-step form):
// VonKries(CAT16Cone, src, dst).
func CAT16(src, dst XYZ) Mat3 {
	return VonKries(cat16Cone, src, dst)
}

// HPE returns the von Kries adaptation matrix in the package's
// Hunt–Pointer–Estévez LMS space from the white src to the white dst:
// VonKries(XYZToLMS, src, dst), the same as VonKries(HPECone, src, dst).
func HPE(src, dst XYZ) Mat3 {
	return VonKries(xyzToLMS, src, dst)
}
