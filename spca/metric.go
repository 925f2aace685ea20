package spca

import (
	"math"
	"sort"
)

// The metric of dimension j is a table over the lattice of axes 1..j: for
// every station (u_1..u_{j-1}) of the lattice, the cumulative integral of
// p(u_j | u_<j)^gamma along the curve, normalised to run from 0 to 1 over
// the lattice axis. p is the density of the samples near that curve
// (conditional on the earlier coordinates), so gamma = 1 makes r_j the
// conditional CDF and equalises a spread that changes along the manifold.
// Normalising every curve's total metric length to 1 gives every curve the
// same number of quantisation cells; the anchor r_j = 0 lies below the
// conditional spread, not where the curve leaves the previous one (where
// the first curve need not pass through the conditional median).

// densityFloor is the metric integrand where the estimated density is
// zero (outside the support of a curve's samples, and for gamma = 0
// outside the data range of the dimension). It keeps the response
// strictly monotone, hence invertible, everywhere on the lattice.
//
// gamma = 0 is the Euclidean metric of the seed: arc length with
// constant-size cells independent of the PDF (Fig. "gamba"), so its unit
// length spans the range of the training data along that dimension, the
// same for every curve (close to uniform PCA quantisation on flat data).
// For gamma > 0 every curve's metric length p^gamma is normalised on its
// own, which gives every curve the same number of cells.
const densityFloor = 1e-9

// maxTable caps the entries of one metric table.
const maxTable = 1 << 20

// tableNodes returns the number of table nodes along axis j: finer than
// the lattice (curves are smooth, densities are not), within maxTable.
func tableNodes(l *lattice, j int) int {
	fibers := 1
	for a := 0; a < j; a++ {
		fibers *= l.g[a]
	}
	return max(l.g[j], min(1024, maxTable/fibers))
}

// densityRule holds the options of the density estimate along a curve.
type densityRule struct {
	gamma     float64
	bandwidth float64 // kernel width along the curve, fraction of Silverman's rule
	cond      float64 // share of the samples a conditional density uses
	// neighbours, when > 0, replaces the kernel along the curve by the
	// k-neighbours rule with k = neighbours × the curve's samples.
	neighbours float64
	// floor, when > densityFloor, replaces it (Options.DensityFloor).
	floor float64
	// reflect folds the density beyond the training range back inside
	// (Options.ReflectDensity).
	reflect bool
	// floorOfMean makes floor a share of each fiber's mean integrand,
	// not of its peak (Options.FloorOfMean).
	floorOfMean bool
}

// ruleOf returns the density rule of options o.
func ruleOf(o Options) densityRule {
	return densityRule{gamma: o.Gamma, bandwidth: o.Bandwidth, cond: o.Conditioning, neighbours: o.Neighbours, floor: o.DensityFloor, reflect: o.ReflectDensity, floorOfMean: o.FloorOfMean}
}

// buildTables computes the metric tables from the unfolded training
// coordinates u (n×d). rule.cond is the share of the samples a conditional
// density is estimated from (Options.Conditioning; the prototype needed
// >= 5 %).
func buildTables(l *lattice, u []float64, n int, rule densityRule) [][]float64 {
	gamma, bandwidth, cond := rule.gamma, rule.bandwidth, rule.cond
	floor := max(densityFloor, rule.floor)
	d := l.d
	tables := make([][]float64, d)
	for j := 0; j < d; j++ {
		shape := append(append([]int(nil), l.g[:j]...), tableNodes(l, j))
		tstep := l.width(j) / float64(shape[j]-1)
		size := 1
		for _, g := range shape {
			size *= g
		}
		strides := prefixStrides(shape)
		h := make([]float64, size)
		// Linear binning along the target axis, nearest node along the
		// conditioning axes (they are smoothed next anyway).
		for i := 0; i < n; i++ {
			row := u[i*d : (i+1)*d]
			off := 0
			for a := 0; a < j; a++ {
				p := (row[a] - l.lo[a]) / l.step[a]
				k := int(math.Round(p))
				k = max(0, min(l.g[a]-1, k))
				off += k * strides[a]
			}
			p := (row[j] - l.lo[j]) / tstep
			p = max(0, min(float64(shape[j]-1), p))
			k := int(math.Floor(p))
			if k >= shape[j]-1 {
				k = shape[j] - 2
			}
			if k < 0 {
				k = 0
			}
			fr := p - float64(k)
			h[off+k*strides[j]] += 1 - fr
			h[off+(k+1)*strides[j]] += fr
		}
		// Smoothing: conditioning axes by a window holding cond
		// of the samples, the target axis by a narrow kernel (a fraction
		// of Silverman's rule keeps hard edges sharp).
		for a := 0; a <= j; a++ {
			col := column(u, n, d, a)
			var sigma float64
			if a < j {
				f := math.Pow(cond, 1/float64(j))
				sigma = 0.5 * f * (quantile(col, 0.95) - quantile(col, 0.05))
			} else {
				neff := float64(n)
				if j > 0 {
					neff *= cond
				}
				sigma = bandwidth * 1.06 * robustSD(col) * math.Pow(max(neff, 1), -0.2)
			}
			step := l.step[a]
			if a == j {
				if rule.neighbours > 0 {
					continue // the neighbour window is the smoothing
				}
				step = tstep
			}
			smoothAxis(h, shape, strides, a, max(0.5, sigma/step))
		}
		// Data range of the dimension, for gamma = 0.
		col := column(u, n, d, j)
		umin, umax := col[0], col[0]
		for _, v := range col {
			umin, umax = min(umin, v), max(umax, v)
		}
		if rule.reflect && gamma != 0 {
			reflectFibers(h, shape[j], (umin-l.lo[j])/tstep, (umax-l.lo[j])/tstep)
		}
		// Cumulative metric per fiber.
		g := shape[j]
		fibers := size / g
		t := make([]float64, size)
		w := make([]float64, g)
		var below []float64 // neighbourDensity's scratch
		if rule.neighbours > 0 && gamma != 0 {
			below = make([]float64, g+1)
		}
		for fb := 0; fb < fibers; fb++ {
			// Index of node i of fiber fb: the fiber's base plus i*stride;
			// the target axis is the last of the prefix, stride 1.
			base := fb * g
			if rule.neighbours > 0 && gamma != 0 {
				neighbourDensity(h[base:base+g], rule.neighbours, w, below)
				copy(h[base:base+g], w)
			}
			peak := 0.0
			for i := 0; i < g; i++ {
				peak = max(peak, h[base+i])
			}
			base0 := floor
			if rule.floorOfMean && gamma != 0 {
				mean := 0.0
				for i := 0; i < g; i++ {
					if p := h[base+i]; p > 0 {
						mean += math.Pow(p/peak, gamma)
					}
				}
				base0 = max(densityFloor, rule.floor*mean/float64(g))
			}
			for i := 0; i < g; i++ {
				w[i] = base0
				if gamma == 0 {
					if v := l.lo[j] + float64(float64(i)*tstep); v >= umin-tstep && v <= umax+tstep {
						w[i] = 1
					}
				} else if p := h[base+i]; p > 0 {
					w[i] += math.Pow(p/peak, gamma)
				}
			}
			acc := 0.0
			t[base] = 0
			for i := 1; i < g; i++ {
				acc += 0.5 * (w[i-1] + w[i])
				t[base+i] = acc
			}
			for i := 0; i < g; i++ {
				t[base+i] /= acc
			}
		}
		tables[j] = t
	}
	return tables
}

// reflectFibers folds, in every fiber of g nodes of h (the smoothed
// sample mass along the target axis), the mass beyond the node positions
// plo and phi (the lowest and highest training coordinates, in table
// nodes) back inside, mirrored about the first and last node within them
// (Options.ReflectDensity): the boundary correction of a kernel estimate
// by reflection, so that no mass lies beyond the samples. Ends beyond the
// table are left alone (the binning already holds their mass inside).
func reflectFibers(h []float64, g int, plo, phi float64) {
	k0 := max(0, int(math.Ceil(plo)))
	k1 := min(g-1, int(math.Floor(phi)))
	if k1 <= k0 || k0 == 0 && k1 == g-1 {
		return
	}
	for base := 0; base < len(h); base += g {
		f := h[base : base+g]
		for i := 0; i < k0; i++ {
			m := min(k1, 2*k0-i)
			f[m] += f[i]
			f[i] = 0
		}
		for i := g - 1; i > k1; i-- {
			m := max(k0, 2*k1-i)
			f[m] += f[i]
			f[i] = 0
		}
	}
}

// neighbourDensity writes to p the k-neighbours density estimate
// p(x) = k / (2 h_k(x)) at the nodes of one fiber whose sample masses
// (linearly binned) are mass, with k = share × the fiber's total mass and
// h_k(x) the half-width of the smallest window centred on x holding k
// (each node's mass spread evenly over its half-node neighbourhood). Unlike
// a kernel, the estimate decays only like 1/distance in the tails, where
// the samples are sparse: this is the seed's rule, and it gives the tails
// more quantisation cells than the true density would. Nodes beyond the
// fiber's first and last samples get 0 (the density floor).
// e is scratch of len(mass)+1 values.
func neighbourDensity(mass []float64, share float64, p, e []float64) {
	g := len(mass)
	// e[i] is the mass below node i's neighbourhood [i-1/2, i+1/2].
	e[0] = 0
	first, last := -1, -1
	for i, v := range mass {
		e[i+1] = e[i] + v
		if v > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	total := e[g]
	for i := range p {
		p[i] = 0
	}
	if !(total > 0) {
		return
	}
	k := share * total
	at := func(i int) float64 { return e[max(0, min(g, i))] }
	mass0 := func(i int) float64 {
		if i < 0 || i >= g {
			return 0
		}
		return mass[i]
	}
	for i := first; i <= last; i++ {
		// Window [i-r, i+r] holds at(i+m+1) - at(i-m) at r = m + 1/2:
		// find the first such m reaching k, then solve linearly inside
		// the half-node segment before it.
		lo, hi := 0, g
		for lo < hi {
			m := (lo + hi) / 2
			if at(i+m+1)-at(i-m) >= k {
				hi = m
			} else {
				lo = m + 1
			}
		}
		m := lo
		var r float64
		if m == 0 {
			r = k / (2 * mass[i])
		} else {
			below := at(i+m) - at(i-m+1) // held at r = m - 1/2
			slope := mass0(i+m) + mass0(i-m)
			r = float64(m) - 0.5 + (k-below)/slope
		}
		p[i] = k / (2 * r)
	}
}

// prefixStrides returns row-major strides of a grid with the given shape.
func prefixStrides(shape []int) []int {
	s := make([]int, len(shape))
	st := 1
	for a := len(shape) - 1; a >= 0; a-- {
		s[a] = st
		st *= shape[a]
	}
	return s
}

// smoothAxis convolves h along axis a with a Gaussian of sd sigma (nodes),
// truncated at 3 sd, without renormalising at the borders (mass leaves the
// grid, as it would for a density estimate).
func smoothAxis(h []float64, shape, strides []int, a int, sigma float64) {
	g := shape[a]
	if g == 1 {
		return
	}
	r := int(math.Ceil(3 * sigma))
	if r > g-1 {
		r = g - 1
	}
	ker := make([]float64, 2*r+1)
	ks := 0.0
	for i := -r; i <= r; i++ {
		v := math.Exp(-0.5 * float64(i*i) / (sigma * sigma))
		ker[i+r] = v
		ks += v
	}
	for i := range ker {
		ker[i] /= ks
	}
	st := strides[a]
	line := make([]float64, g)
	out := make([]float64, g)
	outer := len(h) / (g * st)
	for o := 0; o < outer; o++ {
		for in := 0; in < st; in++ {
			base := o*g*st + in
			for i := 0; i < g; i++ {
				line[i] = h[base+i*st]
			}
			for i := 0; i < g; i++ {
				acc := 0.0
				lo, hi := max(0, i-r), min(g-1, i+r)
				for k := lo; k <= hi; k++ {
					acc += ker[k-i+r] * line[k]
				}
				out[i] = acc
			}
			for i := 0; i < g; i++ {
				h[base+i*st] = out[i]
			}
		}
	}
}

func column(u []float64, n, d, j int) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = u[i*d+j]
	}
	return c
}

// quantile of x (unsorted; x is sorted in place).
func quantile(x []float64, p float64) float64 {
	if !sort.Float64sAreSorted(x) {
		sort.Float64s(x)
	}
	pos := p * float64(len(x)-1)
	i := int(math.Floor(pos))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (pos-float64(i))*(x[i+1]-x[i])
}

// robustSD is min(sd, IQR/1.349), as in Silverman's rule.
func robustSD(x []float64) float64 {
	n := float64(len(x))
	m, ss := 0.0, 0.0
	for _, v := range x {
		m += v
	}
	m /= n
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / max(1, n-1))
	iqr := (quantile(x, 0.75) - quantile(x, 0.25)) / 1.349
	if iqr > 0 && iqr < sd {
		return iqr
	}
	return sd
}
