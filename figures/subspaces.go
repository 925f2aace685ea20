package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
)

// secondaryCurves inverts the lines r_1 = v (v in r1s) with r_2 running
// over [0, 1] and the other responses at rest: the secondary curves drawn
// along the first curve.
func secondaryCurves(m *spca.Model, r1s []float64, rest []float64, lo, hi float64) ([]*mat.Dense, error) {
	d := m.Dim()
	var out []*mat.Dense
	for _, v := range r1s {
		ts := linspace(lo, hi, 100)
		q := mat.NewDense(len(ts), d, nil)
		for i, t := range ts {
			row := make([]float64, d)
			copy(row, rest)
			row[0], row[1] = v, t
			q.SetRow(i, row)
		}
		x, err := m.InverseBatch(q)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// drawCurves plots the data (grey), the secondary curves (black) and the
// first curve (red) of a model projected on columns a and b.
func (c *canvas) drawCurves(p *plot.Plot, m *spca.Model, x mat.Matrix, curves []*mat.Dense, a, b, shown int) {
	xs, ys := firstRows(x, shown, a, b)
	c.scatter(p, "samples", "", xs, ys, colLight, vg.Points(1))
	for k, cv := range curves {
		leg := ""
		if k == 0 {
			leg = "secondary curves"
		}
		cx, cy := firstRows(cv, 1<<30, a, b)
		c.line(p, "secondary curve", leg, cx, cy, colBlack, vg.Points(0.8), false)
	}
	fc := m.FirstCurve()
	fx, fy := firstRows(fc, 1<<30, a, b)
	c.line(p, "first curve", "first curve", fx, fy, colRed, vg.Points(2), false)
}

// r2Range returns the central 99 % of the second response of x: the
// secondary curves are drawn over it (beyond the data they run on).
func r2Range(m *spca.Model, x mat.Matrix) (float64, float64, error) {
	resp, _, err := m.TransformBatch(x)
	if err != nil {
		return 0, 0, err
	}
	col := measure.Column(resp, 1)
	return measure.Quantile(col, 0.005), measure.Quantile(col, 0.995), nil
}

// responseAt returns the responses of a point (other responses of the
// curves drawn through it).
func responseAt(m *spca.Model, x []float64) ([]float64, error) {
	r := make([]float64, m.Dim())
	_, err := m.Transform(r, x)
	return r, err
}

func (r *run) subspaces() (*Figure, error) {
	n := 1000
	sp := testimages.Spiral(n, r.cfg.Seed)
	base, err := r.fit(sp.X, func(o *spca.Options) { o.Gamma = 0 })
	if err != nil {
		return nil, err
	}
	fc := base.FirstCurve()
	nv, _ := fc.Dims()
	c := newCanvas(2, 3, vg.Inch*3.5, vg.Inch*3.3)
	t := Table{
		Name: "Independence of the origin",
		Caption: "RMS difference of the responses (γ = 0, unit range) of the 1000 spiral samples between models whose first curve starts at different origins on it, " +
			"against the model with the origin at a quarter of the curve, up to orientation (r or 1 − r). The seed shows this qualitatively.",
		Columns: []string{"RMS Δr₁", "RMS Δr₂"},
	}
	var ref *mat.Dense
	for k, frac := range []float64{0.25, 0.5, 0.75} {
		origin := fc.RawRowView(int(frac * float64(nv-1)))
		m, err := r.fit(sp.X, func(o *spca.Options) {
			o.Gamma = 0
			o.Origin = spca.OriginGiven
			o.OriginPoint = append([]float64(nil), origin...)
		})
		if err != nil {
			return nil, err
		}
		resp, _, err := m.TransformBatch(sp.X)
		if err != nil {
			return nil, err
		}
		if ref == nil {
			ref = resp
		}
		// Responses are compared up to orientation (r and 1 - r).
		var dev [2][2]float64
		for i := 0; i < n; i++ {
			for j := 0; j < 2; j++ {
				dev[j][0] += math.Pow(resp.At(i, j)-ref.At(i, j), 2) / float64(n)
				dev[j][1] += math.Pow(1-resp.At(i, j)-ref.At(i, j), 2) / float64(n)
			}
		}
		d1, d2 := math.Min(dev[0][0], dev[0][1]), math.Min(dev[1][0], dev[1][1])
		t.Rows = append(t.Rows, Row{Label: fmt.Sprintf("origin at %.0f %% of the first curve", 100*frac),
			Data: "spiral, 1000 samples", Ours: []float64{math.Sqrt(d1), math.Sqrt(d2)}, Seed: seedVals(none, none)})
		lo, hi, err := r2Range(m, sp.X)
		if err != nil {
			return nil, err
		}
		curves, err := secondaryCurves(m, linspace(0.02, 0.98, 20), nil, lo, hi)
		if err != nil {
			return nil, err
		}
		p := c.panel(0, k, fmt.Sprintf("Spiral, γ = 0, origin at %.0f %%", 100*frac), "x₁ (spiral units)", "x₂ (spiral units)")
		c.drawCurves(p, m, sp.X, curves, 0, 1, n)
		o := m.Origin()
		c.scatter(p, "origin", "origin", []float64{o[0]}, []float64{o[1]}, colBlue, vg.Points(5))
		equalAxes(p, 1.05)
		headroom(p, 0.3)
		r.progress("origins", k+1, 3)
	}
	nd := pick(r, 3000, 1500)
	for k, set := range []struct {
		name string
		s    testimages.Samples
		a, b int
		xl   string
		yl   string
	}{
		{"Delicado, fixed subspaces (x–y)", testimages.DelicadoFixed(nd, r.cfg.Seed), 0, 1, "x", "y"},
		{"Delicado, twisted subspaces (x–y)", testimages.DelicadoTwisted(nd, r.cfg.Seed), 0, 1, "x", "y"},
		{"Delicado, twisted subspaces (x–z)", testimages.DelicadoTwisted(nd, r.cfg.Seed), 0, 2, "x", "z"},
	} {
		m, err := r.fit(set.s.X, func(o *spca.Options) { o.Gamma = 0 })
		if err != nil {
			return nil, err
		}
		rest, err := responseAt(m, m.Origin())
		if err != nil {
			return nil, err
		}
		lo, hi, err := r2Range(m, set.s.X)
		if err != nil {
			return nil, err
		}
		curves, err := secondaryCurves(m, linspace(0.02, 0.98, 15), rest, lo, hi)
		if err != nil {
			return nil, err
		}
		p := c.panel(1, k, set.name, set.xl+" (data units)", set.yl+" (data units)")
		c.drawCurves(p, m, set.s.X, curves, set.a, set.b, 1500)
		equalAxes(p, 1.05)
		headroom(p, 0.25)
		r.progress("Delicado", k+1, 3)
	}
	files, err := c.save(r.cfg.Out, "subspaces")
	if err != nil {
		return nil, err
	}
	return &Figure{
		Title: "Locally orthogonal subspaces (seed Figs. \"subspaces\")",
		Files: files,
		Summary: fmt.Sprintf("Top: the first principal curve (red) of the spiral and the secondary curves (black) drawn at equal steps of the response r₁ with γ = 0, "+
			"for three origins (blue dot) along the first curve. The secondary curves cross the manifold following its local spread and change little with the origin: "+
			"the responses of the samples differ by an RMS of %.3f (r₁) and %.3f (r₂) between the origins at a quarter and at three quarters of the curve. "+
			"Bottom: Delicado's 3-D manifolds (%d samples), the first curve and the secondary curves at the origin's third response, as projections: "+
			"with fixed subspaces the secondary curves are parabolas in parallel planes; with twisted ones they turn along the curve.",
			t.Rows[2].Ours[0], t.Rows[2].Ours[1], nd),
		Tables: []Table{t},
	}, nil
}
