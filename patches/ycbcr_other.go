//go:build !amd64

package patches

// rgbaRowFast is rgbaRow (the AVX kernel is amd64's).
func rgbaRowFast(dst []uint8, y, cb, cr []float64) { rgbaRow(dst, y, cb, cr) }
