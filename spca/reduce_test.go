package spca_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
)

// unfolding returns min(|ρ(r1, angle)|, |ρ(r2, height)|) of the swiss
// roll s under the model m.
func unfolding(t *testing.T, m *spca.Model, s testimages.Samples) float64 {
	t.Helper()
	r, _, err := m.TransformBatch(s.X)
	if err != nil {
		t.Fatal(err)
	}
	a := math.Abs(measure.Spearman(measure.Column(r, 0), measure.Column(s.Latent, 0)))
	b := math.Abs(measure.Spearman(measure.Column(r, 1), measure.Column(s.Latent, 1)))
	return math.Min(a, b)
}

// rmsDistance is the RMS distance between the rows of a and b.
func rmsDistance(a, b mat.Matrix) float64 {
	n, d := a.Dims()
	ss := 0.0
	for i := range n {
		for j := range d {
			e := a.At(i, j) - b.At(i, j)
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64(n))
}

// pcaReduced maps the rows of x to their first k principal components and
// back.
func pcaReduced(x mat.Matrix, k int) *mat.Dense {
	n, d := x.Dims()
	var pc stat.PC
	pc.PrincipalComponents(x, nil)
	var v mat.Dense
	pc.VectorsTo(&v)
	mean := make([]float64, d)
	for j := range d {
		mean[j] = stat.Mean(measure.Column(x, j), nil)
	}
	xc := mat.DenseCopyOf(x)
	for i := range n {
		for j := range d {
			xc.Set(i, j, xc.At(i, j)-mean[j])
		}
	}
	vk := v.Slice(0, d, 0, k)
	var proj, rec mat.Dense
	proj.Mul(xc, vk)
	rec.Mul(&proj, vk.T())
	for i := range n {
		for j := range d {
			rec.Set(i, j, rec.At(i, j)+mean[j])
		}
	}
	return &rec
}

// TestTuneReducedSwissRoll checks that the held-out reduced-reconstruction
// criterion picks, on a small grid, parameters that unfold a swiss roll of
// noise 1.0 (2000 samples), and that the model fitted with them
// reconstructs the roll from two responses far better than PCA from two
// components. (With 800 samples the halves are too sparse: it picks k 0.2,
// which does not unfold.) It takes 30 s to 2 minutes on two cores: it runs
// with SPCA_LONG=1.
func TestTuneReducedSwissRoll(t *testing.T) {
	if os.Getenv("SPCA_LONG") == "" {
		t.Skip("SPCA_LONG not set (five fits of a 2000-sample swiss roll)")
	}
	const n = 2000
	s := testimages.SwissRoll(n, 1.0, 1)
	base := spca.DefaultOptions()
	base.Seed = 1
	base.Resolution = 1 << 15
	res, err := spca.TuneReduced(s.X, base, spca.TuneGrid{K: []float64{0.05, 0.2}, Tau: []float64{0.05, 0.2}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Table {
		t.Logf("k %g tau %g: reduced RMS %.3f", p.K, p.Tau, p.Error)
	}
	m, err := spca.Fit(s.X, res.Best)
	if err != nil {
		t.Fatal(err)
	}
	if u := unfolding(t, m, s); u < 0.95 {
		t.Errorf("tuned k %g tau %g: unfolding %.3f < 0.95", res.Best.K, res.Best.Tau, u)
	}
	if err := m.RecordTypical(s.X); err != nil {
		t.Fatal(err)
	}
	r, _, _ := m.TransformBatch(s.X)
	back, err := m.InverseReduced(r.Slice(0, n, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	spcaErr, pcaErr := rmsDistance(back, s.X), rmsDistance(pcaReduced(s.X, 2), s.X)
	t.Logf("reduced to 2-D: RMS SPCA %.3f, PCA %.3f", spcaErr, pcaErr)
	if !(spcaErr < pcaErr/4) {
		t.Errorf("reduced to 2-D: RMS SPCA %.3f not below a quarter of PCA's %.3f", spcaErr, pcaErr)
	}
}

// TestInverseReduced checks the reduced inverse against the full one, its
// errors, and that typical responses are saved only by models that have
// them (the format of other models is unchanged).
func TestInverseReduced(t *testing.T) {
	s := testimages.Spiral(300, 1)
	o := spca.DefaultOptions()
	o.Resolution = 1 << 12
	m, err := spca.Fit(s.X, o)
	if err != nil {
		t.Fatal(err)
	}
	version := func(m *spca.Model) uint32 {
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint32(b.Bytes()[8:12])
	}
	if v := version(m); v != 2 {
		t.Errorf("model without typical responses written as version %d, want 2", v)
	}
	if got := m.Typical(); got[0] != 0.5 || got[1] != 0.5 {
		t.Errorf("typical responses without SetTypical: %v, want the centre 0.5", got)
	}
	r, _, err := m.TransformBatch(s.X)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := m.InverseBatch(r)
	same, err := m.InverseReduced(r)
	if err != nil || !mat.Equal(full, same) {
		t.Errorf("InverseReduced with every response differs from InverseBatch (%v)", err)
	}
	if err := m.RecordTypical(s.X); err != nil {
		t.Fatal(err)
	}
	typ := m.Typical()
	col := measure.Column(r, 1)
	sort.Float64s(col)
	if med := (col[149] + col[150]) / 2; math.Abs(typ[1]-med) > 1e-12 {
		t.Errorf("typical r2 %v, want the median %v", typ[1], med)
	}
	one, err := m.InverseReduced(r.Slice(0, 300, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	// Every reduced sample is the inverse of (r1, median r2).
	want := make([]float64, 2)
	if err := m.Inverse(want, []float64{r.At(7, 0), typ[1]}); err != nil || want[0] != one.At(7, 0) || want[1] != one.At(7, 1) {
		t.Errorf("reduced sample 8: %v, want %v (%v)", one.RawRowView(7), want, err)
	}
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if v := version(m); v != 5 {
		t.Errorf("model with typical responses written as version %d, want 5", v)
	}
	m2, err := spca.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := m2.Typical(); got[0] != typ[0] || got[1] != typ[1] {
		t.Errorf("typical responses read back %v, want %v", got, typ)
	}
	var de *spca.DataError
	if _, err := m.InverseReduced(mat.NewDense(2, 3, nil)); !errors.As(err, &de) {
		t.Errorf("InverseReduced with 3 columns for a 2-D model: %v, want a *DataError", err)
	}
}

// TestTuneReducedTable checks TuneReduced's bookkeeping on a small grid:
// one point per (k, tau), Best the one of least error, and the number of
// components checked.
func TestTuneReducedTable(t *testing.T) {
	s := testimages.SwissRoll(300, 0.5, 1)
	base := spca.DefaultOptions()
	base.Resolution = 1 << 12
	res, err := spca.TuneReduced(s.X, base, spca.TuneGrid{K: []float64{0.1, 0.4}, Tau: []float64{0.1}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Table) != 2 {
		t.Fatalf("%d grid points, want 2", len(res.Table))
	}
	for _, p := range res.Table {
		if !(p.Error > 0) || p.Error < res.Error {
			t.Errorf("grid point %+v: error not positive or below the best %v", p, res.Error)
		}
		if p.Error == res.Error && (p.K != res.Best.K || p.Tau != res.Best.Tau) {
			t.Errorf("best %v/%v is not the grid point of least error %+v", res.Best.K, res.Best.Tau, p)
		}
	}
	var oe *spca.OptionError
	for _, k := range []int{0, 3} {
		if _, err := spca.TuneReduced(s.X, base, spca.TuneGrid{}, k); !errors.As(err, &oe) {
			t.Errorf("TuneReduced to %d of 3 components: %v, want an *OptionError", k, err)
		}
	}
}

// TestDistance checks that Distance is the Euclidean distance between the
// responses: zero on a sample, symmetric, and the norm of the difference
// of the two samples' responses; NaN input is an error.
func TestDistance(t *testing.T) {
	s := testimages.Spiral(500, 1)
	o := spca.DefaultOptions()
	o.Resolution = 1 << 12
	m, err := spca.Fit(s.X, o)
	if err != nil {
		t.Fatal(err)
	}
	x, y := s.X.RawRowView(3), s.X.RawRowView(10)
	dxy, err := m.Distance(x, y)
	if err != nil {
		t.Fatal(err)
	}
	dyx, _ := m.Distance(y, x)
	dxx, _ := m.Distance(x, x)
	rx, ry := make([]float64, 2), make([]float64, 2)
	m.Transform(rx, x)
	m.Transform(ry, y)
	if want := math.Hypot(rx[0]-ry[0], rx[1]-ry[1]); dxx != 0 || dxy != dyx || math.Abs(dxy-want) > 1e-12 {
		t.Errorf("Distance: d(x,x) %v, d(x,y) %v, d(y,x) %v, want 0 and %v", dxx, dxy, dyx, want)
	}
	if _, err := m.Distance(x, []float64{math.NaN(), 0}); err == nil {
		t.Error("NaN sample accepted")
	}
}
