package spca

import "math"

// neighbourhood holds the reference samples (normalised coordinates) over
// which the local PCA of the curve drawing algorithm is computed.
type neighbourhood struct {
	d   int
	m   int       // number of reference samples
	k   int       // neighbours per query
	ref []float64 // m×d row-major
}

// localStats is the result of one neighbourhood query at a point.
type localStats struct {
	mean    []float64 // weighted mean of the neighbours
	cov     []float64 // weighted covariance, d×d row-major
	ahead   []float64 // weighted mean of (z_i - p) over neighbours ahead
	share   float64   // weight share of the neighbours ahead (0 without dir)
	nearest float64   // distance to the nearest reference sample
	h       float64   // neighbourhood radius (distance to the (k+1)-th)
}

// scratch is per-goroutine working memory, so that queries do not allocate.
type scratch struct {
	d2, sel   []float64
	st        localStats
	vals      []float64
	vecs, tmp []float64
	v, w      []float64
	proj      []float64
	frame     []float64
	clusters  []int
	assign    []int
	pairs     []pairScore
}

type pairScore struct {
	score float64
	a, c  int
}

func newScratch(d, m int) *scratch {
	return &scratch{
		d2:  make([]float64, m),
		sel: make([]float64, m),
		st: localStats{
			mean:  make([]float64, d),
			cov:   make([]float64, d*d),
			ahead: make([]float64, d),
		},
		vals:     make([]float64, d),
		vecs:     make([]float64, d*d),
		tmp:      make([]float64, d*d),
		v:        make([]float64, d),
		w:        make([]float64, d),
		proj:     make([]float64, d*d),
		frame:    make([]float64, d*d),
		clusters: make([]int, d),
		assign:   make([]int, d),
		pairs:    make([]pairScore, 0, d*d),
	}
}

// query computes the tapered-weight statistics of the k nearest reference
// samples of p. Weights (1-(r/h)^2)^2 with h the distance to the (k+1)-th
// neighbour make every statistic a continuous function of p, which keeps
// drawn curves, and so the transform, continuous (hard k-NN sets give
// piecewise-constant paths on which the correction iteration stalls).
// If dir is not nil, st.ahead is the weighted mean offset of the neighbours
// lying ahead of p along dir (zero if there are none).
func (nb *neighbourhood) query(p, dir []float64, s *scratch) *localStats {
	d, m := nb.d, nb.m
	ref := nb.ref
	d2 := s.d2
	near := math.Inf(1)
	for i := 0; i < m; i++ {
		row := ref[i*d : i*d+d]
		acc := 0.0
		for j, v := range row {
			t := v - p[j]
			acc += t * t
		}
		d2[i] = acc
		if acc < near {
			near = acc
		}
	}
	copy(s.sel, d2)
	kk := nb.k
	if kk > m-1 {
		kk = m - 1
	}
	h2 := quickSelect(s.sel, kk)
	if h2 <= 0 {
		h2 = math.SmallestNonzeroFloat64
	}
	st := &s.st
	st.nearest = math.Sqrt(near)
	st.h = math.Sqrt(h2)
	mean, cov, ahead := st.mean, st.cov, st.ahead
	for j := range mean {
		mean[j] = 0
		ahead[j] = 0
	}
	for j := range cov {
		cov[j] = 0
	}
	wsum, asum := 0.0, 0.0
	inv := 1 / h2
	for i := 0; i < m; i++ {
		if d2[i] >= h2 {
			continue
		}
		t := 1 - d2[i]*inv
		w := t * t
		row := ref[i*d : i*d+d]
		wsum += w
		for j, v := range row {
			mean[j] += w * v
		}
		if dir != nil {
			along := 0.0
			for j, v := range row {
				along += (v - p[j]) * dir[j]
			}
			if along > 0 {
				asum += w
				for j, v := range row {
					ahead[j] += w * (v - p[j])
				}
			}
		}
	}
	if wsum == 0 {
		// Every neighbour sits at distance h (ties): fall back to equal
		// weights on the closest ones.
		for i := 0; i < m; i++ {
			if d2[i] <= h2 {
				wsum++
				for j, v := range ref[i*d : i*d+d] {
					mean[j] += v
				}
			}
		}
	}
	for j := range mean {
		mean[j] /= wsum
	}
	st.share = 0
	if wsum > 0 {
		st.share = asum / wsum
	}
	if asum > 0 {
		for j := range ahead {
			ahead[j] /= asum
		}
	}
	for i := 0; i < m; i++ {
		if d2[i] >= h2 {
			continue
		}
		t := 1 - d2[i]*inv
		w := t * t
		row := ref[i*d : i*d+d]
		for a := 0; a < d; a++ {
			da := row[a] - mean[a]
			for b := a; b < d; b++ {
				cov[a*d+b] += w * da * (row[b] - mean[b])
			}
		}
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			cov[a*d+b] /= wsum
			cov[b*d+a] = cov[a*d+b]
		}
	}
	return st
}

// degenerateRatio is the eigenvalue ratio above which two local principal
// directions are treated as one subspace. Inside such a subspace the
// eigenvectors are arbitrary (round neighbourhoods in a sheet), so the frame
// is carried over by projection instead of being snapped to them: this is
// the parallel transport that keeps a secondary curve from rotating into
// another in-sheet direction.
const degenerateRatio = 0.5

// alignFrame replaces frame (d×d row-major, columns f_1..f_d) with the local
// eigenbasis of cov aligned and reordered against it (Appendix, step 4):
// each frame vector is matched with the eigen-subspace it projects on most,
// signs agree with the previous frame, and within near-degenerate
// subspaces the previous vectors are projected and re-orthonormalised.
func alignFrame(cov, frame []float64, d int, s *scratch) {
	copy(s.tmp, cov)
	symEigen(s.tmp, d, s.vals, s.vecs)
	vals, vecs := s.vals, s.vecs
	// Group sorted eigenvalues into near-degenerate clusters.
	cl := s.clusters
	c := 0
	cl[0] = 0
	for i := 1; i < d; i++ {
		if vals[i] < degenerateRatio*vals[i-1] || vals[i-1] <= 0 && vals[i] < 0 {
			c++
		}
		cl[i] = c
	}
	nc := c + 1
	// Projection of every frame vector on every eigenvector.
	proj := s.proj // proj[a*d+i] = f_a · v_i
	for a := 0; a < d; a++ {
		for i := 0; i < d; i++ {
			acc := 0.0
			for k := 0; k < d; k++ {
				acc += frame[k*d+a] * vecs[k*d+i]
			}
			proj[a*d+i] = acc
		}
	}
	// Greedy assignment of frame vectors to clusters by projected energy.
	pairs := s.pairs[:0]
	for a := 0; a < d; a++ {
		for ci := 0; ci < nc; ci++ {
			e := 0.0
			for i := 0; i < d; i++ {
				if cl[i] == ci {
					e += proj[a*d+i] * proj[a*d+i]
				}
			}
			pairs = append(pairs, pairScore{e, a, ci})
		}
	}
	// Insertion sort: at most 64 entries, deterministic tie order.
	for i := 1; i < len(pairs); i++ {
		for j := i; j > 0 && lessPair(pairs[j], pairs[j-1]); j-- {
			pairs[j], pairs[j-1] = pairs[j-1], pairs[j]
		}
	}
	assign := s.assign
	for a := range assign[:d] {
		assign[a] = -1
	}
	var capacity [64]int
	for i := 0; i < d; i++ {
		capacity[cl[i]]++
	}
	for _, p := range pairs {
		if assign[p.a] < 0 && capacity[p.c] > 0 {
			assign[p.a] = p.c
			capacity[p.c]--
		}
	}
	out := s.frame
	v := s.v
	for a := 0; a < d; a++ {
		ci := assign[a]
		for k := 0; k < d; k++ {
			acc := 0.0
			for i := 0; i < d; i++ {
				if cl[i] == ci {
					acc += proj[a*d+i] * vecs[k*d+i]
				}
			}
			v[k] = acc
		}
		// Orthogonalise against earlier frame vectors of the same cluster
		// (vectors of other clusters are orthogonal already).
		for b := 0; b < a; b++ {
			if assign[b] != ci {
				continue
			}
			t := 0.0
			for k := 0; k < d; k++ {
				t += v[k] * out[k*d+b]
			}
			for k := 0; k < d; k++ {
				v[k] -= t * out[k*d+b]
			}
		}
		n := norm(v)
		if n < 1e-6 {
			// The previous vector was orthogonal to its subspace: take the
			// eigenvector of the cluster least covered so far.
			bestRes := -1.0
			for i := 0; i < d; i++ {
				if cl[i] != ci {
					continue
				}
				for k := 0; k < d; k++ {
					s.w[k] = vecs[k*d+i]
				}
				for b := 0; b < a; b++ {
					if assign[b] != ci {
						continue
					}
					t := 0.0
					for k := 0; k < d; k++ {
						t += s.w[k] * out[k*d+b]
					}
					for k := 0; k < d; k++ {
						s.w[k] -= t * out[k*d+b]
					}
				}
				if r := norm(s.w); r > bestRes {
					bestRes = r
					copy(v, s.w)
				}
			}
			n = norm(v)
			if dot(v, colOf(frame, d, a, s.w)) < 0 {
				for k := range v {
					v[k] = -v[k]
				}
			}
		}
		for k := 0; k < d; k++ {
			out[k*d+a] = v[k] / n
		}
	}
	copy(frame, out)
}

func lessPair(x, y pairScore) bool {
	if x.score != y.score {
		return x.score > y.score
	}
	if x.a != y.a {
		return x.a < y.a
	}
	return x.c < y.c
}

// colOf copies column a of the d×d row-major matrix m into dst.
func colOf(m []float64, d, a int, dst []float64) []float64 {
	for k := 0; k < d; k++ {
		dst[k] = m[k*d+a]
	}
	return dst
}
