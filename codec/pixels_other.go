//go:build !amd64

package codec

// pixelsKernel reports false: the AVX kernel of pixelsFrom is amd64's.
func pixelsKernel(pix, start, w0, y []float64, nz []int) bool { return false }

// pixels16Kernel reports false: the AVX kernel of pixelsFrom is amd64's.
func pixels16Kernel(pix, start, w0, y []float64) bool { return false }

// pixels64Kernel reports false: the AVX-512 kernel of pixelsFrom is amd64's.
func pixels64Kernel(pix, start, w0, y []float64) bool { return false }

// pixels64Into reports false: the AVX-512 kernel is amd64's.
func pixels64Into(dst []float64, stride int, start, w0, y []float64) bool { return false }

// pixels64Gray8 reports false: the AVX-512 kernel is amd64's.
func pixels64Gray8(dst []uint8, stride int, start, w0, y []float64) bool { return false }

// copy8x8Kernel reports false: the AVX copy is amd64's.
func copy8x8Kernel(dst []float64, stride int, src []float64) bool { return false }

// quantize8Kernel reports false: the AVX rounding is amd64's.
func quantize8Kernel(dst []uint8, stride int, src []float64, n int) bool { return false }

// nonzeroKernel lists nothing: the AVX kernel is amd64's.
func nonzeroKernel(y []float64, nz []int) (n, done int) { return 0, 0 }

// recon16 reports false: the AVX kernel is amd64's.
func recon16(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) bool {
	return false
}
