package spca

import (
	"strings"
	"testing"
)

// TestSampleWarning checks the thresholds of SampleWarning: K and
// Conditioning of the samples against MinNeighbourhood, the reference
// cap, and dimension 1 (no secondary curves).
func TestSampleWarning(t *testing.T) {
	o := DefaultOptions() // K 0.1, Conditioning 0.1
	for _, c := range []struct {
		o     Options
		n, d  int
		warns bool
		want  string
	}{
		{o, 300, 2, false, ""},
		{o, 299, 2, true, "299 samples give the local PCA 29 neighbours (k 0.1) and each secondary curve's density 29 samples (conditioning 0.1); below 30"},
		{o, 200, 1, true, "200 samples give the local PCA 20 neighbours (k 0.1); below 30"},
		{o, 300, 1, false, ""},
		{Options{K: 0.5, Conditioning: 0.05}, 400, 3, true, "local PCA 200 neighbours (k 0.5) and each secondary curve's density 20 samples (conditioning 0.05)"},
		{Options{K: 0.5, Conditioning: 0.05}, 400, 1, false, ""},
		{Options{K: 0.01}, 1_000_000, 2, false, ""},                                  // K of the 3000 reference samples: 30
		{Options{K: 0.005}, 1_000_000, 2, true, "local PCA 15 neighbours (k 0.005)"}, // 15
	} {
		w := c.o.SampleWarning(c.n, c.d)
		if c.warns != (w != "") || !strings.Contains(w, c.want) || strings.Contains(w, "\n") {
			t.Errorf("K %g, Conditioning %g, %d samples of dimension %d: warning %q, want one containing %q (warns %v)",
				c.o.K, c.o.Conditioning, c.n, c.d, w, c.want, c.warns)
		}
	}
}
