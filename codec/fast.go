package codec

import (
	"math"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// fastPath tabulates the geometric part of the SPCA forward transform of
// the leading coefficients (the unfolded coordinates, a smooth function)
// on a tensor grid whose nodes sit at quantiles of the training
// coefficients, interpolates it multilinearly, refines it with one Newton
// step of the exact geodesic projection, and applies the exact metric
// tables: the density-shaped, fast-varying part of the transform is never
// interpolated. Points outside the grid take the
// exact path. The exact path is the reference: tests bound the fraction
// of indices on which the two disagree.
type fastPath struct {
	k     int
	nodes [][]float64 // per axis, increasing
	vals  []float64   // unfolded coordinates at the nodes, row-major, k per node
	str   []int
	// Per axis, a uniform table over [nodes[0], nodes[last]] giving the
	// first candidate cell, so locating a value takes a short scan
	// instead of a binary search.
	look  [][]int32
	lookW []float64
	buf   []float64 // reduction scratch (one goroutine: see clone)
	dbuf  []float64
}

// clone returns a fastPath sharing the tables with its own scratch, for
// use by one goroutine.
func (f *fastPath) clone() *fastPath {
	g := *f
	g.buf = make([]float64, (1<<f.k)*f.k)
	g.dbuf = make([]float64, (1<<f.k)*f.k*f.k)
	return &g
}

// lookCells is the size of the per-axis cell look-up tables.
const lookCells = 4096

// fastPath returns the channel's fast path, built on first use. It does
// not depend on the number of bins.
func (c *Channel) fastPath() *fastPath {
	c.fastOnce.Do(func() { c.fast = buildFastPath(c) })
	return c.fast
}

// fastNodes is the node budget of the fast path.
const fastNodes = 1 << 18

func buildFastPath(c *Channel) *fastPath {
	k := c.Leading()
	if k == 0 {
		return nil
	}
	g := int(math.Min(256, math.Floor(math.Pow(fastNodes, 1/float64(k)))))
	if g < 4 {
		return nil
	}
	n, _ := c.Train.Dims()
	f := &fastPath{k: k, nodes: make([][]float64, k), str: make([]int, k)}
	col := make([]float64, n)
	for j := 0; j < k; j++ {
		mat.Col(col, j, c.Train)
		sort.Float64s(col)
		// Nodes at quantiles, the ends at the extremes of the training
		// data so that almost no patch falls outside the grid.
		ax := make([]float64, g)
		for i := range ax {
			ax[i] = quantileSorted(col, float64(i)/float64(g-1))
		}
		for i := 1; i < g; i++ {
			if ax[i] <= ax[i-1] {
				ax[i] = math.Nextafter(ax[i-1], math.Inf(1))
			}
		}
		f.nodes[j] = ax
	}
	total := 1
	for j := k - 1; j >= 0; j-- {
		f.str[j] = total
		total *= g
	}
	f.look = make([][]int32, k)
	f.lookW = make([]float64, k)
	for j, ax := range f.nodes {
		lo, hi := ax[0], ax[len(ax)-1]
		f.lookW[j] = float64(lookCells) / (hi - lo)
		t := make([]int32, lookCells+1)
		c := 0
		for b := range t {
			v := lo + float64(b)/f.lookW[j]
			for c < len(ax)-2 && ax[c+1] <= v {
				c++
			}
			t[b] = int32(c)
		}
		f.look[j] = t
	}
	pts := mat.NewDense(total, k, nil)
	for i := 0; i < total; i++ {
		row := pts.RawRowView(i)
		for j := 0; j < k; j++ {
			row[j] = f.nodes[j][i/f.str[j]%g]
		}
	}
	u, _, err := c.SPCA.UnfoldBatch(pts)
	if err != nil {
		return nil
	}
	f.vals = u.RawMatrix().Data
	return f
}

// responses interpolates the unfolded coordinates of y (k values) into u
// and, if jac is not nil, their derivatives du/dy into jac (k×k,
// jac[a*k+j] = du_a/dy_j),
// extrapolating the end cells linearly up to half an axis span beyond the
// training range (the unfolding is close to linear there); it reports
// false farther out.
func (f *fastPath) responses(y, u, jac []float64, idx []int, frac, width []float64) bool {
	k := f.k
	base := 0
	for j := 0; j < k; j++ {
		ax := f.nodes[j]
		v := y[j]
		lo, hi := ax[0], ax[len(ax)-1]
		var i int
		switch {
		case v >= lo && v <= hi:
			i = int(f.look[j][int((v-lo)*f.lookW[j])])
			for i < len(ax)-2 && ax[i+1] <= v {
				i++
			}
		case v < lo && v >= lo-0.5*(hi-lo):
			i = 0 // linear extrapolation of the end cell
		case v > hi && v <= hi+0.5*(hi-lo):
			i = len(ax) - 2
		default:
			return false
		}
		idx[j] = i
		width[j] = ax[i+1] - ax[i]
		frac[j] = (v - ax[i]) / width[j]
		base += i * f.str[j]
	}
	// Successive reduction over the axes: the 2^k corner values are
	// interpolated along axis 0, then axis 1, ..., carrying the
	// derivatives along the axes already reduced.
	val := f.buf[:(1<<k)*k]
	for c := 0; c < 1<<k; c++ {
		off := base
		for j := 0; j < k; j++ {
			if c>>j&1 == 1 {
				off += f.str[j]
			}
		}
		dst, src := val[c*k:(c+1)*k], f.vals[off*k:off*k+k]
		for q := range dst { // k is tiny: a loop beats copy's call
			dst[q] = src[q]
		}
	}
	var der []float64
	if jac != nil {
		der = f.dbuf[:(1<<k)*k*k] // der[(c*k+p)*k+q] = d val_q / d y_p
		for i := range der {
			der[i] = 0
		}
	}
	size := 1 << k
	for j := 0; j < k; j++ {
		t := frac[j]
		half := size / 2
		for c := 0; c < half; c++ {
			a, b := 2*c, 2*c+1
			for q := 0; q < k; q++ {
				va, vb := val[a*k+q], val[b*k+q]
				if der != nil {
					for p := 0; p < j; p++ {
						da, db := der[(a*k+p)*k+q], der[(b*k+p)*k+q]
						der[(c*k+p)*k+q] = da + t*(db-da)
					}
					der[(c*k+j)*k+q] = (vb - va) / width[j]
				}
				val[c*k+q] = va + t*(vb-va)
			}
		}
		size = half
	}
	for q := 0; q < k; q++ {
		u[q] = val[q]
	}
	if jac != nil {
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				jac[q*k+p] = der[p*k+q]
			}
		}
	}
	return true
}

// quantizeFast is quantizeExact through the fast path where it applies,
// in parallel over blocks of rows.
func (c *Channel) quantizeFast(y *mat.Dense, idx []int32) {
	fp := c.fastPath()
	if fp == nil {
		c.quantizeExact(y, idx)
		return
	}
	n, dims := y.Dims()
	k := c.Leading()
	workers := runtime.GOMAXPROCS(0)
	chunk := (n + workers - 1) / workers
	misses := make([][]int, workers)
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		lo, hi := wk*chunk, min(n, (wk+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fp := fp.clone()
			r := make([]float64, k)
			u := make([]float64, k)
			u0 := make([]float64, k)
			x := make([]float64, k)
			jac := make([]float64, k*k)
			ms := c.SPCA.NewMetricScratch()
			ci := make([]int, k)
			cf := make([]float64, k)
			cw := make([]float64, k)
			for i := lo; i < hi; i++ {
				row := y.RawRowView(i)
				if !fp.responses(row[:k], u, jac, ci, cf, cw) {
					misses[wk] = append(misses[wk], i)
					continue
				}
				copy(u0, u)
				// A quasi-Newton correction: walk the interpolated u on
				// the exact lattice and move u by the interpolated du/dy
				// times the miss (one lattice evaluation).
				c.SPCA.PositionWork(x, u, ms)
				for a := 0; a < k; a++ {
					d := 0.0
					for j := 0; j < k; j++ {
						d += jac[a*k+j] * (row[j] - x[j])
					}
					u[a] += d
				}
				c.SPCA.MetricWork(r, u, ms)
				// Near a bin boundary the exact Newton step decides.
				if nearBoundary(r) {
					copy(u, u0)
					c.SPCA.RefineUnfold(u, row[:k], 1, ms)
					c.SPCA.MetricWork(r, u, ms)
				}
				for j := 0; j < k; j++ {
					idx[i*dims+j] = binOf(r[j], c.Bins[j])
				}
				for j := k; j < dims; j++ {
					idx[i*dims+j] = int32(c.Rest[j-k].Index(row[j]))
				}
			}
		}()
	}
	wg.Wait()
	var miss []int
	for _, m := range misses {
		miss = append(miss, m...)
	}
	if len(miss) == 0 {
		return
	}
	sub := mat.NewDense(len(miss), dims, nil)
	for a, i := range miss {
		copy(sub.RawRowView(a), y.RawRowView(i))
	}
	sidx := make([]int32, len(miss)*dims)
	c.quantizeExact(sub, sidx)
	for a, i := range miss {
		copy(idx[i*dims:(i+1)*dims], sidx[a*dims:(a+1)*dims])
	}
}

// refineBand is the distance to a bin boundary (in bins) within which a
// response is recomputed with an exact Newton step.
const refineBand = 0.03

func nearBoundary(r []float64) bool {
	for _, v := range r {
		if f := v - math.Floor(v); f < refineBand || f > 1-refineBand {
			return true
		}
	}
	return false
}

func quantileSorted(s []float64, p float64) float64 {
	pos := p * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

func quantileOf(x []float64, p float64) float64 {
	if !sort.Float64sAreSorted(x) {
		sort.Float64s(x)
	}
	return quantileSorted(x, p)
}
