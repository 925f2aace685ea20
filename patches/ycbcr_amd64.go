package patches

import "github.com/spcalab/spca/internal/opacity"

// rgbaTable holds the constants of the kernels in ycbcr_amd64.s, each
// four times (one AVX register), in the order of its K_ offsets.
type rgbaTable [13][4]float64

var rgbaConsts = func() *rgbaTable {
	var t rgbaTable
	for i, v := range [13]float64{chromaZero, crScale, cbScale, kr, kb, kg, 255, 0.5, 1, 9, 3, 1.0 / 16, kg} {
		t[i] = [4]float64{v, v, v, v}
	}
	return &t
}()

// rgbaRowAVX converts len(y)/4 groups of 4 samples as rgbaRow does, to the
// last bit.
//
//go:noescape
func rgbaRowAVX(dst []uint8, y, cb, cr []float64, k *rgbaTable)

// rgba420AVX converts len(y)/8 groups of 8 pixels as rgba420Row does, to
// the last bit; the chroma rows start at the half-resolution sample before
// the first group's (so the first group has pixels 2 to 9 of a row).
//
//go:noescape
func rgba420AVX(dst []uint8, y, cbA, cbB, crA, crB []float64, k *rgbaTable)

// rgbaRowFast is rgbaRow, 4 pixels at a time by the AVX kernel where the
// CPU has it.
func rgbaRowFast(dst []uint8, y, cb, cr []float64) {
	n := 0
	if hasAVX {
		n = len(y) &^ 3
		if len(cb) < n || len(cr) < n || len(dst) < 4*n {
			panic("patches: rgbaRowFast: short rows")
		}
		rgbaRowAVX(dst, y[:n], cb, cr, rgbaConsts)
	}
	rgbaRow(dst[4*n:], y[n:], cb[n:], cr[n:])
}

// rgba420RowFast is rgba420Row, pixels 2 to 8g+1 (g groups of 8, each
// reading half-resolution samples a−1 to a+4) by the AVX kernel where the
// CPU has it, the first two and the rest by rgba420Row.
func rgba420RowFast(dst []uint8, y, cbA, cbB, crA, crB []float64) {
	g := 0
	if hw := len(cbA); hasAVX && hw >= 6 {
		g = (hw - 2) / 4
		if len(y) < 8*g+2 || len(dst) < 4*len(y) || len(cbB) < hw || len(crA) < hw || len(crB) < hw {
			panic("patches: rgba420RowFast: short rows")
		}
		rgba420AVX(dst[8:], y[2:2+8*g], cbA, cbB, crA, crB, rgbaConsts)
	}
	rgba420Row(dst, y, cbA, cbB, crA, crB, 0, 1)
	rgba420Row(dst, y, cbA, cbB, crA, crB, 1+4*g, len(cbA))
}

// yccRowAVX converts len(y)/4 groups of 4 opaque RGBA pixels as yccRow
// does, to the last bit.
//
//go:noescape
func yccRowAVX(y, cb, cr []float64, pix []uint8, k *rgbaTable)

// yccRowFast is yccRow, 4 pixels at a time by the AVX kernel where the CPU
// has it and the row is opaque.
func yccRowFast(y, cb, cr []float64, pix []uint8) {
	n := 0
	if hasAVX && opacity.RGBA(pix[:4*len(y)]) {
		n = len(y) &^ 3
		if len(cb) < n || len(cr) < n {
			panic("patches: yccRowFast: short rows")
		}
		yccRowAVX(y[:n], cb, cr, pix, rgbaConsts)
	}
	yccRow(y[n:], cb[n:], cr[n:], pix[4*n:])
}
