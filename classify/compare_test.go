package classify

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestCompareMetrics measures the held-out accuracy of every metric, k
// chosen by leave-one-out on the training set, on every labelled data
// set, over SPCA_SEEDS pairs of sets (pair s: training seed 2s-1, held-out
// seed 2s; default 1; testimages.ClassTrainSize training samples, 600
// held-out ones), beside the Bayes rule's accuracy on the same
// held-out samples. It prints a table (mean ± sd over the pairs, and in
// brackets the paired difference from Euclidean k-NN); run
// with SPCA_LONG=1. SPCA_GAMMAS=0,1/3,1 chooses the gammas, SPCA_METRICS
// the metrics, SPCA_SETS the data sets, SPCA_N the training samples of every set,
// SPCA_K and SPCA_TAU change k and tau of the SPCA fits,
// SPCA_CV=1 adds the SPCA metrics with their options chosen by
// TrainSelect over SelectionGrid.
func TestCompareMetrics(t *testing.T) {
	if os.Getenv("SPCA_LONG") == "" {
		t.Skip("SPCA_LONG not set")
	}
	gammas := map[string]float64{"0": 0, "1/3": 1.0 / 3, "1": 1}
	list := func(env string, def []string) []string {
		if v := os.Getenv(env); v != "" {
			return strings.Split(v, ",")
		}
		return def
	}
	names := list("SPCA_GAMMAS", []string{"0", "1"})
	var metrics []Metric
	for _, name := range list("SPCA_METRICS", nil) {
		m, err := ParseMetric(name)
		if err != nil {
			t.Fatal(err)
		}
		metrics = append(metrics, m)
	}
	if metrics == nil {
		metrics = Metrics()
	}
	seeds, nTrain, n := 1, 0, 600
	if v, err := strconv.Atoi(os.Getenv("SPCA_SEEDS")); err == nil {
		seeds = v
	}
	if v, err := strconv.Atoi(os.Getenv("SPCA_N")); err == nil {
		nTrain = v
	}
	for _, set := range list("SPCA_SETS", testimages.ClassSets()) {
		acc := map[string][]float64{}
		var order []string
		add := func(name string, v float64) {
			if acc[name] == nil {
				order = append(order, name)
			}
			acc[name] = append(acc[name], v)
		}
		cvChoice := map[string]int{}
		for s := 1; s <= seeds; s++ {
			nt := nTrain
			if nt == 0 {
				nt = testimages.ClassTrainSize(set)
			}
			train, err := testimages.GenerateClasses(set, nt, uint64(2*s-1))
			if err != nil {
				t.Fatal(err)
			}
			test, _ := testimages.GenerateClasses(set, n, uint64(2*s))
			right := 0
			for i := range n {
				p, _ := testimages.BayesPosterior(set, test.X.RawRowView(i))
				if (p[1] > p[0]) == (test.Label[i] == 1) {
					right++
				}
			}
			add("Bayes", float64(right)/float64(n))
			for _, m := range metrics {
				if os.Getenv("SPCA_CV") != "" && m >= SPCA {
					base := spca.DefaultOptions()
					base.Seed, base.Resolution = 1, 1<<14
					c, _, err := TrainSelect(train.X, train.Label, 2, m, ks, SelectionGrid(base))
					if err != nil {
						t.Fatal(err)
					}
					a, err := c.Accuracy(test.X, test.Label)
					if err != nil {
						t.Fatal(err)
					}
					add(m.String()+" cv", a)
					o := c.Models[0].Options()
					choice := fmt.Sprintf("%v K%g γ%g", m, o.K, o.Gamma)
					if c.Weights != nil {
						choice += fmt.Sprintf(" w%v", c.Weights)
					}
					if m == SPCATangent || m == SPCAFisher {
						choice += fmt.Sprintf(" ρ%g", c.Ratio)
					}
					if m == SPCAFisher && !isIdentity(c.Frame) {
						choice += " framed"
					}
					cvChoice[choice]++
				}
				gs := []string{""}
				if m >= SPCA {
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
					var de *spca.DataError
					if errors.As(err, &de) {
						// Too few samples for this K: not measured.
						continue
					} else if err != nil {
						t.Fatal(err)
					}
					if m == SPCASelect {
						_, err = c.SelectDims(train.X, ks)
					} else {
						_, err = c.Select(train.X, ks)
					}
					if err != nil {
						t.Fatal(err)
					}
					a, err := c.Accuracy(test.X, test.Label)
					if err != nil {
						t.Fatal(err)
					}
					name := m.String()
					if g != "" {
						name += " γ" + g
					}
					add(name, a)
					if seeds == 1 {
						name += fmt.Sprintf(" k=%d", c.K)
					}
				}
			}
		}
		line := set + ":"
		for _, name := range order {
			mean, sd := meanSD(acc[name])
			line += fmt.Sprintf("  %s %.4f±%.4f", name, mean, sd)
			if len(acc[name]) < seeds {
				line += fmt.Sprintf(" (%d of %d pairs: too few samples for K)", len(acc[name]), seeds)
			} else if e := acc["euclidean"]; e != nil && name != "euclidean" && seeds > 1 {
				// The paired difference from Euclidean k-NN, whose sd
				// is free of the seed-to-seed spread of the data.
				diff := make([]float64, len(e))
				for i := range e {
					diff[i] = acc[name][i] - e[i]
				}
				mean, sd := meanSD(diff)
				line += fmt.Sprintf(" (%+.4f±%.4f)", mean, sd)
			}
			line += ";"
		}
		fmt.Println(line)
		if len(cvChoice) > 0 {
			fmt.Println("  cross-validated SPCA options:", cvChoice)
		}
	}
}

func meanSD(v []float64) (float64, float64) {
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	if len(v) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// isIdentity reports whether f is the identity matrix.
func isIdentity(f *mat.Dense) bool {
	r, _ := f.Dims()
	for i := range r {
		for j := range r {
			if v := f.At(i, j); i == j && v != 1 || i != j && v != 0 {
				return false
			}
		}
	}
	return true
}
