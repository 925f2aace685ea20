package codec

// kminRowAVX2 sets ks[j] to the first strength of the vertical edge at
// x = n(j+1) of row for j < m (m a multiple of 4, at least 4; row holds
// n·m+2 samples or more), as edgeSums.kmin, for thresholds that grow
// with the strength.
//
//go:noescape
func kminRowAVX2(row []float64, n, m int, t *kminTable, ks []uint8)

// kminColsAVX2 sets ks[x] to the first strength of the horizontal edge
// r1[x] r0[x] | s0[x] s1[x] for x < len(r1) (a multiple of 4, at least 4),
// as kminRowAVX2.
//
//go:noescape
func kminColsAVX2(r1, r0, s0, s1 []float64, t *kminTable, ks []uint8)

// kminRowKernel fills ks[:m] with the first strengths of the vertical
// edges of row (kminRow) 4 edges at a time and returns how many it did:
// none without AVX2 or a table.
func kminRowKernel(t *kminTable, row []float64, n int, ks []uint8) int {
	m := len(ks) &^ 3
	if !hasAVX2 || t == nil || m == 0 {
		return 0
	}
	if len(row) < n*m+2 {
		panic("codec: kminRowKernel: short row")
	}
	kminRowAVX2(row, n, m, t, ks)
	return m
}

// kminColsKernel fills ks with the first strengths of the horizontal
// edges of the columns of r1, r0, s0, s1 4 columns at a time and returns
// how many it did: none without AVX2 or a table.
func kminColsKernel(t *kminTable, r1, r0, s0, s1 []float64, ks []uint8) int {
	m := len(ks) &^ 3
	if !hasAVX2 || t == nil || m == 0 {
		return 0
	}
	if len(r1) < m || len(r0) < m || len(s0) < m || len(s1) < m {
		panic("codec: kminColsKernel: short rows")
	}
	kminColsAVX2(r1[:m], r0[:m], s0[:m], s1[:m], t, ks)
	return m
}
