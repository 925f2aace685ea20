package spca_test

import (
	"errors"
	"math"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// meanAbsDiff returns the mean absolute difference of the responses of
// two models to x, per dimension.
func meanAbsDiff(t *testing.T, a, b *spca.Model, x *mat.Dense) []float64 {
	t.Helper()
	ra, _, err := a.TransformBatch(x)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := b.TransformBatch(x)
	if err != nil {
		t.Fatal(err)
	}
	n, d := x.Dims()
	out := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out[j] += math.Abs(ra.At(i, j)-rb.At(i, j)) / float64(n)
		}
	}
	return out
}

// TestRefitMetric: a model refitted on its own training data is the
// model; on another sample of the same distribution its responses are
// close to the model's; on another distribution they differ, and are
// uniform on it (the metric equalises the new data on the old curves).
func TestRefitMetric(t *testing.T) {
	train := testimages.Spiral(10000, 4)
	fresh := testimages.Spiral(10000, 5)
	m := fitFor(t, "spiral10k-gamma1", train.X, withGamma(1))
	same, err := m.RefitMetric(train.X)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range meanAbsDiff(t, m, same, fresh.X) {
		if v > 1e-12 {
			t.Errorf("refit on the training data: r%d differs by %.3g on average", j+1, v)
		}
	}
	other, err := m.RefitMetric(fresh.X)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range meanAbsDiff(t, m, other, fresh.X) {
		t.Logf("same distribution, other sample: mean |Δr%d| = %.4f", j+1, v)
		if v > 0.02 {
			t.Errorf("same distribution: r%d differs by %.4f on average (want <= 0.02)", j+1, v)
		}
	}
	// A different distribution: the same spiral stretched along x by
	// 1.3 and shifted.
	n, d := fresh.X.Dims()
	moved := mat.NewDense(n, d, nil)
	moved.Copy(fresh.X)
	for i := 0; i < n; i++ {
		moved.Set(i, 0, 1.3*moved.At(i, 0)+0.1)
	}
	mm, err := m.RefitMetric(moved)
	if err != nil {
		t.Fatal(err)
	}
	diff := meanAbsDiff(t, m, mm, moved)
	t.Logf("moved distribution: mean |Δr| = %.4f", diff)
	if diff[0] < 0.02 && diff[1] < 0.02 {
		t.Errorf("moved distribution: responses differ by only %.4f", diff)
	}
	r, _, err := mm.TransformBatch(moved)
	if err != nil {
		t.Fatal(err)
	}
	r0, _, err := m.TransformBatch(moved)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < d; j++ {
		ks := measure.KSUniform(measure.Column(r, j), 0, 1)
		ks0 := measure.KSUniform(measure.Column(r0, j), 0, 1)
		t.Logf("moved data, r%d: KS to U(0,1) %.4f refitted, %.4f before", j+1, ks, ks0)
		if ks > 0.1 || ks > ks0 {
			t.Errorf("refit on the moved data: r%d KS %.4f to U(0,1) (before: %.4f), want <= 0.1 and no worse", j+1, ks, ks0)
		}
	}
	// The geometry is shared: a point's inverse at fixed responses of
	// the refit lies on the same lattice, so the round trip holds.
	errs, _ := roundTripErrors(t, mm, moved)
	if e := errs[len(errs)*99/100]; e > 1e-3 {
		t.Errorf("refit round trip: 99th percentile error %.3g of Dmax", e)
	}
	var de *spca.DataError
	for name, x := range map[string]mat.Matrix{
		"dimension": mat.NewDense(5, d+1, nil),
		"few":       mat.NewDense(2, d, nil),
		"nan":       mat.NewDense(4, d, []float64{0, 0, 0, 0, math.NaN(), 0, 0, 0}[:4*d]),
	} {
		if _, err := m.RefitMetric(x); !errors.As(err, &de) {
			t.Errorf("%s: error %v, want a *spca.DataError", name, err)
		}
	}
}
