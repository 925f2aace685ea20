package pngfast

import (
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// hasAVX2 selects the writer's kernels and the Adler-32 kernel (tests
// switch it off): the Sub filter of RGB rows and the Adler-32 by AVX2,
// the Huffman codes of the literals by BMI2's shifts.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// adlerBlocksAVX2 returns the byte sum a of p and b = Σ (len(p)−i)·p[i],
// what p adds to Adler-32 sums that start at 0. len(p) is a multiple of
// 32, at least 32 and at most adlerChunk.
//
//go:noescape
func adlerBlocksAVX2(p []byte) (a, b uint64)

// subRGBAVX2 writes the Sub filter of pixels 1 to 8n of the RGBA pixels
// src into dst (3 bytes a pixel, from dst[3]): 8 pixels a step.
//
//go:noescape
func subRGBAVX2(dst, src []byte, n int)

// subBytesAVX2 writes into dst the Sub filter of src's bytes bpp to
// bpp+32n-1 (each minus the byte bpp before it): 32 bytes a step.
//
//go:noescape
func subBytesAVX2(dst, src []byte, bpp, n int)

// huffLitsBMI2 appends the literals p (len(p) a multiple of 3) to the
// bits acc (n of them, fewer than 8) and the bytes out[:o] as
// flushSampled's loop does: codes from code's low 16 bits, lengths from
// lens. out has room for 8 bytes past the last whole byte written.
//
//go:noescape
func huffLitsBMI2(out []byte, o int, acc uint64, n uint, p []byte, code *[numLit]uint32, lens *[numLit]uint8) (int, uint64, uint)

// hasHuffAVX512 selects huffLitsAVX512 (with hasAVX2; tests switch it
// off to test huffLitsBMI2).
var hasHuffAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI

// huffLitsAVX512 is huffLitsBMI2 for len(p) a multiple of 64, its codes
// and lengths from lut (h.lut, set by setLUT), and stops before a 64-byte
// step holding four consecutive codes of more than 56 bits: it returns
// how many bytes of p it coded, then huffLitsBMI2's results.
//
//go:noescape
func huffLitsAVX512(out []byte, o int, acc uint64, n uint, p []byte, lut *[3][256]byte) (int, int, uint64, uint)

// adlerBlocksAVX512 is adlerBlocksAVX2 64 bytes a step, len(p) a
// multiple of 64 (AVX-512 BW).
//
//go:noescape
func adlerBlocksAVX512(p []byte) (a, b uint64)

// hasAdlerAVX512 selects adlerBlocksAVX512 (with hasAVX2; tests switch it
// off to test adlerBlocksAVX2).
var hasAdlerAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// adlerBlocks is adlerBlocksAVX512 on the 64-byte blocks of p and
// adlerBlocksAVX2 on a last 32 bytes where they run (half the
// instructions of adlerBlocksAVX2 alone), else it returns ok false.
func adlerBlocks(p []byte) (a, b uint64, ok bool) {
	if !hasAVX2 {
		return 0, 0, false
	}
	if !hasAdlerAVX512 || len(p) < 64 {
		a, b = adlerBlocksAVX2(p)
		return a, b, true
	}
	n := len(p) &^ 63
	a, b = adlerBlocksAVX512(p[:n])
	if n < len(p) {
		// p = x‖y: b(p) = b(x) + len(y)·a(x) + b(y).
		ta, tb := adlerBlocksAVX2(p[n:])
		a, b = a+ta, b+uint64(len(p)-n)*a+tb
	}
	return a, b, true
}

// subRGBKernel filters the first 1+8k pixels of a row of RGBA src into
// dst (subRGB's work) and returns how many: none without AVX2 or for a
// row of fewer than 9 pixels.
func subRGBKernel(dst, src []byte) int {
	k := (min(len(src)/4, len(dst)/3) - 1) / 8
	if !hasAVX2 || k < 1 {
		return 0
	}
	dst[0], dst[1], dst[2] = src[0], src[1], src[2]
	subRGBAVX2(dst, src, k)
	return 1 + 8*k
}

// subKernel filters src's bytes from bpp on into dst (subAdler's work)
// up to a multiple of 32 and returns where it stopped: bpp without AVX2
// or for fewer than 32 bytes after the first bpp. len(src) >= bpp.
func subKernel(dst, src []byte, bpp int) int {
	k := (min(len(src), len(dst)) - bpp) / 32
	if !hasAVX2 || k < 1 {
		return bpp
	}
	subBytesAVX2(dst, src, bpp, k)
	return bpp + 32*k
}

// huffLits codes the literals of q, three at a time, by huffLitsBMI2 and
// returns the rest of q (fewer than 3 bytes), or q itself without BMI2.
func huffLits(h *huffWriter, out []byte, o int, acc uint64, n uint, q []byte) (int, uint64, uint, []byte) {
	if !hasAVX2 {
		return o, acc, n, q
	}
	rest := q[len(q)/3*3:] // left to the caller, as without the kernels
	q = q[:len(q)/3*3]
	if hasHuffAVX512 && len(q) >= 64 {
		h.setLUT()
		for len(q) >= 64 {
			var k int
			k, o, acc, n = huffLitsAVX512(out, o, acc, n, q[:len(q)&^63], &h.lut)
			q = q[k:]
			if len(q) >= 64 {
				// A step of long codes (rare): 63 bytes three at a time.
				o, acc, n = huffLitsBMI2(out, o, acc, n, q[:63], &h.code, &h.litLen)
				q = q[63:]
			}
		}
		// The caller's bit accumulator codes its last len(p)%3 bytes,
		// whose bits may go into the next block's output (the PNG's
		// IDAT chunks): this leaves it the same bytes as huffLitsBMI2
		// alone would.
		for len(q)%3 != 0 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			k := n >> 3
			o += int(k)
			acc >>= (k * 8) & 63
			n &= 7
			e := h.code[q[0]]
			acc |= uint64(e&0xffff) << (n & 63)
			n += uint(e >> 16)
			q = q[1:]
		}
	}
	o, acc, n = huffLitsBMI2(out, o, acc, n, q, &h.code, &h.litLen)
	return o, acc, n, rest
}

// countBytesAsm adds the bytes of p (len(p) a multiple of 8) to the four
// counting arrays in turn.
//
//go:noescape
func countBytesAsm(c *[4][256]uint32, p []byte)

// hasCountAVX512 selects countCommonAVX512 (with hasAVX2).
var hasCountAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasPOPCNT

// countCommonAVX512 adds to c[0] the bytes of p (len(p) a multiple of
// 64, at most countPiece) that are small residuals, -6 to 5 (72 % of a
// decoded colour photograph's Sub-filtered bytes), by compares in
// 64-byte vectors, copies the other bytes to rare and returns how many.
//
//go:noescape
func countCommonAVX512(c *[4][256]uint32, p []byte, rare *[countPiece + 64]byte) int

// countKernel counts the bytes of p up to a multiple of 8 (count's work)
// and returns the rest of p, or p itself without the kernels. With
// AVX-512, the small residuals are counted by countCommonAVX512 and only
// the rest a byte at a time: countBytesAsm's increments in memory (a
// load, add and store a byte) were its bound, not repeated values
// (0.33 ns a byte on random bytes as on residuals).
func countKernel(c *[4][256]uint32, p []byte, rare *[countPiece + 64]byte) []byte {
	if !hasAVX2 {
		return p
	}
	if hasCountAVX512 {
		for len(p) >= 64 {
			k := min(len(p), countPiece) &^ 63
			m := countCommonAVX512(c, p[:k], rare)
			r := rare[:m]
			countBytesAsm(c, r[:m&^7])
			for _, b := range r[m&^7:] {
				c[0][b]++
			}
			p = p[k:]
		}
	}
	m := len(p) &^ 7
	countBytesAsm(c, p[:m])
	return p[m:]
}
