//go:build !amd64

package patches

// projectFast is project (the AVX kernel is amd64's).
func projectFast(dst, block, basis, shift []float64) { project(dst, block, basis, shift) }

// projectGray8Row does nothing (the AVX-512 kernel is amd64's): 0 blocks.
func projectGray8Row(dst []float64, pix []uint8, stride, w int, basis, shift []float64) int { return 0 }

// projectGray4Row does nothing (the AVX-512 kernel is amd64's): 0 blocks.
func projectGray4Row(dst []float64, pix []uint8, stride, w int, basis, shift []float64) int { return 0 }

// projectFloat8Row does nothing (the AVX-512 kernel is amd64's): 0 blocks.
func projectFloat8Row(dst, pix []float64, stride, w int, basis, shift []float64) int { return 0 }
