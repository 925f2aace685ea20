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

// levelsAVX2 sets y[j] to levels[at[j]+ix[j]] for every j < len(y) (a
// multiple of 4; ix, at and lenB at least as long), 4 levels gathered at
// a time, and reports true, or false if an index is past its quantiser's
// levels (unsigned ix[j] >= len, lenB[j] the count biased by
// 0x80000000), y then partly written. eachPatch's lookup of the rest
// coefficients' levels, through a slice per dimension, was ~8
// instructions a coefficient: 46.7 M of a 12-image colour batch encode's
// 2,407 M (callgrind), and more of a decode's.
//
//go:noescape
func levelsAVX2(y []float64, ix, at, lenB []int32, levels []float64) bool

// levelsCentreAVX2 is levelsAVX2 given each dimension's centre index ctr
// and its level ctrLev (ix, ctr, ctrLev, at and lenB at least len(y)
// long; every ctr[j] within its levels): y takes ctrLev's levels, and
// those of the indices off their centre, found by compares 4 at a time,
// come from levels one by one. Most rest indices lie at their centre
// (the colour models' chroma: in 93 % of the patches all 60), where
// levelsAVX2 gathered every level (its gathers were half of its time).
// It returns 0 where levelsAVX2 reports false, else 2 if every index is
// its centre, 1 if not.
//
//go:noescape
func levelsCentreAVX2(y []float64, ix, ctr []int32, ctrLev []float64, at, lenB []int32, levels []float64) int

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

// restFarAVX2 is findOutliers' test of a patch's first len(q) rest
// dimensions (a multiple of 8; row, lo, span, at and lenB at least as
// long), whether one lies farther than limit from its cell's level
// outside the cell's safe run: 0 no, 1 yes, 2 a cell outside its run
// is past its quantiser's levels (findOutliers' loop then decides, as
// it did). lo and span are the safe runs, span biased by 0x80000000 (the
// kernel biases the differences q−lo, so that a signed compare orders
// them as unsigned), at[j] where dimension j's levels start in levels,
// lenB[j] their count, biased the same way. 8 cells are compared at a
// time and the levels of those outside their runs gathered: the Go loop
// over a patch with a cell outside (a third of a colour image's, with
// ~27 of their 60 rest cells outside) was ~28 instructions a dimension
// (callgrind, 12 kodim13-24 colour, c8b: ~70 M of the batch's 2,459 M).
//
//go:noescape
func restFarAVX2(q []int32, row []float64, lo, span, at, lenB []int32, levels []float64, limit float64) int
