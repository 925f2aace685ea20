package spca

import "golang.org/x/sys/cpu"

// hasScan4Kernel selects scan4AVX2 (tests switch it off).
var hasScan4Kernel = cpu.X86.HasAVX2

// scan4AVX2 scans the points 0..n-1 (n a multiple of 4) of xs, four
// coordinates stored one after the other (xs[j*stride+i]), for the closest to
// z, four at a time: lane l keeps the least dist2 of the points l, l+4,
// ... that is below +Inf and the first point with it (else +Inf and 0).
//
//go:noescape
func scan4AVX2(xs []float64, stride, n int, z *[4]float64, best *[4]float64, idx *[4]int64)
