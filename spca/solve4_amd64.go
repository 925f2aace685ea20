package spca

import "golang.org/x/sys/cpu"

// hasSolve4Kernel selects solve4AVX (VPERMPD is AVX2).
var hasSolve4Kernel = cpu.X86.HasAVX2

// solve4AVX is solve4Go in AVX2: the four rows in registers, the minors
// and the adjugate's columns computed four lanes at a time, the same
// rounded products summed in the same order, so the same bits
// (TestSolve4Kernel); it returns the determinant and writes to x the
// adjugate times b, and maxAbs16(a) (solve4's scale, ~75 instructions
// of Go a call).
//
//go:noescape
func solve4AVX(a *[16]float64, b *[4]float64, x *[4]float64) (det, scale float64)
