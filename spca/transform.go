package spca

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// work is per-goroutine memory for the transforms.
type work struct {
	z, u, x, e, un, jac, a, b []float64
	ubest                     []float64
	row                       []float64  // input row of the batch calls
	trace                     *[]float64 // residual history, when traced
	idx                       []int
	frac                      []float64
	fib                       []float64
	coords                    [][]float64
	cornerW                   []float64 // searchBlend's corner weights
	cornerOff                 []int     // and fiber offsets
	cand, candD               []float64
}

func (m *Model) newWork() *work {
	d := m.d
	// fib holds one lattice fiber (initialGuess); the metric tables'
	// finer fibers (tnodes) never pass through it, and sizing it for them
	// took codec decode processes ~0.85 MB of fresh memory.
	gmax := 0
	for _, g := range m.lat.g {
		gmax = max(gmax, g)
	}
	w := &work{
		z: make([]float64, d), u: make([]float64, d), x: make([]float64, d),
		e: make([]float64, d), un: make([]float64, d), ubest: make([]float64, d),
		row: make([]float64, d),
		jac: make([]float64, d*d), a: make([]float64, d*d), b: make([]float64, d),
		idx: make([]int, d), frac: make([]float64, d),
		fib:       make([]float64, gmax*d),
		cornerW:   make([]float64, 1<<max(0, d-1)),
		cornerOff: make([]int, 1<<max(0, d-1)),
		cand:      make([]float64, 0, maxCandidates),
		candD:     make([]float64, 0, maxCandidates),
	}
	w.coords = make([][]float64, d)
	for j := range w.coords {
		w.coords[j] = m.lat.axisCoords(j)
	}
	return w
}

// unfold solves the unfolded coordinates u of the normalised point z: the
// geodesic projections of z on the sequence of curves. It starts from the
// orthogonal projections (on the first curve, then on the secondary curve
// drawn there, ...) and corrects them with damped Newton steps on
// R^{-1}(u) = z, using the Jacobian of the lattice map. This is the
// seed's iterative correction (r(k+1) = r(k) + alpha C D gradU (x - x⊥))
// carried out in the unfolded domain, where the metric plays no part, with
// an adaptive step instead of a fixed alpha = 0.01.
func (m *Model) unfold(z, u []float64, w *work) PointStats {
	m.initialGuess(z, u, w)
	st := m.newton(z, u, w, m.opt.MaxIter)
	if st.Converged || st.Iterations >= m.opt.MaxIter {
		return st
	}
	// The correction stalled, typically on a fold where neighbouring
	// curves of the lattice cross: restart from the nearest lattice node
	// and keep the better of the two solutions.
	copy(w.ubest, u)
	m.nearestNode(z, u)
	st2 := m.newton(z, u, w, m.opt.MaxIter-st.Iterations)
	st2.Iterations += st.Iterations
	if st2.Residual < st.Residual {
		return st2
	}
	copy(u, w.ubest)
	st.Iterations = st2.Iterations
	if w.trace != nil {
		*w.trace = append(*w.trace, st.Residual) // back to the first solution
	}
	return st
}

// restartNodes bounds the lattice nodes scanned for a restart.
const restartNodes = 4096

// nearestNode sets u to the coordinates of the node closest to z on a
// coarse sub-lattice (see setRestartNodes): a restart only needs the right
// basin, Newton does the rest.
func (m *Model) nearestNode(z, u []float64) {
	r := m.restart
	r.once.Do(func() {
		r.u, r.x = m.restartNodes()
		r.treeAfter = treeAfterScans
		if m.d == 4 {
			r.cols = columns4(r.x)
			r.treeAfter = treeAfterScans4Go
			if hasScan4Kernel {
				r.treeAfter = treeAfterScans4
			}
		}
	})
	var bi int
	switch {
	case r.scans.Add(1) > r.treeAfter:
		r.treeOnce.Do(func() { r.tree = newNodeTree(r.x, m.d) })
		bi = r.tree.nearest(z)
	case r.cols != nil:
		bi = scanNodes4(r.cols, len(r.cols)/4, (*[4]float64)(z))
	default:
		bi = scanNodes(r.x, m.d, z)
	}
	copy(u, r.u[bi*m.d:(bi+1)*m.d])
}

// treeAfterScans is the number of restarts a model answers by scanning
// its restart nodes before it builds their k-d tree, which answers ~20
// times faster than a scan by dist2 (1.6 against ~30 µs for 4096 nodes of
// 4 coordinates) but takes ~1.3 ms to build, as long as ~45 such scans:
// a model that restarts often pays at most about twice what a tree from
// its first restart would have cost it, and one that restarts little
// builds none. Nodes of 4 coordinates (the codec models') are scanned by
// columns (scanNodes4): ~3 µs a scan by its kernel, ~12 by its Go loop,
// hence treeAfterScans4 and treeAfterScans4Go. A colour batch encode of
// the 12 kodim13-24 restarts 248 times in its 3 channels: it built 3
// trees for them (1.2-1.75 % of its CPU) and now builds none.
const (
	treeAfterScans    = 48
	treeAfterScans4   = 1024
	treeAfterScans4Go = 128
)

// restartNodesOnce holds the restart nodes of a model and of its copies
// (WithScale), which share its lattice, and their k-d tree once built.
type restartNodesOnce struct {
	once      sync.Once
	u, x      []float64
	cols      []float64    // x by coordinate (columns4), for 4 coordinates
	scans     atomic.Int64 // restarts so far
	treeAfter int64        // scans before the tree (treeAfterScans)
	treeOnce  sync.Once
	tree      *nodeTree
}

// setRestartNodes prepares the restart nodes, built on the first restart:
// they cost a tenth of loading a 4×4 codec model, which a decoder never
// needs.
func (m *Model) setRestartNodes() { m.restart = &restartNodesOnce{} }

// restartNodes lists, once per model, the nodes nearestNode scans: at
// most restartNodes nodes, every s_j-th node along axis j, with their
// unfolded coordinates and positions. (Points off the training manifold,
// such as the corners of a colour LUT, restart often, and gathering the
// nodes on every restart was most of their cost.)
func (m *Model) restartNodes() (restartU, restartX []float64) {
	l := &m.lat
	d := m.d
	step := make([]int, d)
	for j := range step {
		step[j] = 1
	}
	count := l.size()
	for count > restartNodes {
		// Coarsen the axis with the most remaining nodes.
		big, bn := 0, 0
		for j := 0; j < d; j++ {
			if n := (l.g[j] + step[j] - 1) / step[j]; n > bn {
				big, bn = j, n
			}
		}
		step[big]++
		count = 1
		for j := 0; j < d; j++ {
			count *= (l.g[j] + step[j] - 1) / step[j]
		}
	}
	// Sized at once (count nodes): appended, they allocated ~5 times their
	// size (1 MB for the 8×8 Kodak codec model, fresh memory in a process
	// that codes one image).
	restartU, restartX = make([]float64, 0, count*d), make([]float64, 0, count*d)
	idx := make([]int, d)
	for {
		off := 0
		for j := 0; j < d; j++ {
			off += idx[j] * l.strides[j]
			restartU = append(restartU, l.lo[j]+float64(float64(idx[j])*l.step[j]))
		}
		n := len(restartX)
		restartX = restartX[:n+d]
		l.node(off, restartX[n:])
		j := d - 1
		for ; j >= 0; j-- {
			idx[j] += step[j]
			if idx[j] < l.g[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			break
		}
	}
	return restartU, restartX
}

// newton runs at most maxIter damped Newton corrections from u.
func (m *Model) newton(z, u []float64, w *work, maxIter int) PointStats {
	d := m.d
	l := &m.lat
	var st PointStats
	st.Clamped = l.clampU(u)
	l.eval(u, w.x, w.jac, w.idx, w.frac)
	res := residual(z, w.x, w.e)
	if w.trace != nil {
		*w.trace = append(*w.trace, res)
	}
	for st.Iterations < maxIter && res > m.tolN {
		// Newton step J δ = e, damped towards the gradient step if J is
		// singular (a fold of the lattice).
		copy(w.a, w.jac)
		copy(w.b, w.e)
		if !solveLinear(w.a, w.b, d) {
			levenbergStep(w.jac, w.e, w.b, w.a, d)
		}
		improved := false
		alpha := 1.0
		for try := 0; try < 12; try++ {
			for j := 0; j < d; j++ {
				w.un[j] = u[j] + float64(alpha*w.b[j])
			}
			cl := l.clampU(w.un)
			l.eval(w.un, w.x, nil, w.idx, w.frac)
			if r := residualNorm(z, w.x); r < res {
				copy(u, w.un)
				st.Clamped = cl
				improved = true
				break
			}
			alpha *= 0.5
		}
		st.Iterations++
		if !improved {
			break
		}
		if st.Iterations >= maxIter {
			// Last step: the residual is all that is needed.
			l.eval(u, w.x, nil, w.idx, w.frac)
			res = residual(z, w.x, w.e)
			if w.trace != nil {
				*w.trace = append(*w.trace, res)
			}
			break
		}
		l.eval(u, w.x, w.jac, w.idx, w.frac)
		res = residual(z, w.x, w.e)
		if w.trace != nil {
			*w.trace = append(*w.trace, res)
		}
	}
	st.Residual = res
	st.Converged = res <= m.tolN
	return st
}

// maxCandidates bounds the number of starting points on the first curve
// tried by initialGuess.
const maxCandidates = 4

// initialGuess sets u to the sequence of orthogonal projections of z: on
// the first curve, then on the secondary curve drawn there, and so on.
// Where the first curve passes near z more than once (the layers of a
// rolled sheet, the arms of a spiral), the nearest passage need not be the
// right one: a point far from the first curve along the second direction
// can be nearer, in the input space, to the first curve on the next layer.
// Every local minimum of the distance along the first curve is therefore a
// candidate, and the candidate whose projections leave the smallest
// distance before the last coordinate is taken: the representation that
// needs the least of the last (lowest-entropy) coordinate. In 2-D this is
// the nearest point of the first curve; for a sheet in 3-D it is the
// nearest point of the sheet of secondary curves.
func (m *Model) initialGuess(z, u []float64, w *work) {
	d := m.d
	l := &m.lat
	w.cand, w.candD = curveMinima(z, m.fiber0, m.fiber0S, d, w.cand[:0], w.candD[:0])
	best := math.Inf(1)
	for c := range w.cand {
		w.un[0] = w.cand[c]
		score := w.candD[c]
		for j := 1; j < d; j++ {
			l.fiber(j, w.un, w.fib, w.idx, w.frac)
			var dd float64
			w.un[j], dd = project(z, w.fib[:l.g[j]*d], w.coords[j], d, true)
			if j < d-1 {
				score = dd
			}
		}
		if score < best {
			best = score
			copy(u, w.un[:d])
		}
	}
}

// curveMinima finds the local minima of the distance from z to the
// polyline (pts, s) and appends the arc lengths of the best (at most
// maxCandidates, nearest first) to pos and their squared distances to
// dist, which it returns (at least one entry).
func curveMinima(z, pts, s []float64, d int, pos, dist []float64) ([]float64, []float64) {
	n := len(s)
	if n == 1 {
		return append(pos, s[0]), append(dist, dist2(z, pts[:d]))
	}
	prev, cur := math.Inf(1), dist2(z, pts[:d])
	for i := 0; i < n; i++ {
		next := math.Inf(1)
		if i+1 < n {
			next = dist2(z, pts[(i+1)*d:(i+2)*d])
		}
		if cur < prev && cur <= next {
			// Refine on the two segments around vertex i.
			lo, hi := max(i-1, 0), min(i+1, n-1)
			if hi == lo {
				hi = lo + 1
			}
			a, dd := project(z, pts[lo*d:(hi+1)*d], s[lo:hi+1], d, false)
			// Insert keeping the list sorted by distance.
			k := len(pos)
			if k < maxCandidates || dd < dist[k-1] {
				if k < maxCandidates {
					pos = append(pos, 0)
					dist = append(dist, 0)
				} else {
					k--
				}
				for k > 0 && dist[k-1] > dd {
					pos[k], dist[k] = pos[k-1], dist[k-1]
					k--
				}
				pos[k], dist[k] = a, dd
			}
		}
		prev, cur = cur, next
	}
	return pos, dist
}

// levenbergStep solves (JᵀJ + λ I) δ = Jᵀ e into delta, with λ a small
// multiple of trace(JᵀJ); a and tmp are d×d scratch.
func levenbergStep(jac, e, delta, a []float64, d int) {
	tr := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				s += float64(jac[k*d+i] * jac[k*d+j]) // rounded products: no FMA (same steps on every GOARCH)
			}
			a[i*d+j] = s
		}
		tr += a[i*d+i]
	}
	lambda := 1e-3*tr/float64(d) + 1e-12
	for i := 0; i < d; i++ {
		a[i*d+i] += lambda
		s := 0.0
		for k := 0; k < d; k++ {
			s += float64(jac[k*d+i] * e[k])
		}
		delta[i] = s
	}
	if !solveLinear(a, delta, d) {
		for i := range delta[:d] {
			delta[i] = 0
		}
	}
}

func residual(z, x, e []float64) float64 {
	s := 0.0
	for k := range z {
		e[k] = z[k] - x[k]
		s += float64(e[k] * e[k])
	}
	return math.Sqrt(s)
}

func residualNorm(z, x []float64) float64 { return math.Sqrt(dist2(z, x)) }

// tableWeights sets w.idx/w.frac for the conditioning axes < j of the
// metric tables, with fractions clamped to the lattice (blends of monotone
// tables with non-negative weights stay monotone).
func (m *Model) tableWeights(j int, u []float64, w *work) {
	l := &m.lat
	for a := 0; a < j; a++ {
		i, f := l.cell(a, u[a])
		w.idx[a], w.frac[a] = i, max(0, min(1, f))
	}
}

// cornerFibers returns the weights and offsets of the 2^j fibers of the
// metric table of axis j around the conditioning point u_<j (from
// tableWeights), skipping those of zero weight: the blend of the table at
// that point is the weighted sum of these fibers, in this order.
func (m *Model) cornerFibers(j int, w *work) ([]float64, []int) {
	l := &m.lat
	g := m.tnodes[j]
	n := 0
	for c := 0; c < 1<<j; c++ {
		wt := 1.0
		off := 0
		stride := g
		for a := j - 1; a >= 0; a-- {
			i := w.idx[a]
			if c>>a&1 == 1 {
				wt *= w.frac[a]
				i++
			} else {
				wt *= 1 - w.frac[a]
			}
			off += i * stride
			stride *= l.g[a]
		}
		if wt == 0 {
			continue
		}
		w.cornerW[n], w.cornerOff[n] = wt, off
		n++
	}
	return w.cornerW[:n], w.cornerOff[:n]
}

// tableCell locates u_j among the table nodes of axis j (fraction outside
// [0, 1] beyond the ends: linear extrapolation).
func (m *Model) tableCell(j int, t float64) (int, float64) {
	p := (t - m.lat.lo[j]) / m.tstep[j]
	i := int(math.Floor(p))
	i = max(0, min(m.tnodes[j]-2, i))
	return i, p - float64(i)
}

// metricForward maps unfolded coordinates to responses. Only the two
// table nodes around u_j are read from each corner fiber.
func (m *Model) metricForward(u, r []float64, w *work) {
	if m.d == 4 && m.sameFibers[1] && m.sameFibers[2] && m.sameFibers[3] {
		m.metricForward4((*[4]float64)(u), (*[4]float64)(r))
		return
	}
	m.metricForwardAny(u, r, w)
}

// metricForwardAny is metricForward for any d and fibers.
func (m *Model) metricForwardAny(u, r []float64, w *work) {
	l := &m.lat
	for j := 0; j < m.d; j++ {
		i, f := m.tableCell(j, u[j])
		t := m.tables[j]
		if m.sameFibers[j] {
			r[j] = m.c[j] * (t[i] + float64(f*(t[i+1]-t[i])))
			continue
		}
		m.tableWeights(j, u, w)
		g := m.tnodes[j]
		acc := 0.0
		// The corners of cornerFibers, inline: this runs for every
		// patch of an encode, and gathering them first measured 2-3 %
		// slower (BenchmarkTransform, d = 4).
		for c := 0; c < 1<<j; c++ {
			wt := 1.0
			off := 0
			stride := g
			for a := j - 1; a >= 0; a-- {
				k := w.idx[a]
				if c>>a&1 == 1 {
					wt *= w.frac[a]
					k++
				} else {
					wt *= 1 - w.frac[a]
				}
				off += k * stride
				stride *= l.g[a]
			}
			if wt == 0 {
				continue
			}
			acc += float64(wt * (t[off+i] + float64(f*(t[off+i+1]-t[off+i]))))
		}
		r[j] = m.c[j] * acc
	}
}

// metricForward4 is metricForward for d = 4 with every axis's fibers
// the same (gamma 0, the codec's 4×4 models): tableCell and the
// interpolation on arrays, the axes' bounds checked once (2.5 % of a 4×4
// batch encode's instructions went to metricForward, ~80 an axis).
func (m *Model) metricForward4(u, r *[4]float64) {
	lo, ts, tn, c := (*[4]float64)(m.lat.lo), (*[4]float64)(m.tstep), (*[4]int)(m.tnodes), (*[4]float64)(m.c)
	tables := (*[4][]float64)(m.tables)
	for j := range 4 {
		p := (u[j] - lo[j]) / ts[j]
		i := floorCell(p, tn[j]-2)
		f := p - float64(i)
		t := tables[j][i : i+2 : i+2]
		r[j] = c[j] * (t[0] + float64(f*(t[1]-t[0])))
	}
}

// metricInverse maps responses to unfolded coordinates, in sequence: the
// table of dimension j depends on the coordinates before it. It reports
// whether the coordinates lay beyond the lattice's extrapolation range and
// were clamped to it.
func (m *Model) metricInverse(r, u []float64, w *work) bool {
	for j := 0; j < m.d; j++ {
		if !m.sameFibers[j] {
			m.tableWeights(j, u, w)
		}
		u[j] = m.axisInverse(j, r[j], w)
	}
	return m.lat.clampU(u)
}

// axisInverse is the unfolded coordinate (normalised, before clamping)
// of response r on axis j, the table blended at the conditioning point
// set by tableWeights unless the axis's fibers are all the same.
func (m *Model) axisInverse(j int, r float64, w *work) float64 {
	v := r / m.c[j]
	i, t0, t1 := m.searchBlend(j, v, w)
	f := (v - t0) / (t1 - t0)
	if f != f {
		// 0/0: v on a flat step (equal values, which files may hold):
		// its start. (±Inf beyond a flat end is clamped by the caller.)
		f = 0
	}
	return m.lat.lo[j] + float64((float64(i)+f)*m.tstep[j]) // rounded product: no FMA
}

// LevelInverse is the inverse transform of a model with a separable
// metric (gamma 0: each response depends on its own unfolded coordinate
// only) restricted to responses whose coordinates take given levels, as
// the cells of a quantiser do: the metric is inverted once per level, so
// a response costs one lattice evaluation.
type LevelInverse struct {
	m *Model
	u [][]float64 // per axis, the clamped unfolded coordinate of each level
	// Per axis and level, as eval finds them from u: the lattice cell's
	// offset (lower node times the axis's stride) and the fraction in it,
	// and whether that fraction lies in the cell (else eval extrapolates).
	// One record per level: Invert reads one, where three tables cost it
	// three lookups per axis (a third of its time, 4x4 encoder).
	cells [][]levelCell
	// k4 is cells again for Invert4's kernel where the model has 4 axes
	// and a reduced lattice (else it is zero: no levels, on which the
	// kernel fails).
	k4 level4
}

// level4 holds what invertLevels4AVX32 reads of a LevelInverse of 4
// axes (go_asm.h's offsets): every axis's levels in flat, axis j's n[j]
// from start[j], each as its lattice cell's first node in bytes of
// float32 positions (-1 for a level outside its cell: levelCell.in
// false) and its fraction; the lattice's strides in those bytes, the
// bytes from a cell's first node to the end of its last (span), and
// the model's scale and mean (denorm's).
type level4 struct {
	flat     []level4Cell
	start, n [4]int
	st       [4]int
	span     int
	scale    float64
	mean     [4]float64
}

// level4Cell is a levelCell as level4 holds it.
type level4Cell struct {
	off  int
	frac float64
}

// levelCell is where a level lies in the lattice (see LevelInverse).
type levelCell struct {
	off  int
	frac float64
	in   bool
}

// LevelInverse returns the inverse transform for responses whose
// coordinate j is one of levels[j], or false if the model's metric is not
// separable.
func (m *Model) LevelInverse(levels [][]float64) (*LevelInverse, bool) {
	if len(levels) != m.d {
		panic("spca: LevelInverse needs levels for every axis")
	}
	for j := 1; j < m.d; j++ {
		if !m.sameFibers[j] {
			return nil, false
		}
	}
	w := m.newWork()
	v := &LevelInverse{m: m, u: make([][]float64, m.d), cells: make([][]levelCell, m.d)}
	l := m.lat
	for j, lv := range levels {
		v.u[j] = make([]float64, len(lv))
		v.cells[j] = make([]levelCell, len(lv))
		for b, r := range lv {
			v.u[j][b], _ = l.clampAxis(j, m.axisInverse(j, r, w))
			if l.g[j] == 1 {
				v.cells[j][b].in = true // eval's idx and frac 0
				continue
			}
			i, f := l.cell(j, v.u[j][b])
			v.cells[j][b] = levelCell{off: i * l.strides[j], frac: f, in: !(f < 0 || f > 1)}
		}
	}
	if m.d == 4 && l.reduce {
		v.setLevel4()
	}
	return v, true
}

// Invert writes to dst the inverse transform of the response whose
// coordinate j is level b[j] of axis j: exactly Inverse of those levels.
// s may be nil.
func (v *LevelInverse) Invert(dst []float64, b []int, s *MetricScratch) {
	m := v.m
	if len(dst) != m.d || len(b) != m.d {
		panic("spca: Invert needs Dim values")
	}
	if m.d == 4 && m.lat.reduce && v.invert4Kernel((*[4]float64)(dst), (*[4]int)(b)) {
		return
	}
	v.invertPortable(dst, b, s)
}

// invertPortable is Invert without Invert4's kernel (tried by both
// before they come here, once).
func (v *LevelInverse) invertPortable(dst []float64, b []int, s *MetricScratch) {
	m := v.m
	if s == nil {
		s = m.NewMetricScratch()
	}
	if m.d == 4 && m.lat.reduce && v.invert4((*[4]float64)(dst), (*[4]int)(b)) {
		return
	}
	w := s.w
	// Inside the lattice (nearly always), eval's cell and fractions come
	// from the levels' tables: the same values without the divisions.
	base, inside := 0, true
	cells, frac := v.cells[:len(b)], w.frac[:len(b)]
	for j, bj := range b {
		c := &cells[j][bj]
		if !c.in {
			inside = false
			break
		}
		base += c.off
		frac[j] = c.frac
	}
	if inside {
		m.lat.evalCell(base, w.x, nil, w.frac)
		m.denorm(w.x, dst)
		return
	}
	v.invertEval(dst, b, w)
}

// invert4 is Invert's path inside the lattice for 4 axes (evalCell4's
// case): the same cell, fractions and sums (valueCell4's kernel, then
// denorm's products) without the scratch, the slices and the calls
// through evalCell and valueCell4, which cost more than the
// interpolation itself (~180 of ~280 instructions a call; the 4×4
// encoder inverts ~0.7 M cells in 12 images). Where Invert4's kernel
// applies (float32 positions and AVX: the models read from files) it
// did all of that before this is called (invert4Kernel). It reports
// false, leaving dst unspecified, for a level outside the lattice.
func (v *LevelInverse) invert4(dst *[4]float64, b *[4]int) bool {
	cells := (*[4][]levelCell)(v.cells)
	c0, c1, c2, c3 := &cells[0][b[0]], &cells[1][b[1]], &cells[2][b[2]], &cells[3][b[3]]
	if !(c0.in && c1.in && c2.in && c3.in) {
		return false
	}
	m := v.m
	l := &m.lat // not a copy of the struct (160 bytes a call)
	base := c0.off + c1.off + c2.off + c3.off
	frac := [4]float64{c0.frac, c1.frac, c2.frac, c3.frac}
	var x [4]float64
	if hasAVX {
		// valueCell4's choice of kernel, without its slices.
		st := (*[4]int)(l.strides)
		s0, s1, s2, s3 := 4*st[0], 4*st[1], 4*st[2], 4*st[3]
		far := 4*base + s0 + s1 + s2 + s3 + 3 // the farthest corner's last component
		if l.x32 != nil {
			_ = l.x32[far]
			valueCell4AVX32(&l.x32[4*base], s0, s1, s2, s3, &frac, &x)
		} else {
			_ = l.x[far]
			valueCell4AVX(&l.x[4*base], s0, s1, s2, s3, &frac, &x)
		}
	} else {
		l.valueCell4Go(base, x[:], frac[:])
	}
	mean, scale := (*[4]float64)(m.mean), m.scale
	// As denorm: each product rounded (no FMA).
	dst[0] = float64(x[0]*scale) + mean[0]
	dst[1] = float64(x[1]*scale) + mean[1]
	dst[2] = float64(x[2]*scale) + mean[2]
	dst[3] = float64(x[3]*scale) + mean[3]
	return true
}

// setLevel4 sets v.k4 from v.cells (4 axes).
func (v *LevelInverse) setLevel4() {
	k := &v.k4
	l := &v.m.lat
	const node = 16 // bytes of a node's 4 float32 positions
	for j, cs := range v.cells {
		k.start[j], k.n[j] = len(k.flat), len(cs)
		k.st[j] = node * l.strides[j]
		k.span += node * l.strides[j]
		for _, c := range cs {
			off := -1
			if c.in {
				off = node * c.off
			}
			k.flat = append(k.flat, level4Cell{off: off, frac: c.frac})
		}
	}
	k.span += node
	k.scale = v.m.scale
	copy(k.mean[:], v.m.mean)
}

// Invert4 is Invert for a model of 4 dimensions (it panics for
// others), on arrays: where the levels lie inside the lattice (invert4's
// case) and its positions are float32, by one kernel from the levels'
// records to the denormalised point (invertLevels4AVX32: the lookups,
// valueCell4AVX32's operations and denorm's), without invert4's and
// Invert's Go around it (the 8×8 grey encoder's refinement inverts ~2
// cells a patch).
func (v *LevelInverse) Invert4(dst *[4]float64, b *[4]int, s *MetricScratch) {
	if v.m.d != 4 {
		panic("spca: Invert4 needs a model of 4 dimensions")
	}
	if v.invert4Kernel(dst, b) {
		return
	}
	v.invertPortable(dst[:], b[:], s)
}

// invert4Kernel is Invert4's kernel (invertLevels4AVX32) where it applies
// (AVX, float32 positions, v.k4 set): it reports whether it wrote the
// point of the levels b, inside the lattice, into dst. The kernel itself
// fails without float32 positions (x32 nil: none for the corners) or
// v.k4 (no levels: every level out of range), which keeps this call
// within the inliner's budget.
func (v *LevelInverse) invert4Kernel(dst *[4]float64, b *[4]int) bool {
	x := v.m.lat.x32
	return hasAVX && invertLevels4AVX32(unsafe.SliceData(x), len(x), &v.k4, b, dst)
}

// invertEval is Invert through eval from the levels' coordinates.
func (v *LevelInverse) invertEval(dst []float64, b []int, w *work) {
	for j, bj := range b {
		w.u[j] = v.u[j][bj]
	}
	v.m.lat.eval(w.u, w.x, nil, w.idx, w.frac)
	v.m.denorm(w.x, dst)
}

// searchBlend is searchSegment on the table of axis j blended at the
// conditioning point (weights from tableWeights), returning the segment
// and the blended values at its ends. It blends only the nodes the binary
// search visits, about log2(g) of the g of a fiber, instead of the whole
// table (as blendTable in the tests does): the sums are the same, term by
// term in the same order, so the results are bit-identical, and inverting
// a point costs about a tenth (it was nine tenths of decoding a file whose
// codebook is too large to precompute).
func (m *Model) searchBlend(j int, v float64, w *work) (int, float64, float64) {
	t := m.tables[j]
	g := m.tnodes[j]
	if j == 0 || m.sameFibers[j] {
		i := searchSegment(t[:g], v)
		return i, t[i], t[i+1]
	}
	cw, co := m.cornerFibers(j, w)
	at := func(i int) float64 {
		s := 0.0
		for c, wt := range cw {
			s += float64(wt * t[co[c]+i])
		}
		return s
	}
	lo, hi := 0, g-2
	if b0 := at(0); v <= b0 {
		return 0, b0, at(1)
	}
	if top := at(hi + 1); v >= top {
		return hi, at(hi), top
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if at(mid) <= v {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, at(lo), at(lo + 1)
}

func (m *Model) checkVec(x []float64, what string) error {
	if len(x) != m.d {
		return &DataError{fmt.Sprintf("%s has %d values, the model expects %d", what, len(x), m.d)}
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &DataError{fmt.Sprintf("%s value %d is %v", what, j+1, v)}
		}
	}
	return nil
}

// Transform computes r = R(x) for one sample, writing r to dst, which
// must have length Dim (Transform panics otherwise: a programmer error;
// a sample of the wrong length or not finite is a *DataError). Points
// outside the lattice are clamped to one lattice width beyond it
// (PointStats.Clamped); their responses extrapolate the metric linearly.
func (m *Model) Transform(dst, x []float64) (PointStats, error) {
	if err := m.checkVec(x, "sample"); err != nil {
		return PointStats{}, err
	}
	if len(dst) != m.d {
		panic("spca: Transform destination has wrong length")
	}
	return m.transform(dst, x, m.newWork()), nil
}

func (m *Model) transform(dst, x []float64, w *work) PointStats {
	for k := range x {
		w.z[k] = (x[k] - m.mean[k]) / m.scale
	}
	st := m.unfold(w.z, w.u, w)
	st.Residual *= m.scale
	m.metricForward(w.u, dst, w)
	return st
}

// TransformTrace is Transform that also returns the residual
// |x - R^{-1}(r)| (input units) after the orthogonal projections and after
// every correction step: the convergence curve of the geodesic projection
// (seed, Fig. "convergence"). A restart from another start point begins a
// new run of values in the same slice.
func (m *Model) TransformTrace(dst, x []float64) (PointStats, []float64, error) {
	if err := m.checkVec(x, "sample"); err != nil {
		return PointStats{}, nil, err
	}
	if len(dst) != m.d {
		panic("spca: TransformTrace destination has wrong length")
	}
	w := m.newWork()
	var tr []float64
	w.trace = &tr
	st := m.transform(dst, x, w)
	for i := range tr {
		tr[i] *= m.scale
	}
	return st, tr, nil
}

// Unfold computes the unfolded coordinates u of one sample (input units):
// the arc lengths along the sequence of curves that reach x, before the
// metric is applied. Transform(x) = Metric(Unfold(x)). It lets a caller
// tabulate the smooth geometric part and apply the exact, density-shaped
// metric afterwards.
func (m *Model) Unfold(dst, x []float64) (PointStats, error) {
	if err := m.checkVec(x, "sample"); err != nil {
		return PointStats{}, err
	}
	if len(dst) != m.d {
		panic("spca: Unfold destination has wrong length")
	}
	w := m.newWork()
	for k := range x {
		w.z[k] = (x[k] - m.mean[k]) / m.scale
	}
	st := m.unfold(w.z, dst, w)
	st.Residual *= m.scale
	for k := range dst {
		dst[k] *= m.scale
	}
	return st, nil
}

// Metric maps unfolded coordinates u (input units, as from Unfold) to
// responses r. It is cheap: a few table look-ups per dimension. Use
// MetricWork to reuse memory across calls.
func (m *Model) Metric(dst, u []float64) {
	m.MetricWork(dst, u, nil)
}

// MetricScratch is reusable memory for Metric calls from one goroutine.
type MetricScratch struct{ w *work }

// NewMetricScratch returns memory for MetricWork.
func (m *Model) NewMetricScratch() *MetricScratch { return &MetricScratch{m.newWork()} }

// MetricWork is Metric with caller-provided scratch memory (nil allocates).
func (m *Model) MetricWork(dst, u []float64, s *MetricScratch) {
	if len(dst) != m.d || len(u) != m.d {
		panic("spca: Metric needs Dim values")
	}
	if s == nil {
		s = m.NewMetricScratch()
	}
	w := s.w
	for k := range u {
		w.u[k] = u[k] / m.scale
	}
	m.metricForward(w.u, dst, w)
}

// PositionWork writes the point x (input units) reached by walking the
// unfolded coordinates u (input units) along the sequence of curves: the
// geometric part of the inverse transform, Inverse(r) = Position(u(r)).
// s may be nil.
func (m *Model) PositionWork(dst, u []float64, s *MetricScratch) {
	if len(dst) != m.d || len(u) != m.d {
		panic("spca: Position needs Dim values")
	}
	if s == nil {
		s = m.NewMetricScratch()
	}
	w := s.w
	for k := range u {
		w.un[k] = u[k] / m.scale
	}
	m.lat.eval(w.un, w.x, nil, w.idx, w.frac)
	m.denorm(w.x, dst)
}

// NewtonStep takes one undamped Newton step of the geodesic projection
// of the sample x from the unfolded coordinates u (input units, updated in
// place) and returns the length of the step in input units. It costs one
// lattice evaluation, against two or three per iteration of RefineUnfold,
// which checks every step. A fast path that starts from an accurate
// estimate of u (a tabulated unfolding) can accept a short step
// unchecked: Newton's error after a step is of the order of the step
// squared. ok is false, and u unchanged, where the step cannot be trusted
// at any length: u outside the lattice or a singular Jacobian (a fold).
// For d = 4 the step's system is solved by the adjugate (solve4), without
// pivoting branches: a tenth of the codec's fast quantisation went to
// the 4×4 solve.
func (m *Model) NewtonStep(u, x []float64, s *MetricScratch) (step float64, ok bool) {
	if len(u) != m.d || len(x) != m.d {
		panic("spca: NewtonStep needs Dim values")
	}
	if s == nil {
		s = m.NewMetricScratch()
	}
	if m.d == 4 {
		return m.newtonStep4((*[4]float64)(u), (*[4]float64)(x), s.w)
	}
	return m.newtonStepAny(u, x, s.w)
}

// newtonStepAny is NewtonStep for any d.
func (m *Model) newtonStepAny(u, x []float64, w *work) (step float64, ok bool) {
	d := m.d
	for k := range x {
		w.z[k] = (x[k] - m.mean[k]) / m.scale
		w.un[k] = u[k] / m.scale
	}
	l := &m.lat
	if l.clampU(w.un) {
		return 0, false
	}
	l.eval(w.un, w.x, w.jac, w.idx, w.frac)
	residual(w.z, w.x, w.b)
	if d == 4 { // the codec's leading coefficients: see solve4
		// solve4 leaves the matrix as it is: no copy.
		if !solve4((*[16]float64)(w.jac), (*[4]float64)(w.b)) {
			return 0, false
		}
	} else {
		copy(w.a, w.jac)
		if !solveLinear(w.a, w.b, d) {
			return 0, false
		}
	}
	s2 := 0.0
	for k := range u {
		s2 += float64(w.b[k] * w.b[k])
		u[k] = (w.un[k] + w.b[k]) * m.scale
	}
	return math.Sqrt(s2) * m.scale, true
}

// newtonStep4 is NewtonStep for d = 4 on arrays: the same operations
// (the residual's norm, unused, left out), the bounds checked once; its
// loops were ~270 instructions a step, 2.3 % of a 4×4 batch encode's.
// The scratch stays on the stack, and up to the lattice's cell the step
// is newtonCell4's (by AVX, 3 divisions of 4 lanes for 12), its
// evaluation evalCellJac4's, not eval's chain of calls.
func (m *Model) newtonStep4(u, x *[4]float64, w *work) (step float64, ok bool) {
	l := &m.lat
	if !l.reduce {
		return m.newtonStepAny(u[:], x[:], w)
	}
	mean, scale := (*[4]float64)(m.mean), m.scale
	var z, un, xx [4]float64
	var c [8]float64
	var jac [16]float64
	var base, flags int
	if hasAVX && l.nk.ok {
		base, flags = newtonCell4AVX(u, x, mean, scale, &l.nk, &z, &un, (*[4]float64)(c[:4]))
	} else {
		base, flags = l.newtonCell4Go(u, x, mean, scale, &z, &un, (*[4]float64)(c[:4]))
	}
	if flags&1 != 0 { // clampU4 would clamp un
		return 0, false
	}
	l.evalCellJac4(base, flags&2 != 0, &xx, &jac, &c)
	if hasSolve4Kernel {
		return newtonSolve4AVX(&jac, &z, &xx, &un, scale, u)
	}
	return newtonSolve4Go(&jac, &z, &xx, &un, scale, u)
}

// newtonSolve4Go is newtonStep4 from the Jacobian jac of the lattice
// and its point xx at un on (z the sample, scale the model's): the step
// b solving jac·b = z − xx (solve4, which leaves jac as it is: no copy),
// u = (un + b)·scale and the step's length; 0 and false, u unchanged,
// where solve4 fails.
func newtonSolve4Go(jac *[16]float64, z, xx, un *[4]float64, scale float64, u *[4]float64) (step float64, ok bool) {
	var b [4]float64
	for k := range 4 {
		b[k] = z[k] - xx[k]
	}
	if !solve4(jac, &b) {
		return 0, false
	}
	s2 := 0.0
	for k := range 4 {
		s2 += float64(b[k] * b[k])
		u[k] = (un[k] + b[k]) * scale
	}
	return math.Sqrt(s2) * scale, true
}

// RefineUnfold improves unfolded coordinates u (input units) of the sample
// x in place with at most maxIter Newton corrections of the exact
// geodesic projection: a tabulated or interpolated u becomes the exact
// one at the cost of a lattice evaluation per step.
func (m *Model) RefineUnfold(u, x []float64, maxIter int, s *MetricScratch) PointStats {
	if len(u) != m.d || len(x) != m.d {
		panic("spca: RefineUnfold needs Dim values")
	}
	if s == nil {
		s = m.NewMetricScratch()
	}
	w := s.w
	for k := range x {
		w.z[k] = (x[k] - m.mean[k]) / m.scale
		u[k] /= m.scale
	}
	st := m.newton(w.z, u, w, maxIter)
	st.Residual *= m.scale
	for k := range u {
		u[k] *= m.scale
	}
	return st
}

// Inverse computes x = R^{-1}(r) for one response, writing x to dst:
// it walks r_1 along the first curve in the metric, then r_2 along the
// secondary curve drawn there, and so on. Responses beyond the ends of
// the metric extrapolate it linearly, up to one lattice width beyond each
// end of the lattice; farther ones are clamped there (InverseBatchStats
// counts them).
func (m *Model) Inverse(dst, r []float64) error {
	if err := m.checkVec(r, "response"); err != nil {
		return err
	}
	if len(dst) != m.d {
		panic("spca: Inverse destination has wrong length")
	}
	m.inverse(dst, r, m.newWork())
	return nil
}

func (m *Model) inverse(dst, r []float64, w *work) (clamped bool) {
	if m.metricInverse(r, w.u, w) {
		clamped = m.beyondRange(r, w)
	}
	m.lat.eval(w.u, w.x, nil, w.idx, w.frac)
	m.denorm(w.x, dst)
	return clamped
}

// responseTol is the distance, as a share of the response scale, beyond
// the range of the metric (its extrapolation up to one lattice width past
// the lattice) from which a response counts as clamped (InverseStats):
// responses computed for points at the edge of that range overshoot it by
// rounding, up to ~1e-8 (spiral, 300 samples).
const responseTol = 1e-6

// beyondRange reports whether the responses r, whose unfolded coordinates
// w.u metricInverse clamped, lie more than responseTol beyond the
// responses of those coordinates. It uses w.e.
func (m *Model) beyondRange(r []float64, w *work) bool {
	m.metricForward(w.u, w.e, w)
	for j, v := range r {
		if math.Abs(v-w.e[j]) > responseTol*math.Abs(m.c[j]) {
			return true
		}
	}
	return false
}

// TransformBatch transforms every row of x in parallel. It returns the
// responses and a summary of the iterations.
func (m *Model) TransformBatch(x mat.Matrix) (*mat.Dense, BatchStats, error) {
	return m.batch(x, false)
}

// UnfoldBatch computes the unfolded coordinates (see Unfold) of every row
// of x in parallel.
func (m *Model) UnfoldBatch(x mat.Matrix) (*mat.Dense, BatchStats, error) {
	return m.batch(x, true)
}

// UnfoldedBatch returns, for every row of x, the unfolded coordinates
// TransformBatch computes on the way to its responses, in the model's
// internal units (unlike UnfoldBatch's, in input units). They do not
// depend on the response scale (SetScale, WithScale), and ResponseWork
// turns one into the responses TransformBatch gives at a model's scale,
// bit for bit: a caller that needs the responses of the same samples at
// many scales unfolds them once.
func (m *Model) UnfoldedBatch(x mat.Matrix) (*mat.Dense, error) {
	n, d := x.Dims()
	if err := m.checkBatch(x, "samples"); err != nil {
		return nil, err
	}
	if n == 0 {
		return &mat.Dense{}, nil
	}
	out := mat.NewDense(n, d, nil)
	parallel(n, m.opt.workers(), m.newWork, func(i int, w *work) {
		m.unfoldRow(out.RawRowView(i), x, i, w)
	})
	return out, nil
}

// unfoldRow writes into dst the unfolded coordinates, in internal units,
// of row i of x.
func (m *Model) unfoldRow(dst []float64, x mat.Matrix, i int, w *work) PointStats {
	row := w.row
	mat.Row(row, i, x)
	for k := range row {
		w.z[k] = (row[k] - m.mean[k]) / m.scale
	}
	return m.unfold(w.z, dst, w)
}

// UnfoldedInput converts u, a row of UnfoldedBatch, in place to input
// units: the row UnfoldBatch gives for the same sample, bit for bit.
func (m *Model) UnfoldedInput(u []float64) {
	for k := range u {
		u[k] *= m.scale
	}
}

// ResponseWork writes into dst the responses at m's scale of the
// unfolded coordinates u, a row of UnfoldedBatch of m or of a model that
// differs from m only in scale (WithScale). s may be nil.
func (m *Model) ResponseWork(dst, u []float64, s *MetricScratch) {
	if len(dst) != m.d || len(u) != m.d {
		panic("spca: ResponseWork needs Dim values")
	}
	if s == nil {
		s = m.NewMetricScratch()
	}
	m.metricForward(u, dst, s.w)
}

func (m *Model) batch(x mat.Matrix, unfoldOnly bool) (*mat.Dense, BatchStats, error) {
	n, d := x.Dims()
	if err := m.checkBatch(x, "samples"); err != nil {
		return nil, BatchStats{}, err
	}
	out := mat.NewDense(max(n, 1), d, nil)
	if n == 0 {
		return &mat.Dense{}, BatchStats{}, nil
	}
	stats := make([]PointStats, n)
	parallel(n, m.opt.workers(), m.newWork, func(i int, w *work) {
		dst := out.RawRowView(i)
		if !unfoldOnly {
			mat.Row(w.row, i, x)
			stats[i] = m.transform(dst, w.row, w)
			return
		}
		stats[i] = m.unfoldRow(dst, x, i, w)
		stats[i].Residual *= m.scale
		m.UnfoldedInput(dst)
	})
	return out, summarise(stats, m.opt.MaxIter), nil
}

// InverseBatch inverts every row of r in parallel.
func (m *Model) InverseBatch(r mat.Matrix) (*mat.Dense, error) {
	x, _, err := m.InverseBatchStats(r)
	return x, err
}

// InverseStats summarises a batch inverse transform.
type InverseStats struct {
	N int
	// Clamped counts the responses whose unfolded coordinates lay more
	// than one lattice width beyond an end of the lattice (far outside
	// the responses of the training data, which may leave [0, 1] a
	// little): they are inverted as the nearest point of that range, the
	// same point for all responses beyond it.
	Clamped int
}

// InverseBatchStats is InverseBatch that also counts the responses that
// were clamped.
func (m *Model) InverseBatchStats(r mat.Matrix) (*mat.Dense, InverseStats, error) {
	n, d := r.Dims()
	if err := m.checkBatch(r, "responses"); err != nil {
		return nil, InverseStats{}, err
	}
	if n == 0 {
		return &mat.Dense{}, InverseStats{}, nil
	}
	out := mat.NewDense(n, d, nil)
	clamped := make([]bool, n)
	parallel(n, m.opt.workers(), m.newWork, func(i int, w *work) {
		row := w.row
		mat.Row(row, i, r)
		clamped[i] = m.inverse(out.RawRowView(i), row, w)
	})
	st := InverseStats{N: n}
	for _, c := range clamped {
		if c {
			st.Clamped++
		}
	}
	return out, st, nil
}

// checkBatch returns the error of a batch of rows (what: "samples" or
// "responses") that does not have the model's dimension or holds a value
// that is not finite.
func (m *Model) checkBatch(x mat.Matrix, what string) error {
	if _, d := x.Dims(); d != m.d {
		return &DataError{fmt.Sprintf("%s have %d values, the model expects %d", what, d, m.d)}
	}
	return checkFinite(x)
}

func checkFinite(x mat.Matrix) error {
	n, d := x.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return &DataError{fmt.Sprintf("row %d, column %d is %v", i+1, j+1, v)}
			}
		}
	}
	return nil
}

func summarise(stats []PointStats, maxIter int) BatchStats {
	b := BatchStats{N: len(stats), Histogram: make([]int, maxIter+1)}
	for _, s := range stats {
		if s.Iterations == 0 && s.Converged {
			b.NoCorrection++
		}
		if !s.Converged {
			b.Unconverged++
			if !s.Clamped {
				b.UnconvergedInside++
			}
		}
		if s.Clamped {
			b.Clamped++
		}
		b.Histogram[s.Iterations]++
		b.MaxIter = max(b.MaxIter, s.Iterations)
		b.MaxResidual = max(b.MaxResidual, s.Residual)
	}
	return b
}
