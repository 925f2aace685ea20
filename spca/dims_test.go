package spca_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// Fit works from d = 1 to d = 8 (the PCA-reduced patch domain), with an
// invertible transform.
func TestDimensions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, d := range []int{1, 5, 8} {
		n := 3000
		x := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			a := rng.Float64()*4 - 2
			x.Set(i, 0, a)
			for j := 1; j < d; j++ {
				// A curved, anisotropic cloud: each coordinate bends with the
				// first and has a decreasing Laplacian spread.
				x.Set(i, j, 0.3*a*a/float64(j)+0.3/float64(j)*rng.ExpFloat64()*float64(1-2*rng.IntN(2)))
			}
		}
		o := withGamma(1.0 / 3)
		// A sixteenth of the default lattice: the same round-trip errors
		// (d = 5 p95 7.2e-4, d = 8 6.6e-4; 6.9e-4 and 7.0e-4 at 1<<16,
		// 7.3e-4 and 7.6e-4 with the default) at half the time of 1<<16
		// (d = 8's lattice is 8×3^7 nodes, the least of 3 per axis). An
		// axis from the sixth on ignored by the lattice's evaluation
		// fails it (d = 8 median 0.23).
		o.Resolution = 1 << 14
		start := time.Now()
		m, err := spca.Fit(x, o)
		t.Logf("d=%d: fit in %v", d, time.Since(start))
		if err != nil {
			t.Fatalf("d=%d: %v", d, err)
		}
		errs, st := roundTripErrors(t, m, x)
		med, p95, p99 := errs[n/2], errs[n*95/100], errs[n*99/100]
		t.Logf("d=%d lattice %v: median %.2e p95 %.2e p99 %.2e; unconverged %d, max iterations %d", d, m.LatticeSize(), med, p95, p99, st.Unconverged, st.MaxIter)
		// In 5 and more dimensions the coarse secondary lattice does not
		// cover the far ends of the first curve, where one-sided
		// neighbourhoods bend the secondary curves inwards: a few percent
		// of the points there stay unreached (p99 ~0.1 at d = 5), so the
		// bound here is on the 95th percentile.
		if med > 1e-3 || p95 > 1e-2 {
			t.Errorf("d=%d: round trip median %.2e p95 %.2e", d, med, p95)
		}
	}
}

func TestTune(t *testing.T) {
	s := testimages.Curve3D(1500, 0.1, 2)
	res, err := spca.Tune(s.X, withGamma(0), spca.TuneGrid{})
	if err != nil {
		t.Fatal(err)
	}
	g := spca.DefaultTuneGrid()
	if len(res.Table) != len(g.K)*len(g.Tau)*len(g.Q) {
		t.Fatalf("table has %d points", len(res.Table))
	}
	errs := []float64{}
	for _, p := range res.Table {
		if p.Error < res.Error {
			t.Fatalf("grid point %+v beats the reported best %v", p, res.Error)
		}
		if !math.IsInf(p.Error, 1) {
			errs = append(errs, p.Error)
		}
	}
	sort.Float64s(errs)
	t.Logf("best K=%g Tau=%g Q=%g: RMS projection error %.4f (median over grid %.4f, worst %.4f)",
		res.Best.K, res.Best.Tau, res.Best.Q, res.Error, errs[len(errs)/2], errs[len(errs)-1])
	// A principal curve through a noisy 1-D curve leaves about the noise
	// as residual; the first PCA line leaves the curvature too.
	pca, err := measure.FitPCA(s.X)
	if err != nil {
		t.Fatal(err)
	}
	p := pca.Project(nil, s.X)
	n, d := p.Dims()
	ss := 0.0
	for i := 0; i < n; i++ {
		for j := 1; j < d; j++ {
			ss += p.At(i, j) * p.At(i, j)
		}
	}
	line := math.Sqrt(ss / float64(n))
	t.Logf("RMS distance to the first PCA line: %.4f", line)
	if res.Error > 0.5*line {
		t.Errorf("tuned principal curve error %.4f is not well below the PCA line's %.4f", res.Error, line)
	}
	if _, err := spca.Tune(s.X, withGamma(0), spca.TuneGrid{K: []float64{-1}}); err == nil {
		t.Error("invalid grid accepted")
	}
}

// Options.Directions imposes the order and orientation of the dimensions,
// so two models can be made to mean the same thing.
func TestDirections(t *testing.T) {
	s := testimages.DelicadoFixed(2000, 4)
	// Coarse lattices (1/16 of the default): the directions are the
	// PCA's or the ones asked, whatever the lattice.
	coarse := func() spca.Options {
		o := withGamma(0)
		o.Resolution = 1 << 14
		return o
	}
	m := fitFor(t, "delicado-fixed-dirs", s.X, coarse())
	dirs := m.Directions()
	// Reverse the order and flip the sign of the new first axis.
	want := mat.NewDense(3, 3, nil)
	for j := 0; j < 3; j++ {
		for k := 0; k < 3; k++ {
			v := dirs.At(k, 2-j)
			if j == 0 {
				v = -v
			}
			want.Set(k, j, v)
		}
	}
	o := coarse()
	o.Directions = want
	m2, err := spca.Fit(s.X, o)
	if err != nil {
		t.Fatal(err)
	}
	got := m2.Directions()
	for j := 0; j < 3; j++ {
		c := 0.0
		for k := 0; k < 3; k++ {
			c += got.At(k, j) * want.At(k, j)
		}
		if c < 0.999 {
			t.Errorf("direction %d: cos %.4f with the requested one", j+1, c)
		}
	}
	// The same data with the same directions give the same model.
	o.Directions = dirs
	m3, err := spca.Fit(s.X, o)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	m.WriteTo(&a)
	m3.WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("fitting with the model's own Directions changed the model")
	}
}

func TestTransformTrace(t *testing.T) {
	s := testimages.DelicadoTwisted(1500, 8)
	m := fitFor(t, "delicado-trace", s.X, withGamma(0))
	r := make([]float64, 3)
	r2 := make([]float64, 3)
	corrected := 0
	for i := 0; i < 200; i++ {
		x := s.X.RawRowView(i)
		st, tr, err := m.TransformTrace(r, x)
		if err != nil {
			t.Fatal(err)
		}
		m.Transform(r2, x)
		if !floatsEqual(r, r2) {
			t.Fatal("TransformTrace and Transform disagree")
		}
		if len(tr) == 0 || len(tr) > 2*st.Iterations+3 {
			t.Fatalf("trace of %d values for %d iterations", len(tr), st.Iterations)
		}
		if last := tr[len(tr)-1]; math.Abs(last-st.Residual) > 1e-12*m.MaxDistance() {
			t.Fatalf("last traced residual %v, reported %v", last, st.Residual)
		}
		if st.Iterations > 0 {
			corrected++
		}
	}
	if corrected == 0 {
		t.Error("no point needed correction: the trace test shows nothing")
	}
}

func floatsEqual(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Unfold, Metric and PositionWork decompose Transform and Inverse.
func TestUnfoldMetricPosition(t *testing.T) {
	s := testimages.Spiral(1000, 12)
	m := fitFor(t, "spiral-decompose", s.X, withGamma(1.0/3))
	u := make([]float64, 2)
	r := make([]float64, 2)
	r2 := make([]float64, 2)
	x := make([]float64, 2)
	for i := 0; i < 200; i++ {
		row := s.X.RawRowView(i)
		if _, err := m.Unfold(u, row); err != nil {
			t.Fatal(err)
		}
		m.Metric(r, u)
		m.Transform(r2, row)
		if math.Abs(r[0]-r2[0]) > 1e-12 || math.Abs(r[1]-r2[1]) > 1e-12 {
			t.Fatalf("Metric(Unfold(x)) = %v, Transform(x) = %v", r, r2)
		}
		m.PositionWork(x, u, nil)
		if d := math.Hypot(x[0]-row[0], x[1]-row[1]); d > 1e-3*m.MaxDistance() {
			t.Fatalf("Position(Unfold(x)) is %g from x", d)
		}
	}
}

// One Newton step from a perturbed unfolding lands much closer to the
// exact unfolding (the error after a step is of the order of its square),
// and a start outside the lattice is refused with u left as it was.
func TestNewtonStep(t *testing.T) {
	for _, d := range []int{3, 4} {
		var x *mat.Dense
		if d == 3 {
			x = testimages.DelicadoTwisted(2000, 3).X
		} else {
			rng := rand.New(rand.NewPCG(4, 4))
			x = mat.NewDense(2000, d, nil)
			for i := 0; i < 2000; i++ {
				a := rng.Float64()*4 - 2
				x.Set(i, 0, a)
				for j := 1; j < d; j++ {
					x.Set(i, j, 0.3*a*a/float64(j)+0.2*rng.NormFloat64()/float64(j))
				}
			}
		}
		// A coarse lattice (1/16 of the default): one step still
		// leaves 2.6 % (d = 3) and 1.3 % (d = 4) of the distance, 2.5 %
		// and 1.8 % with the default, at a quarter of the time.
		o := withGamma(1)
		o.Resolution = 1 << 14
		m, err := spca.Fit(x, o)
		if err != nil {
			t.Fatal(err)
		}
		u, _, err := m.UnfoldBatch(x)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 5))
		s := m.NewMetricScratch()
		var before, after []float64
		for i := 0; i < 2000; i += 7 {
			exact := u.RawRowView(i)
			v := make([]float64, d)
			dist := 0.0
			for k := range v {
				e := 0.01 * rng.NormFloat64()
				v[k] = exact[k] + e
				dist += e * e
			}
			if _, ok := m.NewtonStep(v, x.RawRowView(i), s); !ok {
				continue
			}
			rest := 0.0
			for k := range v {
				rest += (v[k] - exact[k]) * (v[k] - exact[k])
			}
			before = append(before, math.Sqrt(dist))
			after = append(after, math.Sqrt(rest))
		}
		sort.Float64s(before)
		sort.Float64s(after)
		mb, ma := before[len(before)/2], after[len(after)/2]
		t.Logf("d=%d: %d steps, median distance to the exact unfolding %.2e before, %.2e after", d, len(after), mb, ma)
		if len(after) < 250 || ma > 0.1*mb {
			t.Errorf("d=%d: one step from %.2e leaves %.2e (%d steps taken)", d, mb, ma, len(after))
		}
		far := make([]float64, d)
		for k := range far {
			far[k] = 1e6
		}
		keep := append([]float64(nil), far...)
		if _, ok := m.NewtonStep(far, x.RawRowView(0), s); ok || far[0] != keep[0] {
			t.Errorf("d=%d: a start outside the lattice was accepted or moved", d)
		}
	}
}
