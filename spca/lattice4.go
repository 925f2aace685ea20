package spca

// evalCell4 is evalCellReduce for d = 4 (the 2×2 patches of the codec):
// the corners are read once, split into one array per component, and
// each component is reduced by straight-line kernels (cellGrad4;
// valueCell4 without the Jacobian), which perform evalCellReduce's
// operations in its order, so the results are bit-identical
// (TestEvalCell4). With loops over the components the compiler kept
// every partial result in memory: an evaluation with the Jacobian took
// 170 ns, against 80 now.
func (l *lattice) evalCell4(base int, dst, jac, frac []float64) {
	if jac == nil {
		l.valueCell4(base, dst, frac)
		return
	}
	if hasAVX {
		c := [8]float64{frac[0], frac[1], frac[2], frac[3]}
		l.evalCellJac4(base, false, (*[4]float64)(dst[:4]), (*[16]float64)(jac[:16]), &c)
		return
	}
	l.gradCell4Go(base, dst, jac, frac)
}

// gradCell4Go is evalCell4 with the Jacobian in portable Go.
func (l *lattice) gradCell4Go(base int, dst, jac, frac []float64) {
	if l.x32 != nil {
		gradCell4Of(l, l.x32, base, dst, jac, frac)
		return
	}
	gradCell4Of(l, l.x, base, dst, jac, frac)
}

// gradCell4Of is gradCell4Go on the positions x (l.x or l.x32).
func gradCell4Of[T position](l *lattice, x []T, base int, dst, jac, frac []float64) {
	s0, s1, s2, s3 := l.strides[0], l.strides[1], l.strides[2], l.strides[3]
	var v [4][16]float64
	for c := 0; c < 16; c++ {
		off := 4 * (base + (c&1)*s0 + (c>>1&1)*s1 + (c>>2&1)*s2 + (c>>3&1)*s3)
		p := x[off : off+4 : off+4]
		v[0][c], v[1][c], v[2][c], v[3][c] = float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3])
	}
	_ = frac[3]
	t0, t1, t2, t3 := frac[0], frac[1], frac[2], frac[3]
	_ = dst[3]
	inv0, inv1, inv2, inv3 := 1/l.step[0], 1/l.step[1], 1/l.step[2], 1/l.step[3]
	_ = jac[15]
	for k := 0; k < 4; k++ {
		dst[k], jac[k*4], jac[k*4+1], jac[k*4+2], jac[k*4+3] = cellGrad4(&v[k], t0, t1, t2, t3, inv0, inv1, inv2, inv3)
	}
}

// valueCell4 is evalCell4 without the Jacobian: the corners are reduced
// along axis 0 as they are read, in pairs, and the eight results of each
// component by cellValue8.
func (l *lattice) valueCell4(base int, dst, frac []float64) {
	s0, s1, s2, s3 := 4*l.strides[0], 4*l.strides[1], 4*l.strides[2], 4*l.strides[3]
	_ = frac[3]
	if hasAVX {
		// The kernel of the positions' type, the farthest corner's last
		// component checked as valueCell4Go's slices check it (written
		// out here and in invert4: a method choosing the kernel is not
		// inlined).
		t, d := (*[4]float64)(frac[:4]), (*[4]float64)(dst[:4])
		far := 4*base + s0 + s1 + s2 + s3 + 3
		if l.x32 != nil {
			_ = l.x32[far]
			valueCell4AVX32(&l.x32[4*base], s0, s1, s2, s3, t, d)
			return
		}
		_ = l.x[far]
		valueCell4AVX(&l.x[4*base], s0, s1, s2, s3, t, d)
		return
	}
	l.valueCell4Go(base, dst, frac)
}

// valueCell4Go is valueCell4 in portable Go.
func (l *lattice) valueCell4Go(base int, dst, frac []float64) {
	if l.x32 != nil {
		valueCell4Of(l, l.x32, base, dst, frac)
		return
	}
	valueCell4Of(l, l.x, base, dst, frac)
}

// valueCell4Of is valueCell4Go on the positions x (l.x or l.x32).
func valueCell4Of[T position](l *lattice, x []T, base int, dst, frac []float64) {
	s0, s1, s2, s3 := 4*l.strides[0], 4*l.strides[1], 4*l.strides[2], 4*l.strides[3]
	_ = frac[3]
	t0, t1, t2, t3 := frac[0], frac[1], frac[2], frac[3]
	var v [4][8]float64
	for c := 0; c < 8; c++ {
		off := 4*base + (c&1)*s1 + (c>>1&1)*s2 + (c>>2)*s3
		p := x[off : off+4 : off+4]
		q := x[off+s0 : off+s0+4 : off+s0+4]
		a := [4]float64{float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3])}
		b := [4]float64{float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])}
		v[0][c] = a[0] + float64(t0*(b[0]-a[0]))
		v[1][c] = a[1] + float64(t0*(b[1]-a[1]))
		v[2][c] = a[2] + float64(t0*(b[2]-a[2]))
		v[3][c] = a[3] + float64(t0*(b[3]-a[3]))
	}
	_ = dst[3]
	for k := 0; k < 4; k++ {
		dst[k] = cellValue8(&v[k], t1, t2, t3)
	}
}

// The kernels below reduce one component's 16 cell corners, corner c
// holding the value at the upper node along axis j where bit j of c is
// set, one axis at a time, axis 0 first: each pair of corners differing
// along the axis becomes a + t·(b − a).

// cellValue8 is the interpolant's value after the reduction along axis
// 0: a holds the eight values along axes 1..3 (bit j-1 of the index for
// axis j).
func cellValue8(a *[8]float64, t1, t2, t3 float64) float64 {
	a0, a1, a2, a3 := a[0]+float64(t1*(a[1]-a[0])), a[2]+float64(t1*(a[3]-a[2])), a[4]+float64(t1*(a[5]-a[4])), a[6]+float64(t1*(a[7]-a[6]))
	a0, a1 = a0+float64(t2*(a1-a0)), a2+float64(t2*(a3-a2))
	return a0 + float64(t3*(a1-a0))
}

// cellGrad4 returns the interpolant's value and its derivatives along
// axes 0..3 in units of the axes' coordinates, given the reciprocals
// inv0..inv3 of the cell's edge lengths. The derivative along axis j is
// the difference across the cell along j, scaled by invj, interpolated
// along the axes reduced after j.
//
// Products are rounded (float64(x*y)) before they are added: fused into
// FMAs (arm64, GOAMD64=v3) they would give other responses than amd64.
func cellGrad4(c *[16]float64, t0, t1, t2, t3, inv0, inv1, inv2, inv3 float64) (v, d0, d1, d2, d3 float64) {
	// Axis 0: eight pairs.
	e0, e1, e2, e3 := c[1]-c[0], c[3]-c[2], c[5]-c[4], c[7]-c[6]
	e4, e5, e6, e7 := c[9]-c[8], c[11]-c[10], c[13]-c[12], c[15]-c[14]
	a0, a1, a2, a3 := c[0]+float64(t0*e0), c[2]+float64(t0*e1), c[4]+float64(t0*e2), c[6]+float64(t0*e3)
	a4, a5, a6, a7 := c[8]+float64(t0*e4), c[10]+float64(t0*e5), c[12]+float64(t0*e6), c[14]+float64(t0*e7)
	g0, g1, g2, g3 := float64(e0*inv0), float64(e1*inv0), float64(e2*inv0), float64(e3*inv0)
	g4, g5, g6, g7 := float64(e4*inv0), float64(e5*inv0), float64(e6*inv0), float64(e7*inv0)
	// Axis 1: four pairs; the axis-0 slopes are interpolated along it.
	g0, g1, g2, g3 = g0+float64(t1*(g1-g0)), g2+float64(t1*(g3-g2)), g4+float64(t1*(g5-g4)), g6+float64(t1*(g7-g6))
	e0, e1, e2, e3 = a1-a0, a3-a2, a5-a4, a7-a6
	h0, h1, h2, h3 := float64(e0*inv1), float64(e1*inv1), float64(e2*inv1), float64(e3*inv1)
	a0, a1, a2, a3 = a0+float64(t1*e0), a2+float64(t1*e1), a4+float64(t1*e2), a6+float64(t1*e3)
	// Axis 2: two pairs.
	g0, g1 = g0+float64(t2*(g1-g0)), g2+float64(t2*(g3-g2))
	h0, h1 = h0+float64(t2*(h1-h0)), h2+float64(t2*(h3-h2))
	e0, e1 = a1-a0, a3-a2
	k0, k1 := float64(e0*inv2), float64(e1*inv2)
	a0, a1 = a0+float64(t2*e0), a2+float64(t2*e1)
	// Axis 3.
	e0 = a1 - a0
	return a0 + float64(t3*e0), g0 + float64(t3*(g1-g0)), h0 + float64(t3*(h1-h0)), k0 + float64(t3*(k1-k0)), e0 * inv3
}
