package spca

import "math"

// lattice is the tensor grid of unfolded coordinates u = (u_1..u_d) with
// the input-domain point R^{-1} reached by walking u_1 along the first
// curve, u_2 along the secondary curve drawn there, and so on. Nodes along
// axis j >= 2 include u_j = 0 (the start of curve j, on curve j-1), so the
// slice of the grid at u_{>j} = 0 is exactly the lattice of level j.
// Between nodes the map is multilinear: curves drawn from start points
// between stations are interpolated from the neighbouring station curves.
type lattice struct {
	d       int
	g       []int     // nodes per axis
	lo      []float64 // coordinate of node 0 per axis
	step    []float64 // node spacing per axis
	zero    []int     // index of the node u_j = 0 (axes >= 1; 0 on axis 0)
	strides []int
	x       []float64 // positions, prod(g)×d, axis 0 slowest; nil where x32 holds them
	// x32 holds the positions instead of x where every one is exact as a
	// float32 (a snapped lattice read from a file: integers below 2^24
	// times a power of two, see decoder.snapped): widened where they are
	// read, they are x's float64 values, in half the memory (the colour
	// codec model's three lattices: 10.8 -> 5.4 MB) and half the cache
	// lines an evaluation reads. Never changed in place: copies of the
	// model share it, and widen comes first where positions change.
	x32    []float32
	reduce bool // evalCell can use evalCellReduce (set by setStrides)
	// inv4 is 1/step per axis where d = 4 (set by setStrides): the
	// Jacobian's reciprocals of evalCell4, which divided at every call.
	inv4 [4]float64
	// nk is the Newton step's constants where d = 4 (set by setStrides).
	nk newton4Consts
}

// newton4Consts are what newtonCell4 needs of a lattice of 4 axes, as
// newtonCell4AVX reads them (offsets fixed: lo 0, step 32, clampLo 64,
// clampHi 96, top 128, st 144, one 160): clampU4's bounds, eval4's
// cells' tops (g−2) and strides, and whether they fit the kernel's
// 32-bit integers (ok).
type newton4Consts struct {
	lo, step, clampLo, clampHi [4]float64
	top, st                    [4]int32
	one                        [4]float64
	ok                         bool
}

// position is the type of a lattice's stored positions (x or x32); the
// evaluations below are written once for both, each position widened to
// float64 before any arithmetic: the same float64 operations on the same
// values.
type position interface{ float32 | float64 }

// positions returns the positions as float64: x, or x32 widened into a
// new slice.
func (l *lattice) positions() []float64 {
	if l.x32 == nil {
		return l.x
	}
	x := make([]float64, len(l.x32))
	for i, v := range l.x32 {
		x[i] = float64(v)
	}
	return x
}

// widen makes x hold the positions (before they are changed in place).
func (l *lattice) widen() {
	if l.x32 != nil {
		l.x, l.x32 = l.positions(), nil
	}
}

// node writes the d positions of node i (an index into the grid) to dst.
func (l *lattice) node(i int, dst []float64) {
	d := l.d
	if l.x32 != nil {
		for k, v := range l.x32[i*d : i*d+d] {
			dst[k] = float64(v)
		}
		return
	}
	copy(dst[:d], l.x[i*d:i*d+d])
}

func (l *lattice) size() int {
	n := 1
	for _, g := range l.g {
		n *= g
	}
	return n
}

func (l *lattice) setStrides() {
	if l.d == 4 {
		for j := range 4 {
			l.inv4[j] = 1 / l.step[j]
		}
	}
	l.strides = make([]int, l.d)
	s := 1
	l.reduce = l.d <= maxReduceDim
	for j := l.d - 1; j >= 0; j-- {
		l.strides[j] = s
		s *= l.g[j]
		if l.g[j] < 2 {
			l.reduce = false
		}
	}
	l.setNewton4()
}

// setNewton4 sets nk from the axes and strides (d = 4).
func (l *lattice) setNewton4() {
	l.nk = newton4Consts{}
	if l.d != 4 {
		return
	}
	k := &l.nk
	k.ok = l.reduce && 4*l.size() <= math.MaxInt32
	for j := range 4 {
		w := l.width(j) // clampU4's
		k.lo[j], k.step[j] = l.lo[j], l.step[j]
		k.clampLo[j], k.clampHi[j] = l.lo[j]-w, l.lo[j]+2*w
		k.top[j], k.st[j] = int32(l.g[j]-2), int32(l.strides[j])
		k.one[j] = 1
	}
}

// width is the extent of axis j.
//
// Here and in the interpolation below, products are rounded
// (float64(x*y)) before they are added: the Go spec lets a compiler fuse
// x*y+z into one FMA (arm64, ppc64le, s390x, riscv64, amd64 with
// GOAMD64=v3 do), which would change decoded pixels and model bytes.
func (l *lattice) width(j int) float64 { return float64(float64(l.g[j]-1) * l.step[j]) }

// clampU limits u_j to one table width beyond each end of the lattice (the
// documented extrapolation range) and reports whether it had to.
func (l *lattice) clampU(u []float64) bool {
	if l.d == 4 && len(u) == 4 {
		return l.clampU4((*[4]float64)(u))
	}
	return l.clampAny(u)
}

// clampU4 is clampU for d = 4 on arrays: clampAxis's operations without
// the loop's bounds checks (clampU and eval were 4.5 % of a 4×4 batch
// encode's instructions, each Newton step of the fast path calling both).
func (l *lattice) clampU4(u *[4]float64) bool {
	g, lo, step := (*[4]int)(l.g), (*[4]float64)(l.lo), (*[4]float64)(l.step)
	clamped := false
	for j := range 4 {
		w := float64(float64(g[j]-1) * step[j]) // width
		a, b := lo[j]-w, lo[j]+2*w
		if v := u[j]; v < a {
			u[j], clamped = a, true
		} else if v > b {
			u[j], clamped = b, true
		}
	}
	return clamped
}

// clampAny is clampU for any d.
func (l *lattice) clampAny(u []float64) bool {
	clamped := false
	for j, v := range u {
		var c bool
		u[j], c = l.clampAxis(j, v)
		clamped = clamped || c
	}
	return clamped
}

// clampAxis is clampU for coordinate j alone: each is clamped on its own.
func (l *lattice) clampAxis(j int, v float64) (float64, bool) {
	w := l.width(j)
	lo, hi := l.lo[j]-w, l.lo[j]+2*w
	if v < lo {
		return lo, true
	} else if v > hi {
		return hi, true
	}
	return v, false
}

// cell returns the lower node index of the cell holding t along axis j and
// the fractional position in it (outside [0, 1] beyond the ends, which
// extrapolates the end cells linearly).
func (l *lattice) cell(j int, t float64) (int, float64) {
	p := (t - l.lo[j]) / l.step[j]
	i := int(math.Floor(p))
	if i < 0 {
		i = 0
	} else if i > l.g[j]-2 {
		i = l.g[j] - 2
	}
	return i, p - float64(i)
}

// eval writes X(u) to dst and, if jac is not nil, the Jacobian dX/du
// (d×d row-major, jac[k*d+j] = dX_k/du_j). Beyond the lattice the map
// continues linearly from the nearest boundary point with the Jacobian
// there (first order): extrapolating the multilinear end cell itself would
// grow the cross terms with the product of the excesses along several axes.
func (l *lattice) eval(u, dst, jac []float64, idx []int, frac []float64) {
	if l.d == 4 && l.reduce {
		l.eval4(u, dst, jac, idx, frac)
		return
	}
	l.evalAny(u, dst, jac, idx, frac)
}

// eval4 is eval for d = 4 where every axis has two nodes or more
// (reduce): cell's operations on arrays, the axes unrolled, the same
// cells and fractions (TestEval4).
func (l *lattice) eval4(u, dst, jac []float64, idx []int, frac []float64) {
	lo, step, g, st := (*[4]float64)(l.lo), (*[4]float64)(l.step), (*[4]int)(l.g), (*[4]int)(l.strides)
	uu, ix, fr := (*[4]float64)(u), (*[4]int)(idx), (*[4]float64)(frac)
	base := 0
	outside := false
	for j := range 4 {
		p := (uu[j] - lo[j]) / step[j]
		i := floorCell(p, g[j]-2)
		f := p - float64(i)
		ix[j], fr[j] = i, f
		outside = outside || f < 0 || f > 1
		base += i * st[j]
	}
	if outside {
		l.evalOutside(base, dst, jac, frac)
		return
	}
	l.evalCell4(base, dst, jac, frac)
}

// newtonCell4Go is where newtonStep4 evaluates the lattice, from the
// unfolded coordinates u and the sample x (input units) of a model of
// mean and scale: it writes z = (x − mean)/scale, un = u/scale and the
// fractions c of un's cell, returns the cell's base and flags 1 where
// clampU4 would clamp un (nothing else then set), 2 where a fraction
// lies outside [0, 1] (eval4's evalOutside); eval4's operations in its
// order, clampU4's bounds from nk (the same values).
func (l *lattice) newtonCell4Go(u, x, mean *[4]float64, scale float64, z, un, c *[4]float64) (base, flags int) {
	k := &l.nk
	for j := range 4 {
		z[j] = (x[j] - mean[j]) / scale
		un[j] = u[j] / scale
	}
	for j := range 4 {
		if v := un[j]; v < k.clampLo[j] || v > k.clampHi[j] {
			return 0, 1
		}
	}
	g, st := (*[4]int)(l.g), (*[4]int)(l.strides)
	for j := range 4 {
		p := (un[j] - k.lo[j]) / k.step[j]
		i := floorCell(p, g[j]-2)
		f := p - float64(i)
		c[j] = f
		if f < 0 || f > 1 {
			flags = 2
		}
		base += i * st[j]
	}
	return base, flags
}

// evalCellJac4 is eval4's evaluation with the Jacobian on arrays, given
// the cell's base and fractions (c[:4]; c[4:] is scratch) and whether a
// fraction lies outside [0, 1].
func (l *lattice) evalCellJac4(base int, outside bool, dst *[4]float64, jac *[16]float64, c *[8]float64) {
	if outside {
		l.evalOutside(base, dst[:], jac[:], c[:4])
		return
	}
	if hasAVX {
		st := (*[4]int)(l.strides)
		s0, s1, s2, s3 := 4*st[0], 4*st[1], 4*st[2], 4*st[3]
		c[4], c[5], c[6], c[7] = l.inv4[0], l.inv4[1], l.inv4[2], l.inv4[3]
		// The kernel of the positions' type, the farthest corner's last
		// component checked as gradCell4Go's slices check it (written
		// out: a method choosing the kernel is not inlined, and its call
		// was ~0.2 % of a colour encode's instructions).
		far := 4*base + s0 + s1 + s2 + s3 + 3
		if l.x32 != nil {
			_ = l.x32[far]
			gradCell4AVX32(&l.x32[4*base], s0, s1, s2, s3, c, dst, jac)
			return
		}
		_ = l.x[far]
		gradCell4AVX(&l.x[4*base], s0, s1, s2, s3, c, dst, jac)
		return
	}
	l.gradCell4Go(base, dst[:], jac[:], c[:4])
}

// floorCell is max(0, min(top, int(math.Floor(p)))) for every p (NaN,
// infinities and -0 too, as each architecture converts them): from 0 on
// the floor is the truncation, and below 0 (or NaN) the truncation is at
// most 0 as the floor is, so the clamp gives 0 either way. It leaves
// math.Floor out of eval4's and metricForward4's loops: its SSE4.1 test
// and fallback call (GOAMD64=v1) made the compiler keep their state on
// the stack.
func floorCell(p float64, top int) int {
	return max(0, min(top, int(p)))
}

// evalAny is eval for any d.
func (l *lattice) evalAny(u, dst, jac []float64, idx []int, frac []float64) {
	d := l.d
	base := 0
	outside := false
	for j := 0; j < d; j++ {
		if l.g[j] == 1 {
			idx[j], frac[j] = 0, 0
			continue
		}
		idx[j], frac[j] = l.cell(j, u[j])
		if frac[j] < 0 || frac[j] > 1 {
			outside = true
		}
		base += idx[j] * l.strides[j]
	}
	if outside {
		l.evalOutside(base, dst, jac, frac)
		return
	}
	l.evalCell(base, dst, jac, frac)
}

// evalOutside is eval beyond the lattice, given the cell's base and the
// fractions (some outside [0, 1], clamped here). It is a function of its
// own so that eval, on the lattice, does not zero its arrays (2.5 KB per
// call, a sixth of an inversion's time).
func (l *lattice) evalOutside(base int, dst, jac, frac []float64) {
	d := l.d
	if d <= 4 {
		// Scratch of 4 axes: the arrays below are zeroed at every call
		// (2.5 KB), which was most of this function's time in a colour
		// encode's exact path and near the lattice's ends.
		var excess [4]float64
		var buf [16]float64
		l.evalOutsideIn(base, dst, jac, frac, excess[:], buf[:])
		return
	}
	var excess [64]float64
	if jac != nil {
		l.evalOutsideIn(base, dst, jac, frac, excess[:], nil)
		return
	}
	var buf [256]float64
	l.evalOutsideIn(base, dst, jac, frac, excess[:], buf[:])
}

// evalOutsideIn is evalOutside with scratch excess (d zeros) and, where
// jac is nil, buf (d² values).
func (l *lattice) evalOutsideIn(base int, dst, jac, frac, excess, buf []float64) {
	d := l.d
	for j := 0; j < d; j++ {
		if l.g[j] == 1 {
			continue
		}
		if frac[j] < 0 {
			excess[j], frac[j] = frac[j]*l.step[j], 0
		} else if frac[j] > 1 {
			excess[j], frac[j] = (frac[j]-1)*l.step[j], 1
		}
	}
	if jac == nil {
		// The extrapolation needs the Jacobian at the boundary point.
		l.evalCell(base, dst, buf[:d*d], frac)
		extrapolate(dst, buf[:d*d], excess[:d], d)
		return
	}
	l.evalCell(base, dst, jac, frac)
	extrapolate(dst, jac, excess[:d], d)
}

// extrapolate adds J·excess to dst.
func extrapolate(dst, jac, excess []float64, d int) {
	for k := 0; k < d; k++ {
		for j := 0; j < d; j++ {
			dst[k] += float64(jac[k*d+j] * excess[j])
		}
	}
}

// evalCell evaluates the multilinear cell with lower corner base at the
// fractions frac (within [0, 1] per axis).
func (l *lattice) evalCell(base int, dst, jac, frac []float64) {
	if l.d == 4 && l.reduce {
		l.evalCell4(base, dst, jac, frac)
		return
	}
	if l.reduce {
		l.evalCellReduce(base, dst, jac, frac)
		return
	}
	l.evalCellCorners(base, dst, jac, frac)
}

// evalCellCorners is evalCell summing the corners with their weights (any
// dimension, single-node axes allowed).
func (l *lattice) evalCellCorners(base int, dst, jac, frac []float64) {
	if l.x32 != nil {
		cellCorners(l, l.x32, base, dst, jac, frac)
		return
	}
	cellCorners(l, l.x, base, dst, jac, frac)
}

// cellCorners is evalCellCorners on the positions x (l.x or l.x32).
func cellCorners[T position](l *lattice, x []T, base int, dst, jac, frac []float64) {
	d := l.d
	for k := range dst[:d] {
		dst[k] = 0
	}
	if jac != nil {
		for k := range jac[:d*d] {
			jac[k] = 0
		}
	}
	ncorner := 1 << d
	for c := 0; c < ncorner; c++ {
		w := 1.0
		off := base
		skip := false
		for j := 0; j < d; j++ {
			if c>>j&1 == 1 {
				if l.g[j] == 1 {
					skip = true
					break
				}
				w *= frac[j]
				off += l.strides[j]
			} else {
				w *= 1 - frac[j]
			}
		}
		if skip {
			continue
		}
		p := x[off*d : off*d+d]
		for k := 0; k < d; k++ {
			dst[k] += float64(w * float64(p[k]))
		}
		if jac == nil {
			continue
		}
		for j := 0; j < d; j++ {
			if l.g[j] == 1 {
				continue
			}
			// d w / d u_j: replace the factor of axis j by ±1/step.
			dw := 1 / l.step[j]
			if c>>j&1 == 0 {
				dw = -dw
			}
			for a := 0; a < d; a++ {
				if a == j {
					continue
				}
				if c>>a&1 == 1 {
					dw *= frac[a]
				} else {
					dw *= 1 - frac[a]
				}
			}
			for k := 0; k < d; k++ {
				jac[k*d+j] += float64(dw * float64(p[k]))
			}
		}
	}
}

// fiber writes the g[j] node positions of the curve along axis j that
// starts at the point of coordinates u[0..j-1] (continuous, interpolated)
// with all later coordinates zero, into dst (g[j]×d).
func (l *lattice) fiber(j int, u []float64, dst []float64, idx []int, frac []float64) {
	if l.x32 != nil {
		fiberOf(l, l.x32, j, u, dst, idx, frac)
		return
	}
	fiberOf(l, l.x, j, u, dst, idx, frac)
}

// fiberOf is fiber on the positions x (l.x or l.x32).
func fiberOf[T position](l *lattice, x []T, j int, u []float64, dst []float64, idx []int, frac []float64) {
	d := l.d
	base := 0
	for a := 0; a < j; a++ {
		idx[a], frac[a] = l.cell(a, u[a])
		base += idx[a] * l.strides[a]
	}
	for a := j + 1; a < d; a++ {
		base += l.zero[a] * l.strides[a]
	}
	for i := range dst[:l.g[j]*d] {
		dst[i] = 0
	}
	ncorner := 1 << j
	for c := 0; c < ncorner; c++ {
		w := 1.0
		off := base
		for a := 0; a < j; a++ {
			if c>>a&1 == 1 {
				w *= frac[a]
				off += l.strides[a]
			} else {
				w *= 1 - frac[a]
			}
		}
		if w == 0 {
			continue
		}
		for i := 0; i < l.g[j]; i++ {
			p := x[(off+i*l.strides[j])*d:]
			q := dst[i*d : i*d+d]
			for k := 0; k < d; k++ {
				q[k] += float64(w * float64(p[k]))
			}
		}
	}
}

// axisCoords returns the node coordinates of axis j.
func (l *lattice) axisCoords(j int) []float64 {
	s := make([]float64, l.g[j])
	for i := range s {
		s[i] = l.lo[j] + float64(float64(i)*l.step[j])
	}
	return s
}

// maxReduceDim is the largest dimension evaluated by evalCellReduce (its
// scratch lives on the stack).
const maxReduceDim = 4

// evalCellReduce is evalCell for d <= maxReduceDim without single-node
// axes (lattice.reduce). It interpolates the 2^d corners axis by axis
// (each stage halves them), and the Jacobian column of axis j is the
// difference across the pairs of stage j, reduced by the later stages:
// about a third of the arithmetic of the per-corner weights, without
// branches. This is the innermost step of every forward transform.
func (l *lattice) evalCellReduce(base int, dst, jac, frac []float64) {
	d := l.d
	var v [(1 << maxReduceDim) * maxReduceDim]float64
	for c := 0; c < 1<<d; c++ {
		off := base
		for j := 0; j < d; j++ {
			if c>>j&1 == 1 {
				off += l.strides[j]
			}
		}
		l.node(off, v[c*d:c*d+d])
	}
	// After the stages of axes 0..j-1, bit 0 of a corner index is axis j:
	// stage j pairs corners 2c and 2c+1 into c.
	var g [maxReduceDim][(1 << (maxReduceDim - 1)) * maxReduceDim]float64
	size := 1 << d
	for j := 0; j < d; j++ {
		t := frac[j]
		inv := 1 / l.step[j]
		half := size / 2
		for c := 0; c < half; c++ {
			a, b := 2*c*d, (2*c+1)*d
			for k := 0; k < d; k++ {
				va, vb := v[a+k], v[b+k]
				if jac != nil {
					for i := 0; i < j; i++ {
						ga := g[i][a+k]
						g[i][c*d+k] = ga + float64(t*(g[i][b+k]-ga))
					}
					g[j][c*d+k] = (vb - va) * inv
				}
				v[c*d+k] = va + float64(t*(vb-va))
			}
		}
		size = half
	}
	copy(dst[:d], v[:d])
	if jac != nil {
		for k := 0; k < d; k++ {
			for j := 0; j < d; j++ {
				jac[k*d+j] = g[j][k]
			}
		}
	}
}
