package spca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RefitMetric returns a model with m's geometry — normalisation, origin,
// directions and lattice of principal curves — and its metric (the
// PDF-tuned responses along the curves) estimated again from the rows of
// data with m's density options (Options: Gamma, Bandwidth,
// Conditioning, Neighbours, DensityFloor, ReflectDensity, FloorOfMean). m
// is unchanged. Model files store the last three (ExtendedOptions), so
// a model read back refits as the one Fit returned; files written before
// they were stored read back with spca's own floor and neither option.
//
// Two models that share a geometry differ only in the distributions
// their metrics equalise: a sample distributed like m's training data
// gets (up to sampling noise) the same responses from both, so the
// corresponding-pair map R_m⁻¹(R_refit(x)) is then close to the identity.
// Two independent fits of the same distribution do not share this
// property: their curves, lattice extents and orientation differ, and
// the map between them moves colours by the difference.
func (m *Model) RefitMetric(data mat.Matrix) (*Model, error) {
	n, d := data.Dims()
	if d != m.d {
		return nil, &DataError{fmt.Sprintf("data have %d dimensions, the model %d", d, m.d)}
	}
	if n < 3 {
		return nil, tooFewSamples(n)
	}
	z := make([]float64, n*d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := data.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &DataError{fmt.Sprintf("sample %d, dimension %d is %v", i+1, j+1, v)}
			}
			z[i*d+j] = (v - m.mean[j]) / m.scale
		}
	}
	u := make([]float64, n*d)
	parallel(n, m.opt.workers(), m.newWork, func(i int, w *work) {
		m.unfold(z[i*d:(i+1)*d], u[i*d:(i+1)*d], w)
	})
	cp := *m
	// Own copy of the positions: SnapLattice rounds them in place (it
	// widens shared float32 positions first).
	if m.lat.x != nil {
		cp.lat.x = append([]float64(nil), m.lat.x...)
	}
	o := m.opt
	cp.tables = buildTables(&m.lat, u, n, ruleOf(o))
	cp.tabRes = nil
	cp.typical = nil
	cp.entropies = make([]float64, d)
	for j := range cp.entropies {
		cp.entropies[j] = histEntropy(column(u, n, d, j)) + math.Log2(m.scale)
	}
	cp.setTableAxes()
	cp.setSameFibers()
	return &cp, nil
}
