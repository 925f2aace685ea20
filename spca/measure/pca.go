package measure

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// PCA is linear principal component analysis, the baseline SPCA is
// compared against. It is computed with gonum's stat.PC.
type PCA struct {
	// Mean is the mean of the training data, of length d.
	Mean []float64
	// Vectors is d×k, k = min(N, d): its columns are the principal
	// directions, by decreasing variance. The sign of each column is
	// chosen so that its entry of largest magnitude is positive.
	Vectors *mat.Dense
	// Variances are the variances of the data along the columns of
	// Vectors (with the N-1 denominator), in decreasing order.
	Variances []float64
}

// FitPCA computes the principal components of the rows of x (N×d). It
// returns an error if x has fewer than two rows or the decomposition
// fails.
func FitPCA(x mat.Matrix) (*PCA, error) {
	n, d := x.Dims()
	if n < 2 {
		return nil, errors.New("measure: PCA needs at least two samples")
	}
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		return nil, errors.New("measure: PCA decomposition failed")
	}
	p := &PCA{
		Mean:      make([]float64, d),
		Vectors:   &mat.Dense{},
		Variances: pc.VarsTo(nil),
	}
	pc.VectorsTo(p.Vectors)
	for j := range d {
		p.Mean[j] = stat.Mean(Column(x, j), nil)
	}
	r, k := p.Vectors.Dims()
	for j := range k {
		var big float64
		for i := range r {
			if v := p.Vectors.At(i, j); math.Abs(v) > math.Abs(big) {
				big = v
			}
		}
		if big < 0 {
			for i := range r {
				p.Vectors.Set(i, j, -p.Vectors.At(i, j))
			}
		}
	}
	return p, nil
}

// Project writes the principal component scores (x_i - Mean)·Vectors of
// each row x_i of x (N×d) into dst (N×k) and returns dst. If dst is nil a
// new matrix is allocated; an empty dst is resized. Project panics with
// mat.ErrShape if x does not have d columns or dst has the wrong shape.
func (p *PCA) Project(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	n, d := x.Dims()
	if d != len(p.Mean) {
		panic(mat.ErrShape)
	}
	centred := mat.DenseCopyOf(x)
	for i := range n {
		row := centred.RawRowView(i)
		for j, m := range p.Mean {
			row[j] -= m
		}
	}
	if dst == nil {
		dst = &mat.Dense{}
	}
	dst.Mul(centred, p.Vectors)
	return dst
}
