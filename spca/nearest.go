package spca

import "math"

// nodeTree is a k-d tree over points, for the exact nearest point of a
// query: the same answer as scanning them all in order (the first of the
// closest, by the same dist2), in O(log n) on average instead of O(n).
// Restarts of the forward transform look up the nearest of up to
// restartNodes lattice nodes, which by scanning was half the cost of the
// codec's exact path and a sixth of building an adaptation LUT.
type nodeTree struct {
	d    int
	x    []float64 // points, row-major
	perm []int     // point indices in tree order
	axis []int8    // splitting axis of the node at each inner position
}

// treeLeaf is the size below which a subtree is scanned.
const treeLeaf = 8

func newNodeTree(x []float64, d int) *nodeTree {
	n := len(x) / d
	t := &nodeTree{d: d, x: x, perm: make([]int, n), axis: make([]int8, n)}
	for i := range t.perm {
		t.perm[i] = i
	}
	t.build(0, n)
	return t
}

// build orders perm[lo:hi] as a subtree: the median along the axis of
// largest spread at the middle position, the points at or below it
// before, the points at or above it after.
func (t *nodeTree) build(lo, hi int) {
	if hi-lo <= treeLeaf {
		return
	}
	d := t.d
	a, spread := 0, -1.0
	for j := 0; j < d; j++ {
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, p := range t.perm[lo:hi] {
			v := t.x[p*d+j]
			mn, mx = min(mn, v), max(mx, v)
		}
		if mx-mn > spread {
			a, spread = j, mx-mn
		}
	}
	// Only the median's place matters: the points before it are the
	// lesser, those after it the greater, in an order (ties by index) that
	// is total, so the subtrees hold the same points whatever their order,
	// and a leaf's order does not change its nearest (ties by index). A
	// selection instead of a sort builds the restart tree of the 8×8 Kodak
	// codec model (4096 nodes, which its first encode waits for) in ~1/8 of
	// the instructions (sort.Slice: ~20 M).
	mid := (lo + hi) / 2
	t.selectRank(t.perm[lo:hi], mid-lo, a)
	t.axis[mid] = int8(a)
	t.build(lo, mid)
	t.build(mid+1, hi)
}

// less orders points p and q by coordinate a, then by index.
func (t *nodeTree) less(p, q, a int) bool {
	vp, vq := t.x[p*t.d+a], t.x[q*t.d+a]
	return vp < vq || vp == vq && p < q
}

// selectRank reorders s so that s[k] is its point of rank k by less
// (coordinate a), the lesser ones before it and the greater after it:
// quickselect with Hoare's partition around a median of three, which
// sorted and grid-like coordinates do not degrade.
func (t *nodeTree) selectRank(s []int, k, a int) {
	lo, hi := 0, len(s)-1
	for hi-lo >= 8 {
		m := lo + (hi-lo)/2
		if t.less(s[m], s[lo], a) {
			s[m], s[lo] = s[lo], s[m]
		}
		if t.less(s[hi], s[lo], a) {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if t.less(s[hi], s[m], a) {
			s[hi], s[m] = s[m], s[hi]
		}
		// s[lo] <= s[m] <= s[hi]: the ends stop the scans below.
		s[m], s[hi-1] = s[hi-1], s[m]
		pivot := s[hi-1]
		i, j := lo, hi-1
		for {
			for i++; t.less(s[i], pivot, a); i++ {
			}
			for j--; t.less(pivot, s[j], a); j-- {
			}
			if i >= j {
				break
			}
			s[i], s[j] = s[j], s[i]
		}
		s[i], s[hi-1] = s[hi-1], s[i] // the pivot, at its rank i
		switch {
		case k < i:
			hi = i - 1
		case k > i:
			lo = i + 1
		default:
			return
		}
	}
	for i := lo + 1; i <= hi; i++ { // insertion sort of the rest
		for j := i; j > lo && t.less(s[j], s[j-1], a); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// nearest returns the index of the point closest to z: of the points at
// the least distance, the first; 0 if no distance compares (NaN in z).
func (t *nodeTree) nearest(z []float64) int {
	best, bi := math.Inf(1), -1
	t.search(z, 0, len(t.perm), &best, &bi)
	return max(bi, 0)
}

func (t *nodeTree) search(z []float64, lo, hi int, best *float64, bi *int) {
	d := t.d
	if hi-lo <= treeLeaf {
		for _, p := range t.perm[lo:hi] {
			t.offer(z, p, best, bi)
		}
		return
	}
	mid := (lo + hi) / 2
	p := t.perm[mid]
	t.offer(z, p, best, bi)
	a := int(t.axis[mid])
	// diff² bounds dist2 from below for every point across the split:
	// its coordinate a is farther from z's, and dist2 adds that term to
	// non-negative ones. Equal bounds are not pruned: a point at the
	// same distance may come first.
	diff := z[a] - t.x[p*d+a]
	if diff < 0 {
		t.search(z, lo, mid, best, bi)
		if diff*diff <= *best || *bi < 0 {
			t.search(z, mid+1, hi, best, bi)
		}
	} else {
		t.search(z, mid+1, hi, best, bi)
		if diff*diff <= *best || *bi < 0 {
			t.search(z, lo, mid, best, bi)
		}
	}
}

func (t *nodeTree) offer(z []float64, p int, best *float64, bi *int) {
	v := dist2(z, t.x[p*t.d:(p+1)*t.d])
	if v < *best || v == *best && p < *bi {
		*best, *bi = v, p
	}
}

// scanNodes returns nodeTree.nearest's answer by scanning the points x
// (d coordinates each) in order: the first of those closest to z by
// dist2 (0 if none compares below +Inf, as with NaN).
func scanNodes(x []float64, d int, z []float64) int {
	best, bi := math.Inf(1), 0
	for i := range len(x) / d {
		if v := dist2(z, x[i*d:(i+1)*d]); v < best {
			best, bi = v, i
		}
	}
	return bi
}

// columns4 stores the points x of 4 coordinates by coordinate, as
// scanNodes4 reads them: coordinate j of point i at j*n+i.
func columns4(x []float64) []float64 {
	n := len(x) / 4
	xs := make([]float64, 4*n)
	for i := range n {
		for j := range 4 {
			xs[j*n+i] = x[4*i+j]
		}
	}
	return xs
}

// scanNodes4 is scanNodes of n points of 4 coordinates stored by
// columns4, four at a time by scan4AVX2 where the CPU has AVX2 (~1 µs
// for 4096 points, the Go loop ~4 times that, a call of dist2 a point
// ~30): the same sums, the same comparisons, lane by lane, and the
// least of the lanes' (ties to the first point).
func scanNodes4(xs []float64, n int, z *[4]float64) int {
	best, bi := math.Inf(1), 0
	k := 0
	if hasScan4Kernel && n >= 4 {
		k = n &^ 3
		var lb [4]float64
		var li [4]int64
		scan4AVX2(xs, n, k, z, &lb, &li)
		for l, v := range lb {
			if i := int(li[l]); v < best || v == best && i < bi {
				best, bi = v, i
			}
		}
	}
	x0, x1, x2, x3 := xs[:n], xs[n:2*n], xs[2*n:3*n], xs[3*n:4*n]
	for i := k; i < n; i++ {
		t0, t1, t2, t3 := z[0]-x0[i], z[1]-x1[i], z[2]-x2[i], z[3]-x3[i]
		v := float64(t0*t0) + float64(t1*t1) // dist2's 0 + t0·t0 is t0·t0 (or NaN)
		v += float64(t2 * t2)
		v += float64(t3 * t3)
		if v < best {
			best, bi = v, i
		}
	}
	return bi
}
