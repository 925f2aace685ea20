package codec

import "golang.org/x/sys/cpu"

// hasGather selects restIndicesAVX (AVX2's gathers).
var hasGather = cpu.X86.HasAVX2

// restIndicesAVX is restIndices for len(out) a multiple of 4 (len(row)
// and rt's dimensions at least as many): per group of 4 dimensions the
// buckets as cellFinder.bucket computes them (VSUBPD then VMULPD, no
// fused multiply-add; VMAXPD with 0 as second operand takes NaN to 0,
// VMINPD clamps to the last bucket, VCVTTPD2DQ truncates), the starts
// gathered from rt.first, then rt.steps times (at least 1) the
// thresholds gathered and each lane stepped up where its threshold is
// below its value.
//
//go:noescape
func restIndicesAVX(out []int32, row []float64, rt *restTable)

// sameCountAVX2 returns how many of the first len(a) elements of a and b
// (len(a) a multiple of 8, b at least as long) are equal.
//
//go:noescape
func sameCountAVX2(a, b []int32) int

// restCountsAVX2 is restCountsInto's loop over the patches of idx
// (len(counts) of them, dims indices each, len(flags) at least as many):
// each patch's indices from from on that differ from c (len(c) of them,
// dims - from, a multiple of 4) counted into counts, and flags 1 where
// one does. 8 at a time as sameCountAVX2 compares them, and the last 4
// by an XMM compare, with no call or slicing per patch: that was ~150
// instructions a 4×4 patch (callgrind, 12-image p4b batch encode).
//
//go:noescape
func restCountsAVX2(idx []int32, dims, from int, c, counts []int32, flags []uint8)

// anyOutsideAVX2 reports whether uint32(q[j]-lo[j]) > uint32(span[j]) ^
// 0x80000000 for some j < len(q) (a multiple of 8; lo and span at least
// as long): span is given biased by 0x80000000.
//
//go:noescape
func anyOutsideAVX2(q, lo, span []int32) bool
