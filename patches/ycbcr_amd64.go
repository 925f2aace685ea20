package patches

import "golang.org/x/sys/cpu"

// rgbaTable holds the constants of the kernels in ycbcr_amd64.s, each
// four times (one AVX register), in the order of its K_ offsets.
type rgbaTable [15][4]float64

var rgbaConsts = func() *rgbaTable {
	var t rgbaTable
	// The reciprocals of the chroma scales as float64 divisions of their
	// float64 values (yccRowAVX512's quotients are exact for them).
	cb, cr := float64(cbScale), float64(crScale)
	for i, v := range [15]float64{chromaZero, crScale, cbScale, kr, kb, kg, 255, 0.5, 1, 9, 3, 1.0 / 16, kg, 1 / cb, 1 / cr} {
		t[i] = [4]float64{v, v, v, v}
	}
	return &t
}()

// rgbaRowAVX converts len(y)/4 groups of 4 samples as rgbaRow does, to the
// last bit.
//
//go:noescape
func rgbaRowAVX(dst []uint8, y, cb, cr []float64, k *rgbaTable)

// rgba420AVX converts len(y)/8 groups of 8 pixels as rgba420Row does, to
// the last bit; the chroma rows start at the half-resolution sample before
// the first group's (so the first group has pixels 2 to 9 of a row).
//
//go:noescape
func rgba420AVX(dst []uint8, y, cbA, cbB, crA, crB []float64, k *rgbaTable)

// rgba420AVX512 is rgba420AVX for len(y)/16 groups of 16 pixels, 8 per
// AVX-512 register (each group reads half-resolution samples a−1 to a+8).
//
//go:noescape
func rgba420AVX512(dst []uint8, y, cbA, cbB, crA, crB []float64, k *rgbaTable)

// rgbaRowFast is rgbaRow, 4 pixels at a time by the AVX kernel where the
// CPU has it.
func rgbaRowFast(dst []uint8, y, cb, cr []float64) {
	n := 0
	if hasAVX {
		n = len(y) &^ 3
		if len(cb) < n || len(cr) < n || len(dst) < 4*n {
			panic("patches: rgbaRowFast: short rows")
		}
		rgbaRowAVX(dst, y[:n], cb, cr, rgbaConsts)
	}
	rgbaRow(dst[4*n:], y[n:], cb[n:], cr[n:])
}

// rgba420RowFast is rgba420Row, pixels 2 on by the kernels where the CPU
// has them (groups of 16 by AVX-512, then of 8 by AVX, each group of 2g
// pixels from half-resolution sample a reading samples a−1 to a+g), the
// first two and the rest by rgba420Row. The AVX-512 kernel halves the
// conversion's instructions (it was 6 % of a colour batch decode's CPU).
func rgba420RowFast(dst []uint8, y, cbA, cbB, crA, crB []float64) {
	hw := len(cbA)
	if len(y) < 2*hw-1 || len(dst) < 4*len(y) || len(cbB) < hw || len(crA) < hw || len(crB) < hw {
		panic("patches: rgba420RowFast: short rows")
	}
	a := 1 // the next half-resolution sample, pixels 2a and 2a+1
	if hasAVX512 && hw >= 10 {
		g := (hw - 2) / 8
		rgba420AVX512(dst[8:], y[2:2+16*g], cbA, cbB, crA, crB, rgbaConsts)
		a += 8 * g
	}
	if g := (hw - a - 1) / 4; hasAVX && g > 0 {
		b := a - 1
		rgba420AVX(dst[8*a:], y[2*a:2*a+8*g], cbA[b:], cbB[b:], crA[b:], crB[b:], rgbaConsts)
		a += 4 * g
	}
	rgba420Row(dst, y, cbA, cbB, crA, crB, 0, 1)
	rgba420Row(dst, y, cbA, cbB, crA, crB, a, hw)
}

// yccRowAVX converts len(y)/4 groups of 4 RGBA pixels as yccRow does, to
// the last bit, up to the first group with a pixel not opaque, and
// returns the pixels it converted.
//
//go:noescape
func yccRowAVX(y, cb, cr []float64, pix []uint8, k *rgbaTable) int

// yccRowAVX512 is yccRowAVX for len(y)/8 groups of 8 pixels, with each
// division by a chroma scale c as a product by its reciprocal corrected
// by two fused multiply-adds (q = x·(1/c), q + (x − q·c)·(1/c)): the same
// quotient for every opaque 8-bit colour (all 2^24 checked by
// TestYCCRowExhaustive), without the divider, which bound yccRowAVX at
// ~4 cycles a pixel (2.7 % of a colour encode's CPU).
//
//go:noescape
func yccRowAVX512(y, cb, cr []float64, pix []uint8, k *rgbaTable) int

// yccRowFast is yccRow, 8 pixels at a time by the AVX-512 kernel and 4 by
// the AVX one where the CPU has them, up to a pixel not opaque (the
// kernels test the alpha bytes they load: a pass of opacity.RGBA over
// each row first was 0.6 % of a colour batch encode), the rest in Go.
func yccRowFast(y, cb, cr []float64, pix []uint8) {
	n := 0
	if hasAVX {
		m := len(y) &^ 3
		if len(cb) < m || len(cr) < m || len(pix) < 4*m {
			panic("patches: yccRowFast: short rows")
		}
		stopped := false // at a pixel not opaque
		if hasAVX512 {
			n = yccRowAVX512(y[:m&^7], cb, cr, pix, rgbaConsts)
			stopped = n < m&^7
		}
		if !stopped {
			n += yccRowAVX(y[n:m], cb[n:], cr[n:], pix[4*n:], rgbaConsts)
		}
	}
	yccRow(y[n:], cb[n:], cr[n:], pix[4*n:])
}

// hasVBMI selects yccRGBRowAVX512 (with hasAVX512): its masked byte load
// and byte permutation.
var hasVBMI = cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VBMI

// yccRGBRowAVX512 is yccRowAVX512 of len(y)/8 groups of 8 RGB pixels (3
// bytes each, 24 a group, none read past them): the same Y', Cb and Cr to
// the last bit.
//
//go:noescape
func yccRGBRowAVX512(y, cb, cr []float64, pix []uint8, k *rgbaTable)

// yccRGBKernel converts the first RGB pixels of rgb (3 bytes each) as
// yccRow converts RGBA ones, in groups of 8 by the AVX-512 kernel where
// the CPU has it, and returns how many.
func yccRGBKernel(y, cb, cr []float64, rgb []uint8) int {
	if !hasAVX512 || !hasVBMI {
		return 0
	}
	n := min(len(y), len(rgb)/3) &^ 7
	if len(cb) < n || len(cr) < n {
		panic("patches: yccRGBKernel: short rows")
	}
	yccRGBRowAVX512(y[:n], cb, cr, rgb, rgbaConsts)
	return n
}
