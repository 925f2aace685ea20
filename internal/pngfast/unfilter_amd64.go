package pngfast

import "golang.org/x/sys/cpu"

// hasAVX selects the RGB unfiltering kernels (tests switch it off).
var hasAVX = cpu.X86.HasAVX

// averageRGBAVX unfilters the first n pixels of an Average row of 3-byte
// pixels (row and prev hold 3n+1 bytes or more).
//
//go:noescape
func averageRGBAVX(row, prev []byte, n int)

// paethRGBAVX unfilters the first n pixels of a Paeth row of 3-byte
// pixels (row and prev hold 3n+1 bytes or more).
//
//go:noescape
func paethRGBAVX(row, prev []byte, n int)

// unfilterRGB unfilters an Average (filter 3) or Paeth (4) row of 3-byte
// pixels up to its last pixel by the kernels, a pixel a step instead of
// a byte lane at a time, and returns the bytes done: none without AVX or
// for other filters and pixel sizes.
func unfilterRGB(filter byte, row, prev []byte, bpp int) int {
	n := len(row)/3 - 1 // the last pixel's load would pass the row's end
	if !hasAVX || bpp != 3 || n < 1 || len(prev) < len(row) {
		return 0
	}
	switch filter {
	case 3:
		averageRGBAVX(row, prev, n)
	case 4:
		paethRGBAVX(row, prev, n)
	default:
		return 0
	}
	return 3 * n
}
