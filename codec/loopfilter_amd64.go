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
	loopRowAVX2(out[:n], rows, t)
	return n
}
