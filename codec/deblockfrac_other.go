//go:build !amd64

package codec

// fracTermsKernel adds nothing: the AVX-512 kernel is amd64's.
func fracTermsKernel(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8) int {
	return 0
}
