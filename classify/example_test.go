package classify_test

import (
	"bytes"
	"fmt"

	"github.com/spcalab/spca/classify"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// Train k-NN classifiers of two thin concentric arcs with the Euclidean
// and the SPCA metric, and compare them on held-out samples.
func Example() {
	train, _ := testimages.GenerateClasses("arcs-thin", testimages.ClassTrainSize("arcs-thin"), 1)
	test, _ := testimages.GenerateClasses("arcs-thin", 400, 2)
	opt := spca.DefaultOptions() // the SPCA fit of the SPCA metrics
	opt.K, opt.Gamma = 0.3, 0
	for _, metric := range []classify.Metric{classify.Euclidean, classify.SPCA} {
		c, err := classify.Train(train.X, train.Label, len(train.Classes), metric, 1, opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		acc, err := c.Accuracy(test.X, test.Label)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-9v %.3f\n", metric, acc)
	}
	// Output:
	// euclidean 0.993
	// spca      0.995
}

// TrainSelect chooses k, and the SPCA options, by leave-one-out on the
// training samples; the classifier, with its training samples and SPCA
// model, is one file.
func ExampleTrainSelect() {
	train, _ := testimages.GenerateClasses("arcs-thin", 60, 1)
	grid := classify.SelectionGrid(spca.DefaultOptions())
	c, loo, err := classify.TrainSelect(train.X, train.Label, 2, classify.SPCA, []int{1, 3, 5}, grid)
	if err != nil {
		fmt.Println(err)
		return
	}
	o := c.Models[0].Options()
	fmt.Printf("k %d, SPCA K %.1f gamma %g: leave-one-out accuracy %.3f\n", c.K, o.K, o.Gamma, loo)

	var file bytes.Buffer // or c.Save("arcs.knn") and classify.Load
	if _, err := c.WriteTo(&file); err != nil {
		fmt.Println(err)
		return
	}
	back, err := classify.Read(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := back.Predict(train.X.Slice(0, 4, 0, 2))
	fmt.Println(p, train.Label[:4], err)
	// Output:
	// k 1, SPCA K 0.3 gamma 0: leave-one-out accuracy 1.000
	// [0 1 0 1] [0 1 0 1] <nil>
}
