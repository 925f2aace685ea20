package measure

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// AllocateCells splits a total number of quantisation cells over the
// dimensions by high-resolution bit allocation: n_i ∝ 2^{h_i} for the
// marginal entropies h (bits), with product ≈ total and at least one
// cell per dimension.
func AllocateCells(h []float64, total int) []int {
	d := float64(len(h))
	mean := 0.0
	for _, v := range h {
		mean += v / d
	}
	n := make([]int, len(h))
	for i, v := range h {
		n[i] = max(1, int(math.Round(math.Pow(float64(total), 1/d)*math.Exp2(v-mean))))
	}
	return n
}

// UniformQuantRMSE quantises every column of x uniformly with n bins over
// its range, reconstructs at the bin centres and returns the RMSE: the
// input-domain baseline of the seed's Fig. "gamba".
func UniformQuantRMSE(x mat.Matrix, n int) float64 {
	rows, d := x.Dims()
	ss := 0.0
	for j := 0; j < d; j++ {
		col := Column(x, j)
		lo, hi := col[0], col[0]
		for _, v := range col {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		w := (hi - lo) / float64(n)
		for _, v := range col {
			b := math.Min(float64(n-1), math.Floor((v-lo)/w))
			e := v - (lo + (b+0.5)*w)
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64(rows*d))
}

// Inverter maps responses back to the input domain (an SPCA model).
type Inverter interface {
	InverseBatch(r mat.Matrix) (*mat.Dense, error)
}

// LatticeQuantRMSE quantises the responses r (in [0, 1]) of the samples x
// with n[j] uniform cells per dimension, reconstructs at the cell centres
// mapped back through inv (the inverted Cartesian lattice as codebook) and
// returns the RMSE in the input domain.
func LatticeQuantRMSE(inv Inverter, x, r mat.Matrix, n []int) (float64, error) {
	rows, d := x.Dims()
	q := mat.NewDense(rows, d, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < d; j++ {
			b := math.Max(0, math.Min(float64(n[j]-1), math.Floor(r.At(i, j)*float64(n[j]))))
			q.Set(i, j, (b+0.5)/float64(n[j]))
		}
	}
	xb, err := inv.InverseBatch(q)
	if err != nil {
		return 0, err
	}
	ss := 0.0
	for i := 0; i < rows; i++ {
		for j := 0; j < d; j++ {
			e := x.At(i, j) - xb.At(i, j)
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64(rows*d)), nil
}
