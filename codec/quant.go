package codec

import (
	"math"
	"math/bits"
	"sort"

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
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			idx[i*dims+j] = c.leadIndex(j, r.At(i, j))
		}
		for j := k; j < dims; j++ {
			idx[i*dims+j] = int32(c.Rest[j-k].Index(y.At(i, j)))
		}
	}
}

// leadIndex is the cell of response r of SPCA dimension j.
func (c *Channel) leadIndex(j int, r float64) int32 {
	if c.Lead != nil {
		return int32(c.Lead[j].Index(r))
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

// dequantizeEach inverts the leading cell of every patch, for cells that
// cannot be numbered in 64 bits (fine steps on up to 8 SPCA dimensions).
func (c *Channel) dequantizeEach(idx []int32, y *mat.Dense) {
	n, dims := y.Dims()
	k := c.Leading()
	centres := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		row := centres.RawRowView(i)
		for j := range row {
			row[j] = c.leadValue(j, int(idx[i*dims+j]))
		}
	}
	x, err := c.SPCA.InverseBatch(centres)
	if err != nil {
		panic("codec: " + err.Error())
	}
	for i := 0; i < n; i++ {
		copy(y.RawRowView(i)[:k], x.RawRowView(i))
	}
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
		x, err := c.SPCA.InverseBatch(centres)
		if err != nil {
			panic("codec: " + err.Error())
		}
		c.book = x.RawMatrix().Data
	})
	return c.book
}

// dequantize writes the PCA-domain reconstruction of the indices idx
// (n×dims) into y.
func (c *Channel) dequantize(idx []int32, y *mat.Dense) {
	n, dims := y.Dims()
	k := c.Leading()
	if k == 0 {
		// PCA + Lloyd–Max: no leading SPCA dimensions.
	} else if book := c.codebookFor(n); book != nil {
		for i := 0; i < n; i++ {
			cell := 0
			for j := 0; j < k; j++ {
				cell = cell*c.Bins[j] + int(idx[i*dims+j])
			}
			copy(y.RawRowView(i)[:k], book[cell*k:(cell+1)*k])
		}
	} else {
		c.dequantizeLarge(idx, y)
	}
	for i := 0; i < n; i++ {
		row := y.RawRowView(i)
		for j := k; j < dims; j++ {
			row[j] = c.Rest[j-k].Value(int(idx[i*dims+j]))
		}
	}
}

// dequantizeLarge inverts each distinct leading index tuple once, for
// codebooks too large to precompute.
func (c *Channel) dequantizeLarge(idx []int32, y *mat.Dense) {
	n, dims := y.Dims()
	k := c.Leading()
	if !c.keysFit() {
		c.dequantizeEach(idx, y)
		return
	}
	keys := make([]uint64, n)
	for i := 0; i < n; i++ {
		var key uint64
		for j := 0; j < k; j++ {
			key = key*uint64(c.Bins[j]) + uint64(idx[i*dims+j])
		}
		keys[i] = key
	}
	uniq := append([]uint64(nil), keys...)
	sort.Slice(uniq, func(a, b int) bool { return uniq[a] < uniq[b] })
	w := 0
	for i, v := range uniq {
		if i == 0 || v != uniq[w-1] {
			uniq[w] = v
			w++
		}
	}
	uniq = uniq[:w]
	centres := mat.NewDense(len(uniq), k, nil)
	for u, key := range uniq {
		row := centres.RawRowView(u)
		for j := k - 1; j >= 0; j-- {
			b := uint64(c.Bins[j])
			row[j] = c.leadValue(j, int(key%b))
			key /= b
		}
	}
	x, err := c.SPCA.InverseBatch(centres)
	if err != nil {
		panic("codec: " + err.Error())
	}
	for i := 0; i < n; i++ {
		u := sort.Search(len(uniq), func(a int) bool { return uniq[a] >= keys[i] })
		copy(y.RawRowView(i)[:k], x.RawRowView(u))
	}
}
