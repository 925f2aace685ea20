package patches

import "golang.org/x/sys/cpu"

// hasAVX2 selects halveAVX2 (tests switch it off).
var hasAVX2 = cpu.X86.HasAVX2

// halveAVX2 is halveRows's loop for the first len(dst)&^3 means, to the
// last bit.
//
//go:noescape
func halveAVX2(dst, r0, r1 []float64)

// halveKernel does the first means of halveRows by halveAVX2 and returns
// how many (whole groups of 4 whose pairs lie within r0 and r1; none
// without AVX2).
func halveKernel(dst, r0, r1 []float64) int {
	n := min(len(dst), len(r0)/2, len(r1)/2) &^ 3
	if !hasAVX2 || n == 0 {
		return 0
	}
	halveAVX2(dst[:n], r0, r1)
	return n
}
