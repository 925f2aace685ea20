package spca_test

import (
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// The README's Go API snippet, compiled as written (TestReadmeSnippets in
// internal/readme checks that the README shows exactly the lines between
// the README markers).
func Example_readme() {
	x := testimages.Spiral(500, 1).X
	dst, sample := make([]float64, 2), x.RawRowView(0)
	a, b := x.RawRowView(0), x.RawRowView(1)
	// README begin
	opt := spca.DefaultOptions() // gamma 1/3, k = 10 %, tau 0.1, q = 10
	opt.Gamma = 1
	model, err := spca.Fit(x, opt)           // x: N×d gonum mat.Matrix, d from 1 to 16
	r, stats, err := model.TransformBatch(x) // parallel; stats: iterations, residuals
	back, err := model.InverseBatch(r)
	st, err := model.Transform(dst, sample)        // one sample, with its iterations and residual
	err = model.Save("model.spca")                 // versioned, checksummed; spca.Load, Read, WriteTo
	res, err := spca.Tune(x, opt, spca.TuneGrid{}) // choose (k, tau, q) by projection error
	err = model.RecordTypical(x)                   // medians of the responses, for reduction
	r2 := r.Slice(0, 500, 0, 1)                    // the samples reduced to their first response
	x2, err := model.InverseReduced(r2)            // back on the learned curve, r2 at its median
	d, err := model.Distance(a, b)                 // the SPCA metric: |R(a) - R(b)|
	// README end
	_, _, _, _, _, _, _ = stats, back, st, res, x2, d, err
}
