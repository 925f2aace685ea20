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

// deblockCols4Kernel runs deblockCols4AVX on rows ra and rb (as long)
// where it applies, returning the x of the first vertical edge it left
// (4 where it does not apply): the pass over the vertical edges of 4×4
// patches, eight at once.
func deblockCols4Kernel(ra, rb []uint8, th *deblockThresholds) int {
	if !hasAVX {
		return 4
	}
	if len(rb) != len(ra) {
		panic("codec: deblockCols4Kernel: rows of different lengths")
	}
	a, b := min(max(th.a, 0), 256), min(max(th.b, 0), 256)
	clip := min(max(th.clip, -1), 1276)
	return deblockCols4AVX(ra, rb, a, b, clip)
}
