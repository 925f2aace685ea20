package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The reduction evaluation of a lattice cell gives the value and Jacobian
// of the per-corner weighted sum, in every dimension it handles, inside
// cells and at their faces.
func TestEvalCellReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for d := 1; d <= maxReduceDim; d++ {
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
