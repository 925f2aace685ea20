//go:build !amd64

package codec

// deblockRowsKernel filters nothing: the AVX pass is amd64's.
func deblockRowsKernel(r1, r0, s0, s1 []uint8, th *deblockThresholds) int { return 0 }

// deblockCols4Kernel filters nothing: the AVX pass is amd64's.
func deblockCols4Kernel(ra, rb []uint8, th *deblockThresholds) int { return 4 }
