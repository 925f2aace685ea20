package figures

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
)

func (r *run) swissroll() (*Figure, error) {
	n := pick(r, 2000, 1000)
	noise := testimages.DefaultSwissRollNoise
	s := testimages.SwissRoll(n, noise, r.cfg.Seed)
	data := fmt.Sprintf("noisy swiss roll (testimages.SwissRoll), %d samples, noise σ = %g", n, noise)
	best := spca.DefaultOptions()
	best.Seed = r.cfg.Seed
	best.K, best.Tau = 0.05, 0.05
	angle, height := measure.Column(s.Latent, 0), measure.Column(s.Latent, 1)
	c := newCanvas(3, 3, vg.Inch*3.4, vg.Inch*3.2)
	t := Table{
		Name: "Unfolding the swiss roll",
		Caption: fmt.Sprintf("Rank correlation (|Spearman ρ|) of the first two responses with the latent angle and height, and the RMSE of the samples reduced to 2-D "+
			"(r₃ set to its median) and mapped back, in the units of the data (noise σ = %g). Curves drawn with k = %g, τ = %g, q = %g, the values of the unfolding test (spca.TestUnfoldingSwissRoll). "+
			"The seed shows this experiment qualitatively only.", noise, best.K, best.Tau, best.Q),
		Columns: []string{"|ρ(r₁, angle)|", "|ρ(r₂, height)|", "RMSE of the 2-D reconstruction"},
	}
	for k, g := range threeGammas {
		m, err := r.fit(s.X, func(o *spca.Options) { *o = best; o.Gamma, o.Resolution, o.Progress = g.gamma, r.resolution(), nil })
		if err != nil {
			return nil, err
		}
		resp, _, err := m.TransformBatch(s.X)
		if err != nil {
			return nil, err
		}
		r1, r2, r3 := measure.Column(resp, 0), measure.Column(resp, 1), measure.Column(resp, 2)
		med := append([]float64(nil), r3...)
		sort.Float64s(med)
		red := mat.DenseCopyOf(resp)
		for i := 0; i < n; i++ {
			red.Set(i, 2, med[n/2])
		}
		back, err := m.InverseBatch(red)
		if err != nil {
			return nil, err
		}
		ss := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				e := back.At(i, j) - s.X.At(i, j)
				ss += e * e
			}
		}
		rmse := math.Sqrt(ss / float64(3*n))
		t.Rows = append(t.Rows, Row{Label: "SPCA " + g.name, Data: data,
			Ours: []float64{math.Abs(measure.Spearman(r1, angle)), math.Abs(measure.Spearman(r2, height)), rmse},
			Seed: seedVals(none, none, none)})

		cols := make([]color.Color, n)
		zs := make([]float64, n)
		for i := range cols {
			cols[i] = responseColour(r1[i], r2[i])
			zs[i] = r1[i]
		}
		x, z := measure.Column(s.X, 0), measure.Column(s.X, 2)
		p := c.panel(0, k, "Input coloured by SPCA "+g.name, "x (roll units)", "z (roll units)")
		c.scatterColors(p, "samples (z column: r1)", x, z, zs, cols, vg.Points(1.6))
		equalAxes(p, 1.05)
		p = c.panel(1, k, "Responses, SPCA "+g.name, "r₁ (hue: red → blue)", "r₂ (brightness)")
		c.scatterColors(p, "responses (z column: r1)", r1, r2, zs, cols, vg.Points(1.6))
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.02, 1.02, -0.02, 1.02
		p = c.panel(2, k, fmt.Sprintf("2-D reconstruction, RMSE %.2f", rmse), "x (roll units)", "z (roll units)")
		c.scatter(p, "samples", "samples", x, z, colLight, vg.Points(1.4))
		c.scatter(p, "reconstructed from (r1, r2)", "from (r₁, r₂)", measure.Column(back, 0), measure.Column(back, 2), colBlue, vg.Points(1.1))
		equalAxes(p, 1.05)
		headroom(p, 0.15)
		r.progress("gammas", k+1, 3)
	}
	files, err := c.save(r.cfg.Out, "swissroll")
	if err != nil {
		return nil, err
	}
	o := func(i, j int) float64 { return t.Rows[i].Ours[j] }
	return &Figure{
		Title: "Dimensionality reduction of a noisy swiss roll (seed Figs. \"swiss\")",
		Files: files,
		Summary: fmt.Sprintf("The swiss roll (%s) is transformed by SPCA with γ = 0, 1/3 and 1. As in the seed, the first response is coded as a hue "+
			"(red to blue) and the second as brightness; the top row shows the samples in the input (seen along the roll's axis) with those colours, "+
			"the middle row the responses. The first response follows the angle along the roll (|ρ| = %.3f, %.3f, %.3f) and the second the height, "+
			"so colours run along the roll whatever the metric, and γ = 1 fills the response square most uniformly. The bottom row maps the samples "+
			"reduced to (r₁, r₂) back into 3-D (blue over the samples in grey): the inverse recovers the underlying 2-D sheet.",
			data, o(0, 0), o(1, 0), o(2, 0)),
		Tables: []Table{t},
	}, nil
}
