package codec

// fracTermsAVX512 is fracTermsGo for len(old) edges, a multiple of 8
// (the other slices at least as long), 8 at a time in AVX-512: the
// filtered pixels in 32-bit lanes (edgePixels's, the eighths rounded as
// (16·v + 2·d8 + 8) >> 4, the same numbers), the changes by the same
// operations (each product and difference rounded, the four pixels'
// changes added in order p1, p0, q0, q1), then added edge after edge to the 8 strengths' sums held in
// one register, each masked by the edge's strengths: the same sums.
//
//go:noescape
func fracTermsAVX512(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)

// fracTermsAVX2 is fracTermsAVX512 for len(old) edges, a multiple of 4,
// 4 at a time in AVX2: the changes by the same operations, each added
// to the 8 sums (two registers) masked by a compare, +0 where the edge
// does not pass, as fracTermsGo does: the same sums.
//
//go:noescape
func fracTermsAVX2(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)

// fracTermsKernel runs fracTermsAVX512 (8 edges a step) or
// fracTermsAVX2 (4) over the first edges it returns (0 without AVX2).
func fracTermsKernel(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8) int {
	step := 8
	if !hasAVX512 {
		step = 4
	}
	n := len(old) &^ (step - 1)
	if !hasAVX2 || n == 0 {
		return 0
	}
	if len(o1) < n || len(o0) < n || len(oq0) < n || len(oq1) < n || len(mask) < n {
		panic("codec: fracTermsKernel: short slices")
	}
	if hasAVX512 {
		fracTermsAVX512(sum, old[:n], o1[:n], o0[:n], oq0[:n], oq1[:n], mask[:n])
	} else {
		fracTermsAVX2(sum, old[:n], o1[:n], o0[:n], oq0[:n], oq1[:n], mask[:n])
	}
	return n
}
