package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// solve4 solves random systems, well and badly conditioned, to a
// relative backward error below 1e-11, and rejects singular ones.
func TestSolve4(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 4))
	for trial := 0; trial < 10000; trial++ {
		var a [16]float64
		var b [4]float64
		for i := range a {
			a[i] = rng.NormFloat64() * 3
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		if trial%3 == 0 { // nearly dependent rows
			for k := 0; k < 4; k++ {
				a[12+k] = a[k] + a[4+k] + 1e-6*rng.NormFloat64()
			}
		}
		orig, rhs := a, b
		ga, gb := a, b
		ok := solve4(&a, &b)
		want := solveLinear(ga[:], gb[:], 4)
		if !ok || !want {
			t.Fatalf("trial %d: solve4 %v, solveLinear %v", trial, ok, want)
		}
		// Relative backward error |a·x − rhs| / (|a|·|x| + |rhs|): the
		// adjugate's grows with the condition number where pivoting's
		// does not (largest measured 2.2e-12 against 1.2e-15), far
		// below what a Newton step of the fast path needs (its result
		// is quantised to bins and checked).
		res := func(x [4]float64) float64 {
			worst := 0.0
			for r := 0; r < 4; r++ {
				s, m := -rhs[r], math.Abs(rhs[r])
				for c := 0; c < 4; c++ {
					s += orig[4*r+c] * x[c]
					m += math.Abs(orig[4*r+c] * x[c])
				}
				worst = max(worst, math.Abs(s)/m)
			}
			return worst
		}
		if got, ref := res(b), res(gb); got > 1e-11 || ref > 1e-14 {
			t.Fatalf("trial %d: backward error %g, solveLinear's %g", trial, got, ref)
		}
	}
	var sing [16]float64
	for i := range sing {
		sing[i] = float64(i) // rank 2
	}
	b := [4]float64{1, 2, 3, 4}
	if solve4(&sing, &b) {
		t.Fatalf("solve4 solved a singular system: %v", b)
	}
	if b != [4]float64{1, 2, 3, 4} {
		t.Fatalf("solve4 changed b on failure: %v", b)
	}
}

// maxAbs (and maxAbs16 on 16 values) agrees with the float max of
// magnitudes on random lengths and values, including signed zeros,
// infinities and subnormals, and returns NaN when a value is NaN.
func TestMaxAbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 5))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64}
	for trial := 0; trial < 5000; trial++ {
		a := make([]float64, rng.IntN(20))
		for i := range a {
			switch rng.IntN(4) {
			case 0:
				a[i] = special[rng.IntN(len(special))]
			default:
				a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			}
		}
		want := 0.0
		for _, v := range a {
			want = max(want, math.Abs(v))
		}
		if got := maxAbs(a); got != want || math.Signbit(got) {
			t.Fatalf("maxAbs(%v) = %v, want %v", a, got, want)
		}
		if len(a) == 16 {
			if got := maxAbs16((*[16]float64)(a)); got != want || math.Signbit(got) {
				t.Fatalf("maxAbs16(%v) = %v, want %v", a, got, want)
			}
		}
		if len(a) > 0 {
			a[rng.IntN(len(a))] = math.NaN()
			if got := maxAbs(a); !math.IsNaN(got) {
				t.Fatalf("maxAbs(%v) = %v, want NaN", a, got)
			}
			if len(a) == 16 {
				if got := maxAbs16((*[16]float64)(a)); !math.IsNaN(got) {
					t.Fatalf("maxAbs16(%v) = %v, want NaN", a, got)
				}
			}
		}
	}
}
