//go:build !amd64

package codec

// pixelsKernel reports false: the AVX kernel of pixelsFrom is amd64's.
func pixelsKernel(pix, start, w0, y []float64, nz []int) bool { return false }
