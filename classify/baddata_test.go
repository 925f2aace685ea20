package classify

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestBadData checks that samples and labels the classifier cannot use
// give a *DataError naming the problem, bad arguments an *OptionError,
// and never a panic (before, Predict on samples of another dimension
// indexed past the training rows, and NaN training samples trained
// silently).
func TestBadData(t *testing.T) {
	tr, _ := testimages.GenerateClasses("arcs", 40, 1)
	nan := mat.DenseCopyOf(tr.X)
	nan.Set(3, 1, math.NaN())
	opt := spca.DefaultOptions()
	opt.Resolution, opt.K = 1<<10, 0.3
	for _, m := range []Metric{Euclidean, Mahalanobis, SPCA} {
		if _, err := Train(nan, tr.Label, 2, m, 3, opt); !isData(err, "training sample 4, dimension 2 is NaN") {
			t.Errorf("%v: NaN training sample: %v", m, err)
		}
		c, err := Train(tr.X, tr.Label, 2, m, 3, opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Predict(mat.NewDense(2, 5, nil)); !isData(err, "samples have 5 values, the classifier expects 2") {
			t.Errorf("%v: Predict of 5-D samples: %v", m, err)
		}
		q := mat.NewDense(2, 2, []float64{0, 0, math.Inf(1), 0})
		if _, err := c.Predict(q); !isData(err, "sample 2, dimension 1 is +Inf") {
			t.Errorf("%v: Predict of an infinite sample: %v", m, err)
		}
		if _, err := c.Accuracy(tr.X, tr.Label[:5]); !isData(err, "40 samples and 5 labels") {
			t.Errorf("%v: Accuracy with 5 labels: %v", m, err)
		}
		if _, err := c.Select(tr.X.Slice(0, 10, 0, 2), []int{1, 3}); !isData(err, "Select on 10 samples") {
			t.Errorf("%v: Select on other samples: %v", m, err)
		}
	}
	if _, err := Train(tr.X, tr.Label[:3], 2, Euclidean, 1, opt); !isData(err, "40 samples and 3 labels") {
		t.Errorf("3 labels: %v", err)
	}
	var oe *OptionError
	if _, err := Train(tr.X, tr.Label, 2, Euclidean, 0, opt); !errors.As(err, &oe) || !strings.Contains(err.Error(), "k = 0 not in [1, 40]") {
		t.Errorf("k = 0: %v", err)
	}
	if _, err := Train(tr.X, tr.Label, 1, Euclidean, 1, opt); !errors.As(err, &oe) {
		t.Errorf("one class: %v", err)
	}
	if _, err := Train(&mat.Dense{}, nil, 2, Euclidean, 1, opt); !isData(err, "no training samples") {
		t.Errorf("no samples: %v", err)
	}
}

func isData(err error, want string) bool {
	var de *DataError
	return errors.As(err, &de) && strings.Contains(err.Error(), want)
}

// TestTrainCopies checks that a classifier does not change when the
// caller reuses the matrix and labels it was trained on.
func TestTrainCopies(t *testing.T) {
	tr, _ := testimages.GenerateClasses("arcs", 40, 1)
	x, label := mat.DenseCopyOf(tr.X), append([]int(nil), tr.Label...)
	c, err := Train(x, label, 2, Euclidean, 1, spca.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := c.Predict(tr.X)
	x.Zero()
	for i := range label {
		label[i] = 0
	}
	after, _ := c.Predict(tr.X)
	for i := range before {
		if before[i] != after[i] || before[i] != tr.Label[i] {
			t.Fatalf("sample %d: predicted %d before reusing the training data, %d after, label %d", i, before[i], after[i], tr.Label[i])
		}
	}
}

// TestHighDimension checks that a Euclidean classifier of 20-dimensional
// samples (beyond an SPCA model's 16) reads back: Read refused any
// dimension above 16.
func TestHighDimension(t *testing.T) {
	const n, d = 30, 20
	x := mat.NewDense(n, d, nil)
	label := make([]int, n)
	for i := range n {
		label[i] = i % 2
		for j := range d {
			x.Set(i, j, float64(label[i]*3+(i*7+j*3)%5))
		}
	}
	c, err := Train(x, label, 2, Euclidean, 1, spca.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Dim() != d {
		t.Errorf("read back dimension %d, want %d", back.Dim(), d)
	}
	if _, err := Train(x, label, 2, SPCA, 1, spca.DefaultOptions()); err == nil {
		t.Error("an SPCA classifier of 20-dimensional samples trained")
	}
}
