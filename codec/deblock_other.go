//go:build !amd64

package codec

// deblockRowsKernel filters nothing: the AVX pass is amd64's.
func deblockRowsKernel(r1, r0, s0, s1 []uint8, th *deblockThresholds) int { return 0 }

// deblockColsKernel filters nothing: the AVX pass is amd64's.
func deblockColsKernel(rows [][]uint8, n int, th *deblockThresholds) int { return n }

// floatRowsKernel filters nothing: the AVX pass is amd64's.
func floatRowsKernel(r1, r0, s0, s1 []float64, alpha, beta, tc float64) int { return 0 }

// floatColsKernel filters nothing: the AVX pass is amd64's.
func floatColsKernel(pix []float64, stride, w, h, n int, alpha, beta, tc float64) int { return 0 }

// kminRowKernel does none of the edges: the kernel is amd64's.
func kminRowKernel(t *kminTable, row []float64, n int, ks []uint8) int { return 0 }

// kminColsKernel does none of the edges: the kernel is amd64's.
func kminColsKernel(t *kminTable, r1, r0, s0, s1 []float64, ks []uint8) int { return 0 }
