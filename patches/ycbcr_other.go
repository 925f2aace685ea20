//go:build !amd64

package patches

// rgbaRowFast is rgbaRow (the AVX kernel is amd64's).
func rgbaRowFast(dst []uint8, y, cb, cr []float64) { rgbaRow(dst, y, cb, cr) }

// rgba420RowFast is rgba420Row of the whole row (the AVX kernel is amd64's).
func rgba420RowFast(dst []uint8, y, cbA, cbB, crA, crB []float64) {
	rgba420Row(dst, y, cbA, cbB, crA, crB, 0, len(cbA))
}

// yccRowFast is yccRow (the AVX kernel is amd64's).
func yccRowFast(y, cb, cr []float64, pix []uint8) { yccRow(y, cb, cr, pix) }

// yccRGBKernel converts no pixels (the AVX-512 kernel is amd64's).
func yccRGBKernel(y, cb, cr []float64, rgb []uint8) int { return 0 }
