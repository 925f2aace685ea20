package codec

// floatRowsAVX is floatEdge down len(r1)/4 groups of 4 columns of the
// four rows, to the last bit, for tc > 0; k holds alpha, beta, tc and −tc,
// 4 copies each.
//
//go:noescape
func floatRowsAVX(r1, r0, s0, s1 []float64, k *[4][4]float64)

// floatRowsKernel runs floatRowsAVX on the whole groups of 4 columns of
// the rows where it applies and returns the columns it filtered (0 where
// it does not: no AVX, or tc not above 0, where Go's min and max of zeros
// of both signs differ from VMINPD's and VMAXPD's).
func floatRowsKernel(r1, r0, s0, s1 []float64, alpha, beta, tc float64) int {
	n := len(r1) &^ 3
	if !hasAVX || n == 0 || !(tc > 0) {
		return 0
	}
	if len(r0) < n || len(s0) < n || len(s1) < n {
		panic("codec: floatRowsKernel: short rows")
	}
	k := [4][4]float64{{alpha, alpha, alpha, alpha}, {beta, beta, beta, beta}, {tc, tc, tc, tc}, {-tc, -tc, -tc, -tc}}
	floatRowsAVX(r1[:n], r0[:n], s0[:n], s1[:n], &k)
	return n
}

// floatColsAVX is floatEdge at each vertical edge of groups·4 rows of pix
// (stride samples apart, w wide, edges n apart), to the last bit, for
// tc > 0; k as floatRowsAVX's.
//
//go:noescape
func floatColsAVX(pix []float64, stride, w, n, groups int, k *[4][4]float64)

// floatColsKernel runs floatColsAVX on the whole groups of 4 of the h rows
// of pix where it applies and returns the rows it filtered (0 where it
// does not: as floatRowsKernel, and for patches under 2 samples).
func floatColsKernel(pix []float64, stride, w, h, n int, alpha, beta, tc float64) int {
	groups := h / 4
	if !hasAVX || groups == 0 || n < 2 || w < n+2 || !(tc > 0) {
		return 0
	}
	if stride < w || len(pix) < (4*groups-1)*stride+w {
		panic("codec: floatColsKernel: short plane")
	}
	k := [4][4]float64{{alpha, alpha, alpha, alpha}, {beta, beta, beta, beta}, {tc, tc, tc, tc}, {-tc, -tc, -tc, -tc}}
	floatColsAVX(pix, stride, w, n, groups, &k)
	return 4 * groups
}
