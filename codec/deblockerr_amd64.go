package codec

import "golang.org/x/sys/cpu"

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

// deblockHorizErrAVX512 is deblockHorizErrAVX for n a multiple of 32,
// 32 columns at a time (AVX-512BW), with the same sums.
//
//go:noescape
func deblockHorizErrAVX512(rec, von, kpix, orig []uint8, w, n int, th *[24]int16, sums *[maxDeblock]int64)

// hasAVX512BW selects deblockHorizErrAVX512 (tests switch it off).
var hasAVX512BW = hasAVX512 && cpu.X86.HasAVX512BW

// The kernels know 8 strengths.
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
		// 32 columns at a time with AVX-512, the last 16 (if any) with
		// AVX2: each call sets sums.
		c32 := 0
		if hasAVX512BW {
			c32 = c &^ 31
		}
		if c32 > 0 {
			deblockHorizErrAVX512(rec[off+x:end], von[off+x:end], kpix[off+x:end], orig[off+x:end], w, c32, th, &sums)
			for k, s := range sums {
				h[k] += s
			}
		}
		if c > c32 {
			o := off + x + c32
			deblockHorizErrAVX(rec[o:end], von[o:end], kpix[o:end], orig[o:end], w, c-c32, th, &sums)
			for k, s := range sums {
				h[k] += s
			}
		}
	}
	return n
}

// sse8AVX returns Σ (a[i] − b[i])² over len(a) bytes (a multiple of 16,
// at most maxSSE8 bytes; b as long), 16 at a time: the differences in
// 16-bit lanes, squared and summed in pairs by VPMADDWD into 32-bit lanes.
//
//go:noescape
func sse8AVX(a, b []uint8) int64

// maxSSE8 keeps sse8AVX's 32-bit lanes exact: each takes at most 2·255²
// per 16 bytes.
const maxSSE8 = 1 << 16

// sse8 returns Σ (a[i] − b[i])² over a and b (as long), in AVX2 where
// hasAVX2.
func sse8(a, b []uint8) int64 {
	b = b[:len(a)]
	var s int64
	i := 0
	if hasAVX2 {
		for ; i+16 <= len(a); i += maxSSE8 {
			n := min(maxSSE8, (len(a)-i)&^15)
			s += sse8AVX(a[i:i+n], b[i:i+n])
			if n < maxSSE8 {
				i += n
				break
			}
		}
	}
	for ; i < len(a); i++ {
		d := int64(a[i]) - int64(b[i])
		s += d * d
	}
	return s
}
