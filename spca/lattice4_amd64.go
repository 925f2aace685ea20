package spca

import "golang.org/x/sys/cpu"

// hasAVX selects the AVX kernel of valueCell4 (the same operations on
// the four components at once: the same bits).
var hasAVX = cpu.X86.HasAVX

// valueCell4AVX is valueCell4 for the corners at p with strides s0..s3
// (in float64s), fractions t and result dst; the caller checks that the
// corners lie in the lattice.
//
//go:noescape
func valueCell4AVX(p *float64, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)

// gradCell4AVX is evalCell4 with the Jacobian for the corners at p with
// strides s0..s3 (in float64s): c holds the fractions t0..t3 then the
// reciprocals inv0..inv3 of the cell's edges; dst gets the value and jac
// the Jacobian (row k: component k's derivatives). The caller checks the
// corners.
//
//go:noescape
func gradCell4AVX(p *float64, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64)
