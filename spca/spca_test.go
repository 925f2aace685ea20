package spca_test

import (
	"math"
	"os"
	"sort"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

var gammas = []struct {
	name  string
	gamma float64
}{{"gamma0", 0}, {"gamma1/3", 1.0 / 3}, {"gamma1", 1}}

// fitCache avoids refitting the same model in several tests.
var fitCache = map[string]*spca.Model{}

func fitFor(t testing.TB, key string, x *mat.Dense, o spca.Options) *spca.Model {
	t.Helper()
	if m, ok := fitCache[key]; ok {
		return m
	}
	m, err := spca.Fit(x, o)
	if err != nil {
		t.Fatalf("%s: Fit: %v", key, err)
	}
	fitCache[key] = m
	return m
}

func withGamma(g float64) spca.Options {
	o := spca.DefaultOptions()
	o.Gamma = g
	o.Seed = 1
	return o
}

// roundTripErrors returns |x - R^{-1}(R(x))| / Dmax for every row, sorted,
// and the batch statistics of the forward transform.
func roundTripErrors(t *testing.T, m *spca.Model, x *mat.Dense) ([]float64, spca.BatchStats) {
	t.Helper()
	r, st, err := m.TransformBatch(x)
	if err != nil {
		t.Fatal(err)
	}
	xb, err := m.InverseBatch(r)
	if err != nil {
		t.Fatal(err)
	}
	n, d := x.Dims()
	errs := make([]float64, n)
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < d; j++ {
			e := xb.At(i, j) - x.At(i, j)
			s += e * e
		}
		errs[i] = math.Sqrt(s) / m.MaxDistance()
	}
	sort.Float64s(errs)
	return errs, st
}

// Acceptance 1: invertibility, on training and fresh points.
func TestInvertibility(t *testing.T) {
	sets := []struct {
		name  string
		train *mat.Dense
		fresh *mat.Dense
	}{
		{"spiral", testimages.Spiral(2000, 1).X, testimages.Spiral(2000, 2).X},
		{"delicado-twisted", testimages.DelicadoTwisted(2000, 1).X, testimages.DelicadoTwisted(2000, 2).X},
	}
	for _, set := range sets {
		for _, g := range gammas {
			o := withGamma(g.gamma)
			m := fitFor(t, set.name+g.name, set.train, o)
			for _, part := range []struct {
				name string
				x    *mat.Dense
			}{{"training", set.train}, {"fresh", set.fresh}} {
				errs, st := roundTripErrors(t, m, part.x)
				n := len(errs)
				med, p99 := errs[n/2], errs[n*99/100]
				t.Logf("%s %s %s: median %.2e p99 %.2e of Dmax; no correction %.1f%%, unconverged %d, clamped %d, max iterations %d, histogram %v",
					set.name, g.name, part.name, med, p99, 100*float64(st.NoCorrection)/float64(n), st.Unconverged, st.Clamped, st.MaxIter, trimHist(st.Histogram))
				if med > 1e-3 || p99 > 1e-2 {
					t.Errorf("%s %s %s: round trip median %.2e (max 1e-3), p99 %.2e (max 1e-2)", set.name, g.name, part.name, med, p99)
				}
				if st.MaxIter > o.MaxIter {
					t.Errorf("%d iterations exceed the cap %d", st.MaxIter, o.MaxIter)
				}
				// The seed reaches most 2-D points without correction.
				if frac := float64(st.NoCorrection) / float64(n); set.name == "spiral" && frac < 0.5 {
					t.Errorf("%s %s %s: only %.0f%% reached without correction", set.name, g.name, part.name, 100*frac)
				}
			}
		}
	}
}

func trimHist(h []int) []int {
	last := 0
	for i, v := range h {
		if v > 0 {
			last = i
		}
	}
	return h[:last+1]
}

// Acceptance 2: unfolding of the spiral; linear PCA must fail it.
func TestUnfoldingSpiral(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		s := testimages.Spiral(n, 3)
		arc := measure.Column(s.Latent, 0)
		for _, g := range gammas {
			m := fitFor(t, "spiral-unfold"+g.name+string(rune(n)), s.X, withGamma(g.gamma))
			r, _, err := m.TransformBatch(s.X)
			if err != nil {
				t.Fatal(err)
			}
			rho := math.Abs(measure.Spearman(measure.Column(r, 0), arc))
			t.Logf("spiral n=%d %s: |Spearman(r1, arc)| = %.4f", n, g.name, rho)
			if rho < 0.99 {
				t.Errorf("spiral n=%d %s: |Spearman(r1, arc)| = %.4f < 0.99", n, g.name, rho)
			}
		}
		pca, err := measure.FitPCA(s.X)
		if err != nil {
			t.Fatal(err)
		}
		p := pca.Project(nil, s.X)
		lin := math.Max(math.Abs(measure.Spearman(measure.Column(p, 0), arc)), math.Abs(measure.Spearman(measure.Column(p, 1), arc)))
		t.Logf("spiral n=%d linear PCA: best |Spearman(pc, arc)| = %.4f", n, lin)
		if lin >= 0.9 {
			t.Errorf("linear PCA unfolds the spiral (%.3f): the test would not prove curvature is followed", lin)
		}
	}
}

// Acceptance 3: with gamma = 1 every response marginal is uniform.
func TestUniformMarginals(t *testing.T) {
	train := testimages.Spiral(10000, 4)
	fresh := testimages.Spiral(10000, 5)
	m := fitFor(t, "spiral10k-gamma1", train.X, withGamma(1))
	for _, part := range []struct {
		name string
		x    *mat.Dense
	}{{"training", train.X}, {"fresh", fresh.X}} {
		r, _, err := m.TransformBatch(part.x)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < m.Dim(); j++ {
			ks := measure.KSUniform(measure.Column(r, j), 0, 1)
			t.Logf("%s r%d: KS distance to U(0,1) = %.4f", part.name, j+1, ks)
			if ks > 0.05 {
				t.Errorf("%s r%d: KS %.4f > 0.05", part.name, j+1, ks)
			}
		}
	}
}

// Acceptance 3: mutual information and quantisation error order the
// metrics as the seed's Fig. "gamba".
func TestMetricOrdering(t *testing.T) {
	train := testimages.Spiral(10000, 6)
	test := testimages.Spiral(5000, 7).X
	// 1024 cells split by bit allocation: gamma = 1/3 is the optimal cell
	// density in the high-resolution regime, where every dimension gets
	// several cells (with 2 cells across the arm, as at 144 cells, the
	// median split of gamma = 1 is closer to the centroids and wins).
	const cells = 1024
	miIn := measure.MutualInformation(measure.Column(test, 0), measure.Column(test, 1), 0)
	rmseIn := measure.UniformQuantRMSE(test, 32)
	t.Logf("input: MI %.3f bits, RMSE (uniform scalar, 32x32 cells) %.4f", miIn, rmseIn)
	mi := map[string]float64{}
	rmse := map[string]float64{}
	for _, g := range gammas {
		m := fitFor(t, "spiral-metric"+g.name, train.X, withGamma(g.gamma))
		n := measure.AllocateCells(m.MarginalEntropies(), cells)
		r, _, err := m.TransformBatch(test)
		if err != nil {
			t.Fatal(err)
		}
		mi[g.name] = measure.MutualInformation(measure.Column(r, 0), measure.Column(r, 1), 0)
		var err2 error
		rmse[g.name], err2 = measure.LatticeQuantRMSE(m, test, r, n)
		if err2 != nil {
			t.Fatal(err2)
		}
		t.Logf("%s: MI %.3f bits, RMSE (inverted lattice %v) %.4f", g.name, mi[g.name], n, rmse[g.name])
	}
	if !(miIn > mi["gamma0"] && mi["gamma0"] > mi["gamma1/3"] && mi["gamma1/3"] >= mi["gamma1"]) {
		t.Errorf("MI order input > gamma0 > gamma1/3 >= gamma1 violated: %.3f %.3f %.3f %.3f", miIn, mi["gamma0"], mi["gamma1/3"], mi["gamma1"])
	}
	for _, g := range gammas {
		if rmse[g.name] >= rmseIn {
			t.Errorf("%s RMSE %.4f does not beat uniform scalar quantisation of the input %.4f", g.name, rmse[g.name], rmseIn)
		}
	}
	if !(rmse["gamma1/3"] < rmse["gamma0"] && rmse["gamma1/3"] < rmse["gamma1"]) {
		t.Errorf("gamma 1/3 should give the lowest RMSE: %v", rmse)
	}
}

// Acceptance 2: the noisy swiss roll (2000 points) unfolds: r1 follows the
// angle and r2 the height (either order), which linear PCA cannot do.
// Noise 1.0 is reported with SPCA_LONG=1: there Isomap (best 0.10) and LLE
// (0.33) fail.
func TestUnfoldingSwissRoll(t *testing.T) {
	noises := []float64{0.5}
	if os.Getenv("SPCA_LONG") != "" {
		noises = append(noises, 1.0) // reported, not asserted: SPCA_LONG only
	}
	for _, noise := range noises {
		s := testimages.SwissRoll(2000, noise, 1)
		ang := measure.Column(s.Latent, 0)
		h := measure.Column(s.Latent, 1)
		for _, g := range gammas {
			o := withGamma(g.gamma)
			o.K, o.Tau = 0.05, 0.05
			// A coarse lattice (1/64 of the default nodes) unfolds alike:
			// scores .988/.996/.993 against .988/.994/.992 by default.
			o.Resolution = 1 << 12
			m, err := spca.Fit(s.X, o)
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := m.TransformBatch(s.X)
			if err != nil {
				t.Fatal(err)
			}
			r1, r2 := measure.Column(r, 0), measure.Column(r, 1)
			a := math.Min(math.Abs(measure.Spearman(r1, ang)), math.Abs(measure.Spearman(r2, h)))
			b := math.Min(math.Abs(measure.Spearman(r2, ang)), math.Abs(measure.Spearman(r1, h)))
			score := math.Max(a, b)
			t.Logf("swiss roll noise %.1f %s: min(|ρ(r1,angle)|, |ρ(r2,height)|) = %.3f (swapped %.3f)", noise, g.name, a, b)
			if noise == 0.5 && score < 0.95 {
				t.Errorf("swiss roll noise 0.5 %s: unfolding score %.3f < 0.95", g.name, score)
			}
			if noise == 1.0 {
				break // reported for gamma 0 only
			}
		}
		if noise == 0.5 {
			pca, _ := measure.FitPCA(s.X)
			p := pca.Project(nil, s.X)
			best := 0.0
			for j := 0; j < 3; j++ {
				best = math.Max(best, math.Abs(measure.Spearman(measure.Column(p, j), ang)))
			}
			t.Logf("linear PCA: best |ρ(pc, angle)| = %.3f", best)
			if best >= 0.95 {
				t.Errorf("linear PCA follows the angle (%.3f): the test would not prove unfolding", best)
			}
		}
	}
}
