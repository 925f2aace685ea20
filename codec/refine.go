package codec

import (
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/spca"
)

// Rate–distortion refinement of the SPCA cells in the entropy-constrained
// mode (encoder only; the decoder and the format are unchanged).
//
// The cells of the SPCA responses are not the Voronoi cells of their
// reconstructions (see the package documentation, "Assigning patches to
// cells"): on the curved grid, a neighbouring cell's reconstruction is
// often nearer to a patch than its own cell's. refineNearest moves a
// patch there when the squared error saved outweighs the bits the move
// costs, D + λR with λ = refineLambda·step² per bit and R counted as
// refineNonzeroBits for each further dimension off its centre index plus
// one per further bin. A linear transform (PCA) has no such cells: its
// dead-zone cells are already the Voronoi cells of their levels, per
// coefficient. λ and the bit costs were chosen on Kodak training images
// (kodim02-12 even, 4×4 and 8×8 gamma-0 models, steps 0.5-4× the
// model's): λ = 0.06 gave SPCA against PCA with the same machinery
// +1.6 → +0.1 % (4×4) and -1.8 → -2.3 % (8×8) BD-rate by PSNR, -1.7 →
// -3.7 % and -3.7 → -4.6 % by SSIM; without the rate term SSIM gained
// more and PSNR lost.
const (
	refineLambda      = 0.06
	refineNonzeroBits = 3
	// maxRefine bounds the moves of one patch.
	maxRefine = 4
)

// refineNearest moves the leading cell of every patch of an
// entropy-constrained channel, one bin in one dimension at a time
// (steepest descent, at most maxRefine moves), to the neighbouring cell
// with the smallest D + λR, D the squared distance between the patch's
// leading PCA coefficients y and the inverse of the cell's levels. It
// reports false, changing nothing, where the channel has no SPCA
// dimensions or its inverse is not separable (gamma > 0).
func (c *Channel) refineNearest(y *mat.Dense, idx []int32, step float64) bool {
	k := c.Leading()
	if k == 0 || c.Lead == nil || !(step > 0) {
		return false
	}
	li := c.levelInverse()
	if li == nil {
		return false
	}
	n, _ := y.Dims()
	lambda := refineLambda * step * step
	// Cells are numbered for the cache (cellCache) where they fit in 64
	// bits; else every inverse is computed.
	strides := c.cellStrides()
	c.cellsUsed.Store(true)
	blocks := (n + nearestBlock - 1) / nearestBlock
	parallel.For(blocks, func(b int) {
		s := c.SPCA.NewMetricScratch()
		var cache *cellCache
		if strides != nil {
			cache = c.takeCellCache()
			defer c.putCellCache(cache)
		}
		r := refiner{c: c, y: y, idx: idx, li: li, cache: cache, strides: strides, lambda: lambda, s: s}
		lo, hi := b*nearestBlock, min(n, (b+1)*nearestBlock)
		if k == 4 && cache != nil {
			r.refine4(lo, hi)
			return
		}
		r.refineK(lo, hi)
	})
	return true
}

// refiner refines the cells of patches for refineNearest: y the patches'
// PCA coefficients, idx their indices, li the inverse of the leading
// cells, through cache where the cells' numbers (strides) fit in 64 bits
// (else nil), lambda the rate's weight.
type refiner struct {
	c       *Channel
	y       *mat.Dense
	idx     []int32
	li      *spca.LevelInverse
	cache   *cellCache
	strides []uint64
	lambda  float64
	s       *spca.MetricScratch
}

// refineK refines patches lo to hi-1, for any number of leading
// dimensions, with or without the cache.
func (rf *refiner) refineK(lo, hi int) {
	c, y, idx, li, cache, strides, lambda, s := rf.c, rf.y, rf.idx, rf.li, rf.cache, rf.strides, rf.lambda, rf.s
	_, dims := y.Dims()
	k := c.Leading()
	// bits is the rate term of a cell before λ: a whole number, so its
	// sums are exact in any order and a move's changes it by bitsOff.
	bits := func(cell []int) int {
		r := 0
		for j := 1; j < len(cell); j++ {
			r += bitsOff(cell[j], c.Centre[j])
		}
		return r
	}
	cell := make([]int, k)
	try := make([]int, k)
	buf := make([]float64, k)
	invert := func(cell []int) []float64 {
		if cache == nil {
			li.Invert(buf, cell, s)
			return buf
		}
		var key uint64
		for j, v := range cell {
			key += uint64(v) * strides[j]
		}
		return cache.invert(li, cell, key, s)
	}
	var pf [maxPrefetch]uintptr
	for i := lo; i < hi; i++ {
		if cache != nil {
			rf.prefetch(&pf, i, hi)
		}
		x := y.RawRowView(i)[:k]
		for j := range cell {
			cell[j] = int(idx[i*dims+j])
		}
		r := bits(cell)
		best := dist2(invert(cell), x) + lambda*float64(r)
		from := -1 // the move that led here: back is no better
		for move := 0; move < maxRefine; move++ {
			bj, bv, br := -1, 0, 0
			for j := 0; j < k; j++ {
				for _, d := range [2]int{-1, 1} {
					v := cell[j] + d
					if v < 0 || v >= c.Bins[j] || 2*j+(d+1)/2 == from {
						continue
					}
					rt := r
					if j > 0 {
						rt += bitsOff(v, c.Centre[j]) - bitsOff(cell[j], c.Centre[j])
					}
					// The distance is ≥ 0, so a rate term alone at
					// least best cannot win (x + y ≥ y for x ≥ 0).
					rate := lambda * float64(rt)
					if !(rate < best) {
						continue
					}
					copy(try, cell)
					try[j] = v
					if e := dist2(invert(try), x) + rate; e < best {
						best, bj, bv, br = e, j, v, rt
					}
				}
			}
			if bj < 0 {
				break
			}
			from = 2*bj + (1-(bv-cell[bj]))/2 // the opposite direction
			cell[bj], r = bv, br
		}
		for j := range cell {
			idx[i*dims+j] = int32(cell[j])
		}
	}
}

// prefetch asks for the lines the patches after i (below hi) start
// with: while patch i is refined, the slots of patch i+1's cell and its
// neighbours (its indices came in one patch ago), and patch i+2's indices
// and coefficients, come in. In a batch they are far from the
// processor's caches: without the hints, refineNearest waited on these
// loads most of its time (perf).
func (rf *refiner) prefetch(pf *[maxPrefetch]uintptr, i, hi int) {
	_, dims := rf.y.Dims()
	k := rf.c.Leading()
	np := 0
	if a := i + 2; a < hi {
		pf[0] = uintptr(unsafe.Pointer(&rf.idx[a*dims]))
		pf[1] = uintptr(unsafe.Pointer(&rf.y.RawRowView(a)[0]))
		np = 2
	}
	if a := i + 1; a < hi {
		next := rf.idx[a*dims : a*dims+k]
		var key uint64
		for j, v := range next {
			key += uint64(v) * rf.strides[j]
		}
		np = rf.cache.hint(pf, np, key, next, rf.strides, rf.c.Bins)
	}
	prefetchLines(pf, np)
}

// refine4 is refineK for 4 leading dimensions with the cache: the same
// moves tried in the same order, the same sums (dist4 adds as dist2
// does), with the cell, its number and its inverse in arrays and the
// cache's hits inline (TestRefine4).
func (rf *refiner) refine4(lo, hi int) {
	c, y, idx, li, cache, lambda, s := rf.c, rf.y, rf.idx, rf.li, rf.cache, rf.lambda, rf.s
	_, dims := y.Dims()
	st := [4]uint64(rf.strides[:4])
	top := [4]int{c.Bins[0], c.Bins[1], c.Bins[2], c.Bins[3]}
	ctr := [4]int{c.Centre[0], c.Centre[1], c.Centre[2], c.Centre[3]}
	var tmp [4]int
	// inverse returns the inverse of the cell tc numbered key.
	inverse := func(tc *[4]int, key uint64) *[4]float64 {
		row, ok := cache.row4(key)
		if !ok {
			tmp = *tc
			li.Invert(row[:], tmp[:], s)
		}
		return row
	}
	var pf [maxPrefetch]uintptr
	for i := lo; i < hi; i++ {
		// rf.prefetch's hints, with hint4.
		np := 0
		if a := i + 2; a < hi {
			pf[0] = uintptr(unsafe.Pointer(&idx[a*dims]))
			pf[1] = uintptr(unsafe.Pointer(&y.RawRowView(a)[0]))
			np = 2
		}
		if a := i + 1; a < hi {
			next := (*[4]int32)(idx[a*dims:])
			key := uint64(next[0])*st[0] + uint64(next[1])*st[1] + uint64(next[2])*st[2] + uint64(next[3])*st[3]
			np = cache.hint4(&pf, np, key, next, &st, &top)
		}
		prefetchLines(&pf, np)
		x := (*[4]float64)(y.RawRowView(i)[:4])
		out := (*[4]int32)(idx[i*dims : i*dims+4])
		cell := [4]int{int(out[0]), int(out[1]), int(out[2]), int(out[3])}
		key := uint64(cell[0])*st[0] + uint64(cell[1])*st[1] + uint64(cell[2])*st[2] + uint64(cell[3])*st[3]
		r := bitsOff(cell[1], ctr[1]) + bitsOff(cell[2], ctr[2]) + bitsOff(cell[3], ctr[3])
		best := dist4(inverse(&cell, key), x) + lambda*float64(r)
		from := -1 // the move that led here: back is no better
		for move := 0; move < maxRefine; move++ {
			bj, bv, br := -1, 0, 0
			for j := 0; j < 4; j++ {
				for d := -1; d <= 1; d += 2 {
					v := cell[j] + d
					if v < 0 || v >= top[j] || 2*j+(d+1)/2 == from {
						continue
					}
					rt := r
					if j > 0 {
						rt += bitsOff(v, ctr[j]) - bitsOff(cell[j], ctr[j])
					}
					rate := lambda * float64(rt)
					if !(rate < best) {
						continue
					}
					try := cell
					try[j] = v
					tkey := key - st[j]
					if d > 0 {
						tkey = key + st[j]
					}
					if e := dist4(inverse(&try, tkey), x) + rate; e < best {
						best, bj, bv, br = e, j, v, rt
					}
				}
			}
			if bj < 0 {
				break
			}
			from = 2*bj + (1-(bv-cell[bj]))/2 // the opposite direction
			if bv > cell[bj] {
				key += st[bj]
			} else {
				key -= st[bj]
			}
			cell[bj], r = bv, br
		}
		*out = [4]int32{int32(cell[0]), int32(cell[1]), int32(cell[2]), int32(cell[3])}
	}
}

// bitsOff is the rate (before λ) refineNearest counts for index v of a
// dimension whose centre index is centre: refineNonzeroBits for a
// dimension off its centre, plus one per further bin.
func bitsOff(v, centre int) int {
	if d := abs(v - centre); d > 0 {
		return refineNonzeroBits + d - 1
	}
	return 0
}
