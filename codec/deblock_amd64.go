package codec

// deblockRowsAVX is deblockGray's pass over a horizontal edge for
// len(r1) a multiple of 8, up to the first group of 8 columns holding a
// clipped edge; it returns the columns it filtered. a, b and clip must
// fit 16 bits.
//
//go:noescape
func deblockRowsAVX(r1, r0, s0, s1 []uint8, a, b, clip int) int

// deblockRowsKernel runs deblockRowsAVX on the whole groups of 8 columns
// of the rows where it applies, returning the columns it filtered (0
// where it does not apply): the pass over a horizontal edge, 8 columns at
// once.
func deblockRowsKernel(r1, r0, s0, s1 []uint8, th *deblockThresholds) int {
	n := len(r1) &^ 7
	if !hasAVX || n == 0 {
		return 0
	}
	if len(r0) < n || len(s0) < n || len(s1) < n {
		panic("codec: deblockRowsKernel: short rows")
	}
	// |q0 − p0|, |p1 − p0| and |q1 − q0| are at most 255 and |d8| at most
	// 1275: thresholds clamped past those decide alike, in 16 bits.
	a, b := min(max(th.a, 0), 256), min(max(th.b, 0), 256)
	clip := min(max(th.clip, -1), 1276)
	return deblockRowsAVX(r1[:n], r0[:n], s0[:n], s1[:n], a, b, clip)
}

// deblockCols4AVX is deblockGray's pass over the vertical edges of 4×4
// patches in two rows at once, up to the first step of four edges per
// row holding a clipped edge; it returns the first edge's x it did not
// filter. a, b and clip must fit 16 bits.
//
//go:noescape
func deblockCols4AVX(ra, rb []uint8, a, b, clip int) int

// deblockCols8AVX is deblockCols4AVX for 8×8 patches, four rows at once.
//
//go:noescape
func deblockCols8AVX(ra, rb, rc, rd []uint8, a, b, clip int) int

// deblockColsKernel runs the AVX pass over the vertical edges of n×n
// patches (n 4 or 8) on rows (2 or 4 of them, as long) where it applies,
// returning the x of the first edge it left (n where it does not apply).
func deblockColsKernel(rows [][]uint8, n int, th *deblockThresholds) int {
	if !hasAVX {
		return n
	}
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			panic("codec: deblockColsKernel: rows of different lengths")
		}
	}
	a, b := min(max(th.a, 0), 256), min(max(th.b, 0), 256)
	clip := min(max(th.clip, -1), 1276)
	switch {
	case n == 4 && len(rows) == 2:
		return deblockCols4AVX(rows[0], rows[1], a, b, clip)
	case n == 8 && len(rows) == 4:
		return deblockCols8AVX(rows[0], rows[1], rows[2], rows[3], a, b, clip)
	}
	return n
}
