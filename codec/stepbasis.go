package codec

import (
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// stepBasis is what the channels Stepped derives need from their base
// channel's training sample at any step, computed once per base scale:
// the step-independent part of SetStep's quantisers and of prepare's
// centres. Deriving a step from it costs O(n·k) for the k SPCA
// dimensions and O(cells·log n) for the rest, instead of quantising the
// whole n×dims sample at every step (a --bpp 1 decode of kodim13 with the
// 8×8 model spent 85 % of its CPU there, and the unfolding twice).
type stepBasis struct {
	n int // training patches
	// ext and norm are responses(): the range of every unfolded
	// coordinate and the training responses at unit scale (n×k).
	ext, norm []float64
	// mid holds, per column of norm, the two values of the sorted
	// column from which quantileSorted interpolates the median (both the
	// last value if the column has one): SetStep's median at any scale.
	mid [][2]float64
	// resp holds the responses at unit scale of ResponseWork (n×k): at
	// scale c, ResponseWork gives c_j·resp_ij bit for bit.
	resp []float64
	// rest holds the sample's columns after the SPCA ones, sorted; nil
	// when a value is not a multiple of trainRes (then sums of the
	// column depend on their order, and the whole column is quantised).
	rest []sortedColumn
	// pool holds n-value scratch slices for SetStep (*[]float64): a
	// batch deriving a step per image reuses them instead of faulting
	// in fresh pages.
	pool sync.Pool
	// sorted holds resp's columns sorted ascending (sortedResp), for
	// centreFromBasis; nil where a column holds a NaN. derived counts
	// the steps centreFromBasis has derived: the sort costs about two
	// or three steps' counts of the cells (callgrind, one --bpp 1 file
	// decoded: 184 M instructions with the count, 194 M with the sort;
	// an 8×8 --bpp 1 encode of kodim13 in two probes: 437.7 M sorting
	// at the second step, 428.1 M counting both), so a process that
	// derives one or two steps (most --bpp encodes of one image) counts,
	// and one deriving more (a batch) sorts at the third.
	sortOnce sync.Once
	sorted   [][]float64
	derived  atomic.Int32
	// normLo and normHi are the extremes of norm's columns (normRange).
	rangeOnce      sync.Once
	normLo, normHi []float64
}

// normRange returns the smallest and largest value of each of norm's k
// columns (a NaN where the column holds one), found once.
func (bs *stepBasis) normRange(k int) (lo, hi []float64) {
	bs.rangeOnce.Do(func() {
		bs.normLo, bs.normHi = make([]float64, k), make([]float64, k)
		for j := range k {
			bs.normLo[j], bs.normHi[j] = math.Inf(1), math.Inf(-1)
		}
		for i := 0; i+k <= len(bs.norm); i += k {
			for j, v := range bs.norm[i : i+k] {
				bs.normLo[j], bs.normHi[j] = min(bs.normLo[j], v), max(bs.normHi[j], v)
			}
		}
	})
	return bs.normLo, bs.normHi
}

// sortedResp returns resp's k columns, each sorted ascending, computed on
// first use (a sort of each column costs less than one step's count of
// its cells, which took a tenth of a --bpp batch encode).
func (bs *stepBasis) sortedResp(k int) [][]float64 {
	bs.sortOnce.Do(func() {
		bs.sorted = make([][]float64, k)
		for j := range bs.sorted {
			col := make([]float64, bs.n)
			for i := range col {
				col[i] = bs.resp[i*k+j]
			}
			if slices.ContainsFunc(col, math.IsNaN) {
				continue
			}
			sortFloats(col)
			bs.sorted[j] = col
		}
	})
	return bs.sorted
}

// sortFloats sorts x, which holds no NaN, ascending: a radix sort of
// keys ordered as the values (IEEE bits, the negatives' inverted), 11 bits
// a pass, passes over bits that all keys share skipped. On the 20,000
// responses of a column it costs a fraction of slices.Sort's
// comparisons.
func sortFloats(x []float64) {
	if len(x) < 2 {
		return
	}
	keys, tmp := make([]uint64, len(x)), make([]uint64, len(x))
	for i, v := range x {
		b := math.Float64bits(v)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	lo := slices.Min(keys)
	span := slices.Max(keys) - lo
	src, dst := keys, tmp
	for shift := uint(0); shift < 64 && span>>shift != 0; shift += 11 {
		var count [1<<11 + 1]int
		for _, k := range src {
			count[((k-lo)>>shift)&(1<<11-1)+1]++
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for _, k := range src {
			d := ((k - lo) >> shift) & (1<<11 - 1)
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	for i, b := range src {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		x[i] = math.Float64frombits(b)
	}
}

// modeCell returns the cell of f holding the most of the values s·x, x
// in sorted (ascending, no NaN), the first of equals: the count of them
// into f's cells that centreFromBasis makes, by runs. The products keep
// the order (s > 0, and rounding is monotone), and the cell of a value v
// is the one with t[cell-1] < v <= t[cell]. The product given to index
// is rounded (float64(...)): inlined, arm64 fused it into the finder's
// bucket, v - lo, which then started from another bucket than v's.
func modeCell(sorted []float64, s float64, f *cellFinder) int {
	best, most := 0, 0
	n := len(sorted)
	for i := 0; i < n; {
		cell := f.index(float64(s * sorted[i]))
		e := n
		if cell < len(f.t) {
			t := f.t[cell]
			e = i + sort.Search(n-i, func(a int) bool { return s*sorted[i+a] > t })
		}
		if e-i > most {
			best, most = cell, e-i
		}
		i = e
	}
	return best
}

func (bs *stepBasis) scratch(n int) []float64 {
	if p, ok := bs.pool.Get().(*[]float64); ok && len(*p) == n {
		return *p
	}
	return make([]float64, n)
}

func (bs *stepBasis) free(x []float64) { bs.pool.Put(&x) }

// sortedColumn is a column of the training sample sorted, as runs of
// equal values: vals ascending and distinct, at[i] the number of samples
// below vals[i] (at[len(vals)] the column's length), sum[i] their sum in
// units of trainRes.
type sortedColumn struct {
	vals []float64
	at   []int32
	sum  []int64
}

// newStepBasis computes the basis of base channel c at its scale, from
// its training sample kept as integers (a model file's) without decoding
// the whole sample.
func newStepBasis(c *Channel) (*stepBasis, error) {
	ints, train, err := c.packedSample()
	if err != nil {
		return nil, err
	}
	var n, dims int
	if ints != nil {
		n, dims = ints.rows, ints.dims
	} else {
		n, dims = train.Dims()
	}
	k := c.Leading()
	bs := &stepBasis{n: n}
	if k > 0 {
		u, err := c.unfoldedSample()
		if err != nil {
			return nil, err
		}
		ones := make([]float64, k)
		for j := range ones {
			ones[j] = 1
		}
		unit, err := c.SPCA.WithScale(ones)
		if err != nil {
			return nil, err
		}
		// norm and ext as responses computes them from UnfoldBatch's
		// coordinates (UnfoldedInput's, bit for bit).
		scale := c.SPCA.Scale()
		bs.norm = make([]float64, n*k)
		bs.resp = make([]float64, n*k)
		lo, hi := make([]float64, k), make([]float64, k)
		in := make([]float64, k)
		ms, us := c.SPCA.NewMetricScratch(), unit.NewMetricScratch()
		for i := 0; i < n; i++ {
			row := u.RawRowView(i)
			unit.ResponseWork(bs.resp[i*k:(i+1)*k], row, us)
			copy(in, row)
			c.SPCA.UnfoldedInput(in)
			nr := bs.norm[i*k : (i+1)*k]
			c.SPCA.MetricWork(nr, in, ms)
			for j := range nr {
				nr[j] /= scale[j]
				if i == 0 {
					lo[j], hi[j] = in[j], in[j]
				}
				lo[j], hi[j] = min(lo[j], in[j]), max(hi[j], in[j])
			}
		}
		bs.ext = make([]float64, k)
		bs.mid = make([][2]float64, k)
		col := make([]float64, n)
		i := int(math.Floor(0.5 * float64(n-1))) // quantileSorted's
		for j := range bs.ext {
			bs.ext[j] = hi[j] - lo[j]
			for r := range col {
				col[r] = bs.norm[r*k+j]
			}
			bs.mid[j][0] = selectNth(col, i)
			bs.mid[j][1] = bs.mid[j][0]
			if i+1 < n {
				bs.mid[j][1] = slices.Min(col[i+1:])
			}
		}
	}
	if ints != nil {
		bs.rest = sortRestInts(ints, k)
	} else {
		bs.rest = sortRest(train.RawMatrix().Data, n, dims, k)
	}
	return bs, nil
}

// leadSample returns the leading columns of the channel's training
// sample (n×Leading), decoding only them from a sample kept as integers.
func (c *Channel) leadSample() (*mat.Dense, error) {
	ints, train, err := c.packedSample()
	if err != nil {
		return nil, err
	}
	k := c.Leading()
	if ints == nil {
		if c.fastFrom != nil || train == nil { // derived, or decoded since
			if train, err = c.TrainingSample(); err != nil {
				return nil, err
			}
		}
		n, _ := train.Dims()
		lead := mat.NewDense(n, k, nil)
		lead.Copy(train.Slice(0, n, 0, k))
		return lead, nil
	}
	n := ints.rows
	lead := make([]float64, n*k)
	col := make([]int64, n)
	for j := 0; j < k; j++ {
		ints.column(j, col)
		for i, v := range col {
			lead[i*k+j] = float64(v) * trainRes // as decode
		}
	}
	return mat.NewDense(n, k, lead), nil
}

// sortRestInts is sortRest of a sample kept as integers.
func sortRestInts(s *intSample, k int) []sortedColumn {
	if s.rows > 1<<21 {
		return nil
	}
	out := make([]sortedColumn, s.dims-k)
	col := make([]int64, s.rows)
	x, tmp := make([]int32, s.rows), make([]int32, s.rows)
	for j := range out {
		s.column(k+j, col)
		for i, v := range col {
			if !(v > -1<<31 && v < 1<<31) {
				return nil
			}
			x[i] = int32(v)
		}
		radixSort(x, tmp)
		out[j] = runsOf(x)
	}
	return out
}

// sortRest returns the columns k.. of the row-major n×dims sample
// sorted, or nil if one holds a value that is not a multiple of trainRes
// within ±2^31 of it (or n > 2^21: sums could then pass 2^53).
func sortRest(data []float64, n, dims, k int) []sortedColumn {
	if n == 0 || n > 1<<21 {
		return nil
	}
	cols := make([][]int32, dims-k)
	buf := make([]int32, n*(dims-k))
	for j := range cols {
		cols[j] = buf[j*n : (j+1)*n]
	}
	for i := 0; i < n; i++ {
		row := data[i*dims+k : (i+1)*dims]
		for j, v := range row {
			q := v / trainRes
			if !(q == math.Trunc(q) && math.Abs(q) < 1<<31) {
				return nil
			}
			cols[j][i] = int32(q)
		}
	}
	out := make([]sortedColumn, len(cols))
	tmp := make([]int32, n)
	for j, col := range cols {
		radixSort(col, tmp)
		out[j] = runsOf(col)
	}
	return out
}

// radixSort sorts x in place (tmp, as long as x, is scratch): least
// significant byte first, over the bytes in which x's values differ.
func radixSort(x, tmp []int32) {
	if len(x) < 2 {
		return
	}
	lo, hi := slices.Min(x), slices.Max(x)
	span := uint32(int64(hi) - int64(lo))
	src, dst := x, tmp[:len(x)]
	for shift := uint(0); shift < 32 && span>>shift != 0; shift += 8 {
		var count [257]int
		for _, v := range src {
			count[(uint32(v-lo)>>shift)&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, v := range src {
			d := (uint32(v-lo) >> shift) & 0xff
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &x[0] {
		copy(x, src)
	}
}

// runsOf returns the sorted column of the sorted integers x (units of
// trainRes).
func runsOf(x []int32) sortedColumn {
	var s sortedColumn
	var sum int64
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			s.vals = append(s.vals, float64(v)*trainRes)
			s.at = append(s.at, int32(i))
			s.sum = append(s.sum, sum)
		}
		sum += int64(v)
	}
	s.at = append(s.at, int32(len(x)))
	s.sum = append(s.sum, sum)
	return s
}

// runEnd returns the first run after i whose value breaks the predicate
// in, which holds for run i and for a prefix of the runs after it (in is
// monotone over the sorted values).
func (s *sortedColumn) runEnd(i int, in func(v float64) bool) int {
	i++
	return i + sort.Search(len(s.vals)-i, func(e int) bool { return !in(s.vals[i+e]) })
}

// deadZone is DeadZone of the column at step: the same quantiser, from
// the runs. Every partial sum of the column is a multiple of trainRes
// below 2^53 of them, so the centroids' sums do not depend on the order
// of the samples, and a cell's samples, an interval of values
// (deadZoneCell is monotone), are a range of runs.
func (s *sortedColumn) deadZone(step float64) (*ScalarQuantizer, error) {
	lo, hi := s.vals[0], s.vals[len(s.vals)-1]
	g, err := newDeadZoneGrid(lo, hi, step, 0.25)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(s.vals); {
		cell := deadZoneCell(s.vals[i], step)
		e := s.runEnd(i, func(v float64) bool { return deadZoneCell(v, step) == cell })
		g.sum[cell-g.kLo] = float64(s.sum[e]-s.sum[i]) * trainRes
		g.cnt[cell-g.kLo] = float64(s.at[e] - s.at[i])
		i = e
	}
	return withZeroLevel(g.quantizer()), nil
}

// centre returns the most populated cell of f (the first of equals), as
// prepare counts the column's samples into f's cells.
func (s *sortedColumn) centre(f *cellFinder) int {
	best, most := 0, int32(0)
	for i := 0; i < len(s.vals); {
		cell := f.index(s.vals[i])
		e := len(s.vals)
		if cell < len(f.t) {
			t := f.t[cell] // cell holds (t[cell-1], t[cell]]
			e = s.runEnd(i, func(v float64) bool { return v <= t })
		}
		if cnt := s.at[e] - s.at[i]; cnt > most {
			best, most = cell, cnt
		}
		i = e
	}
	return best
}

// medianScaled is quantileSorted(s, 0.5) of the n values s·scale (the
// values of a column times scale), mid the column's values at the
// positions it reads (stepBasis.mid): multiplying by a positive scale
// keeps their order. Every product is rounded (float64(...)), as
// quantileSorted's values are: arm64 fused a·scale into the sums, and a
// model read there derived other quantisers at the steps of --bpp and
// --step files than on amd64 (TestDecodeNoFMA).
func medianScaled(mid [2]float64, n int, scale float64) float64 {
	pos := float64(0.5 * float64(n-1))
	i := int(math.Floor(pos))
	if i >= n-1 {
		return mid[0] * scale
	}
	a, b := float64(mid[0]*scale), float64(mid[1]*scale)
	return a + float64((pos-float64(i))*(b-a))
}

// selectNth reorders x so that x[i] is the value sorting would put there,
// with no greater value before it and no smaller one after, and returns
// it (quickselect, three-way partitions around a median of three).
func selectNth(x []float64, i int) float64 {
	lo, hi := 0, len(x) // the range holding position i
	for hi-lo > 1 {
		a, b, c := x[lo], x[lo+(hi-lo)/2], x[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		// x[lo:lt] < p, x[lt:j] == p, x[gt:hi] > p
		lt, j, gt := lo, lo, hi
		for j < gt {
			switch v := x[j]; {
			case v < p:
				x[lt], x[j] = v, x[lt]
				lt++
				j++
			case v > p:
				gt--
				x[gt], x[j] = v, x[gt]
			default:
				j++
			}
		}
		switch {
		case i < lt:
			hi = lt
		case i >= gt:
			lo = gt
		default:
			return x[i]
		}
	}
	return x[i]
}

// centreFromBasis sets c.Centre from the basis: the SPCA dimensions by
// counting the training responses at the channel's scale into their
// cells, the rest from their sorted columns.
func (c *Channel) centreFromBasis(bs *stepBasis) {
	n := bs.n
	k, dims := c.Leading(), c.Dims()
	lead, rest := c.finders()
	c.Centre = make([]int, dims)
	var scale []float64
	if k > 0 {
		scale = c.SPCA.Scale()
	}
	var sorted [][]float64
	if k > 0 && c.Lead != nil && bs.derived.Add(1) > 2 {
		sorted = bs.sortedResp(k)
	}
	var counts []int
	for j := 0; j < k; j++ {
		if sorted != nil && sorted[j] != nil && scale[j] > 0 {
			c.Centre[j] = modeCell(sorted[j], scale[j], &lead[j])
			continue
		}
		counts = append(counts[:0], make([]int, c.Bins[j])...)
		for i := 0; i < n; i++ {
			counts[c.leadIndex(lead, j, scale[j]*bs.resp[i*k+j])]++
		}
		best := 0
		for b, v := range counts {
			if v > counts[best] {
				best = b
			}
		}
		c.Centre[j] = best
	}
	for j := k; j < dims; j++ {
		c.Centre[j] = bs.rest[j-k].centre(&rest[j-k])
	}
}
