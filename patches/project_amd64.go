package patches

import "golang.org/x/sys/cpu"

// hasAVX selects the AVX kernel of project, hasAVX512 the AVX-512 one
// (same sums to the last bit).
var hasAVX, hasAVX512 = cpu.X86.HasAVX, cpu.X86.HasAVX512F

// projectAVX is project for len(dst) a multiple of 16, len(basis) ≥
// len(block)·len(dst) and len(shift) ≥ len(dst), 4 responses per AVX
// register, 16 at once; the products are rounded before they are added,
// in the same order as project's.
//
//go:noescape
func projectAVX(dst, block, basis, shift []float64)

// projectAVX512 is projectAVX for len(dst) a multiple of 64, 8 responses
// per AVX-512 register, 64 at once.
//
//go:noescape
func projectAVX512(dst, block, basis, shift []float64)

// projectFast is project, through the AVX or AVX-512 kernel where it
// applies.
func projectFast(dst, block, basis, shift []float64) {
	if hasAVX && len(dst)%16 == 0 && len(dst) > 0 {
		if len(basis) < len(block)*len(dst) || len(shift) < len(dst) {
			panic("patches: projectFast: short basis or shift")
		}
		if hasAVX512 && len(dst)%64 == 0 {
			projectAVX512(dst, block, basis, shift)
			return
		}
		projectAVX(dst, block, basis, shift)
		return
	}
	project(dst, block, basis, shift)
}

// projectGray8AVX512 projects n 8×8 blocks of 8-bit samples side by
// side, the first at pix, rows stride apart, into dst (64 responses a
// block): the samples converted to float64 and summed as projectAVX512
// sums them, without a Go loop converting them first.
//
//go:noescape
func projectGray8AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)

// projectGray8Row projects the 8×8 blocks of one block row of 8-bit
// samples w wide (pix at its top-left corner, rows stride apart) into dst
// (64 responses a block) where the CPU has AVX-512, and returns how many
// blocks it did: 0 elsewhere.
func projectGray8Row(dst []float64, pix []uint8, stride, w int, basis, shift []float64) int {
	blocks := w / 8
	if !hasAVX512 || blocks == 0 {
		return 0
	}
	if stride < w || len(pix) < 7*stride+8*blocks || len(dst) < 64*blocks || len(basis) < 64*64 || len(shift) < 64 {
		panic("patches: projectGray8Row: short slices")
	}
	if pairs := blocks / 2; pairs > 0 {
		projectGray8x2AVX512(dst, pix, stride, pairs, basis, shift)
	}
	if blocks%2 != 0 {
		projectGray8AVX512(dst[64*(blocks-1):], pix[8*(blocks-1):], stride, 1, basis, shift)
	}
	return blocks
}

// projectFloat8AVX512 projects n 8×8 blocks of float64 samples side by
// side, the first at pix, rows stride apart, into dst (64 responses a
// block) as projectAVX512 does each block's samples copied row by row,
// without the copy: it was ~6.7 M instructions of a colour encode's
// 768×512 image (callgrind), with no sum to save (the products take
// their 4 cycles a sample in any order).
//
//go:noescape
func projectFloat8AVX512(dst, pix []float64, stride, n int, basis, shift []float64)

// projectFloat8Row is projectGray8Row for float64 samples (the planes of
// colour images' channels).
func projectFloat8Row(dst, pix []float64, stride, w int, basis, shift []float64) int {
	blocks := w / 8
	if !hasAVX512 || blocks == 0 {
		return 0
	}
	if stride < w || len(pix) < 7*stride+8*blocks || len(dst) < 64*blocks || len(basis) < 64*64 || len(shift) < 64 {
		panic("patches: projectFloat8Row: short slices")
	}
	if pairs := blocks / 2; pairs > 0 {
		projectFloat8x2AVX512(dst, pix, stride, pairs, basis, shift)
	}
	if blocks%2 != 0 {
		projectFloat8AVX512(dst[64*(blocks-1):], pix[8*(blocks-1):], stride, 1, basis, shift)
	}
	return blocks
}

// projectGray4AVX512 projects n groups of 4 side-by-side 4×4 blocks
// of 8-bit samples, the first at pix, rows stride apart, into dst (16
// responses a block, 64 a group), as projectGray8AVX512 does 8×8 blocks.
//
//go:noescape
func projectGray4AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)

// projectGray4Row is projectGray8Row for 4×4 blocks, 4 at a time: it
// returns how many blocks it did (a multiple of 4; 0 without AVX-512).
func projectGray4Row(dst []float64, pix []uint8, stride, w int, basis, shift []float64) int {
	quads := w / 16
	if !hasAVX512 || quads == 0 {
		return 0
	}
	if stride < w || len(pix) < 3*stride+16*quads || len(dst) < 64*quads || len(basis) < 16*16 || len(shift) < 16 {
		panic("patches: projectGray4Row: short slices")
	}
	projectGray4AVX512(dst, pix, stride, quads, basis, shift)
	return 4 * quads
}

// projectGray8x2AVX512 is projectGray8AVX512 for n pairs of blocks (2n
// blocks side by side), each basis row loaded once for a pair.
//
//go:noescape
func projectGray8x2AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)

// projectFloat8x2AVX512 is projectFloat8AVX512 for n pairs of blocks (2n
// blocks side by side), each basis row loaded once for a pair.
//
//go:noescape
func projectFloat8x2AVX512(dst, pix []float64, stride, n int, basis, shift []float64)
