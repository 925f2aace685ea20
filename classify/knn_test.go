package classify

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

var ks = []int{1, 3, 5, 7, 9, 15, 21, 31}

// TestKNNLinearGaussian checks the classifier on the linear Gaussian set,
// where the classes differ along the minor axis of a shared anisotropic
// covariance: both metrics must come near the Bayes rate.
func TestKNNLinearGaussian(t *testing.T) {
	train, _ := testimages.GenerateClasses("gaussian", 400, 1)
	test, _ := testimages.GenerateClasses("gaussian", 400, 2)
	acc := map[Metric]float64{}
	for _, m := range []Metric{Euclidean, Mahalanobis} {
		c, err := Train(train.X, train.Label, 2, m, 1, spca.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Select(train.X, ks); err != nil {
			t.Fatal(err)
		}
		if acc[m], err = c.Accuracy(test.X, test.Label); err != nil {
			t.Fatal(err)
		}
		t.Logf("%v k=%d: %.3f", m, c.K, acc[m])
	}
	// The Bayes rate of this set is about 0.93 (means 1.5 apart along an
	// axis of standard deviation 0.5: Φ(1.5) = 0.933).
	if !(acc[Euclidean] > 0.88 && acc[Mahalanobis] > 0.88) {
		t.Errorf("accuracy Euclidean %.3f, Mahalanobis %.3f: want both > 0.88", acc[Euclidean], acc[Mahalanobis])
	}
	if _, err := ParseMetric("cosine"); err == nil {
		t.Error("unknown metric accepted")
	}
}

// TestCompareMetrics measures held-out accuracy of every metric, k chosen
// by leave-one-out on the training set, on every labelled data set. It
// prints a table; run with SPCA_LONG=1 (SPCA_GAMMAS=0,1/3,1 to choose the
// gammas, SPCA_K and SPCA_TAU to change k and tau of the SPCA fits).
func TestCompareMetrics(t *testing.T) {
	if os.Getenv("SPCA_LONG") == "" {
		t.Skip("SPCA_LONG not set")
	}
	gammas := map[string]float64{"0": 0, "1/3": 1.0 / 3, "1": 1}
	names := strings.Split(os.Getenv("SPCA_GAMMAS"), ",")
	if names[0] == "" {
		names = []string{"0", "1"}
	}
	n := 600
	for _, set := range testimages.ClassSets() {
		train, _ := testimages.GenerateClasses(set, n, 1)
		test, _ := testimages.GenerateClasses(set, n, 2)
		line := set + ":"
		for _, m := range Metrics() {
			gs := []string{""}
			if m == SPCA || m == SPCAPerClass {
				gs = names
			}
			for _, g := range gs {
				opt := spca.DefaultOptions()
				opt.Seed = 1
				opt.Resolution = 1 << 14
				opt.Gamma = gammas[g]
				if v, err := strconv.ParseFloat(os.Getenv("SPCA_K"), 64); err == nil {
					opt.K = v
				}
				if v, err := strconv.ParseFloat(os.Getenv("SPCA_TAU"), 64); err == nil {
					opt.Tau = v
				}
				c, err := Train(train.X, train.Label, 2, m, 1, opt)
				if err != nil {
					t.Fatal(err)
				}
				cv, err := c.Select(train.X, ks)
				if err != nil {
					t.Fatal(err)
				}
				acc, err := c.Accuracy(test.X, test.Label)
				if err != nil {
					t.Fatal(err)
				}
				name := m.String()
				if g != "" {
					name += " γ" + g
				}
				line += fmt.Sprintf("  %s k=%d cv %.3f test %.4f;", name, c.K, cv, acc)
			}
		}
		fmt.Println(line)
	}
}
