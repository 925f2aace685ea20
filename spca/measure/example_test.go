package measure_test

import (
	"fmt"
	"math"

	"github.com/spcalab/spca/spca/measure"
)

func ExampleSpearman() {
	x := []float64{0.1, 0.4, 0.2, 0.9, 0.6}
	// Any strictly increasing transform leaves the ranks unchanged.
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Exp(10 * v)
	}
	fmt.Printf("%.3f\n", measure.Spearman(x, y))
	fmt.Printf("%.3f\n", measure.Spearman(x, []float64{5, 4, 3, 2, 1}))
	// Tied values get the average of their ranks.
	fmt.Printf("%.3f\n", measure.Spearman([]float64{1, 2, 2, 3}, []float64{10, 30, 20, 40}))
	// Output:
	// 1.000
	// -0.800
	// 0.949
}
