//go:build !amd64

package pngfast

var hasAVX = false

// unfilterRGB does none of a row (the kernels are amd64's).
func unfilterRGB(filter byte, row, prev []byte, bpp int) int { return 0 }

// unfilterRGBPair does no rows (the kernels are amd64's).
func unfilterRGBPair(filter byte, r0, r1, prev []byte) bool { return false }

// unfilterGrey8 is not called: hasAVX is false (the kernel is amd64's).
func unfilterGrey8(base *byte, stride int, prev *byte, chunks int, masks *[4][8]uint16, state *[2][8]uint16) {
	panic("pngfast: no grey band kernel")
}

var hasAVX512BW = false

// unfilterRGB8 is not called: hasAVX512BW is false (the kernel is amd64's).
func unfilterRGB8(base *byte, stride int, prev *byte, chunks int, masks *[5][32]uint16, state *[3][32]uint16) {
	panic("pngfast: no RGB band kernel")
}

var hasAVX512VBMI = false

// unfilterGrey16 is not called: hasAVX512VBMI is false (the kernel is
// amd64's).
func unfilterGrey16(base *byte, stride int, prev *byte, chunks int, masks *[4]uint16, state *[2][16]uint32) {
	panic("pngfast: no 16-row grey band kernel")
}
