package adapt

import (
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// TestSharedGeometry: when B's colours are A's colours under a diagonal
// LMS scaling (a change of light that von Kries gains undo exactly), the
// two models share one geometry and, after the gains, equalise the same
// distribution, so the SPCA map is close to the gains; two independent
// fits (Options.SeparateGeometry) move colours by the difference of their
// curves.
func TestSharedGeometry(t *testing.T) {
	a, _ := testimages.SceneSet(40, 32, 24, 5)
	xa, err := SampleLMS(a, 8000, 1)
	if err != nil {
		t.Fatal(err)
	}
	light := [3]float64{0.6, 0.5, 0.2}
	scaled := func(x *mat.Dense) *mat.Dense {
		n, _ := x.Dims()
		y := mat.NewDense(n, 3, nil)
		for i := range n {
			for k := range 3 {
				y.Set(i, k, light[k]*x.At(i, k))
			}
		}
		return y
	}
	xb, err := SampleLMS(a, 8000, 2)
	if err != nil {
		t.Fatal(err)
	}
	xb = scaled(xb)
	test, err := SampleLMS(a, 2000, 3)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := test.Dims()
	src := make([]colorspace.LMS, n)
	want := make([]colorspace.Lab, n)
	for i := range n {
		c := colorspace.LMS{test.At(i, 0), test.At(i, 1), test.At(i, 2)}
		want[i] = LMSToSRGB(c).Lab()
		src[i] = colorspace.LMS{light[0] * c[0], light[1] * c[1], light[2] * c[2]}
	}
	meanDE := func(separate bool) float64 {
		o := testOptions()
		o.NoLUT, o.SeparateGeometry = true, separate
		// A coarse lattice (1/16 of the nodes) keeps the test fast.
		o.SPCA.Resolution = 1 << 14
		m, err := TrainSamples(xa, xb, &o)
		if err != nil {
			t.Fatal(err)
		}
		bare := &SPCAMap{A: m.A, B: m.B, Gains: m.Gains}
		dst := make([]colorspace.LMS, n)
		if err := bare.MapLMS(dst, src); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i, c := range dst {
			s += colorspace.DeltaE2000(LMSToSRGB(c).Lab(), want[i])
		}
		return s / float64(n)
	}
	shared, separate := meanDE(false), meanDE(true)
	t.Logf("B = diagonal LMS scaling of A: bare SPCA map mean CIEDE2000 %.2f with a shared geometry, %.2f with separate fits", shared, separate)
	if shared > 1 || shared > separate/2 {
		t.Errorf("shared geometry: mean CIEDE2000 %.2f, want <= 1 and at most half of separate fits' %.2f", shared, separate)
	}
}
