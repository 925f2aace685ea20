//go:build !amd64

package patches

// projectFast is project (the AVX kernel is amd64's).
func projectFast(dst, block, basis, shift []float64) { project(dst, block, basis, shift) }
