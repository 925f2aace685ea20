package codec

import (
	"math"
	"sort"
	"unsafe"

	"github.com/spcalab/spca/spca"
)

// Format version 6 is version 5 with two changes to the arithmetic coder,
// which code the same indices (so the same pixels) in fewer bits. On
// Kodak kodim02-12 even in grey with the default model (8×8, gamma 0,
// step 30): 0.2-0.8 % fewer bits than version 5 at steps 15-60, for SPCA
// and for PCA with the same quantisers alike.
//   - The probabilities are the mean of a fast and a slow estimate (see
//     arProb).
//   - The first index of a patch is predicted from the decoded pixels of
//     its left and upper neighbours: half the mean of the left one's right
//     column and the upper one's bottom row (the DC mode of H.264's intra
//     prediction), half LOCO-I's median of the three neighbours' means,
//     turned into the first-dimension index whose reconstruction (the
//     other leading dimensions at their centre) has that mean. The
//     neighbours' pixels are their indices' reconstruction (leading cells
//     through the inverse SPCA of their levels, the rest at their levels)
//     before the outlier patches and the deblocking filter, so the decoder
//     computes them as it decodes, patch by patch, with the same
//     operations as the encoder. At 8×8 the first index is only 6-15 %
//     of the bits (steps 15-60; the dimensions beyond the leading four
//     are 70 %), so this gains 0.2 %.

// edgePredictor computes the edges of decoded patches and predicts the
// first index of the next from them (format version 6).
type edgePredictor struct {
	dims, k, cols int
	li            *spca.LevelInverse
	scratch       *spca.MetricScratch
	levels        [][]float64 // levels of the dimensions after the leading ones
	wRight, wLow  []float64   // weight of each coefficient in the mean of the right column / bottom row
	mRight, mLow  float64     // the PCA mean's part of those means
	first         []float64   // first coefficient of each first-dimension index (the other leading ones at their centre)
	right, low    []float64   // per patch: mean of the right column and of the bottom row
	mean          []float64   // per patch: its mean
	wAll          []float64   // weight of each coefficient in the patch mean
	mAll          float64     // the PCA mean's part of it
	y             []float64   // scratch: the patch's coefficients
	b             []int       // scratch: its leading cell
	sorted        bool        // first increases strictly (see nearestSorted)
	guide         levelGuide  // where sorted: finds nearestSorted's index
	// centreZero: every dimension after the leading ones has the level 0
	// at its centre index, so update can stop at a row's last index off
	// its centre (updateTo).
	centreZero bool
	// With trackCells, the distinct leading cells and their inverses,
	// as distinctRows numbers and computes them.
	cells *cellNumbers
	bins  []int
	rows  []float64
	sums  []float64 // per cell: leadSums of its row
	ref   []int32
	ends  []uint16 // per patch, updateTo's end, where centreZero (see leadCells)
	// The cells updateAt saw lately, by key (trackCells).
	recent *[recentCells]recentCell
	// trackedListed: trackCells and centreZero, where updateListed
	// takes updateListedTracked; wRest holds the weights of each
	// dimension after the leading ones, as wRight, wLow and wAll.
	trackedListed bool
	wRest         [][3]float64
	// centreTerms: where some centre's level is not 0 (not centreZero;
	// the chroma of the colour models, whose dimensions of one level keep
	// a small mean), those dimensions after the leading ones in order,
	// with the products of that level by wRight, wLow and wAll that
	// update adds for them wherever they are at their centre.
	centreTerms []centreTerm
}

// centreTerm is a dimension j whose centre's level is not 0 and the
// products p of that level by the weights of the right column's, the
// bottom row's and the patch's means (see centreTerms).
type centreTerm struct {
	p [3]float64
	j int32
}

// recentCells is the size of the predictor's cache of recent cells: the
// cell of a patch is often one of a neighbour's or of a patch not far
// before (a 4×4 photograph's patch found its cell there 40-70 % of the
// time), and the cache, 160 KB, stays in the processor's cache where
// the table of every cell (cellNumbers) and the cells' sums, 0.5-1 MB a
// 768×512 image, do not: the table's misses were 7-10 % of a 4×4 batch
// decode's time.
const recentCells = 1 << 12

// recentCell is a slot of the cache of recent cells: the key+1 (0:
// empty) of the last cell there, its number and the sums of its row
// (leadSums).
type recentCell struct {
	key  uint64
	sums [3]float64
	num  int32
}

// trackCells makes update invert each distinct leading cell once and
// keep it, for leadCells, where leadRows would invert the distinct cells
// again (no codebook, keys that fit): the decoder then inverts each cell
// once instead of once per patch and once more per distinct cell.
func (p *edgePredictor) trackCells(c *Channel, blocks int) {
	ends := p.ends // the last image's, reused: 2 bytes a patch
	// update writes ends where it is not nil: it must be this image's
	// (a pooled predictor kept a smaller image's, out of range for a
	// larger one, once the channel's codebook took over from the cells).
	p.ends, p.trackedListed = nil, false
	if p.k == 0 || c.codebookFor(blocks) != nil || !c.cellsNumbered(blocks) {
		p.cells = nil
		return
	}
	p.track(c, blocks, ends)
}

// track is trackCells once it has decided to track, given the last
// image's ends to reuse (the tests track channels with a codebook too).
func (p *edgePredictor) track(c *Channel, blocks int, ends []uint16) {
	if p.cells == nil {
		p.cells = newCellNumbers(blocks)
	} else {
		p.cells.reset(blocks)
	}
	p.bins, p.ref = c.Bins[:p.k], resize(p.ref, blocks)
	// Room for the cells of a sixteenth of the patches, then 4 times as
	// many up to all (growCells): appending (1.25 times as many each time)
	// allocated ~5 times their final size, 3.4 MB for a 768×512
	// photograph in 4×4 patches, fresh memory in a process that codes one
	// image (photographs have 13-65 % as many cells as patches).
	if n := blocks/16 + 1; cap(p.rows) < p.k*n || cap(p.sums) < 3*n {
		p.rows, p.sums = make([]float64, 0, p.k*n), make([]float64, 0, 3*n)
	}
	p.rows, p.sums = p.rows[:0], p.sums[:0]
	p.trackedListed = p.centreZero
	if p.trackedListed {
		p.wRest3()
	}
	if p.recent == nil {
		p.recent = new([recentCells]recentCell)
	} else {
		clear(p.recent[:])
	}
	if p.centreZero && p.dims < 1<<16 {
		p.ends = resize(ends[:cap(ends)], blocks)
		for i := range p.ends {
			p.ends[i] = uint16(p.dims) // update's end until updateTo says less
		}
	}
}

// resize returns s with length n, reusing its array if large enough.
// The contents are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// maxPooledBlocks caps the patches of a predictor kept for the next
// decode (putEdgePredictor): one of 2^17 patches holds about 5 MB.
const maxPooledBlocks = 1 << 17

// takeEdgePredictor returns the predictor of a channel of blocks patches
// in rows of cols tracking cells (trackCells), as newEdgePredictor and
// trackCells make it, but reusing one an earlier decode handed back
// (putEdgePredictor): in a batch, its arrays, its table of cells and its
// inverted first-dimension levels then serve every image (a fresh
// predictor was a third of the memory a decode allocated, and each image
// faulted its pages in again).
func (c *Channel) takeEdgePredictor(blocks, cols int) *edgePredictor {
	c.cellsMu.Lock()
	var p *edgePredictor
	if n := len(c.edges); n > 0 {
		p, c.edges = c.edges[n-1], c.edges[:n-1]
	}
	c.cellsMu.Unlock()
	if p == nil {
		p = c.newEdgePredictor(blocks, cols)
	} else {
		p.cols = cols
		p.right, p.low, p.mean = resize(p.right, blocks), resize(p.low, blocks), resize(p.mean, blocks)
	}
	p.trackCells(c, blocks)
	return p
}

// putEdgePredictor hands p back for the next decode of the channel (see
// takeEdgePredictor); nothing of p (its leadCells) may be used after.
func (c *Channel) putEdgePredictor(p *edgePredictor) {
	if len(p.right) > maxPooledBlocks {
		return
	}
	c.cellsMu.Lock()
	c.edges = append(c.edges, p)
	c.cellsMu.Unlock()
}

// leadCells returns what leadRows returns for the indices update saw
// (patches 0, 1, ... in order), or false without trackCells (or p).
func (p *edgePredictor) leadCells() (leadCells, bool) {
	if p == nil || p.cells == nil {
		return leadCells{}, false
	}
	return leadCells{rows: p.rows, ref: p.ref, ends: p.ends}, true
}

// edgePredictable reports whether the channel's first indices can be
// predicted from pixels (version 6): in the entropy-constrained mode,
// with a separable SPCA metric (gamma 0) or without SPCA.
func (c *Channel) edgePredictable() bool {
	if c.Lead == nil && c.Leading() > 0 || len(c.Rest) != c.Dims()-c.Leading() {
		return false
	}
	return c.Leading() == 0 || c.levelInverse() != nil
}

// newEdgePredictor returns the predictor of a channel of blocks patches in
// rows of cols; the channel must be edgePredictable.
func (c *Channel) newEdgePredictor(blocks, cols int) *edgePredictor {
	dims, k := c.Dims(), c.Leading()
	n := 1
	for n*n < dims {
		n++
	}
	p := &edgePredictor{dims: dims, k: k, cols: cols, wRight: make([]float64, dims), wLow: make([]float64, dims),
		right: make([]float64, blocks), low: make([]float64, blocks), mean: make([]float64, blocks), wAll: make([]float64, dims), y: make([]float64, dims), b: make([]int, k)}
	basis := c.PCA.Basis.RawMatrix()
	at := func(px, j int) float64 { return basis.Data[px*basis.Stride+j] }
	inv := 1 / float64(n)
	for r := 0; r < n; r++ {
		pr, pb := r*n+n-1, (n-1)*n+r
		p.mRight += float64(c.PCA.Mean[pr] * inv)
		p.mLow += float64(c.PCA.Mean[pb] * inv)
		for j := 0; j < dims; j++ {
			p.wRight[j] += float64(at(pr, j) * inv)
			p.wLow[j] += float64(at(pb, j) * inv)
		}
	}
	for px := 0; px < dims; px++ {
		p.mAll += float64(c.PCA.Mean[px] / float64(dims))
		for j := 0; j < dims; j++ {
			p.wAll[j] += float64(at(px, j) / float64(dims))
		}
	}
	for _, q := range c.Rest {
		p.levels = append(p.levels, q.Levels)
	}
	p.centres(c.Centre)
	if k == 0 {
		p.first = p.levels[0]
		p.sorted = increasing(p.first)
		p.guide = newLevelGuide(p.first, p.sorted)
		p.guide.byMean(p.mAll, p.wAll[0])
		return p
	}
	p.li = c.levelInverse()
	p.scratch = c.SPCA.NewMetricScratch()
	p.first = make([]float64, c.Bins[0])
	copy(p.b, c.Centre[:k])
	for b := range p.first {
		p.b[0] = b
		p.li.Invert(p.y[:k], p.b, p.scratch)
		p.first[b] = p.y[0]
	}
	p.sorted = increasing(p.first)
	p.guide = newLevelGuide(p.first, p.sorted)
	p.guide.byMean(p.mAll, p.wAll[0])
	return p
}

// centres sets centreZero and centreTerms from the levels after the
// leading ones and the centre indices centre of every dimension.
func (p *edgePredictor) centres(centre []int) {
	k := p.k
	p.centreZero, p.centreTerms = true, nil
	inRange := true // every centre has a level
	for j, l := range p.levels {
		if ctr := centre[k+j]; ctr < 0 || ctr >= len(l) || l[ctr] != 0 {
			p.centreZero = false
			inRange = inRange && ctr >= 0 && ctr < len(l)
		}
	}
	if p.centreZero || !inRange {
		return
	}
	p.centreTerms = []centreTerm{}
	for j, l := range p.levels {
		if v := l[centre[k+j]]; v != 0 {
			p.centreTerms = append(p.centreTerms, centreTerm{j: int32(k + j),
				p: [3]float64{float64(p.wRight[k+j] * v), float64(p.wLow[k+j] * v), float64(p.wAll[k+j] * v)}})
		}
	}
}

// increasing reports whether v increases strictly (so holds no NaN).
func increasing(v []float64) bool {
	for i := 1; i < len(v); i++ {
		if !(v[i] > v[i-1]) {
			return false
		}
	}
	return len(v) > 0 && v[0] == v[0]
}

// growCells gives rows and sums room for 4 times as many cells, at most
// one per patch (len(ref)), the most there can be (see trackCells).
func (p *edgePredictor) growCells() {
	n := max(min(len(p.ref), 4*(cap(p.sums)/3)), len(p.sums)/3+1)
	p.rows = append(make([]float64, 0, p.k*n), p.rows...)
	p.sums = append(make([]float64, 0, 3*n), p.sums...)
}

// update records the edges of patch i, whose indices are row.
func (p *edgePredictor) update(i int, row []int32) { p.updateTo(i, row, len(row)) }

// updateTo is update for a row whose indices from end on are at their
// centre: where those are levels 0 (centreZero), which the sums skip,
// it does not visit them (the 60 dimensions after the leading 4 of an
// 8×8 patch were a sixth of the decoder's time, most at their centre).
func (p *edgePredictor) updateTo(i int, row []int32, end int) { p.updateAt(i, row, end, nil, false) }

// updateListed is updateTo given, in listed, the dimensions from the
// leading ones on whose indices are off their centre, in increasing
// order, as the decoder finds them: where their levels are 0
// (centreZero), the sums then visit only those (8×8: a few of a patch's
// 60, where updateTo walked up to the last of them).
func (p *edgePredictor) updateListed(i int, row []int32, end int, listed []int32) {
	if p.trackedListed {
		p.updateListedTracked(i, row, end, listed)
		return
	}
	p.updateAt(i, row, end, listed, true)
}

// updateListedTracked is updateAt for updateListed where trackedListed
// (the channels of every trained model): the same sums in the same
// order, with the checks of the general case done once in trackCells
// (updateAt was ~360 instructions a patch of a 4×4 decode).
func (p *edgePredictor) updateListedTracked(i int, row []int32, end int, listed []int32) {
	var key uint64
	if p.k == 4 {
		// cellKey's, here: the call cost 3 % of updateListedTracked.
		key = cellKey4(p.bins, row)
	} else {
		key = p.cellKey(row)
	}
	p.updateListedKey(i, key, row, end, listed)
}

// cellKey4 is cellKey for 4 leading dimensions, of bins bins.
func cellKey4(bins []int, row []int32) uint64 {
	b, q := (*[4]int)(bins), (*[4]int32)(row)
	return ((uint64(q[0])*uint64(b[1])+uint64(q[1]))*uint64(b[2])+uint64(q[2]))*uint64(b[3]) + uint64(q[3])
}

// updateListedKey is updateListedTracked given the key of row's cell.
func (p *edgePredictor) updateListedKey(i int, key uint64, row []int32, end int, listed []int32) {
	k := p.k
	var r, lo, a float64
	if e := &p.recent[key&(recentCells-1)]; e.key == key+1 {
		p.ref[i] = e.num
		r, lo, a = e.sums[0], e.sums[1], e.sums[2]
	} else {
		r, lo, a = p.cellSums(i, key, row)
	}
	end = min(len(row), max(0, end))
	if p.ends != nil {
		p.ends[i] = uint16(end)
	}
	levels, w := p.levels[:max(0, end-k)], p.wRest
	for _, j := range listed {
		jr := int(j) - k
		if v := levels[jr][row[j]]; v != 0 {
			r, lo, a = addTerms(r, lo, a, &w[jr], v)
		}
	}
	p.right[i], p.low[i], p.mean[i] = r, lo, a
}

// addTerms adds to the sums r, lo and a the products of v by the weights
// w (wRest's), each rounded (no FMA): updateListedKey's and
// sumsListedCentres' term of a listed dimension.
func addTerms(r, lo, a float64, w *[3]float64, v float64) (float64, float64, float64) {
	return r + float64(w[0]*v), lo + float64(w[1]*v), a + float64(w[2]*v)
}

// hintUpdate prefetches the slots of the cell of a patch whose indices
// are row that updateListedTracked reads first, in the cache of recent
// cells and in the table of cells, and returns its key for
// updateListedKey; it must track cells (trackedListed).
func (p *edgePredictor) hintUpdate(row []int32) uint64 {
	var key uint64
	if p.k == 4 {
		key = cellKey4(p.bins, row)
	} else {
		key = p.cellKey(row)
	}
	prefetchTwo(uintptr(unsafe.Pointer(&p.recent[key&(recentCells-1)])),
		uintptr(unsafe.Pointer(&p.cells.slots[hashCell(key, len(p.cells.slots)-1)])))
	return key
}

// hintCell prefetches the slots (trackCells) of the leading cell lead of
// a patch to come that updateListedKey reads first, if the predictor
// tracks cells: in the cache of recent cells and in the table of cells.
// The recent cell's slot was the encoder's: 64 % of updateListedKey's
// samples of a 4×4 batch encode sat on its load.
func (p *edgePredictor) hintCell(lead []int32) {
	if p.cells == nil {
		return
	}
	var key uint64
	if p.k == 4 {
		key = cellKey4(p.bins, lead)
	} else {
		for j, v := range lead[:p.k] {
			key = key*uint64(p.bins[j]) + uint64(v)
		}
	}
	prefetchTwo(uintptr(unsafe.Pointer(&p.recent[key&(recentCells-1)])),
		uintptr(unsafe.Pointer(&p.cells.slots[hashCell(key, len(p.cells.slots)-1)])))
}

// updateAt is updateTo, or updateListed where list.
func (p *edgePredictor) updateAt(i int, row []int32, end int, listed []int32, list bool) {
	k := p.k
	var r, lo, a float64
	switch {
	case p.cells != nil:
		key := p.cellKey(row)
		// A recent cell skips the table.
		if e := &p.recent[key&(recentCells-1)]; e.key == key+1 {
			p.ref[i] = e.num
			r, lo, a = e.sums[0], e.sums[1], e.sums[2]
		} else {
			r, lo, a = p.cellSums(i, key, row)
		}
	default:
		lead := p.y[:k]
		if k > 0 {
			for j := range p.b {
				p.b[j] = int(row[j])
			}
			p.li.Invert(lead, p.b, p.scratch)
		}
		r, lo, a = p.leadSums(lead)
	}
	// The sums go on over the other dimensions in order, as if over
	// all the coefficients at once.
	wRight, wLow, wAll := p.wRight[k:], p.wLow[k:], p.wAll[k:]
	levels := p.levels
	if p.centreZero {
		end = min(len(row), max(0, end))
		levels = levels[:max(0, end-k)]
		if p.ends != nil {
			p.ends[i] = uint16(end)
		}
	}
	if list && p.centreZero {
		// The same terms in the same order: the indices left out are
		// at their centre, whose levels are 0.
		for _, j := range listed {
			jr := int(j) - k
			if v := levels[jr][row[j]]; v != 0 {
				r += float64(wRight[jr] * v)
				lo += float64(wLow[jr] * v)
				a += float64(wAll[jr] * v)
			}
		}
		p.right[i], p.low[i], p.mean[i] = r, lo, a
		return
	}
	if list && p.centreTerms != nil {
		r, lo, a = p.sumsListedCentres(row, listed, r, lo, a)
		p.right[i], p.low[i], p.mean[i] = r, lo, a
		return
	}
	for j, l := range levels {
		if v := l[row[k+j]]; v != 0 {
			r += float64(wRight[j] * v)
			lo += float64(wLow[j] * v)
			a += float64(wAll[j] * v)
		}
	}
	p.right[i], p.low[i], p.mean[i] = r, lo, a
}

// sumsListedCentres continues the sums r, lo and a over the dimensions
// after the leading ones of row, given in listed those off their centre
// (updateListed), where the centres' levels are not all 0
// (centreTerms): the same terms in the same order as updateAt's loop
// over every dimension, where a dimension at its centre adds its
// centreTerm's products (the same products) or nothing. The loop over
// every dimension (60 of an 8×8 patch, 27-29 of the colour models'
// chroma at a centre of level not 0) was ~400 cycles a chroma patch.
func (p *edgePredictor) sumsListedCentres(row []int32, listed []int32, r, lo, a float64) (float64, float64, float64) {
	k, levels, w, terms := p.k, p.levels, p.wRest3(), p.centreTerms
	for li, ci := 0, 0; li < len(listed) || ci < len(terms); {
		if ci < len(terms) && (li == len(listed) || terms[ci].j < listed[li]) {
			t := &terms[ci]
			r, lo, a = r+t.p[0], lo+t.p[1], a+t.p[2]
			ci++
			continue
		}
		if ci < len(terms) && terms[ci].j == listed[li] {
			ci++ // off its centre: its own level below
		}
		j := listed[li]
		li++
		if v := levels[int(j)-k][row[j]]; v != 0 {
			r, lo, a = addTerms(r, lo, a, &w[int(j)-k], v)
		}
	}
	return r, lo, a
}

// wRest3 returns wRest, made from wRight, wLow and wAll if not yet.
func (p *edgePredictor) wRest3() [][3]float64 {
	if p.wRest == nil {
		p.wRest = make([][3]float64, p.dims-p.k)
		for j := range p.wRest {
			p.wRest[j] = [3]float64{p.wRight[p.k+j], p.wLow[p.k+j], p.wAll[p.k+j]}
		}
	}
	return p.wRest
}

// cellKey returns the key of the leading cell of row (trackCells).
func (p *edgePredictor) cellKey(row []int32) uint64 {
	if p.k == 4 {
		// The loop's multiplications, unrolled (~60 instructions a
		// patch with the loop's checks, 1.4 % of a 4×4 decode's).
		return cellKey4(p.bins, row)
	}
	var key uint64
	for j, v := range row[:p.k] {
		key = key*uint64(p.bins[j]) + uint64(v)
	}
	return key
}

// cellSums returns the sums (leadSums) of the leading cell of patch i,
// whose indices are row and key key, not in the cache of recent cells:
// from the table of cells, or inverted and numbered if new. It sets
// ref[i] and puts the cell in the cache.
func (p *edgePredictor) cellSums(i int, key uint64, row []int32) (r, lo, a float64) {
	k := p.k
	num, fresh := p.cells.number(key)
	if fresh {
		for j := range p.b {
			p.b[j] = int(row[j])
		}
		if len(p.rows)+k > cap(p.rows) || len(p.sums)+3 > cap(p.sums) {
			p.growCells()
		}
		p.rows = append(p.rows, p.y[:k]...) // room, overwritten
		lead := p.rows[len(p.rows)-k:]
		p.li.Invert(lead, p.b, p.scratch)
		r, lo, a = p.leadSums(lead)
		p.sums = append(p.sums, r, lo, a)
	} else {
		s := p.sums[3*int(num):][:3]
		r, lo, a = s[0], s[1], s[2]
	}
	p.ref[i] = num
	p.recent[key&(recentCells-1)] = recentCell{key: key + 1, sums: [3]float64{r, lo, a}, num: num}
	return r, lo, a
}

// leadSums returns the sums over the leading coefficients lead of the
// right column's, the bottom row's and the whole patch's means: the
// start of update's sums, which a tracked cell keeps. Explicit
// conversions keep each product rounded on its own (no fused
// multiply-add): the decoder must find the same prediction.
func (p *edgePredictor) leadSums(lead []float64) (r, lo, a float64) {
	r, lo, a = p.mRight, p.mLow, p.mAll
	for j, v := range lead {
		if v != 0 {
			r += float64(p.wRight[j] * v)
			lo += float64(p.wLow[j] * v)
			a += float64(p.wAll[j] * v)
		}
	}
	return r, lo, a
}

// answers reports whether predict's result for patch i in column col is
// its own, not its fallback: a decoded neighbour and a first dimension
// with weight.
func (p *edgePredictor) answers(i, col int) bool {
	return (col > 0 || i >= p.cols) && p.wAll[0] != 0
}

// predict returns the predicted first index of patch i in column col,
// given the prediction fallback used where it has no decoded neighbour.
func (p *edgePredictor) predict(i, col, fallback int) int {
	hasLeft, hasUp := col > 0, i >= p.cols
	var mean float64
	switch {
	case hasLeft && hasUp:
		// Half the edges' mean, half LOCO-I's median of the
		// neighbours' means: on Kodak kodim02-12 even (8×8, gamma
		// 0, step 30) 0.2 % fewer bits than the median of the first
		// indices, the edges alone 0.3 % more, the median of the means
		// alone the same, the edges extrapolated by the neighbours'
		// slopes 1.8 % more.
		a, b, c := p.mean[i-1], p.mean[i-p.cols], p.mean[i-p.cols-1]
		mean = float64(float64((p.right[i-1]+p.low[i-p.cols])/2)+locoMedian(a, b, c)) / 2 // rounded halves: no FMA
	case hasLeft:
		mean = p.right[i-1]
	case hasUp:
		mean = p.low[i-p.cols]
	default:
		return fallback
	}
	if p.wAll[0] == 0 {
		return fallback
	}
	y0 := float64(mean-p.mAll) / p.wAll[0]
	if p.sorted {
		return p.guide.nearestMean(y0, mean)
	}
	return nearestScan(p.first, y0)
}

// locoMedian returns LOCO-I's median of the neighbours' means a (left),
// b (up) and c (upper left): min(a, b) where c >= max(a, b), else
// max(a, b) where c <= min(a, b), else a + b − c. The choice is made by
// masks on the values' bits, not by branches: which of the three it is
// depends on the image, and the branch predictor missed about one a
// 4×4 patch (cachegrind's model: 85 k of the 2.25 M mispredictions of
// a decode of 4 images). The comparisons are Go's (false with a NaN),
// the values the same numbers, so the same bits come out
// (TestLocoMedian).
func locoMedian(a, b, c float64) float64 {
	hi, lo := max(a, b), min(a, b)
	m := math.Float64bits(float64(a + b - c))
	toHi := -b2u(c <= lo) // all ones where c <= min(a, b)
	toLo := -b2u(c >= hi) // where c >= max(a, b): over toHi
	m = m&^toHi | math.Float64bits(hi)&toHi
	m = m&^toLo | math.Float64bits(lo)&toLo
	return math.Float64frombits(m)
}

// b2u is 1 for true, 0 for false: the compiler sets it by SETcc, not a
// branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// nearestScan returns the first index b of first with the least |first[b] - y0|.
func nearestScan(first []float64, y0 float64) int {
	best, dist := 0, -1.0
	for b, v := range first {
		d := v - y0
		if d < 0 {
			d = -d
		}
		if dist < 0 || d < dist {
			best, dist = b, d
		}
	}
	return best
}

// nearestSorted returns the first index b of the increasing first with
// the smallest |first[b] − y0|: what the scan in predict returns, found
// by bisection (the scan was a tenth of decoding in 4×4). The distances
// computed as the scan does fall to the bracket and rise after it even
// where rounding makes some equal, so the first of the equal smallest
// ones is found by walking left from the bracket.
func nearestSorted(first []float64, y0 float64) int {
	if y0 != y0 {
		return 0 // the scan keeps the first: no distance is below NaN
	}
	return nearestFrom(first, y0, sort.SearchFloat64s(first, y0))
}

// nearestFrom is nearestSorted given hi, the first index with first[hi] >=
// y0 (len(first) if none).
func nearestFrom(first []float64, y0 float64, hi int) int {
	dist := func(b int) float64 {
		d := first[b] - y0
		if d < 0 {
			d = -d
		}
		return d
	}
	best := hi
	if hi == len(first) || hi > 0 && dist(hi-1) <= dist(hi) {
		best = hi - 1
	}
	d := dist(best)
	for best > 0 && dist(best-1) == d {
		best--
	}
	return best
}

// levelGuide finds nearestSorted's index in increasing levels without
// bisecting: a table gives, for each of twice as many equal intervals
// over the levels' range as levels, the first level at or above the
// interval's start, and a walk of a step or two from there finds the
// bracket. The bisection's branches, which no predictor can learn, were
// most of predict's time (4×4: 24,576 patches per 768×512 image).
type levelGuide struct {
	levels    []float64
	lo, scale float64 // interval of y0: (y0 − lo)·scale
	start     []int32 // per interval, the first index whose level is >= its start; nil: bisect

	// The interval of y0 = (mean − m)/w from mean directly (byMean):
	// mean·meanScale − meanOff.
	meanScale, meanOff float64
}

// newLevelGuide returns the guide of levels, which must increase
// strictly where sorted is true.
func newLevelGuide(levels []float64, sorted bool) levelGuide {
	g := levelGuide{levels: levels}
	n := len(levels)
	if !sorted || n < 2 {
		return g
	}
	span := levels[n-1] - levels[0]
	scale := float64(2*n) / span
	if !(span > 0) || math.IsInf(scale, 0) || math.IsInf(span, 0) {
		return g
	}
	g.lo, g.scale = levels[0], scale
	g.start = make([]int32, 2*n+1)
	for b := range g.start {
		g.start[b] = int32(sort.SearchFloat64s(levels, g.lo+float64(b)/scale))
	}
	return g
}

// byMean sets the guide's interval of the target y0 = (mean − m)/w as a
// function of mean (nearestMean).
func (g *levelGuide) byMean(m, w float64) {
	g.meanScale = float64(g.scale / w)
	g.meanOff = float64(float64(float64(m/w)+g.lo) * g.scale)
}

// nearestMean is nearest(y0) for y0 = (mean − m)/w (byMean's m and w):
// the interval comes from mean, not from y0, so the table's and the
// levels' loads need not wait for the division (the predictor's mean,
// its division and nearest's loads are a chain of dependent steps a
// patch). The interval can be rounded differently from y0's own; that
// changes no result (see nearestAt).
func (g *levelGuide) nearestMean(y0, mean float64) int {
	return g.nearestAt(y0, float64(mean*g.meanScale)-g.meanOff)
}

// nearest returns nearestSorted(levels, y0).
func (g *levelGuide) nearest(y0 float64) int {
	return g.nearestAt(y0, float64(y0-g.lo)*g.scale)
}

// nearestAt returns nearestSorted(levels, y0), starting the walks at
// the table's interval f (any number, NaN and infinities included). Any
// starting index gives the same bracket (the walks restore it); the
// table only makes the walk short where f is near y0's own interval
// (y0 − lo)·scale.
func (g *levelGuide) nearestAt(y0, f float64) int {
	if g.start == nil || y0 != y0 {
		return nearestSorted(g.levels, y0)
	}
	v := g.levels
	b := 0
	if f > 0 {
		b = len(g.start) - 1
		if f < float64(b) {
			b = int(f)
		}
	}
	hi := int(g.start[b])
	for hi > 0 && v[hi-1] >= y0 {
		hi--
	}
	if hi < len(v) {
		// The first step up, taken a third of the time (4×4,
		// kodim13-24), by a flag as below, not a branch.
		step := 0
		if v[hi] < y0 {
			step = 1
		}
		hi += step
	}
	for hi < len(v) && v[hi] < y0 {
		hi++
	}
	// nearestFrom(v, y0, hi), its distances written out: below hi the
	// levels are below y0 and from hi on at or above it, and y0 − v is
	// −(v − y0) exactly (rounding to nearest is symmetric), so the
	// distances are the same numbers without the sign tests.
	switch {
	case hi > 0 && hi < len(v):
		// Nearer above (the ones below are farther), or below: a
		// coin flip that the branch predictor missed half the time,
		// so selected by a flag, not a branch. Above, the walk below
		// stops at once: y0 − v[hi−1] > 0 >= y0 − v[hi].
		up := 0
		if y0-v[hi-1] > v[hi]-y0 {
			up = 1
		}
		hi += up - 1
	case hi == 0:
		return 0
	default:
		hi-- // beyond the last
	}
	// The first of equal distances.
	d := y0 - v[hi]
	for hi > 0 && y0-v[hi-1] == d {
		hi--
	}
	return hi
}
