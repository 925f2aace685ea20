package spca

import "math"

// symEigen computes the eigen-decomposition of the symmetric d×d matrix a
// (row-major, overwritten) by cyclic Jacobi rotations. On return vals holds
// the eigenvalues in decreasing order and vecs (row-major d×d) the matching
// unit eigenvectors as columns. The matrices here are at most a few
// dimensions, where Jacobi is accurate, allocation-free and fast.
func symEigen(a []float64, d int, vals, vecs []float64) {
	for i := range vecs[:d*d] {
		vecs[i] = 0
	}
	for i := 0; i < d; i++ {
		vecs[i*d+i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		off := 0.0
		diag := 0.0
		for p := 0; p < d; p++ {
			diag += a[p*d+p] * a[p*d+p]
			for q := p + 1; q < d; q++ {
				off += a[p*d+q] * a[p*d+q]
			}
		}
		if off <= 1e-30*diag || off == 0 {
			break
		}
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				apq := a[p*d+q]
				if apq == 0 {
					continue
				}
				app, aqq := a[p*d+p], a[q*d+q]
				theta := (aqq - app) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < d; k++ {
					akp, akq := a[k*d+p], a[k*d+q]
					a[k*d+p] = c*akp - s*akq
					a[k*d+q] = s*akp + c*akq
				}
				for k := 0; k < d; k++ {
					apk, aqk := a[p*d+k], a[q*d+k]
					a[p*d+k] = c*apk - s*aqk
					a[q*d+k] = s*apk + c*aqk
				}
				for k := 0; k < d; k++ {
					vkp, vkq := vecs[k*d+p], vecs[k*d+q]
					vecs[k*d+p] = c*vkp - s*vkq
					vecs[k*d+q] = s*vkp + c*vkq
				}
			}
		}
	}
	for i := 0; i < d; i++ {
		vals[i] = a[i*d+i]
	}
	// Selection sort by decreasing eigenvalue, moving columns along.
	for i := 0; i < d; i++ {
		best := i
		for j := i + 1; j < d; j++ {
			if vals[j] > vals[best] {
				best = j
			}
		}
		if best != i {
			vals[i], vals[best] = vals[best], vals[i]
			for k := 0; k < d; k++ {
				vecs[k*d+i], vecs[k*d+best] = vecs[k*d+best], vecs[k*d+i]
			}
		}
	}
}

// maxAbs returns the largest magnitude in a (NaN if a holds one) as the
// largest of the magnitudes' bit patterns, which order as the magnitudes
// do, with NaNs above +Inf. Integer max compiles to a conditional move;
// the float max builtin to checks for NaNs and signed zeros through
// memory, a chain that took 60 % of solve4's time.
func maxAbs(a []float64) float64 {
	var m0, m1 uint64
	i := 0
	for ; i+1 < len(a); i += 2 {
		m0 = max(m0, math.Float64bits(a[i])&^(1<<63))
		m1 = max(m1, math.Float64bits(a[i+1])&^(1<<63))
	}
	if i < len(a) {
		m0 = max(m0, math.Float64bits(a[i])&^(1<<63))
	}
	return math.Float64frombits(max(m0, m1))
}

// maxAbs16 is maxAbs of the 16 entries of a (solve4's matrix), unrolled
// into four maxima without bounds checks: maxAbs's loop took ~148
// instructions a call, 1.2 % of a 4×4 batch encode's.
func maxAbs16(a *[16]float64) float64 {
	const sign = 1 << 63
	b := func(i int) uint64 { return math.Float64bits(a[i]) &^ sign }
	m0 := max(b(0), b(4), b(8), b(12))
	m1 := max(b(1), b(5), b(9), b(13))
	m2 := max(b(2), b(6), b(10), b(14))
	m3 := max(b(3), b(7), b(11), b(15))
	return math.Float64frombits(max(max(m0, m1), max(m2, m3)))
}

// solveLinear solves a·x = b for the d×d row-major matrix a by Gaussian
// elimination with partial pivoting; a and b are overwritten and x is
// returned in b. It reports false when a is numerically singular.
func solveLinear(a, b []float64, d int) bool {
	scale := maxAbs(a[:d*d])
	if scale == 0 {
		return false
	}
	for c := 0; c < d; c++ {
		p := c
		for r := c + 1; r < d; r++ {
			if math.Abs(a[r*d+c]) > math.Abs(a[p*d+c]) {
				p = r
			}
		}
		if math.Abs(a[p*d+c]) < 1e-12*scale {
			return false
		}
		if p != c {
			for k := 0; k < d; k++ {
				a[c*d+k], a[p*d+k] = a[p*d+k], a[c*d+k]
			}
			b[c], b[p] = b[p], b[c]
		}
		inv := 1 / a[c*d+c]
		for r := c + 1; r < d; r++ {
			f := a[r*d+c] * inv
			if f == 0 {
				continue
			}
			for k := c; k < d; k++ {
				a[r*d+k] -= float64(f * a[c*d+k])
			}
			b[r] -= float64(f * b[c])
		}
	}
	for c := d - 1; c >= 0; c-- {
		s := b[c]
		for k := c + 1; k < d; k++ {
			s -= float64(a[c*d+k] * b[k])
		}
		b[c] = s / a[c*d+c]
	}
	return true
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		t := a[i] - b[i]
		s += float64(t * t)
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// quickSelect returns the k-th smallest (0-based) value of x, reordering x.
func quickSelect(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for lo < hi {
		// Median of three as pivot keeps sorted inputs linear.
		mid := lo + (hi-lo)/2
		a, b, c := x[lo], x[mid], x[hi]
		pivot := b
		if (a <= b) == (b <= c) {
			pivot = b
		} else if (b <= a) == (a <= c) {
			pivot = a
		} else {
			pivot = c
		}
		i, j := lo, hi
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		if k <= j {
			hi = j
		} else if k >= i {
			lo = i
		} else {
			return x[k]
		}
	}
	return x[k]
}

// solve4 is solveLinear for d = 4 by the adjugate: the 2×2 minors of the
// first two rows and of the last two give the determinant and, with b,
// the solution, with one division and no pivoting branches. It reports
// false, changing nothing, for a matrix singular relative to its largest
// entry (|det| below 1e-12 of its scale to the fourth, the tolerance of
// solveLinear's pivots on a well-scaled matrix). It is for Newton steps
// whose result is checked; the adjugate is not as stable as pivoting on
// ill-conditioned matrices.
//
// Products are rounded (float64(x*y)) before they are added: fused into
// FMAs (arm64, GOAMD64=v3) they would give other solutions than amd64.
func solve4(a *[16]float64, b *[4]float64) bool {
	var x [4]float64
	var det, scale float64
	if hasSolve4Kernel {
		det, scale = solve4AVX(a, b, &x)
	} else {
		det, scale = solve4Go(a, b, &x), maxAbs16(a)
	}
	if !(math.Abs(det) > 1e-12*scale*scale*scale*scale) {
		return false
	}
	inv := 1 / det
	b[0], b[1], b[2], b[3] = x[0]*inv, x[1]*inv, x[2]*inv, x[3]*inv
	return true
}

// solve4Go returns the determinant of a and writes to x the adjugate's
// rows times b: solve4's solution times the determinant.
func solve4Go(a *[16]float64, b *[4]float64, x *[4]float64) (det float64) {
	a00, a01, a02, a03 := a[0], a[1], a[2], a[3]
	a10, a11, a12, a13 := a[4], a[5], a[6], a[7]
	a20, a21, a22, a23 := a[8], a[9], a[10], a[11]
	a30, a31, a32, a33 := a[12], a[13], a[14], a[15]
	// Minors of rows 0-1 (s) and rows 2-3 (c), columns (i, j).
	s0 := float64(a00*a11) - float64(a10*a01)
	s1 := float64(a00*a12) - float64(a10*a02)
	s2 := float64(a00*a13) - float64(a10*a03)
	s3 := float64(a01*a12) - float64(a11*a02)
	s4 := float64(a01*a13) - float64(a11*a03)
	s5 := float64(a02*a13) - float64(a12*a03)
	c5 := float64(a22*a33) - float64(a32*a23)
	c4 := float64(a21*a33) - float64(a31*a23)
	c3 := float64(a21*a32) - float64(a31*a22)
	c2 := float64(a20*a33) - float64(a30*a23)
	c1 := float64(a20*a32) - float64(a30*a22)
	c0 := float64(a20*a31) - float64(a30*a21)
	det = float64(s0*c5) - float64(s1*c4) + float64(s2*c3) + float64(s3*c2) - float64(s4*c1) + float64(s5*c0)
	// The adjugate's rows times b.
	b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
	x[0] = float64((float64(a11*c5)-float64(a12*c4)+float64(a13*c3))*b0) + float64((float64(-a01*c5)+float64(a02*c4)-float64(a03*c3))*b1) + float64((float64(a31*s5)-float64(a32*s4)+float64(a33*s3))*b2) + float64((float64(-a21*s5)+float64(a22*s4)-float64(a23*s3))*b3)
	x[1] = float64((float64(-a10*c5)+float64(a12*c2)-float64(a13*c1))*b0) + float64((float64(a00*c5)-float64(a02*c2)+float64(a03*c1))*b1) + float64((float64(-a30*s5)+float64(a32*s2)-float64(a33*s1))*b2) + float64((float64(a20*s5)-float64(a22*s2)+float64(a23*s1))*b3)
	x[2] = float64((float64(a10*c4)-float64(a11*c2)+float64(a13*c0))*b0) + float64((float64(-a00*c4)+float64(a01*c2)-float64(a03*c0))*b1) + float64((float64(a30*s4)-float64(a31*s2)+float64(a33*s0))*b2) + float64((float64(-a20*s4)+float64(a21*s2)-float64(a23*s0))*b3)
	x[3] = float64((float64(-a10*c3)+float64(a11*c1)-float64(a12*c0))*b0) + float64((float64(a00*c3)-float64(a01*c1)+float64(a02*c0))*b1) + float64((float64(-a30*s3)+float64(a31*s1)-float64(a32*s0))*b2) + float64((float64(a20*s3)-float64(a21*s1)+float64(a22*s0))*b3)
	return det
}
