package spca

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Dimensionality reduction (the seed's section "Dimensionality
// reduction"): a sample is described by its first k < d responses, and
// mapped back into the input space with the other responses at their
// typical values, so that reduced samples lie on the learned k-dimensional
// manifold.

// centreResponse is the typical response of a model without recorded
// typical responses: the centre of the response range.
const centreResponse = 0.5

// Typical returns the values at which InverseReduced holds the responses
// it is not given: the medians recorded by SetTypical, or else the centre
// of the response range, 0.5, in every dimension. The centre is the median
// of an equalising model (gamma 1) but not of others: with gamma 0 the
// median of a swiss roll's third response is 0.78, and reducing at 0.5
// multiplies the reconstruction error by 4; record the medians.
func (m *Model) Typical() []float64 {
	if m.typical != nil {
		return append([]float64(nil), m.typical...)
	}
	t := make([]float64, m.d)
	for i := range t {
		t[i] = centreResponse
	}
	return t
}

// SetTypical records the median of each column of r, the responses of the
// training samples (or a sample of them) as given by TransformBatch, as
// the model's typical responses (see Typical). They are saved with the
// model; a model without them keeps its file format and bytes.
func (m *Model) SetTypical(r mat.Matrix) error {
	med, err := medianColumns(r, m.d)
	if err != nil {
		return err
	}
	m.typical = med
	return nil
}

// TypicalSamples is the largest number of samples RecordTypical
// transforms.
const TypicalSamples = 2000

// RecordTypical transforms the training samples x (at most TypicalSamples
// of them, a subsample drawn with the model's seed) and records the
// medians of their responses with SetTypical. spca fit does this for
// every model it writes.
func (m *Model) RecordTypical(x mat.Matrix) error {
	if n, _ := x.Dims(); n > TypicalSamples {
		x = subsampleRows(x, TypicalSamples, m.opt.Seed)
	}
	r, _, err := m.TransformBatch(x)
	if err != nil {
		return err
	}
	return m.SetTypical(r)
}

// medianColumns returns the median of each column of r, which must have d
// columns, at least one row and finite values.
func medianColumns(r mat.Matrix, d int) ([]float64, error) {
	n, c := r.Dims()
	switch {
	case c != d:
		return nil, &DataError{fmt.Sprintf("responses have %d values, the model expects %d", c, d)}
	case n == 0:
		return nil, &DataError{"no responses to take the median of"}
	}
	if err := checkFinite(r); err != nil {
		return nil, err
	}
	med := make([]float64, d)
	col := make([]float64, n)
	for j := range d {
		mat.Col(col, j, r)
		sort.Float64s(col)
		med[j] = col[n/2]
		if n%2 == 0 {
			med[j] = (col[n/2-1] + col[n/2]) / 2
		}
	}
	return med, nil
}

// InverseReduced maps reduced responses back into the input space: every
// row of r holds the first k responses of a sample (1 <= k <= d), and the
// responses k+1 to d are set to their typical values (Typical) before
// the inverse transform. With k = d it is InverseBatch.
func (m *Model) InverseReduced(r mat.Matrix) (*mat.Dense, error) {
	x, _, err := m.InverseReducedStats(r)
	return x, err
}

// InverseReducedStats is InverseReduced that also counts the responses
// that were clamped (InverseStats).
func (m *Model) InverseReducedStats(r mat.Matrix) (*mat.Dense, InverseStats, error) {
	n, k := r.Dims()
	if k < 1 || k > m.d {
		return nil, InverseStats{}, &DataError{fmt.Sprintf("reduced responses have %d values, the model expects 1 to %d", k, m.d)}
	}
	if n == 0 {
		return &mat.Dense{}, InverseStats{}, nil
	}
	full := mat.NewDense(n, m.d, nil)
	typical := m.Typical()
	for i := range n {
		row := full.RawRowView(i)
		for j := range m.d {
			if j < k {
				row[j] = r.At(i, j)
			} else {
				row[j] = typical[j]
			}
		}
	}
	return m.InverseBatchStats(full)
}

// reducedError returns the RMS distance, in input units, between the rows
// of test and their reconstruction from their first k responses, the other
// responses at their medians over the rows of fit (the samples the model
// was fitted to): the error of the k-dimensional manifold the model
// learned.
func (m *Model) reducedError(fit, test mat.Matrix, k int) (float64, error) {
	rf, _, err := m.TransformBatch(fit)
	if err != nil {
		return 0, err
	}
	saved := m.typical
	defer func() { m.typical = saved }()
	if err := m.SetTypical(rf); err != nil {
		return 0, err
	}
	r, _, err := m.TransformBatch(test)
	if err != nil {
		return 0, err
	}
	n, d := test.Dims()
	back, err := m.InverseReduced(r.Slice(0, n, 0, k))
	if err != nil {
		return 0, err
	}
	ss := 0.0
	for i := range n {
		for j := range d {
			e := back.At(i, j) - test.At(i, j)
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64(n)), nil
}
