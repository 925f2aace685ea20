package codec

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAVX selects the AVX kernel of pixelsFrom (same sums to the last bit),
// hasAVX512 its AVX-512 kernels for 8×8 patches (pixels64AVX512 also uses
// BMI1 and BMI2, which every AVX-512 processor has: checked all the same).
var (
	hasAVX    = cpu.X86.HasAVX
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasBMI1 && cpu.X86.HasBMI2
)

// pixelsAVX is pixelsFrom's sums for len(pix) a multiple of 16: pix[p] =
// start[p] + Σ_t float64(w0[nz[t]·d+p]·y[nz[t]]) over t in order (d =
// len(pix)), 16 pixels at once, 4 per AVX register; the products are
// rounded (VMULPD) before they are added (VADDPD), with no fused
// multiply-add, as the Go loop sums them. start must hold d values, w0
// len(y)·d and every nz[t] be below len(y).
//
//go:noescape
func pixelsAVX(pix, start, w0, y []float64, nz []int)

// pixelsAVX512 is pixelsAVX for len(pix) a multiple of 64 (8×8 patches),
// 64 pixels at once, 8 per AVX-512 register: the same products and sums.
//
//go:noescape
func pixelsAVX512(pix, start, w0, y []float64, nz []int)

// pixelsKernel runs pixelsAVX where it applies and reports whether it did.
func pixelsKernel(pix, start, w0, y []float64, nz []int) bool {
	d := len(pix)
	if !hasAVX || d%16 != 0 || d == 0 {
		return false
	}
	if len(start) < d || len(w0) < len(y)*d {
		panic("codec: pixelsKernel: short start or weights")
	}
	if hasAVX512 && d%64 == 0 {
		// A colour batch decode spent 6 % of its time in pixelsAVX.
		pixelsAVX512(pix, start, w0, y, nz)
		return true
	}
	pixelsAVX(pix, start, w0, y, nz)
	return true
}

// pixels16AVX is pixelsAVX for 16 pixels (4×4 patches), finding the
// nonzero coefficients of y itself: pix[i] = start[i] + Σ_j
// float64(w0[16·j+i]·y[j]) over j in order where y[j] != 0. start must
// hold 16 values and w0 16·len(y).
//
//go:noescape
func pixels16AVX(pix, start, w0, y []float64)

// pixels16Kernel runs pixels16AVX where it applies (len(pix) 16) and
// reports whether it did: pixelsFrom's list of nonzero coefficients and
// its call of pixelsAVX were ~40 % of its instructions for a 4×4 patch.
func pixels16Kernel(pix, start, w0, y []float64) bool {
	if !hasAVX || len(pix) != 16 {
		return false
	}
	if len(start) < 16 || len(w0) < 16*len(y) {
		panic("codec: pixels16Kernel: short start or weights")
	}
	pixels16AVX(pix, start, w0, y)
	return true
}

// pixels64AVX512 is pixelsAVX512 for 64 pixels (8×8 patches), finding
// the nonzero coefficients of y (n of them, at most 64) itself: pixel i =
// start[i] + Σ_j float64(w0[64·j+i]·y[j]) over j in order where y[j] != 0,
// row r of the patch (pixels 8r to 8r+7) at dst[r·stride:][:8]. start
// must hold 64 values, w0 64·n and dst 7·stride+8.
//
//go:noescape
func pixels64AVX512(dst *float64, stride int, start, w0, y *float64, n int)

// pixels64Kernel runs pixels64AVX512 where it applies (len(pix) 64, at
// most 64 coefficients) and reports whether it did: pixelsFrom's list of
// nonzero coefficients (nonzeroAVX) and its own instructions were ~5 % of
// the CPU of a colour batch decode.
func pixels64Kernel(pix, start, w0, y []float64) bool {
	if len(pix) != 64 {
		return false
	}
	return pixels64Into(pix, 8, start, w0, y)
}

// pixels64Into is pixels64Kernel with the patch's rows stride apart in
// dst (dst[r·stride:][:8], stride >= 8): an 8×8 patch summed straight
// into its plane, without the copy from a patch's buffer (copy8x8Kernel)
// that a colour batch decode spent 2 % of its CPU in. It reports false,
// writing nothing, without AVX-512 or where more than 64 coefficients
// are given.
func pixels64Into(dst []float64, stride int, start, w0, y []float64) bool {
	if !hasAVX || !hasAVX512 || len(y) > 64 {
		return false
	}
	if len(start) < 64 || len(w0) < 64*len(y) || stride < 8 || len(dst) < 7*stride+8 {
		panic("codec: pixels64Into: short start, weights or destination")
	}
	pixels64AVX512(&dst[0], stride, &start[0], unsafe.SliceData(w0), unsafe.SliceData(y), len(y))
	return true
}

// pixels64Gray8AVX512 is pixels64AVX512 with each pixel rounded to 8 bits
// as quantize8AVX rounds it (patches.Quantize8), row r at
// dst[r·stride:][:8] (stride in bytes).
//
//go:noescape
func pixels64Gray8AVX512(dst *uint8, stride int, start, w0, y *float64, n int)

// pixels64Gray8 is pixels64Into then quantize8Kernel in one call, into
// the rows dst[r·stride:][:8] of an 8-bit image: a grey 8×8 patch
// rounded in the registers that summed it (the 64 values went through
// memory, and the rounding took 16 steps of 4). It reports false, writing
// nothing, where pixels64Into does.
func pixels64Gray8(dst []uint8, stride int, start, w0, y []float64) bool {
	if !hasAVX || !hasAVX512 || len(y) > 64 {
		return false
	}
	if len(start) < 64 || len(w0) < 64*len(y) || stride < 8 || len(dst) < 7*stride+8 {
		panic("codec: pixels64Gray8: short start, weights or destination")
	}
	pixels64Gray8AVX512(&dst[0], stride, &start[0], unsafe.SliceData(w0), unsafe.SliceData(y), len(y))
	return true
}

// copy8x8AVX copies the 64 values at src, 8 rows of 8, into the rows
// dst[r·stride:][:8]: a reconstructed 8×8 patch into its plane.
//
//go:noescape
func copy8x8AVX(dst *float64, stride int, src *float64)

// copy8x8Kernel runs copy8x8AVX where it applies and there is room (src
// 64 values, dst 8 rows of stride >= 8) and reports whether it did: the
// Go rows' value-by-value moves with their bounds checks were 1.5-2 % of
// a colour batch decode (perf), 0.8 % of an encode.
func copy8x8Kernel(dst []float64, stride int, src []float64) bool {
	if !hasAVX || stride < 8 || len(src) < 64 || len(dst) < 7*stride+8 {
		return false
	}
	copy8x8AVX(&dst[0], stride, &src[0])
	return true
}

// quantize8AVX rounds the rows of n values of src (n a multiple of 4,
// len(src) a multiple of n) to 8 bits as patches.Quantize8 does, row r
// into dst[r·stride:][:n].
//
//go:noescape
func quantize8AVX(dst []uint8, stride int, src []float64, n int)

// quantize4x4AVX is quantize8AVX for n = 4 and 16 values of src.
//
//go:noescape
func quantize4x4AVX(dst []uint8, stride int, src []float64)

// quantize8Kernel runs quantize8AVX where it applies and reports whether
// it did: the reconstruction's rounding and store of a whole patch in one
// call (it was a tenth of an 8×8 decode, pixel by pixel).
func quantize8Kernel(dst []uint8, stride int, src []float64, n int) bool {
	if n == 4 && len(src) == 16 && hasAVX {
		// One 4×4 patch, unrolled: the loops and checks were ~40 % of
		// the rounding's instructions.
		if len(dst) < 3*stride+4 || stride < 4 {
			panic("codec: quantize8Kernel: short destination")
		}
		quantize4x4AVX(dst, stride, src)
		return true
	}
	if !hasAVX || n%4 != 0 || n == 0 || len(src)%n != 0 || len(src) == 0 {
		return false
	}
	if rows := len(src) / n; len(dst) < (rows-1)*stride+n || stride < n {
		panic("codec: quantize8Kernel: short destination")
	}
	quantize8AVX(dst, stride, src, n)
	return true
}

// nonzeroAVX writes to nz the indices of the nonzero values of y (len(y)
// a multiple of 4, nz as long) in order and returns how many.
//
//go:noescape
func nonzeroAVX(y []float64, nz []int) int

// nonzeroKernel lists the nonzero values of y's whole groups of 4 in nz
// (pixelsFrom's list: a compare and a mask for 4 values instead of a
// branch and a store each: most of pixelsFrom's own instructions) and returns how
// many it listed and how many values it went through (0, 0 without AVX).
func nonzeroKernel(y []float64, nz []int) (n, done int) {
	m := len(y) &^ 3
	if !hasAVX || m == 0 {
		return 0, 0
	}
	if len(nz) < m {
		panic("codec: nonzeroKernel: short list")
	}
	return nonzeroAVX(y[:m], nz), m
}

// recon16AVX reconstructs a 4×4 patch from its indices beyond the
// leading ones straight into 8-bit pixels (see recon16).
//
//go:noescape
func recon16AVX(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) (ok bool)

// recon16 writes the 8-bit pixels of a 4×4 patch into the rows
// dst[r·stride:][:4] (dst points at the first): what pixels16Kernel of
// y[j] = levels[j][ix[j]] (the n coefficients after the leading ones,
// whose pixels start holds) and quantize8Kernel make, in one call without
// y or pix (the two kernels, their calls and the levels' gathering were
// ~1/5 of a 4×4 grey batch decode's instructions). It reports false,
// writing nothing, without AVX or where an index is out of its levels'
// range. The caller makes sure of the lengths: dst holds 3·stride+4
// bytes, start 16 values, levels and ix n entries and w0 16·n values
// (slices in a call per patch, and their checks, were ~130 instructions
// of a 4×4 patch).
func recon16(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) bool {
	if hasAVX && hasAVX512 {
		return recon16AVX512(dst, stride, start, w0, levels, ix, n)
	}
	return hasAVX && recon16AVX(dst, stride, start, w0, levels, ix, n)
}

// recon16AVX512 is recon16AVX without a branch per coefficient (see
// pixels_amd64.s): the same pixels.
//
//go:noescape
func recon16AVX512(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) (ok bool)
