package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomLattice returns a d-dimensional lattice of 2 to 5 nodes per axis
// with random spacings and node positions.
func randomLattice(rng *rand.Rand, d int) *lattice {
	l := &lattice{d: d, g: make([]int, d), lo: make([]float64, d), step: make([]float64, d), zero: make([]int, d)}
	for j := range l.g {
		l.g[j] = 2 + rng.IntN(4)
		l.lo[j] = rng.NormFloat64()
		l.step[j] = 0.1 + rng.Float64()
	}
	l.setStrides()
	l.x = make([]float64, l.size()*d)
	for i := range l.x {
		l.x[i] = rng.NormFloat64()
	}
	return l
}

// The reduction evaluation of a lattice cell gives the value and Jacobian
// of the per-corner weighted sum, in every dimension it handles, inside
// cells and at their faces.
func TestEvalCellReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for d := 1; d <= maxReduceDim; d++ {
		l := randomLattice(rng, d)
		frac := make([]float64, d)
		a, b := make([]float64, d), make([]float64, d)
		ja, jb := make([]float64, d*d), make([]float64, d*d)
		for trial := 0; trial < 200; trial++ {
			base := 0
			for j := 0; j < d; j++ {
				base += rng.IntN(l.g[j]-1) * l.strides[j]
				switch trial % 4 {
				case 0:
					frac[j] = 0
				case 1:
					frac[j] = 1
				default:
					frac[j] = rng.Float64()
				}
			}
			l.evalCellReduce(base, a, ja, frac)
			l.evalCellCorners(base, b, jb, frac)
			for k := range a {
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Fatalf("d=%d: value %d: %v, corners %v", d, k, a[k], b[k])
				}
			}
			for k := range ja {
				if math.Abs(ja[k]-jb[k]) > 1e-11 {
					t.Fatalf("d=%d: Jacobian %d: %v, corners %v", d, k, ja[k], jb[k])
				}
			}
			l.evalCellReduce(base, a, nil, frac)
			for k := range a {
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Fatalf("d=%d: value without Jacobian %d: %v, corners %v", d, k, a[k], b[k])
				}
			}
		}
	}
}

// The d = 4 specialisation gives the generic reduction's values and
// Jacobians, with and without the Jacobian: the same operations in the
// same order (bit-identical on amd64; a platform that fuses multiply-adds
// may round differently, hence the tolerance).
func TestEvalCell4(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d = 4
	l := randomLattice(rng, d)
	frac := make([]float64, d)
	a, b, c := make([]float64, d), make([]float64, d), make([]float64, d)
	ja, jb := make([]float64, d*d), make([]float64, d*d)
	for trial := 0; trial < 500; trial++ {
		base := 0
		for j := 0; j < d; j++ {
			base += rng.IntN(l.g[j]-1) * l.strides[j]
			frac[j] = rng.Float64()
		}
		l.evalCell4(base, a, ja, frac)
		l.evalCellReduce(base, b, jb, frac)
		l.evalCell4(base, c, nil, frac)
		for k := range a {
			if !near(a[k], b[k]) || !near(c[k], b[k]) {
				t.Fatalf("value %d: %v (no Jacobian %v), generic %v", k, a[k], c[k], b[k])
			}
		}
		for k := range ja {
			if !near(ja[k], jb[k]) {
				t.Fatalf("Jacobian %d: %v, generic %v", k, ja[k], jb[k])
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
