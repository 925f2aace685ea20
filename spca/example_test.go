package spca_test

import (
	"fmt"
	"math"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// Fit SPCA with the infomax metric on a noisy spiral: the first response
// follows the arc of the spiral (unfolding) and both responses come out
// uniform; the inverse recovers the samples.
func Example() {
	s := testimages.Spiral(2000, 1)
	opt := spca.DefaultOptions()
	opt.Gamma = 1
	model, err := spca.Fit(s.X, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _, err := model.TransformBatch(s.X)
	if err != nil {
		fmt.Println(err)
		return
	}
	arc := measure.Column(s.Latent, 0)
	fmt.Printf("|Spearman(r1, arc)| = %.2f\n", math.Abs(measure.Spearman(measure.Column(r, 0), arc)))
	fmt.Printf("r2 uniform: %v\n", measure.KSUniform(measure.Column(r, 1), 0, 1) < 0.05)

	back, _ := model.InverseBatch(r)
	var diff mat.Dense
	diff.Sub(back, s.X)
	fmt.Printf("max round-trip error below 1%% of the data size: %v\n", mat.Norm(&diff, math.Inf(1)) < 0.01*model.MaxDistance())
	// Output:
	// |Spearman(r1, arc)| = 1.00
	// r2 uniform: true
	// max round-trip error below 1% of the data size: true
}

// Transform one sample and report how the geodesic projection converged.
func ExampleModel_Transform() {
	s := testimages.Spiral(1000, 1)
	model, err := spca.Fit(s.X, spca.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	x := s.X.RawRowView(10)
	r := make([]float64, 2)
	st, _ := model.Transform(r, x)
	back := make([]float64, 2)
	model.Inverse(back, r)
	fmt.Printf("converged: %v, residual below tolerance: %v\n", st.Converged, st.Residual <= 1e-3*model.MaxDistance())
	fmt.Printf("round trip: %.3f %.3f -> %.3f %.3f\n", x[0], x[1], back[0], back[1])
	// Output:
	// converged: true, residual below tolerance: true
	// round trip: 0.091 -1.230 -> 0.091 -1.230
}
