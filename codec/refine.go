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
			cache = c.takeCellCache(n)
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
		best := dist2(invert(cell), x) + float64(lambda*float64(r))
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
					rate := float64(lambda * float64(rt)) // rounded: no FMA into e below
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
// does), each patch's search through search4 (TestRefine4).
func (rf *refiner) refine4(lo, hi int) {
	c, y, idx, cache := rf.c, rf.y, rf.idx, rf.cache
	_, dims := y.Dims()
	p := refine4Run{
		slots: unsafe.Pointer(unsafe.SliceData(cache.slots)), mask: uint64(cache.mask), lambda: rf.lambda, st: [4]uint64(rf.strides[:4]),
		top: [4]int{c.Bins[0], c.Bins[1], c.Bins[2], c.Bins[3]},
		ctr: [4]int{c.Centre[0], c.Centre[1], c.Centre[2], c.Centre[3]},
	}
	var pf [maxPrefetch]uintptr
	for i := lo; i < hi; i++ {
		// rf.prefetch's hints, with hintLines4.
		np := 0
		if a := i + 2; a < hi {
			pf[0] = uintptr(unsafe.Pointer(&idx[a*dims]))
			pf[1] = uintptr(unsafe.Pointer(&y.RawRowView(a)[0]))
			np = 2
		}
		if a := i + 1; a < hi {
			next := (*[4]int32)(idx[a*dims:])
			key := uint64(next[0])*p.st[0] + uint64(next[1])*p.st[1] + uint64(next[2])*p.st[2] + uint64(next[3])*p.st[3]
			hintLines4(&p, &pf, np, key, next)
		} else {
			prefetchLines(&pf, np)
		}
		p.x = (*[4]float64)(y.RawRowView(i)[:4])
		out := (*[4]int32)(idx[i*dims : i*dims+4])
		p.start(out)
		row := slot4(p.slots, p.mask, p.key)
		if row == nil {
			row = rf.fill4(&p, p.key, &p.cell)
		}
		p.best = dist4(row, p.x) + float64(p.lambda*float64(p.r))
		for search4(&p) {
			rf.fillRound(&p)
		}
		*out = [4]int32{int32(p.cell[0]), int32(p.cell[1]), int32(p.cell[2]), int32(p.cell[3])}
	}
}

// refine4Run is the state of refine4's search of a patch's cell: the
// patch's leading coefficients x; the cell cache's slots (from their
// start, cellSlotWords(4) words each; mask their count less one); λ; the cells'
// strides (numbers), bins and centres; the cell, its number key, its rate
// r (before λ) and its dimensions' rates boff (the first's unused), and
// its D + λR best; the move that leads back (from) and the moves made.
// Within a round of the 8 moves, c is the next one, 2j for dimension j's
// index less one, 2j+1 for plus one, and bc, br the best so far (-1: none)
// and its rate.
type refine4Run struct {
	x          *[4]float64
	slots      unsafe.Pointer
	mask       uint64
	lambda     float64
	st         [4]uint64
	top, ctr   [4]int
	cell, boff [4]int
	key        uint64
	r          int
	best       float64
	from, move int
	c, bc, br  int
}

// start sets p's search at the cell out, before its D + λR (best).
func (p *refine4Run) start(out *[4]int32) {
	p.cell = [4]int{int(out[0]), int(out[1]), int(out[2]), int(out[3])}
	p.key = uint64(p.cell[0])*p.st[0] + uint64(p.cell[1])*p.st[1] + uint64(p.cell[2])*p.st[2] + uint64(p.cell[3])*p.st[3]
	p.boff = [4]int{0, bitsOff(p.cell[1], p.ctr[1]), bitsOff(p.cell[2], p.ctr[2]), bitsOff(p.cell[3], p.ctr[3])}
	p.r = p.boff[1] + p.boff[2] + p.boff[3]
	p.from, p.move, p.c, p.bc = -1, 0, 0, -1
}

// search4Go is search4 in Go: refineK's steepest descent from p's state
// on, the moves' inverses read from the cache. It returns true where the
// inverse of move p.c is not in the cache (the caller puts it in and
// calls again), false when the search is over (p.cell).
func search4Go(p *refine4Run) bool {
	for {
		for ; p.c < 8; p.c++ {
			c := p.c
			if c == p.from { // back is no better
				continue
			}
			j, d := c>>1, c&1*2-1
			v := p.cell[j] + d
			if uint(v) >= uint(p.top[j]) {
				continue
			}
			rt := p.r
			if j > 0 {
				rt += bitsOff(v, p.ctr[j]) - p.boff[j]
			}
			// The distance is ≥ 0, so a rate term alone at least best
			// cannot win (x + y ≥ y for x ≥ 0).
			rate := float64(p.lambda * float64(rt)) // rounded: no FMA into e below
			if !(rate < p.best) {
				continue
			}
			row := slot4(p.slots, p.mask, p.key+uint64(d)*p.st[j]) // key ∓ st[j], modulo 2^64
			if row == nil {
				return true
			}
			if e := dist4(row, p.x) + rate; e < p.best {
				p.best, p.bc, p.br = e, c, rt
			}
		}
		if p.bc < 0 {
			return false
		}
		j, d := p.bc>>1, p.bc&1*2-1
		p.cell[j] += d
		p.key += uint64(d) * p.st[j]
		p.boff[j] = bitsOff(p.cell[j], p.ctr[j])
		p.r, p.from = p.br, p.bc^1 // the opposite direction
		if p.move++; p.move == maxRefine {
			return false
		}
		p.c, p.bc = 0, -1
	}
}

// fillRound puts into p's cache the inverse of the candidate p.c, which
// search4 found missing, and those of the round's later candidates it
// will try that are missing too, p.c's last (filled in order, two
// candidates of one slot leave the later one; p.c's is there when the
// search goes on from it). The misses of a patch come together, in parts
// of an image whose cells the cache has not seen: filled one at a time,
// each cost a return from search4 and a re-entry at p.c (a mispredicted
// branch or two).
func (rf *refiner) fillRound(p *refine4Run) {
	for c := p.c + 1; c < 8; c++ {
		j, d := c>>1, c&1*2-1
		v := p.cell[j] + d
		if c == p.from || uint(v) >= uint(p.top[j]) {
			continue
		}
		// search4's test of the rate; the best may still fall before
		// the search reaches c, which then leaves its inverse unused.
		rt := p.r
		if j > 0 {
			rt += bitsOff(v, p.ctr[j]) - p.boff[j]
		}
		key := p.key + uint64(d)*p.st[j]
		if !(p.lambda*float64(rt) < p.best) || slot4(p.slots, p.mask, key) != nil {
			continue
		}
		try := p.cell
		try[j] = v
		rf.fill4(p, key, &try)
	}
	j, d := p.c>>1, p.c&1*2-1
	try := p.cell
	try[j] += d
	rf.fill4(p, p.key+uint64(d)*p.st[j], &try)
}

// hint4 is cellCache.hint for refine4's cache (p's slots, strides and
// bins): it appends to pf, from n on, the addresses of the slots of the
// cell numbered key (indices cell) and of its neighbours one bin away
// within the bins (a slot is a line), and returns the new count.
// Unrolled, the addresses computed from the slots' start (a slot is below
// the cache's length): hint's closure and bounds checks cost refine4 ~375
// instructions a patch.
func hint4(p *refine4Run, pf *[maxPrefetch]uintptr, n int, key uint64, cell *[4]int32) int {
	slots := uintptr(p.slots)
	slot := func(key uint64) uintptr { return uintptr(hashCell(key, int(p.mask))) } // cellCache.slot
	pf[n] = slots + slot4Bytes*slot(key)
	n++
	for j := range 4 {
		if cell[j] > 0 {
			pf[n] = slots + slot4Bytes*slot(key-p.st[j])
			n++
		}
		if int(cell[j])+1 < p.top[j] {
			pf[n] = slots + slot4Bytes*slot(key+p.st[j])
			n++
		}
	}
	return n
}

// slot4Bytes is the size of a slot of refine4's cache, its row at
// offset slot4Bytes-32.
const slot4Bytes = 8 * 8 // cellSlotWords(4) words

// slot4 returns the inverse of the cell numbered key from refine4's
// cache (the start of its slots, mask their count less one), or nil if
// its slot holds another cell: cellCache.invert's lookup, without the
// slices.
func slot4(slots unsafe.Pointer, mask, key uint64) *[4]float64 {
	s := unsafe.Add(slots, slot4Bytes*uintptr(hashCell(key, int(mask)))) // cellCache.slot
	if *(*uint64)(s) != key+1 {
		return nil
	}
	return (*[4]float64)(unsafe.Add(s, slot4Bytes-32))
}

// fill4 makes the slot of the cell numbered key (indices cell) in p's
// cache that cell's, with its inverse, and returns the inverse.
func (rf *refiner) fill4(p *refine4Run, key uint64, cell *[4]int) *[4]float64 {
	s := unsafe.Add(p.slots, slot4Bytes*uintptr(hashCell(key, int(p.mask))))
	*(*uint64)(s) = key + 1
	row := (*[4]float64)(unsafe.Add(s, slot4Bytes-32))
	rf.li.Invert4(row, cell, rf.s)
	return row
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
