package spca

import "testing"

// TestSummariseCounts checks BatchStats' counts on points of every kind
// (review of session 12's UnconvergedInside): converged without a
// correction, converged after some, unconverged inside the lattice,
// clamped and unconverged, clamped yet converged. Unconverged =
// UnconvergedInside + the clamped unconverged ones; the histogram sums to
// N; an empty batch gives zeros.
func TestSummariseCounts(t *testing.T) {
	stats := []PointStats{
		{Iterations: 0, Converged: true},
		{Iterations: 3, Converged: true, Residual: 0.1},
		{Iterations: 5, Converged: false, Residual: 0.7},
		{Iterations: 5, Converged: false, Clamped: true, Residual: 9},
		{Iterations: 5, Converged: false, Clamped: true, Residual: 3},
		{Iterations: 1, Converged: true, Clamped: true},
	}
	b := summarise(stats, 5)
	want := BatchStats{N: 6, NoCorrection: 1, Unconverged: 3, Clamped: 3, MaxIter: 5, MaxResidual: 9, UnconvergedInside: 1}
	if b.N != want.N || b.NoCorrection != want.NoCorrection || b.Unconverged != want.Unconverged || b.Clamped != want.Clamped ||
		b.MaxIter != want.MaxIter || b.MaxResidual != want.MaxResidual || b.UnconvergedInside != want.UnconvergedInside {
		t.Errorf("summarise: %+v, want %+v", b, want)
	}
	sum := 0
	for _, h := range b.Histogram {
		sum += h
	}
	if sum != b.N || len(b.Histogram) != 6 || b.Histogram[5] != 3 {
		t.Errorf("histogram %v: sum %d, want %d with 3 at 5 iterations", b.Histogram, sum, b.N)
	}
	if e := summarise(nil, 5); e.N != 0 || e.Unconverged != 0 || e.UnconvergedInside != 0 || e.MaxResidual != 0 {
		t.Errorf("empty batch: %+v", e)
	}
}
