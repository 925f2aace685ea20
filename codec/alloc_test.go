package codec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAllocateBins(t *testing.T) {
	h := []float64{5, 3, 2.5, 1}
	for _, total := range []int{4, 30, 66, 138, 246} {
		n, err := AllocateBins(h, total)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for i, v := range n {
			sum += v
			if v < 1 {
				t.Fatalf("dimension %d has %d bins", i, v)
			}
			if i > 0 && v > n[i-1] {
				t.Errorf("total %d: more bins for lower entropy: %v", total, n)
			}
		}
		if sum != total {
			t.Errorf("total %d: bins %v sum to %d", total, n, sum)
		}
		// High resolution: ratios follow 2^{Δh}.
		if total == 246 {
			if r := float64(n[0]) / float64(n[1]); math.Abs(r-4) > 0.3 {
				t.Errorf("n1/n2 = %.2f, want ≈ 4 (2 bits apart)", r)
			}
		}
	}
	if _, err := AllocateBins(h, 3); err == nil {
		t.Error("total below the dimension accepted")
	}
	if _, err := AllocateBins([]float64{math.NaN()}, 3); err == nil {
		t.Error("NaN entropy accepted")
	}
}

func TestLloydMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 50000)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	q, err := LloydMax(x, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Published optimum for N(0,1), 4 levels: ±0.4528, ±1.510; MSE 0.1175.
	want := []float64{-1.510, -0.4528, 0.4528, 1.510}
	for i, v := range want {
		if math.Abs(q.Levels[i]-v) > 0.03 {
			t.Errorf("level %d = %.4f, want %.4f", i, q.Levels[i], v)
		}
	}
	mse := 0.0
	for _, v := range x {
		e := v - q.Value(q.Index(v))
		mse += e * e
	}
	mse /= float64(len(x))
	if math.Abs(mse-0.1175) > 0.005 {
		t.Errorf("MSE %.4f, want 0.1175", mse)
	}
	if _, err := LloydMax(nil, 3); err == nil {
		t.Error("no samples accepted")
	}
}
