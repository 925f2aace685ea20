//go:build !amd64

package codec

// deblockRowsKernel filters nothing: the AVX pass is amd64's.
func deblockRowsKernel(r1, r0, s0, s1 []uint8, th *deblockThresholds) int { return 0 }

// deblockColsKernel filters nothing: the AVX pass is amd64's.
func deblockColsKernel(rows [][]uint8, n int, th *deblockThresholds) int { return n }
