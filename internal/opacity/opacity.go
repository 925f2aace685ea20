// Package opacity tells whether rows of RGBA pixels are all opaque, a
// word at a time: image.RGBA's Opaque tests one alpha byte per loop step,
// which was 3 % of the instructions of a colour batch decode (each PPM or
// PNG writer checks the whole image before it writes a byte).
package opacity

import "encoding/binary"

// RGBA tells whether every pixel of the 8-bit RGBA bytes pix (4 a
// pixel, as in image.RGBA.Pix) has alpha 0xff: two pixels a load.
func RGBA(pix []byte) bool {
	const pair = 0xff000000ff000000 // little-endian: the last byte of each 4
	i := 0
	for ; i+8 <= len(pix); i += 8 {
		if binary.LittleEndian.Uint64(pix[i:i+8])&pair != pair {
			return false
		}
	}
	return i+4 > len(pix) || pix[i+3] == 0xff
}

// RGBA64 tells whether every pixel of the 16-bit RGBA bytes pix (8 a
// pixel, as in image.RGBA64.Pix) has alpha 0xffff: a pixel a load.
func RGBA64(pix []byte) bool {
	const alpha = 0xffff000000000000
	for i := 0; i+8 <= len(pix); i += 8 {
		if binary.LittleEndian.Uint64(pix[i:i+8])&alpha != alpha {
			return false
		}
	}
	return true
}

// Image tells whether the w×h pixels from index at of an RGBA (bps 1) or
// RGBA64 (bps 2) raster with rows stride bytes apart are all opaque.
func Image(pix []byte, stride, at, w, h, bps int) bool {
	for y := range h {
		row := pix[at+y*stride:][:4*bps*w]
		if bps == 1 && !RGBA(row) || bps == 2 && !RGBA64(row) {
			return false
		}
	}
	return true
}
