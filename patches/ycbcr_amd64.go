package patches

// rgbaRowAVX converts len(y)/4 groups of 4 samples as rgbaRow does, to the
// last bit (ycbcr_amd64.s); k is rgbaConsts.
//
//go:noescape
func rgbaRowAVX(dst []uint8, y, cb, cr []float64, k *[9]float64)

// rgbaConsts are the constants of rgbaRowAVX, in its order.
var rgbaConsts = [9]float64{chromaZero, crScale, cbScale, kr, kb, kg, 255, 0.5, 1}

// rgbaRowFast is rgbaRow, 4 pixels at a time by the AVX kernel where the
// CPU has it.
func rgbaRowFast(dst []uint8, y, cb, cr []float64) {
	n := 0
	if hasAVX {
		n = len(y) &^ 3
		if len(cb) < n || len(cr) < n || len(dst) < 4*n {
			panic("patches: rgbaRowFast: short rows")
		}
		rgbaRowAVX(dst, y[:n], cb, cr, &rgbaConsts)
	}
	rgbaRow(dst[4*n:], y[n:], cb[n:], cr[n:])
}
