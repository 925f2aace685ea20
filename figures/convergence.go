package figures

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// convSet is one data set of the convergence figure.
type convSet struct {
	name, data  string
	train, test *mat.Dense
	gamma       float64
	xl, yl      string
}

// textureCoefficients returns the 3 leading PCA coefficients of 4×4
// patches of generated textures, divided by their standard deviations
// (PCA whitening restricted to the subspace), split into train and test.
func textureCoefficients(r *run, nTrain, nTest int) (train, test *mat.Dense, err error) {
	var planes []patches.Plane
	for i := range 4 {
		planes = append(planes, patches.Luminance(textureImage(pick(r, 256, 128), r.cfg.Seed*7919+uint64(i))))
	}
	x := patches.Sample(planes, 4, nTrain+nTest, r.cfg.Seed)
	p, err := patches.FitPCA(x)
	if err != nil {
		return nil, nil, err
	}
	y := p.Forward(nil, x)
	lead, _ := patches.Split(y, 3)
	rows, _ := lead.Dims()
	for j := 0; j < 3; j++ {
		ss := 0.0
		for i := 0; i < rows; i++ {
			ss += lead.At(i, j) * lead.At(i, j)
		}
		sd := math.Sqrt(ss / float64(rows))
		for i := 0; i < rows; i++ {
			lead.Set(i, j, lead.At(i, j)/sd)
		}
	}
	train = mat.DenseCopyOf(lead.Slice(0, nTrain, 0, 3))
	test = mat.DenseCopyOf(lead.Slice(nTrain, rows, 0, 3))
	return train, test, nil
}

func (r *run) convergence() (*Figure, error) {
	nTest := pick(r, 1000, 300)
	var sets []convSet
	{
		n := pick(r, 10000, 2000)
		sets = append(sets, convSet{
			name: "Spiral, γ = 0", data: fmt.Sprintf("spiral, %d train, %d test", n, nTest),
			train: testimages.Spiral(n, r.cfg.Seed).X, test: testimages.Spiral(nTest, r.cfg.Seed+1).X,
			gamma: 0, xl: "x₁ (spiral units)", yl: "x₂ (spiral units)",
		})
	}
	{
		n := pick(r, 20000, 4000)
		a, _ := testimages.SceneSet(pick(r, 4, 2), pick(r, 128, 64), pick(r, 128, 64), r.cfg.Seed)
		x, err := adapt.SampleLMS(a, n+nTest, r.cfg.Seed)
		if err != nil {
			return nil, err
		}
		rows, _ := x.Dims()
		sets = append(sets, convSet{
			name: "Colour (LMS), γ = 0", data: fmt.Sprintf("LMS pixels of generated D65 scenes, %d train, %d test", rows-nTest, nTest),
			train: mat.DenseCopyOf(x.Slice(0, rows-nTest, 0, 3)), test: mat.DenseCopyOf(x.Slice(rows-nTest, rows, 0, 3)),
			gamma: 0, xl: "L (D65 white = 1)", yl: "S (D65 white = 1)",
		})
	}
	{
		n := pick(r, 15000, 3000)
		tr, te, err := textureCoefficients(r, n, nTest)
		if err != nil {
			return nil, err
		}
		sets = append(sets, convSet{
			name: "Texture (3 PCA coefficients), γ = 1", data: fmt.Sprintf("whitened PCA coefficients 1–3 of 4×4 patches of generated textures, %d train, %d test", n, nTest),
			train: tr, test: te, gamma: 1, xl: "C₁ (whitened)", yl: "C₂ (whitened)",
		})
	}
	c := newCanvas(2, 3, vg.Inch*3.6, vg.Inch*3.3)
	t := Table{
		Name: "Convergence of the forward transform",
		Caption: "Test points transformed with the geodesic-projection iteration (tolerance 10⁻³ of the largest pairwise distance, as in the seed): " +
			"the share reached by the orthogonal projections alone, the iterations of the others, and the final residual. " +
			"The seed reports only that most points are reached in one iteration and all within 15 (fixed step α = 0.01; ours are damped Newton steps).",
		Columns: []string{"share without correction", "mean iterations (corrected)", "max iterations", "share converged", "median residual / Dmax"},
	}
	const yFloor = 1e-8
	for k, s := range sets {
		m, err := r.fit(s.train, func(o *spca.Options) { o.Gamma = s.gamma })
		if err != nil {
			return nil, err
		}
		dmax := m.MaxDistance()
		rows, d := s.test.Dims()
		dst := make([]float64, d)
		var okX, okY, badX, badY, finals []float64
		var traces [][]float64
		noCorr, conv, maxIt, sumIt, nCorr := 0, 0, 0, 0, 0
		for i := 0; i < rows; i++ {
			st, tr, err := m.TransformTrace(dst, s.test.RawRowView(i))
			if err != nil {
				return nil, err
			}
			finals = append(finals, st.Residual/dmax)
			if st.Converged {
				conv++
			}
			if st.Iterations == 0 {
				noCorr++
				okX, okY = append(okX, s.test.At(i, 0)), append(okY, s.test.At(i, d-1))
				continue
			}
			nCorr++
			sumIt += st.Iterations
			maxIt = max(maxIt, st.Iterations)
			badX, badY = append(badX, s.test.At(i, 0)), append(badY, s.test.At(i, d-1))
			rel := make([]float64, len(tr))
			for j, v := range tr {
				rel[j] = math.Max(v/dmax, yFloor)
			}
			traces = append(traces, rel)
		}
		sort.Float64s(finals)
		meanIt := 0.0
		if nCorr > 0 {
			meanIt = float64(sumIt) / float64(nCorr)
		}
		t.Rows = append(t.Rows, Row{Label: s.name, Data: s.data,
			Ours: []float64{float64(noCorr) / float64(rows), meanIt, float64(maxIt), float64(conv) / float64(rows), finals[len(finals)/2]},
			Seed: seedVals(none, none, none, none, none)})

		yl := s.yl
		if d == 2 {
			yl = s.yl
		}
		p := c.panel(0, k, s.name, s.xl, yl)
		c.scatter(p, "reached by projection", "reached by projection", okX, okY, colGrey, vg.Points(1.4))
		c.scatter(p, "needed correction", "needed correction", badX, badY, colRed, vg.Points(2))
		if d == 2 {
			equalAxes(p, 1.1)
		}
		headroom(p, 0.3)

		p = c.panel(1, k, fmt.Sprintf("%s: %d of %d corrected", shortName(s.name), nCorr, rows), "iteration (0 = orthogonal projections)", "residual / largest distance")
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = powerTicks{}
		maxLen := 1
		for j, tr := range traces {
			if j >= 60 {
				break
			}
			xs := make([]float64, len(tr))
			for q := range tr {
				xs[q] = float64(q)
			}
			maxLen = max(maxLen, len(tr))
			c.line(p, fmt.Sprintf("point %d", j+1), "", xs, tr, palette[j%len(palette)], vg.Points(0.8), false)
		}
		c.line(p, "tolerance", "tolerance 1e-3", []float64{0, float64(maxLen - 1)}, []float64{1e-3, 1e-3}, colBlack, vg.Points(1.2), true)
		lo, hi := 1e-3, 1e-3
		for _, tr := range traces {
			for _, v := range tr {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		p.Y.Min, p.Y.Max = lo/2, hi*50
		p.X.Max = math.Max(p.X.Max, 2)
		r.progress("data sets", k+1, len(sets))
	}
	files, err := c.save(r.cfg.Out, "convergence")
	if err != nil {
		return nil, err
	}
	o := func(i, j int) float64 { return t.Rows[i].Ours[j] }
	return &Figure{
		Title: "Convergence of the transform (seed Fig. \"convergencia\")",
		Files: files,
		Summary: fmt.Sprintf("Test points of three data sets are transformed; points whose orthogonal projections already reconstruct them within 10⁻³ of the "+
			"largest distance are grey, the others (red, top row) are corrected iteratively, and the bottom row shows their residual |x − R⁻¹(r)| at each "+
			"iteration (a restart from another start point begins a new run of values). The share reached without correction is %.0f %% for the spiral, "+
			"%.0f %% for the colour set and %.0f %% for the texture set; corrected points need at most %.0f, %.0f and %.0f iterations (the seed: under 15).",
			100*o(0, 0), 100*o(1, 0), 100*o(2, 0), o(0, 2), o(1, 2), o(2, 2)),
		Tables: []Table{t},
	}, nil
}

func shortName(s string) string {
	for i, r := range s {
		if r == ',' || r == '(' {
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}
