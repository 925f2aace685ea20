package classify_test

import (
	"github.com/spcalab/spca/classify"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// The README's classification snippet, compiled as written (see
// internal/readme).
func Example_readme() {
	train, _ := testimages.GenerateClasses("arcs-thin", 60, 1)
	test, _ := testimages.GenerateClasses("arcs-thin", 60, 2)
	x, labels, q, qLabels := train.X, train.Label, test.X, test.Label
	opt := spca.DefaultOptions()
	// README begin
	c, err := classify.Train(x, labels, 2, classify.SPCA, 5, opt) // k-NN, k = 5, in the responses of an SPCA fit of x
	c, loo, err := classify.TrainSelect(x, labels, 2, classify.SPCA, []int{1, 3, 5}, classify.SelectionGrid(opt))
	pred, err := c.Predict(q)          // a class in [0, 2) per row of q
	acc, err := c.Accuracy(q, qLabels) // the share predicted right
	err = c.Save("arcs.knn")           // classify.Load, Read, WriteTo
	// README end
	_, _, _, _ = loo, pred, acc, err
}
