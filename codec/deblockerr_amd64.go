package codec

// deblockHorizErrAVX adds up, for each strength k = 1..8, the change of
// the squared error that filtering one horizontal edge at strength k
// makes over the columns 0..n-1 (n a multiple of 16, at most
// maxHorizErrColumns): rec, von, kpix and orig hold the four rows from
// two above the edge (stride w, as deblockErrorsByEdge keeps them). A
// column's pixels at strength k are von's where kpix <= k (its vertical
// edge is on), rec's elsewhere; the edge passes where |q0 − p0| < a_k,
// |p1 − p0| < b_k and |q1 − q0| < b_k (th: a_1..a_8, b_1..b_8, 1..8, in
// 16 bits), moves them as edgeMoved does (d8 masked to 0 where it does
// not pass moves nothing), and changes the error by
// Σ (np − p)(np + p − 2o) = Σ (np − o)² − (p − o)², summed by VPMADDWD
// in 32-bit lanes. sums[k-1] gets strength k's total.
//
//go:noescape
func deblockHorizErrAVX(rec, von, kpix, orig []uint8, w, n int, th *[24]int16, sums *[maxDeblock]int64)

// The kernel knows 8 strengths.
var _ = [1]struct{}{}[maxDeblock-8]

// maxHorizErrColumns keeps deblockHorizErrAVX's 32-bit sums exact: a
// column changes the error by at most 4·255·510 in magnitude.
const maxHorizErrColumns = 2048

// deblockHorizErrKernel runs deblockHorizErrAVX over the whole groups of
// 16 columns of the horizontal edge whose rows start at off (rec, von,
// kpix and orig w wide, orig 8-bit), adding its sums to h, and returns
// the columns it covered (0 where it does not apply: no AVX2, see
// hasAVX2 in loopfilter_amd64.go).
func deblockHorizErrKernel(rec, von, kpix, orig []uint8, off, w int, th *[24]int16, h *[maxDeblock]int64) int {
	n := w &^ 15
	if !hasAVX2 || n == 0 {
		return 0
	}
	end := off + 3*w + n
	if len(rec) < end || len(von) < end || len(kpix) < end || len(orig) < end {
		panic("codec: deblockHorizErrKernel: short rows")
	}
	var sums [maxDeblock]int64
	for x := 0; x < n; x += maxHorizErrColumns {
		c := min(maxHorizErrColumns, n-x)
		deblockHorizErrAVX(rec[off+x:end], von[off+x:end], kpix[off+x:end], orig[off+x:end], w, c, th, &sums)
		for k, s := range sums {
			h[k] += s
		}
	}
	return n
}
