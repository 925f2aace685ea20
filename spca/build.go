package spca

import (
	"fmt"
	"math"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// fit runs the stages of Fit after validation and normalisation.
func (f *fitter) fit() (*Model, error) {
	d := f.d
	origin, err := f.origin()
	if err != nil {
		return nil, err
	}
	frame, _ := f.rankAtOrigin(origin)
	m := &Model{
		frame0: frame,
		d:      d,
		opt:    f.opt,
		mean:   f.mean,
		scale:  f.scale,
		dmax:   f.dmax,
		origin: origin,
	}
	m.opt.Progress = nil
	m.opt.Directions = nil // used at fit time only; the result is frame0
	m.opt.OriginPoint = append([]float64(nil), f.opt.OriginPoint...)
	m.c = make([]float64, d)
	for j := range m.c {
		m.c[j] = 1
		if f.opt.Scale != nil {
			m.c[j] = f.opt.Scale[j]
		}
	}
	m.tolN = f.opt.Tol * f.dmax
	if err := f.buildLattice(m, origin, frame); err != nil {
		return nil, err
	}
	u, err := f.unfoldTraining(m)
	if err != nil {
		return nil, err
	}
	f.progress("metric", 0, d)
	m.tables = buildTables(&m.lat, u, f.n, ruleOf(f.opt))
	m.entropies = make([]float64, d)
	for j := range m.entropies {
		m.entropies[j] = histEntropy(column(u, f.n, d, j)) + math.Log2(f.scale)
	}
	m.setTableAxes()
	m.setSameFibers()
	f.progress("metric", d, d)
	return m, nil
}

// setTableAxes derives the table node counts and spacings from the lattice.
func (m *Model) setTableAxes() {
	m.tnodes = make([]int, m.d)
	m.tstep = make([]float64, m.d)
	for j := range m.tnodes {
		m.tnodes[j] = tableNodes(&m.lat, j)
		m.tstep[j] = m.lat.width(j) / float64(m.tnodes[j]-1)
	}
}

// setSameFibers marks the axes whose metric tables hold one fiber
// repeated. With gamma 0 the density weight is 1 over the data range of
// the axis whatever the conditioning point, so every fiber is the same
// table: blending 2^j of them at u_<j gives that table again (up to
// rounding), and reading it once costs one look-up instead of 2^j, and
// inverting it one search of a fiber that stays in cache.
func (m *Model) setSameFibers() {
	m.sameFibers = make([]bool, m.d)
	for j, t := range m.tables {
		g := m.tnodes[j]
		same := true
		for off := g; off < len(t) && same; off += g {
			for i := 0; i < g; i++ {
				if t[off+i] != t[i] {
					same = false
					break
				}
			}
		}
		m.sameFibers[j] = same
	}
}

// origin places x^o (normalised units).
func (f *fitter) origin() ([]float64, error) {
	d := f.d
	s := newScratch(d, f.nb.m)
	switch f.opt.Origin {
	case OriginGiven:
		p := make([]float64, d)
		for j := range p {
			p[j] = (f.opt.OriginPoint[j] - f.mean[j]) / f.scale
		}
		if st := f.nb.query(p, nil, s); st.nearest > f.dr.dOut {
			return nil, optionError("OriginPoint is outside the data manifold")
		}
		return p, nil
	case OriginDensest:
		best, bi := math.Inf(1), 0
		step := 1
		if f.nb.m > 1000 {
			step = f.nb.m / 1000
		}
		for i := 0; i < f.nb.m; i += step {
			st := f.nb.query(f.nb.ref[i*d:(i+1)*d], nil, s)
			if st.h < best {
				best, bi = st.h, i
			}
		}
		return append([]float64(nil), f.nb.ref[bi*d:(bi+1)*d]...), nil
	default:
		// Mean-shift from the mean onto the manifold.
		p := make([]float64, d)
		for it := 0; it < 100; it++ {
			st := f.nb.query(p, nil, s)
			move := math.Sqrt(dist2(p, st.mean))
			copy(p, st.mean)
			if move < 1e-4*f.dr.tau {
				break
			}
		}
		return p, nil
	}
}

// rankAtOrigin draws the d locally orthogonal curves at the origin, one per
// local principal direction, and orders the dimensions by decreasing
// marginal entropy of the samples projected on them (seed: higher entropy
// first). Directions are signed to agree with the global PCA axes, so two
// models fitted on related data orient their responses alike.
func (f *fitter) rankAtOrigin(origin []float64) ([]float64, []float64) {
	d := f.d
	s := newScratch(d, f.nb.m)
	st := f.nb.query(origin, nil, s)
	local := make([]float64, d*d)
	vals := make([]float64, d)
	tmp := append([]float64(nil), st.cov...)
	symEigen(tmp, d, vals, local)
	global := globalAxes(f.nb.ref, f.nb.m, d)
	resolveWithCov(local, vals, globalCov(f.nb.ref, f.nb.m, d), d)
	orientLike(local, global, d)

	ents := make([]float64, d)
	for i := 0; i < d; i++ {
		ents[i] = f.entropyAlong(origin, local, i, s)
	}
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ents[order[a]] > ents[order[b]] })
	if f.opt.Directions != nil {
		order = matchDirections(local, f.opt.Directions, d)
	}
	frame := make([]float64, d*d)
	ranked := make([]float64, d)
	for col, src := range order {
		for k := 0; k < d; k++ {
			frame[k*d+col] = local[k*d+src]
		}
		ranked[col] = ents[src]
	}
	return frame, ranked
}

// matchDirections orders the columns of local (d×d) to follow the
// reference directions: reference column j takes the unassigned local
// direction of largest |cos|, flipped to agree in sign.
func matchDirections(local []float64, ref *mat.Dense, d int) []int {
	order := make([]int, d)
	used := make([]bool, d)
	for j := 0; j < d; j++ {
		rn := 0.0
		for k := 0; k < d; k++ {
			rn += ref.At(k, j) * ref.At(k, j)
		}
		best, bc, bi := -1.0, 0.0, 0
		for i := 0; i < d; i++ {
			if used[i] {
				continue
			}
			c := 0.0
			for k := 0; k < d; k++ {
				c += local[k*d+i] * ref.At(k, j)
			}
			c /= math.Sqrt(rn)
			if math.Abs(c) > best {
				best, bc, bi = math.Abs(c), c, i
			}
		}
		used[bi] = true
		order[j] = bi
		if bc < 0 {
			for k := 0; k < d; k++ {
				local[k*d+bi] = -local[k*d+bi]
			}
		}
	}
	return order
}

// entropyAlong draws the curve at the origin along column i of the basis
// (the other columns after it, in order) and returns the marginal entropy
// (bits, input units) of the reference samples projected on it.
func (f *fitter) entropyAlong(origin, basis []float64, i int, s *scratch) float64 {
	d := f.d
	fr := make([]float64, d*d)
	col := 0
	for _, src := range append([]int{i}, others(i, d)...) {
		for k := 0; k < d; k++ {
			fr[k*d+col] = basis[k*d+src]
		}
		col++
	}
	c := f.dr.draw(origin, fr, 0, 0, nil, false, s)
	ref := f.nb.ref
	pos := make([]float64, f.nb.m)
	for r := 0; r < f.nb.m; r++ {
		pos[r], _ = project(ref[r*d:(r+1)*d], c.pts, c.s, d, false)
	}
	return histEntropy(pos) + math.Log2(f.scale)
}

// globalCov is the covariance of the reference samples (about their mean).
func globalCov(ref []float64, m, d int) []float64 {
	mean := make([]float64, d)
	for i := 0; i < m; i++ {
		for a := 0; a < d; a++ {
			mean[a] += ref[i*d+a]
		}
	}
	for a := range mean {
		mean[a] /= float64(m)
	}
	cov := make([]float64, d*d)
	for i := 0; i < m; i++ {
		row := ref[i*d : (i+1)*d]
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				cov[a*d+b] += (row[a] - mean[a]) * (row[b] - mean[b])
			}
		}
	}
	for i := range cov {
		cov[i] /= float64(m)
	}
	return cov
}

// resolveWithCov fixes the directions of the basis local (columns, with
// eigenvalues vals in decreasing order) inside near-degenerate clusters
// (eigenvalue ratio above degenerateRatio): there the local eigenvectors
// are arbitrary (a neighbourhood inside a flat sheet is round), so they are
// replaced by the principal axes of the larger-scale covariance big
// restricted to the cluster subspace. Outside degenerate clusters the
// basis is unchanged.
func resolveWithCov(local, vals, big []float64, d int) {
	for a := 0; a < d; {
		b := a + 1
		for b < d && vals[b] > 0 && vals[b] >= degenerateRatio*vals[b-1] {
			b++
		}
		m := b - a
		if m >= 2 {
			// Restricted covariance P^T big P in the cluster basis.
			pc := make([]float64, m*m)
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					acc := 0.0
					for k := 0; k < d; k++ {
						for l := 0; l < d; l++ {
							acc += local[k*d+a+i] * big[k*d+l] * local[l*d+a+j]
						}
					}
					pc[i*m+j] = acc
				}
			}
			ev := make([]float64, m)
			vv := make([]float64, m*m)
			symEigen(pc, m, ev, vv)
			nv := make([]float64, d*m)
			for c := 0; c < m; c++ {
				for k := 0; k < d; k++ {
					acc := 0.0
					for i := 0; i < m; i++ {
						acc += local[k*d+a+i] * vv[i*m+c]
					}
					nv[k*m+c] = acc
				}
			}
			for c := 0; c < m; c++ {
				for k := 0; k < d; k++ {
					local[k*d+a+c] = nv[k*m+c]
				}
			}
		}
		a = b
	}
}

func others(i, d int) []int {
	var o []int
	for j := 0; j < d; j++ {
		if j != i {
			o = append(o, j)
		}
	}
	return o
}

// globalAxes returns the PCA eigenvectors (columns) of the reference data,
// each signed so that its largest component is positive.
func globalAxes(ref []float64, m, d int) []float64 {
	_, vecs := centredPCA(ref, m, d)
	for c := 0; c < d; c++ {
		big := 0
		for k := 1; k < d; k++ {
			if math.Abs(vecs[k*d+c]) > math.Abs(vecs[big*d+c])+1e-12 {
				big = k
			}
		}
		if vecs[big*d+c] < 0 {
			for k := 0; k < d; k++ {
				vecs[k*d+c] = -vecs[k*d+c]
			}
		}
	}
	return vecs
}

// orientLike flips each column of v to agree with the global axis it is
// most parallel to.
func orientLike(v, global []float64, d int) {
	for c := 0; c < d; c++ {
		best, bc := 0.0, 0.0
		for g := 0; g < d; g++ {
			t := 0.0
			for k := 0; k < d; k++ {
				t += v[k*d+c] * global[k*d+g]
			}
			if math.Abs(t) > math.Abs(best)+1e-12 {
				best, bc = t, t
			}
		}
		if bc < 0 {
			for k := 0; k < d; k++ {
				v[k*d+c] = -v[k*d+c]
			}
		}
	}
}

// histEntropy is the differential entropy (bits) of x from an equal-width
// histogram with the Freedman–Diaconis bin width.
func histEntropy(x []float64) float64 {
	n := len(x)
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	lo, hi := s[0], s[n-1]
	if !(hi > lo) {
		return math.Inf(-1)
	}
	iqr := s[n*3/4] - s[n/4]
	w := 2 * iqr / math.Cbrt(float64(n))
	if !(w > 0) {
		w = (hi - lo) / math.Sqrt(float64(n))
	}
	bins := int(math.Ceil((hi - lo) / w))
	if bins < 1 {
		bins = 1
	}
	if bins > 10000 {
		bins = 10000
	}
	w = (hi - lo) / float64(bins)
	counts := make([]int, bins)
	for _, v := range s {
		b := int((v - lo) / w)
		if b >= bins {
			b = bins - 1
		}
		counts[b]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p/w)
		}
	}
	return h
}

// curveExtentQuantile sets the range of a secondary lattice axis: the
// quantile of the curves' extents on each side.
const curveExtentQuantile = 0.9

// maxCurves caps the number of secondary curves drawn at the last level,
// the dominant cost of Fit.
const maxCurves = 1 << 15

// latticeNodes decides the node counts: the first axis gets a larger share
// (it is one curve, the secondary families need many curves), and the
// other axes as many nodes as the node budget and maxCurves allow, at
// least 3 (two segments per curve).
func latticeNodes(d, budget int) (first, rest int) {
	if d == 1 {
		return min(4096, max(8, budget)), 0
	}
	g := math.Pow(float64(budget), 1/(float64(d)+0.5))
	first = int(min(1024, max(32, math.Round(math.Pow(g, 1.5)))))
	fits := func(first, r int) bool {
		nodes, curves := float64(first), float64(first)
		for j := 1; j < d; j++ {
			nodes *= float64(r)
			if j < d-1 {
				curves *= float64(r)
			}
		}
		return nodes <= float64(budget) && curves <= maxCurves
	}
	for first > 8 && !fits(first, 3) {
		first /= 2
	}
	rest = 3
	for rest < 256 && fits(first, rest+1) {
		rest++
	}
	return first, rest
}

// axisFor sets the nodes of an axis covering [lo, hi] with margin, with
// a node at 0 when zeroNode.
func axisFor(lo, hi, tau float64, maxNodes int, zeroNode bool) (g int, first, step float64, zero int) {
	// A narrow margin: the lattice continues the curves straight beyond
	// their ends, and a long continuation can run into another part of a
	// curved manifold (the inner end of a spiral points at the next arm).
	margin := 3 * tau
	lo -= margin
	hi += margin
	span := hi - lo
	need := int(math.Ceil(2*span/tau)) + 1
	g = max(3, min(maxNodes, need))
	if !zeroNode {
		return g, lo, span / float64(g-1), 0
	}
	// One spare interval lets node 0 sit at u = 0 while the g nodes still
	// cover [lo, hi].
	step = span / float64(g-2)
	zero = min(g-1, int(math.Ceil(-lo/step)))
	first = -float64(zero) * step
	return g, first, step, zero
}

// buildLattice draws the first curve and then, level by level, the
// secondary curves from every node of the lattice built so far.
func (f *fitter) buildLattice(m *Model, origin, frame []float64) error {
	d := f.d
	s := newScratch(d, f.nb.m)
	c1 := f.dr.draw(origin, frame, 0, 0, nil, d > 1, s)
	if c1.len() < 3 {
		return &DataError{"the first principal curve could not be drawn (fewer than 3 vertices): check K and Tau"}
	}
	m.curve1 = polyline{pts: c1.pts, s: c1.s}
	first, rest := latticeNodes(d, f.opt.Resolution)
	lat := lattice{d: d}
	g, lo, step, _ := axisFor(c1.s[0], c1.s[c1.len()-1], f.opt.Tau, first, false)
	lat.g = []int{g}
	lat.lo = []float64{lo}
	lat.step = []float64{step}
	lat.zero = []int{0}
	// Level-1 positions and frames.
	pos := make([]float64, g*d)
	var frames []float64
	if d > 1 {
		frames = make([]float64, g*d*d)
	}
	for i := 0; i < g; i++ {
		u := lo + float64(i)*step
		c1.at(u, d, pos[i*d:(i+1)*d])
		if d > 1 {
			copy(frames[i*d*d:(i+1)*d*d], c1.frameAt(u, d))
		}
	}
	guard := &m.curve1
	for j := 1; j < d; j++ {
		parents := len(pos) / d
		curves := make([]polyline, parents)
		keep := j < d-1
		stage := fmt.Sprintf("curves level %d", j+1)
		f.progress(stage, 0, parents)
		var done atomic.Int64
		parallel(parents, f.opt.workers(), func() *scratch { return newScratch(d, f.nb.m) }, func(i int, s *scratch) {
			curves[i] = f.dr.draw(pos[i*d:(i+1)*d], frames[i*d*d:(i+1)*d*d], j, j, guard, keep, s)
			if c := done.Add(1); c%64 == 0 {
				f.progress(stage, int(c), parents)
			}
		})
		f.progress(stage, parents, parents)
		// The axis spans the extents of most curves, not of the longest
		// few: nodes spent where only outliers reach are lost for the
		// bulk, and the lattice continues every curve straight anyway.
		los := make([]float64, parents)
		his := make([]float64, parents)
		for i := range curves {
			los[i] = curves[i].s[0]
			his[i] = curves[i].s[curves[i].len()-1]
		}
		lo := max(quantile(los, 1-curveExtentQuantile), -f.dmax)
		hi := min(quantile(his, curveExtentQuantile), f.dmax)
		g, first, step, zero := axisFor(lo, hi, f.opt.Tau, rest, true)
		lat.g = append(lat.g, g)
		lat.lo = append(lat.lo, first)
		lat.step = append(lat.step, step)
		lat.zero = append(lat.zero, zero)
		npos := make([]float64, parents*g*d)
		var nframes []float64
		if keep {
			nframes = make([]float64, parents*g*d*d)
		}
		for p := 0; p < parents; p++ {
			c := &curves[p]
			for i := 0; i < g; i++ {
				u := first + float64(i)*step
				o := p*g + i
				c.at(u, d, npos[o*d:(o+1)*d])
				if keep {
					copy(nframes[o*d*d:(o+1)*d*d], c.frameAt(u, d))
				}
			}
		}
		pos, frames = npos, nframes
	}
	lat.x = pos
	lat.setStrides()
	m.lat = lat
	// First curve sampled at the lattice nodes, for projections.
	// Orthogonal projections start on the drawn part of the first curve
	// only, not on its straight continuation.
	i0, i1 := 0, lat.g[0]-1
	for i0 < i1 && lat.lo[0]+float64(i0+1)*lat.step[0] <= c1.s[0] {
		i0++
	}
	for i1 > i0 && lat.lo[0]+float64(i1-1)*lat.step[0] >= c1.s[c1.len()-1] {
		i1--
	}
	m.fiber0Lo, m.fiber0Hi = i0, i1
	m.setFiber0()
	m.setRestartNodes()
	return nil
}

// unfoldTraining solves the unfolded coordinates u of every training
// sample (geometric part of the forward transform).
func (f *fitter) unfoldTraining(m *Model) ([]float64, error) {
	d, n := f.d, f.n
	u := make([]float64, n*d)
	f.progress("unfold training samples", 0, n)
	var done atomic.Int64
	parallel(n, f.opt.workers(), m.newWork, func(i int, w *work) {
		m.unfold(f.z[i*d:(i+1)*d], u[i*d:(i+1)*d], w)
		if c := done.Add(1); c%1024 == 0 {
			f.progress("unfold training samples", int(c), n)
		}
	})
	f.progress("unfold training samples", n, n)
	return u, nil
}
