package testimages

import (
	"math"
	"testing"
)

// TestBayesPosterior checks the Bayes rule of every labelled set against
// samples of the set: the rule's accuracy on the samples must agree with
// its expected accuracy (the mean largest posterior) within sampling
// error, and the linear Gaussian set's must be Φ(1.5) = 0.933.
func TestBayesPosterior(t *testing.T) {
	n := 2000
	for _, name := range ClassSets() {
		l, err := GenerateClasses(name, n, 3)
		if err != nil {
			t.Fatal(err)
		}
		right, expect := 0, 0.0
		for i := range n {
			p, err := BayesPosterior(name, l.X.RawRowView(i))
			if err != nil {
				t.Fatal(err)
			}
			best := 0
			if p[1] > p[0] {
				best = 1
			}
			if best == l.Label[i] {
				right++
			}
			expect += p[best]
		}
		acc, expect := float64(right)/float64(n), expect/float64(n)
		t.Logf("%s: Bayes rule accuracy %.4f, expected %.4f", name, acc, expect)
		if se := math.Sqrt(expect * (1 - expect) / float64(n)); math.Abs(acc-expect) > 4*se {
			t.Errorf("%s: Bayes rule accuracy %.4f on the samples, expected %.4f (±%.4f)", name, acc, expect, se)
		}
		if name == "gaussian" && math.Abs(expect-0.9332) > 0.01 {
			t.Errorf("gaussian: expected Bayes accuracy %.4f, want Φ(1.5) = 0.933", expect)
		}
	}
	if _, err := BayesPosterior("moons3d", []float64{0, 0}); err == nil {
		t.Error("2 coordinates accepted for moons3d")
	}
	if _, err := BayesPosterior("rings", []float64{0, 0}); err == nil {
		t.Error("unknown set accepted")
	}
}
