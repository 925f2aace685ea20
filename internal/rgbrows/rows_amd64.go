package rgbrows

import "golang.org/x/sys/cpu"

// hasSSSE3 selects the kernels (tests switch it off).
var hasSSSE3 = cpu.X86.HasSSSE3

// toRGBSSSE3 stores the first 3 bytes of each 4 of src[:16n] at each 3
// of dst[:12n], 4 pixels a shuffle, each group's 16-byte store
// overwriting the spare 4 of the one before: dst must hold 12n+4 bytes.
//
//go:noescape
func toRGBSSSE3(dst, src []byte, n int)

// toRGBASSSE3 spreads the 4n RGB pixels of src[:12n] to RGBA at
// dst[:16n], alpha 0xff, 4 pixels a shuffle, each group's 16-byte load
// (12 bytes used) before its store: src must hold 12n+4 bytes.
//
//go:noescape
func toRGBASSSE3(dst, src []byte, n int)

// ToRGB stores the RGB bytes of the first RGBA pixels of src at dst, 3
// bytes a pixel, and returns how many pixels it did: whole groups of 4,
// as many as fit with 4 spare bytes at the end of dst (overwritten), none
// without SSSE3.
func ToRGB(dst, src []byte) int {
	if !hasSSSE3 || len(dst) < 16 {
		return 0
	}
	n := min(len(src)/16, (len(dst)-4)/12)
	toRGBSSSE3(dst, src, n)
	return 4 * n
}

// ToRGBA stores the first RGB pixels of src at dst as RGBA, alpha 0xff,
// and returns how many pixels it did: whole groups of 4, as many as fit
// in dst and in src with 4 bytes beyond their 12, none without SSSE3.
// dst may overlap src if it starts before it and each group's 16 bytes
// end where the next group's 12 begin, or before: dst = row[:4w], src =
// row[w:4w] (16g+16 <= w+12g+12 while 4g+4 <= w) converts a row in place.
func ToRGBA(dst, src []byte) int {
	if !hasSSSE3 || len(src) < 16 {
		return 0
	}
	n := min((len(src)-4)/12, len(dst)/16)
	toRGBASSSE3(dst, src, n)
	return 4 * n
}
