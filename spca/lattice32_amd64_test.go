package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameOrNaN reports whether a and b hold the same bits, or are both NaN
// (a NaN's payload depends on the operand order of the instructions).
func sameOrNaN(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}

// edgePositions32 sets some positions of l (a float32 lattice) and of
// its float64 twin wide to values at float32's edges: ±0, ±Inf, NaN, the
// largest, the smallest normal and a subnormal.
func edgePositions32(rng *rand.Rand, wide, narrow *lattice) {
	edges := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, 0x1p-126, -0x1p-149, 0x1.fffffep-127}
	for range len(narrow.x32) / 8 {
		i := rng.IntN(len(narrow.x32))
		narrow.x32[i] = edges[rng.IntN(len(edges))]
		wide.x[i] = float64(narrow.x32[i])
	}
}

// The AVX kernels on float32 positions (valueCell4AVX32, gradCell4AVX32,
// in their AVX-512 forms too where the CPU has it) give the portable
// Go's bits on the same lattice, and the float64 lattice's: fractions at
// and between the cell's ends, positions random with 24-bit mantissas
// and at float32's edges (NaN compared as NaN).
func TestCell4Kernels32(t *testing.T) {
	defer func(z bool) { hasAVX512 = z }(hasAVX512)
	if !hasAVX {
		t.Log("no AVX: the portable kernels only")
	}
	zmm := hasAVX512
	rng := rand.New(rand.NewPCG(32, 29))
	for lat := range 8 {
		hasAVX512 = zmm && lat%2 == 1
		wide, narrow := float32Lattice(rng, 4)
		if lat > 0 {
			edgePositions32(rng, wide, narrow)
		}
		frac := make([]float64, 4)
		v := [3][]float64{make([]float64, 4), make([]float64, 4), make([]float64, 4)}
		j := [3][]float64{make([]float64, 16), make([]float64, 16), make([]float64, 16)}
		for trial := range 3000 {
			base := randomCell4(rng, narrow, frac)
			narrow.valueCell4(base, v[0], frac)
			narrow.valueCell4Go(base, v[1], frac)
			wide.valueCell4Go(base, v[2], frac)
			if !sameOrNaN(v[0], v[1]) || !sameOrNaN(v[0], v[2]) {
				t.Fatalf("lattice %d trial %d: value %v, Go %v, float64 %v", lat, trial, v[0], v[1], v[2])
			}
			narrow.evalCell4(base, v[0], j[0], frac)
			narrow.gradCell4Go(base, v[1], j[1], frac)
			wide.gradCell4Go(base, v[2], j[2], frac)
			if !sameOrNaN(v[0], v[1]) || !sameOrNaN(v[0], v[2]) || !sameOrNaN(j[0], j[1]) || !sameOrNaN(j[0], j[2]) {
				t.Fatalf("lattice %d trial %d: value and Jacobian %v %v, Go %v %v, float64 %v %v", lat, trial, v[0], j[0], v[1], j[1], v[2], j[2])
			}
		}
	}
}
