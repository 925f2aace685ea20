package colorspace

import (
	"errors"
	"math"
)

// ErrSingular is returned by Mat3.Inverse for a matrix that has no inverse.
var ErrSingular = errors.New("colorspace: singular matrix")

// Mat3 is a 3×3 matrix stored in row-major order: element (i, j) is
// m[3*i+j]. It acts on column vectors, so Apply computes m·v.
type Mat3 [9]float64

// Identity3 is the 3×3 identity matrix.
var Identity3 = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// Diag returns the diagonal matrix with diagonal d.
func Diag(d [3]float64) Mat3 {
	return Mat3{d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]}
}

// Apply returns the product m·v of m and the column vector v.
//
// Apply is typed for the tristimulus values the chromatic adaptation
// matrices act on; any other triple can be passed by conversion, for example
// LMS(m.Apply(XYZ(c))).
func (m Mat3) Apply(v XYZ) XYZ {
	return XYZ(m.mulVec(v))
}

// mulVec returns m·v.
func (m Mat3) mulVec(v [3]float64) [3]float64 {
	return [3]float64{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// Mul returns the matrix product m·n: applying the result is the same as
// applying n, then m.
func (m Mat3) Mul(n Mat3) Mat3 {
	var r Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[3*i+j] = m[3*i]*n[j] + m[3*i+1]*n[3+j] + m[3*i+2]*n[6+j]
		}
	}
	return r
}

// Det returns the determinant of m, the one Inverse tests: 0 for a
// rank-deficient m where amd64 computes 0, on every architecture.
func (m Mat3) Det() float64 {
	det, _ := m.detCofactors()
	return det
}

// detCofactors returns the determinant of m and the cofactors of its
// first row. Each product is rounded (float64(...)) so that no compiler
// fuses it into an FMA, as Go does on arm64: there the determinant of a
// rank-deficient matrix came out as rounding noise instead of 0, and
// FitAlignment of grey colours (B spanning one dimension) returned a
// matrix instead of an error. Rounded, every architecture computes what
// amd64 does.
func (m Mat3) detCofactors() (det float64, c [3]float64) {
	c[0] = roundedMul(m[4], m[8]) - roundedMul(m[5], m[7])
	c[1] = roundedMul(m[5], m[6]) - roundedMul(m[3], m[8])
	c[2] = roundedMul(m[3], m[7]) - roundedMul(m[4], m[6])
	return roundedMul(m[0], c[0]) + roundedMul(m[1], c[1]) + roundedMul(m[2], c[2]), c
}

// roundedMul is a·b rounded to float64: a product no compiler fuses into a sum.
func roundedMul(a, b float64) float64 { return float64(a * b) }

// Inverse returns the inverse of m, computed from the adjugate. It returns
// ErrSingular if the determinant of m is zero or not finite.
func (m Mat3) Inverse() (Mat3, error) {
	// Products rounded as in detCofactors.
	det, c := m.detCofactors()
	c00, c01, c02 := c[0], c[1], c[2]
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return Mat3{}, ErrSingular
	}
	inv := 1 / det
	return Mat3{
		c00 * inv,
		(roundedMul(m[2], m[7]) - roundedMul(m[1], m[8])) * inv,
		(roundedMul(m[1], m[5]) - roundedMul(m[2], m[4])) * inv,
		c01 * inv,
		(roundedMul(m[0], m[8]) - roundedMul(m[2], m[6])) * inv,
		(roundedMul(m[2], m[3]) - roundedMul(m[0], m[5])) * inv,
		c02 * inv,
		(roundedMul(m[1], m[6]) - roundedMul(m[0], m[7])) * inv,
		(roundedMul(m[0], m[4]) - roundedMul(m[1], m[3])) * inv,
	}, nil
}

// mustInverse returns the inverse of m, which must exist. It is used for
// the package's own well-conditioned constant matrices.
func mustInverse(m Mat3) Mat3 {
	inv, err := m.Inverse()
	if err != nil {
		panic(err)
	}
	return inv
}
