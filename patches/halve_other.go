//go:build !amd64

package patches

var hasAVX2 = false

// halveKernel is none of halveRows (the AVX2 kernel is amd64's).
func halveKernel(dst, r0, r1 []float64) int { return 0 }
