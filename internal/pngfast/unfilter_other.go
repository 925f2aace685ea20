//go:build !amd64

package pngfast

var hasAVX = false

// unfilterRGB does none of a row (the kernels are amd64's).
func unfilterRGB(filter byte, row, prev []byte, bpp int) int { return 0 }

// unfilterRGBPair does no rows (the kernels are amd64's).
func unfilterRGBPair(filter byte, r0, r1, prev []byte) bool { return false }
