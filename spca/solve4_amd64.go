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

// newtonSolve4AVX is newtonStep4 from the Jacobian jac and the lattice's
// point xx at un (z the sample, scale the model's): b = z − xx, solve4,
// then the step's length and u = (un + b)·scale, in solve4AVX's and
// newtonStep4's operations (the same bits: TestNewtonSolve4Kernel); it
// returns 0 and false, u unchanged, where solve4 fails. Its Go around
// solve4AVX was ~150 instructions a step.
//
//go:noescape
func newtonSolve4AVX(jac *[16]float64, z, xx, un *[4]float64, scale float64, u *[4]float64) (step float64, ok bool)
