package codec

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2 kernel of the loop filter (loopRowAVX2).
var hasAVX2 = cpu.X86.HasAVX2

// loopRowAVX2 is loopFilterRow for the first len(out)&^7 pixels of out,
// 8 at a time in 32-bit lanes: the same integer sums, shift and clamp
// (the saturating packs clamp to 0..255 as the Go loop's min and max
// do), so the same pixels. rows are the seven padded int32 rows of
// loopFilterRow (each at least len(out)+6 long); t holds the 12 taps,
// then the taps' sum times 2 and the rounding half.
//
//go:noescape
func loopRowAVX2(out []uint8, rows *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32)

// loopRowKernel runs loopRowAVX2 where the CPU has AVX2 and returns the
// pixels of out it filtered (a multiple of 8), 0 elsewhere.
func loopRowKernel(out []uint8, rows *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32) int {
	n := len(out) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	for _, r := range rows {
		if len(r) < n+2*loopReach {
			panic("codec: loopRowKernel: short rows")
		}
	}
	if loopAVX512 {
		// 16 pixels a step: loopRowAVX2 was 5 % of a 4×4 batch
		// decode's samples.
		m := n &^ 15
		loopRowAVX512(out[:m], rows, t)
		if m < n { // the last 8 pixels, 8 at a time
			var tail [2*loopReach + 1][]int32
			for i, r := range rows {
				tail[i] = r[m:]
			}
			loopRowAVX2(out[m:n], &tail, t)
		}
		return n
	}
	loopRowAVX2(out[:n], rows, t)
	return n
}

// loopAVX512 selects loopRowAVX512 (with AVX2: the tests turn hasAVX2
// off to run the Go loop alone).
var loopAVX512 = hasAVX512

// loopRowAVX512 is loopRowAVX2 16 pixels at a time (AVX-512F) for the
// first len(out)&^15 pixels of out: the same pixels (loopRowKernel hands
// a last 8 to loopRowAVX2).
//
//go:noescape
func loopRowAVX512(out []uint8, rows *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32)

// widenAVX2 sets dst[i] = int32(src[i]) for i < len(src), a multiple
// of 8 (dst at least as long).
//
//go:noescape
func widenAVX2(dst []int32, src []uint8)

// widenKernel sets dst[i] = int32(src[i]) for the first i it returns (a
// multiple of 8 up to min(len(dst), len(src)); 0 without AVX2): the
// loop filter's copy of each row into its window, which the Go loop
// did at 5 instructions a pixel (2.4 % of a 4×4 batch decode's).
func widenKernel(dst []int32, src []uint8) int {
	n := min(len(dst), len(src)) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	widenAVX2(dst[:n], src[:n])
	return n
}

// dotChunk is the most elements dotKernel takes: 1024 steps of 16, so
// each 32-bit lane sums at most 2048 products of |d| <= 510 (< 2^31).
const dotChunk = 16 * 1024

// dotInt16AVX2 returns the dot product of a and b (len(a) a multiple of
// 16 up to dotChunk, b as long) with VPMADDWD, in 32-bit lanes summed
// into 64 bits at the end. Every product must be at most 510² in size.
//
//go:noescape
func dotInt16AVX2(a, b []int16) int64

// dot4Int16AVX512 adds to s[i] the dot product of a and bi (len(a) a
// multiple of 16 up to dotChunk, each bi as long), each product at most
// 510² in size, as dotInt16AVX512 four times over: one load of a for 4
// products.
//
//go:noescape
func dot4Int16AVX512(a, b0, b1, b2, b3 []int16, s *[4]int64)

// dot4Int16AVX2 is dot4Int16AVX512 16 products a step (AVX2; the same
// lengths and bounds, each 32-bit lane summing at most 2048 products as
// dotInt16AVX2's): the same exact sums.
//
//go:noescape
func dot4Int16AVX2(a, b0, b1, b2, b3 []int16, s *[4]int64)

// dot4Kernel adds to s[i] the dot products of a and b[i] over the first
// elements it returns (a multiple of 16; 0 without AVX2): AVX-512BW
// where there is, else AVX2, whose Go loop was ~29 % of the
// instructions of an 8×8 grey encode under GODEBUG=cpu.avx512f=off.
func dot4Kernel(a []int16, b *[4][]int16, s *[4]int64) int {
	n := len(a) &^ 15
	if !hasAVX2 || n == 0 {
		return 0
	}
	for i := 0; i < n; i += dotChunk {
		m := min(n, i+dotChunk)
		if hasAVX512BW {
			dot4Int16AVX512(a[i:m], b[0][i:m], b[1][i:m], b[2][i:m], b[3][i:m], s)
		} else {
			dot4Int16AVX2(a[i:m], b[0][i:m], b[1][i:m], b[2][i:m], b[3][i:m], s)
		}
	}
	return n
}

// dotKernelLen is how many of n elements dotKernel takes.
func dotKernelLen(n int) int {
	if !hasAVX2 {
		return 0
	}
	return min(n, dotChunk) &^ 15
}

// dotKernel is the dot product of a and b, len(a) = len(b) a multiple
// of 16 up to dotChunk (or anything without AVX2).
func dotKernel(a, b []int16) int64 {
	if !hasAVX2 || len(a) == 0 {
		var s int64
		for i, v := range a {
			s += int64(v) * int64(b[i])
		}
		return s
	}
	if len(a)%16 != 0 || len(a) > dotChunk || len(b) != len(a) {
		panic("codec: dotKernel: bad lengths")
	}
	if hasAVX512BW {
		return dotInt16AVX512(a, b)
	}
	return dotInt16AVX2(a, b)
}

// dotInt16AVX512 is dotInt16AVX2 32 products at a time (AVX-512BW; the
// same lengths): the same sum. Each 32-bit lane sums at most 1024
// products, as dotInt16AVX2's 2048.
//
//go:noescape
func dotInt16AVX512(a, b []int16) int64

// evenDiffAVX2 sets d[t] = a[2t] + b[2t] - 2 r[2t] for t < len(d), a
// multiple of 16, reading 2*len(d) bytes of a, b and r.
//
//go:noescape
func evenDiffAVX2(d []int16, a, b, r []uint8)

// evenDiffKernel is evenDiff for the first t of d it returns (a multiple
// of 16; 0 without AVX2), as many as a, b and r have the bytes for.
func evenDiffKernel(d []int16, a, b, r []uint8) int {
	if !hasAVX2 {
		return 0
	}
	n := min(len(d), len(a)/2, len(b)/2, len(r)/2) &^ 15
	if n > 0 {
		evenDiffAVX2(d[:n], a[:2*n], b[:2*n], r[:2*n])
	}
	return n
}

// roundLumaAVX512 sets dst[i] = int32(patches.Quantize8(src[i])) for
// i < len(src), a multiple of 8 (dst at least as long).
//
//go:noescape
func roundLumaAVX512(dst []int32, src []float64)

// roundLumaKernel is roundLumaAVX512 for the first i of src it returns
// (a multiple of 8 up to min(len(dst), len(src)); 0 without AVX-512):
// the rounding of the luma's rows into loopFilterLuma's window, which
// quantize8AVX (4 samples a step, to bytes) and widenAVX2 did in 1.2 %
// of a colour batch decode's samples.
func roundLumaKernel(dst []int32, src []float64) int {
	n := min(len(dst), len(src)) &^ 7
	if !hasAVX512 || !hasAVX2 || n == 0 {
		return 0
	}
	roundLumaAVX512(dst[:n], src[:n])
	return n
}

// moveLumaAVX512 adds float64(int32(out[x]) - in[x]) to row[x] for
// x < len(row), a multiple of 8 (out and in at least as long).
//
//go:noescape
func moveLumaAVX512(row []float64, out []uint8, in []int32)

// moveLumaKernel is moveLumaAVX512 for the first x of row it returns (a
// multiple of 8 up to the shortest of the three; 0 without AVX-512):
// Go's loop was 1.5 % of a colour batch decode's samples.
func moveLumaKernel(row []float64, out []uint8, in []int32) int {
	n := min(len(row), len(out), len(in)) &^ 7
	if !hasAVX512 || !hasAVX2 || n == 0 {
		return 0
	}
	moveLumaAVX512(row[:n], out[:n], in[:n])
	return n
}

// lumaTargetAVX512 sets y8[i] = patches.Quantize8(rec[i]) and t8[i] =
// patches.Quantize8(orig[i] - rec[i] + float64(y8[i])) for i < len(rec),
// a multiple of 8 (y8, t8 and orig at least as long).
//
//go:noescape
func lumaTargetAVX512(y8, t8 []uint8, rec, orig []float64)

// lumaTargetAVX2 is lumaTargetAVX512 in AVX2 (two registers of 4
// samples a step; in pixels_amd64.s, beside quantize8AVX's rounding).
//
//go:noescape
func lumaTargetAVX2(y8, t8 []uint8, rec, orig []float64)

// lumaTargetKernel is lumaTargetAVX512 (else lumaTargetAVX2) for the
// first i of rec it returns (a multiple of 8 up to the shortest of the
// four; 0 without AVX2): chooseLumaLoopFilter's planes in one pass, where
// two roundings and a loop in Go (writing and reading a float64 plane
// between) were 2 % of a colour batch encode's samples; on AVX2 alone
// (and under callgrind, which has no AVX-512) the Go loop was 8.9 % of
// its instructions.
func lumaTargetKernel(y8, t8 []uint8, rec, orig []float64) int {
	n := min(len(y8), len(t8), len(rec), len(orig)) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	if hasAVX512 {
		lumaTargetAVX512(y8[:n], t8[:n], rec[:n], orig[:n])
	} else {
		lumaTargetAVX2(y8[:n], t8[:n], rec[:n], orig[:n])
	}
	return n
}
