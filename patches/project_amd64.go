package patches

import "golang.org/x/sys/cpu"

// hasAVX selects the AVX kernel of project (same sums to the last bit).
var hasAVX = cpu.X86.HasAVX

// projectAVX is project for len(dst) a multiple of 16, len(basis) ≥
// len(block)·len(dst) and len(shift) ≥ len(dst), 4 responses per AVX
// register, 16 at once; the products are rounded before they are added,
// in the same order as project's.
//
//go:noescape
func projectAVX(dst, block, basis, shift []float64)

// projectFast is project, through the AVX kernel where it applies.
func projectFast(dst, block, basis, shift []float64) {
	if hasAVX && len(dst)%16 == 0 && len(dst) > 0 {
		if len(basis) < len(block)*len(dst) || len(shift) < len(dst) {
			panic("patches: projectFast: short basis or shift")
		}
		projectAVX(dst, block, basis, shift)
		return
	}
	project(dst, block, basis, shift)
}
