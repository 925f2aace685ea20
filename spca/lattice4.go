package spca

// evalCell4 is evalCellReduce for d = 4 (the 2×2 patches of the codec)
// with constant sizes, so that the compiler drops the bounds checks and
// keeps the loops short. It performs the same operations in the same
// order, so its results are bit-identical (TestEvalCell4).
func (l *lattice) evalCell4(base int, dst, jac, frac []float64) {
	s0, s1, s2, s3 := l.strides[0], l.strides[1], l.strides[2], l.strides[3]
	var v [16][4]float64
	for c := 0; c < 16; c++ {
		off := 4 * (base + (c&1)*s0 + (c>>1&1)*s1 + (c>>2&1)*s2 + (c>>3&1)*s3)
		p := l.x[off : off+4 : off+4]
		v[c] = [4]float64{p[0], p[1], p[2], p[3]}
	}
	_ = frac[3]
	t0, t1, t2, t3 := frac[0], frac[1], frac[2], frac[3]
	if jac == nil {
		for c := 0; c < 8; c++ {
			a, b := &v[2*c], &v[2*c+1]
			for k := 0; k < 4; k++ {
				v[c][k] = a[k] + t0*(b[k]-a[k])
			}
		}
		for c := 0; c < 4; c++ {
			a, b := &v[2*c], &v[2*c+1]
			for k := 0; k < 4; k++ {
				v[c][k] = a[k] + t1*(b[k]-a[k])
			}
		}
		for c := 0; c < 2; c++ {
			a, b := &v[2*c], &v[2*c+1]
			for k := 0; k < 4; k++ {
				v[c][k] = a[k] + t2*(b[k]-a[k])
			}
		}
		_ = dst[3]
		for k := 0; k < 4; k++ {
			dst[k] = v[0][k] + t3*(v[1][k]-v[0][k])
		}
		return
	}
	inv0, inv1, inv2, inv3 := 1/l.step[0], 1/l.step[1], 1/l.step[2], 1/l.step[3]
	// g0..g3: the Jacobian columns of axes 0..3, reduced by the later
	// stages as in evalCellReduce.
	var g0 [8][4]float64
	for c := 0; c < 8; c++ {
		for k := 0; k < 4; k++ {
			va, vb := v[2*c][k], v[2*c+1][k]
			g0[c][k] = (vb - va) * inv0
			v[c][k] = va + t0*(vb-va)
		}
	}
	var g1 [4][4]float64
	for c := 0; c < 4; c++ {
		for k := 0; k < 4; k++ {
			ga := g0[2*c][k]
			g0[c][k] = ga + t1*(g0[2*c+1][k]-ga)
			va, vb := v[2*c][k], v[2*c+1][k]
			g1[c][k] = (vb - va) * inv1
			v[c][k] = va + t1*(vb-va)
		}
	}
	var g2 [2][4]float64
	for c := 0; c < 2; c++ {
		for k := 0; k < 4; k++ {
			ga := g0[2*c][k]
			g0[c][k] = ga + t2*(g0[2*c+1][k]-ga)
			ga = g1[2*c][k]
			g1[c][k] = ga + t2*(g1[2*c+1][k]-ga)
			va, vb := v[2*c][k], v[2*c+1][k]
			g2[c][k] = (vb - va) * inv2
			v[c][k] = va + t2*(vb-va)
		}
	}
	_ = dst[3]
	_ = jac[15]
	for k := 0; k < 4; k++ {
		ga := g0[0][k]
		jac[k*4] = ga + t3*(g0[1][k]-ga)
		ga = g1[0][k]
		jac[k*4+1] = ga + t3*(g1[1][k]-ga)
		ga = g2[0][k]
		jac[k*4+2] = ga + t3*(g2[1][k]-ga)
		va, vb := v[0][k], v[1][k]
		jac[k*4+3] = (vb - va) * inv3
		dst[k] = va + t3*(vb-va)
	}
}
