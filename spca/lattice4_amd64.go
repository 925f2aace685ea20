package spca

import "golang.org/x/sys/cpu"

// hasAVX selects the AVX kernel of valueCell4 (the same operations on
// the four components at once: the same bits).
var hasAVX = cpu.X86.HasAVX

// hasAVX512 selects the AVX-512 forms of the float32 kernels
// (valueCell4AVX32 reads it): two nodes a register.
var hasAVX512 = cpu.X86.HasAVX512F

// valueCell4AVX is valueCell4 for the corners at p with strides s0..s3
// (in float64s), fractions t and result dst; the caller checks that the
// corners lie in the lattice.
//
//go:noescape
func valueCell4AVX(p *float64, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)

// valueCell4AVX32 is valueCell4AVX on float32 positions (strides in
// float32s), each widened to float64 as it is loaded.
//
//go:noescape
func valueCell4AVX32(p *float32, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)

// gradCell4AVX is evalCell4 with the Jacobian for the corners at p with
// strides s0..s3 (in float64s): c holds the fractions t0..t3 then the
// reciprocals inv0..inv3 of the cell's edges; dst gets the value and jac
// the Jacobian (row k: component k's derivatives). The caller checks the
// corners.
//
//go:noescape
func gradCell4AVX(p *float64, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64)

// gradCell4AVX32 is gradCell4AVX on float32 positions (strides in
// float32s), each widened to float64 as it is loaded.
//
//go:noescape
func gradCell4AVX32(p *float32, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64)

// newtonCell4AVX is newtonCell4Go with the four axes in the lanes of
// AVX registers: three divisions of four lanes where the Go code takes
// twelve (the Newton step's divisions were most of its own time).
//
//go:noescape
func newtonCell4AVX(u, x, mean *[4]float64, scale float64, k *newton4Consts, z, un *[4]float64, c *[4]float64) (base int, flags int)

// invertLevels4AVX32 is Invert4's kernel: the point of the levels b
// (k's records, axis j's level b[j]) on float32 positions p (n of them),
// valueCell4AVX32's operations then denorm's (each product rounded, then
// the mean added), into dst. It reports false, leaving dst unchanged,
// for a level out of range or outside its lattice cell, or corners past
// the positions' end.
//
//go:noescape
func invertLevels4AVX32(p *float32, n int, k *level4, b *[4]int, dst *[4]float64) (ok bool)
