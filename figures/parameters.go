package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

func qName(q float64) string {
	if math.IsInf(q, 1) {
		return "∞"
	}
	return fmt.Sprintf("%g", q)
}

func (r *run) parameters() (*Figure, error) {
	n := pick(r, 2000, 1000)
	sp := testimages.Spiral(n, r.cfg.Seed)
	def := spca.DefaultOptions()
	type setting struct{ k, tau, q float64 }
	rows := []struct {
		what string
		set  []setting
	}{
		{"k", []setting{{0.01, def.Tau, def.Q}, {0.1, def.Tau, def.Q}, {0.3, def.Tau, def.Q}}},
		{"τ", []setting{{def.K, 0.02, def.Q}, {def.K, 0.1, def.Q}, {def.K, 0.3, def.Q}}},
		{"q", []setting{{def.K, def.Tau, 2}, {def.K, def.Tau, 10}, {def.K, def.Tau, math.Inf(1)}}},
	}
	c := newCanvas(4, 3, vg.Inch*3.4, vg.Inch*3.1)
	for i, row := range rows {
		for j, s := range row.set {
			title := fmt.Sprintf("k = %g, τ = %g, q = %s", s.k, s.tau, qName(s.q))
			p := c.panel(i, j, title, "x₁ (spiral units)", "x₂ (spiral units)")
			m, err := r.fit(sp.X, func(o *spca.Options) { o.Gamma = 0; o.K, o.Tau, o.Q = s.k, s.tau, s.q })
			if err != nil {
				p.Title.Text = title + ": no fit"
				xs, ys := firstRows(sp.X, n, 0, 1)
				c.scatter(p, "samples", "", xs, ys, colLight, vg.Points(1))
				continue
			}
			lo, hi, err := r2Range(m, sp.X)
			if err != nil {
				return nil, err
			}
			curves, err := secondaryCurves(m, linspace(0.02, 0.98, 16), nil, lo, hi)
			if err != nil {
				return nil, err
			}
			c.drawCurves(p, m, sp.X, curves, 0, 1, n)
			equalAxes(p, 1.1)
			headroom(p, 0.25)
			r.progress("curves", 3*i+j+1, 9)
		}
	}
	// Projection-error curves (Tune) on the Appendix's two data sets.
	nt := pick(r, 2000, 800)
	grid := pick(r, spca.TuneGrid{K: []float64{0.02, 0.05, 0.1, 0.2}, Tau: []float64{0.05, 0.1, 0.2}, Q: []float64{10}},
		spca.TuneGrid{K: []float64{0.05, 0.2}, Tau: []float64{0.1, 0.2}, Q: []float64{10}})
	t := Table{
		Name: "Parameters chosen by projection error",
		Caption: fmt.Sprintf("spca.Tune on a grid k × τ (q = 10): the RMS distance of the samples to the first curve (data units) at the best grid point. "+
			"The seed shows the error surfaces without numbers. %d samples each.", nt),
		Columns: []string{"best k", "best τ", "projection error"},
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}}
	for j, set := range []struct {
		name string
		s    testimages.Samples
	}{
		{"Noisy swiss roll", testimages.SwissRoll(nt, testimages.DefaultSwissRollNoise, r.cfg.Seed)},
		{"Noisy 3-D curve", testimages.Curve3D(nt, testimages.DefaultCurve3DNoise, r.cfg.Seed)},
	} {
		o := spca.DefaultOptions()
		o.Seed = r.cfg.Seed
		res, err := spca.Tune(set.s.X, o, grid)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, Row{Label: set.name, Data: fmt.Sprintf("%s, %d samples", set.name, nt),
			Ours: []float64{res.Best.K, res.Best.Tau, res.Error}, Seed: seedVals(none, none, none)})
		p := c.panel(3, j, set.name+": projection error", "k (fraction of the samples)", "RMS distance to first curve (data units)")
		for ti, tau := range grid.Tau {
			var xs, ys []float64
			for _, tp := range res.Table {
				if tp.Tau == tau && !math.IsInf(tp.Error, 0) {
					xs, ys = append(xs, tp.K), append(ys, tp.Error)
				}
			}
			if len(xs) > 0 {
				c.linePoints(p, fmt.Sprintf("tau %g", tau), fmt.Sprintf("τ = %g", tau), xs, ys, palette[ti], shapes[ti%3])
			}
		}
		headroom(p, 0.3)
		r.progress("tuning", j+1, 2)
	}
	files, err := c.save(r.cfg.Out, "parameters")
	if err != nil {
		return nil, err
	}
	return &Figure{
		Title: "Effect of k, τ and q, and their tuning (seed Appendix, Fig. \"effects\")",
		Files: files,
		Summary: fmt.Sprintf("Rows 1–3: the first curve (red) and secondary curves (black) of the spiral (%d samples, γ = 0) when the neighbourhood k, the step τ "+
			"(fraction of the RMS radius) and the stiffness q change one at a time from the defaults k = 0.1, τ = 0.1, q = 10; small neighbourhoods and "+
			"steps follow the data more closely, large ones and a stiff curve (q = ∞ ignores the local mean) approach straight principal axes and cut corners. "+
			"Row 4: the RMS projection error on the first curve over a grid of k and τ for the noisy swiss roll and the noisy 3-D curve of the seed's Appendix; "+
			"spca.Tune picks the minimum (table).", n),
		Tables: []Table{t},
	}, nil
}
