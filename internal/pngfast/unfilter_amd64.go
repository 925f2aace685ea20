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

// averageRGBPairAVX unfilters the first n pixels (n ≥ 1) of two Average
// rows of 3-byte pixels, r1 below r0 below prev (each 3n+4 bytes or
// more), their chains interleaved.
//
//go:noescape
func averageRGBPairAVX(r0, r1, prev []byte, n int)

// paethRGBPairAVX is averageRGBPairAVX for two Paeth rows.
//
//go:noescape
func paethRGBPairAVX(r0, r1, prev []byte, n int)

// unfilterRGBPair unfilters two rows of 3-byte pixels filtered alike with
// Average (filter 3) or Paeth (4), r1 below r0 below prev, and reports
// whether it did: not without AVX, for other filters, or for rows of
// fewer than 3 pixels. The kernels take the pixels but the last two
// (their loads reach 4 bytes past a pixel's start); those are done here,
// r0's then r1's. Each pixel waits on its left neighbour: one row at a
// time left the processor idle between the dependent steps.
func unfilterRGBPair(filter byte, r0, r1, prev []byte) bool {
	n := len(r0)/3 - 2
	if !hasAVX || n < 1 || len(r0)%3 != 0 || len(r1) != len(r0) || len(prev) < len(r0) {
		return false
	}
	switch filter {
	case 3:
		averageRGBPairAVX(r0, r1, prev, n)
		for _, rp := range [2][2][]byte{{r0, prev}, {r1, r0}} {
			row, up := rp[0], rp[1]
			for i := 3 * n; i < len(row); i++ {
				row[i] = byte(avgByte(int(row[i-3]), int(up[i]), int(row[i])))
			}
		}
	case 4:
		paethRGBPairAVX(r0, r1, prev, n)
		for _, rp := range [2][2][]byte{{r0, prev}, {r1, r0}} {
			row, up := rp[0], rp[1]
			for i := 3 * n; i < len(row); i++ {
				row[i] = byte(paethByte(int(row[i-3]), int(up[i]), int(up[i-3]), int(row[i])))
			}
		}
	default:
		return false
	}
	return true
}

// unfilterGrey8AVX unfilters chunks×8 diagonal steps of 8 grey rows from
// step t0 on (see unfilter_amd64.s): base is row 0's byte t0, the rows
// stride bytes apart, prev the byte t0 of the row above them; masks the
// rows' filters (Paeth, Average, Sub, Up words), state the left and
// up-left bytes of each row's first byte.
//
//go:noescape
func unfilterGrey8AVX(base *byte, stride int, prev *byte, chunks int, masks *[4][8]uint16, state *[2][8]uint16)

// unfilterGrey8 is unfilterGrey8AVX (hasAVX).
func unfilterGrey8(base *byte, stride int, prev *byte, chunks int, masks *[4][8]uint16, state *[2][8]uint16) {
	unfilterGrey8AVX(base, stride, prev, chunks, masks, state)
}

// hasAVX512BW selects the RGB band kernel (tests switch it off).
var hasAVX512BW = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

// unfilterRGB8AVX512 unfilters chunks×8 diagonal steps of 8 rows of
// 3-byte pixels from step t0 on (see unfilter_amd64.s), row k rgbLag[k]
// pixels behind row 0: base is row 0's pixel t0, the rows stride bytes
// apart, prev the pixel t0 of the row above them; masks the rows' filters
// (Paeth, Average, Sub, Up words) and the state's bytes, state the left
// and up-left pixels of each row's first and its left pixel two steps
// before.
//
//go:noescape
func unfilterRGB8AVX512(base *byte, stride int, prev *byte, chunks int, masks *[5][32]uint16, state *[3][32]uint16)

// unfilterRGB8 is unfilterRGB8AVX512 (hasAVX512BW).
func unfilterRGB8(base *byte, stride int, prev *byte, chunks int, masks *[5][32]uint16, state *[3][32]uint16) {
	unfilterRGB8AVX512(base, stride, prev, chunks, masks, state)
}

// unfilterGrey16AVX512 unfilters chunks×8 diagonal steps of 16 grey rows
// from step t0 on as unfilterGrey8AVX does 8 (see unfilter_amd64.s):
// masks holds bit k for row k of Paeth, Average, Sub and Up, state the
// left and up-left bytes of each row's first byte.
//
//go:noescape
func unfilterGrey16AVX512(base *byte, stride int, prev *byte, chunks int, masks *[4]uint16, state *[2][16]uint32)

// hasAVX512VBMI selects unfilterGrey16AVX512 (tests switch it off).
var hasAVX512VBMI = hasAVX512BW && cpu.X86.HasAVX512VBMI

// unfilterGrey16 is unfilterGrey16AVX512 (hasAVX512VBMI).
func unfilterGrey16(base *byte, stride int, prev *byte, chunks int, masks *[4]uint16, state *[2][16]uint32) {
	unfilterGrey16AVX512(base, stride, prev, chunks, masks, state)
}
