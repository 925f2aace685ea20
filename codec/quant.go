package codec

import (
	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/spca"
	"math"
	"math/bits"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// maxBook caps the cells of a precomputed codebook (leading dimensions).
const maxBook = 1 << 20

// quantizeExact writes the indices of the PCA-domain rows y (n×dims) into
// idx (n×dims, row-major): the leading coefficients through the exact
// SPCA forward transform and uniform bins of width 1 in its response
// domain (C_ii = n_i), the rest through their Lloyd–Max quantisers.
func (c *Channel) quantizeExact(y *mat.Dense, idx []int32) {
	n, dims := y.Dims()
	k := c.Leading()
	var r *mat.Dense
	if k > 0 {
		lead := mat.NewDense(n, k, nil)
		lead.Copy(y.Slice(0, n, 0, k))
		var err error
		r, _, err = c.SPCA.TransformBatch(lead)
		if err != nil {
			panic("codec: " + err.Error()) // rows are finite by construction
		}
	}
	lead, rest := c.finders()
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			idx[i*dims+j] = c.leadIndex(lead, j, r.At(i, j))
		}
		for j := k; j < dims; j++ {
			idx[i*dims+j] = int32(rest[j-k].index(y.At(i, j)))
		}
	}
}

// quantizeUnfolded is quantizeExact for rows y whose leading
// coefficients unfold to u (spca's UnfoldedBatch, by this channel's SPCA
// model or one that differs in scale only): the same indices, the
// responses computed from u as the transform computes them.
func (c *Channel) quantizeUnfolded(y, u *mat.Dense, idx []int32) {
	n, dims := y.Dims()
	k := c.Leading()
	lead, rest := c.finders()
	r := make([]float64, k)
	ms := c.SPCA.NewMetricScratch()
	for i := 0; i < n; i++ {
		c.SPCA.ResponseWork(r, u.RawRowView(i), ms)
		for j, v := range r {
			idx[i*dims+j] = c.leadIndex(lead, j, v)
		}
		for j := k; j < dims; j++ {
			idx[i*dims+j] = int32(rest[j-k].index(y.At(i, j)))
		}
	}
}

// leadIndex is the cell of response r of SPCA dimension j, lead being
// the channel's finders of the responses' cells (from finders, fetched
// once per batch rather than once per response).
func (c *Channel) leadIndex(lead []cellFinder, j int, r float64) int32 {
	if c.Lead != nil {
		return int32(lead[j].index(r))
	}
	return binOf(r, c.Bins[j])
}

// leadValue is the response that cell b of SPCA dimension j decodes to.
func (c *Channel) leadValue(j, b int) float64 {
	if c.Lead != nil {
		return c.Lead[j].Value(b)
	}
	return float64(b) + 0.5
}

// binOf is the uniform quantiser of the response domain: bin b covers
// [b, b+1); responses beyond the support go to the end bins.
func binOf(r float64, bins int) int32 {
	b := math.Floor(r)
	if !(b >= 0) { // also NaN
		return 0
	}
	if b >= float64(bins) {
		return int32(bins - 1)
	}
	return int32(b)
}

// keysFit reports whether the cells of the leading dimensions can be
// numbered in 64 bits.
func (c *Channel) keysFit() bool {
	p := uint64(1)
	for _, b := range c.Bins[:c.Leading()] {
		hi, lo := bits.Mul64(p, uint64(b))
		if hi != 0 {
			return false
		}
		p = lo
	}
	return true
}

// bookSize returns the number of cells of the leading dimensions.
func (c *Channel) bookSize() int {
	s := 1
	for _, b := range c.Bins[:c.Leading()] {
		s *= b
		if s > maxBook {
			return s
		}
	}
	return s
}

// codebookFor returns the codebook for decoding blocks patches: the one
// already built, or a new one if it has no more cells than there are
// patches to decode (otherwise inverting the patches' own distinct cells
// is cheaper, as with the fine steps of the entropy-constrained mode:
// 600,000 cells for 100,000 patches). nil means: no codebook.
func (c *Channel) codebookFor(blocks int) []float64 {
	if c.bookBuilt.Load() || c.bookSize() <= blocks {
		return c.codebook()
	}
	return nil
}

// codebook returns the reconstruction of every cell of the leading
// dimensions (mixed radix, first dimension slowest), computed once: the
// inverse SPCA transform of the cell centres. It returns nil when there
// are more than maxBook cells.
func (c *Channel) codebook() []float64 {
	c.bookOnce.Do(func() {
		defer c.bookBuilt.Store(true)
		size := c.bookSize()
		if size > maxBook {
			return
		}
		k := c.Leading()
		centres := mat.NewDense(size, k, nil)
		digits := make([]int, k)
		for cell := 0; cell < size; cell++ {
			row := centres.RawRowView(cell)
			for j := range row {
				row[j] = c.leadValue(j, digits[j])
			}
			for j := k - 1; j >= 0; j-- {
				digits[j]++
				if digits[j] < c.Bins[j] {
					break
				}
				digits[j] = 0
			}
		}
		c.book = c.invert(centres.RawMatrix().Data)
	})
	return c.book
}

// leadCells are the decoded leading (SPCA) coefficients of a channel's
// patches: rows of k values, the row each patch takes (ref), and whether
// the rows are the codebook's. All are zero without SPCA dimensions.
type leadCells struct {
	rows     []float64
	ref      []int32
	fromBook bool
	// ends, if not nil, holds for each patch 1 + its last dimension off
	// its centre, and the levels at the centres are 0 (edgePredictor's
	// centreZero): the reconstruction stops each patch's sums there.
	ends []uint16
}

// row returns the leading coefficients of patch i.
func (l leadCells) row(i, k int) []float64 { return l.rows[int(l.ref[i])*k:][:k] }

// leadRows returns the leading cells of the n patches of idx: each
// patch's row is a cell of the codebook, or, where there is none for
// this many patches, one of the inverses of the image's distinct cells,
// or of every patch's cell where cells cannot be numbered (cellsNumbered).
func (c *Channel) leadRows(idx []int32, n int) leadCells {
	k := c.Leading()
	if k == 0 {
		return leadCells{}
	}
	dims := c.Dims()
	ref := make([]int32, n)
	if book := c.codebookFor(n); book != nil {
		for i := range ref {
			cell := 0
			for j := 0; j < k; j++ {
				cell = cell*c.Bins[j] + int(idx[i*dims+j])
			}
			ref[i] = int32(cell)
		}
		return leadCells{rows: book, ref: ref, fromBook: true}
	}
	if !c.cellsNumbered(n) {
		for i := range ref {
			ref[i] = int32(i)
		}
		return leadCells{rows: c.cellRows(idx, nil, n), ref: ref}
	}
	rows, ref := c.distinctRows(idx, n)
	return leadCells{rows: rows, ref: ref}
}

// distinctRows is leadRows inverting each distinct leading cell of the
// patches once, numbered in order of first appearance (see cellNumbers).
func (c *Channel) distinctRows(idx []int32, n int) (rows []float64, ref []int32) {
	k, dims := c.Leading(), c.Dims()
	ref = make([]int32, n)
	cells := newCellNumbers(n)
	var firsts []int32 // the first patch of each cell, by number
	for i := range ref {
		num, fresh := cells.number(c.cellKey(idx[i*dims : i*dims+k]))
		if fresh {
			firsts = append(firsts, int32(i))
		}
		ref[i] = num
	}
	return c.cellRows(idx, firsts, len(firsts)), ref
}

// cellKey returns the number of the leading cell b in mixed radix (the
// first dimension slowest); the channel's keys must fit (keysFit).
func (c *Channel) cellKey(b []int32) uint64 {
	var key uint64
	for j, v := range b {
		key = key*uint64(c.Bins[j]) + uint64(v)
	}
	return key
}

// cellNumbers numbers cell keys in order of first appearance, in an
// open-addressing hash table: a map or a sort cost more than the
// inversions they save. A slot holds its key and number in one word, so
// that a probe reads one cache line, not one in a table of keys and one
// in a table of numbers (the probe's misses were 7-9 % of a 4×4 batch
// decode's time).
type cellNumbers struct {
	slots []uint64 // key<<shift | number+1; 0: empty
	shift uint     // bits of number+1
	count int
}

// cellsNumbered reports whether a cellNumbers can number the leading
// cells of n patches: a key and a number+1 (at most n) in 64 bits.
func (c *Channel) cellsNumbered(n int) bool {
	if !c.keysFit() {
		return false
	}
	top := uint64(1) // the number of keys
	for _, b := range c.Bins[:c.Leading()] {
		top *= uint64(b)
	}
	return bits.Len64(top-1)+bits.Len64(uint64(n)) <= 64 && n < math.MaxInt32
}

// newCellNumbers returns a table for the cells of n patches, whose keys
// must fit with their numbers (cellsNumbered). It starts at half as many
// slots as patches and doubles when half full: an image has far fewer
// distinct cells than patches (a quarter of them for 4×4 patches), and
// a table sized for twice the patches was a quarter of the memory a
// decode allocated.
func newCellNumbers(n int) *cellNumbers {
	return &cellNumbers{slots: make([]uint64, newCellNumbersSize(n)), shift: uint(bits.Len64(uint64(n)))}
}

// newCellNumbersSize is the number of slots newCellNumbers(n) starts with.
func newCellNumbersSize(n int) int {
	size := 1 << 10
	for size < n/2 {
		size <<= 1
	}
	return size
}

// reset empties t for the cells of n patches, keeping its slots if it
// has at least as many as newCellNumbers(n) would (more slots change no
// number: numbers go by first appearance).
func (t *cellNumbers) reset(n int) {
	if u := newCellNumbersSize(n); len(t.slots) < u {
		*t = *newCellNumbers(n)
		return
	}
	clear(t.slots)
	t.shift, t.count = uint(bits.Len64(uint64(n))), 0
}

// hashCell is the first slot of key's probe in a table of mask+1 slots
// (Fibonacci hashing).
func hashCell(key uint64, mask int) int {
	return int((key * 0x9E3779B97F4A7C15) >> 32 & uint64(mask))
}

// hint prefetches the line where a probe for key starts.
func (t *cellNumbers) hint(key uint64) {
	h := hashCell(key, len(t.slots)-1)
	var p [maxPrefetch]uintptr
	p[0] = uintptr(unsafe.Pointer(&t.slots[h]))
	prefetchLines(&p, 1)
}

// probe returns the slot of key: its own or the empty one where it goes.
func (t *cellNumbers) probe(key uint64) int {
	// Linear probing.
	mask := len(t.slots) - 1
	h := hashCell(key, mask)
	for s := t.slots[h]; s != 0 && s>>t.shift != key; s = t.slots[h] {
		h = (h + 1) & mask
	}
	return h
}

// number returns the number of key and whether it is new.
func (t *cellNumbers) number(key uint64) (int32, bool) {
	h := t.probe(key)
	if s := t.slots[h]; s != 0 {
		return int32(s&(1<<t.shift-1)) - 1, false
	}
	t.count++
	t.slots[h] = key<<t.shift | uint64(t.count)
	if 2*t.count > len(t.slots) {
		old := t.slots
		t.slots = make([]uint64, 2*len(old))
		for _, s := range old {
			if s != 0 {
				t.slots[t.probe(s>>t.shift)] = s
			}
		}
	}
	return int32(t.count - 1), true
}

// levelInverse returns the inverse SPCA transform of the channel's cell
// levels, built once, or nil if SPCA's metric is not separable (gamma >
// 0): with it a cell costs one lattice evaluation instead of a search in
// each axis's metric table as well, about half of inverting a cell
// (and inverting cells was half the CPU of decoding kodim08 in 4×4).
func (c *Channel) levelInverse() *spca.LevelInverse {
	c.levelOnce.Do(func() {
		k := c.Leading()
		if k == 0 {
			return
		}
		levels := make([][]float64, k)
		for j := range levels {
			levels[j] = make([]float64, c.Bins[j])
			for b := range levels[j] {
				levels[j][b] = c.leadValue(j, b)
			}
		}
		if li, ok := c.SPCA.LevelInverse(levels); ok {
			c.levelInv = li
		}
	})
	return c.levelInv
}

// cellRows returns the reconstruction of the leading cell (rows of k
// values) of patch at[r] of idx for r < count, or of patch r if at is
// nil: through levelInverse where the metric is separable, in parallel,
// else through invert of the cells' levels, which it equals exactly.
func (c *Channel) cellRows(idx []int32, at []int32, count int) []float64 {
	k, dims := c.Leading(), c.Dims()
	patch := func(r int) int {
		if at == nil {
			return r
		}
		return int(at[r])
	}
	li := c.levelInverse()
	if li == nil {
		centres := make([]float64, 0, count*k)
		for r := 0; r < count; r++ {
			i := patch(r)
			for j, b := range idx[i*dims : i*dims+k] {
				centres = append(centres, c.leadValue(j, int(b)))
			}
		}
		return c.invert(centres)
	}
	rows := make([]float64, count*k)
	// Once the encoder's refinement has filled the cell caches, the
	// inverses come through them (the decoder, which has no such caches,
	// gained nothing from them in a process decoding 12 images).
	var strides []uint64
	if c.cellsUsed.Load() {
		strides = c.cellStrides()
	}
	const block = 512
	parallel.For((count+block-1)/block, func(blk int) {
		s := c.SPCA.NewMetricScratch()
		b := make([]int, k)
		var cache *cellCache
		if strides != nil {
			cache = c.takeCellCache(len(idx) / dims)
			defer c.putCellCache(cache)
		}
		for r := blk * block; r < min(count, (blk+1)*block); r++ {
			i := patch(r)
			for j := range b {
				b[j] = int(idx[i*dims+j])
			}
			if cache == nil {
				li.Invert(rows[r*k:(r+1)*k], b, s)
				continue
			}
			var key uint64
			for j, v := range b {
				key += uint64(v) * strides[j]
			}
			copy(rows[r*k:(r+1)*k], cache.invert(li, b, key, s))
		}
	})
	return rows
}

// invert returns the inverse SPCA transform of the responses r (rows of
// k values), which are cell reconstruction levels and so always invertible.
func (c *Channel) invert(r []float64) []float64 {
	k := c.Leading()
	x, err := c.SPCA.InverseBatch(mat.NewDense(len(r)/k, k, r))
	if err != nil {
		panic("codec: " + err.Error())
	}
	return x.RawMatrix().Data
}
