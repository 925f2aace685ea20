package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6d656173))
}

func uniform(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()
	}
	return x
}

func mapSlice(x []float64, f func(float64) float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	return y
}

func TestSpearman(t *testing.T) {
	rng := newRand(1)
	x := make([]float64, 500)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	if got := Spearman(x, mapSlice(x, math.Exp)); got != 1 {
		t.Errorf("monotone transform: %v, want 1", got)
	}
	if got := Spearman(x, mapSlice(x, func(v float64) float64 { return -v * v * v })); got != -1 {
		t.Errorf("decreasing transform: %v, want -1", got)
	}
	// Ties get average ranks: a has ranks 1, 2.5, 2.5, 4.
	a := []float64{1, 2, 2, 3}
	b := []float64{10, 30, 20, 40}
	if got, want := Spearman(a, b), 3/math.Sqrt(10); math.Abs(got-want) > 1e-12 {
		t.Errorf("ties: %v, want %v", got, want)
	}
	if got, want := Spearman(b, a), 3/math.Sqrt(10); math.Abs(got-want) > 1e-12 {
		t.Errorf("ties swapped: %v, want %v", got, want)
	}
	// Independent samples have a small correlation.
	y := make([]float64, len(x))
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	if got := Spearman(x, y); math.Abs(got) > 0.15 {
		t.Errorf("independent: %v", got)
	}
	for name, c := range map[string][2][]float64{
		"constant": {{1, 2, 3}, {5, 5, 5}},
		"lengths":  {{1, 2, 3}, {1, 2}},
		"short":    {{1}, {1}},
		"empty":    {nil, nil},
		"nan":      {{1, math.NaN(), 3}, {1, 2, 3}},
	} {
		if got := Spearman(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("%s: %v, want NaN", name, got)
		}
	}
}

func TestKSUniform(t *testing.T) {
	const n = 1000
	grid := make([]float64, n)
	for i := range grid {
		grid[i] = (float64(i) + 0.5) / n
	}
	if d := KSUniform(grid, 0, 1); d >= 0.01 {
		t.Errorf("uniform grid: %v", d)
	}
	// Rescaled to another interval.
	if d := KSUniform(mapSlice(grid, func(v float64) float64 { return 2*v - 3 }), -3, -1); d >= 0.01 {
		t.Errorf("rescaled grid: %v", d)
	}
	// x² of a uniform variable has CDF √v, 0.25 away from v at v = 1/4.
	if d := KSUniform(mapSlice(grid, func(v float64) float64 { return v * v }), 0, 1); math.Abs(d-0.25) > 0.01 {
		t.Errorf("squared grid: %v, want 0.25", d)
	}
	// All mass at one end.
	if d := KSUniform([]float64{0, 0, 0}, 0, 1); d != 1 {
		t.Errorf("point mass: %v, want 1", d)
	}
	if d := KSUniform([]float64{0.5}, 0, 1); d != 0.5 {
		t.Errorf("single sample: %v, want 0.5", d)
	}
	for _, d := range []float64{KSUniform(nil, 0, 1), KSUniform(grid, 1, 1), KSUniform([]float64{math.NaN()}, 0, 1)} {
		if !math.IsNaN(d) {
			t.Errorf("invalid input gave %v", d)
		}
	}
}

func TestQuantile(t *testing.T) {
	x := []float64{4, 1, 3, 2, 5}
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {1, 5}, {0.5, 3}, {0.25, 2}, {0.1, 1.4}, {0.95, 4.8},
	} {
		if got := Quantile(x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if !slices.Equal(x, []float64{4, 1, 3, 2, 5}) {
		t.Errorf("Quantile modified its input: %v", x)
	}
	for _, got := range []float64{Quantile(nil, 0.5), Quantile(x, -0.1), Quantile(x, 1.1), Quantile(x, math.NaN())} {
		if !math.IsNaN(got) {
			t.Errorf("invalid input gave %v", got)
		}
	}
}

func TestMutualInformation(t *testing.T) {
	const n = 20000
	rng := newRand(2)
	a, b := uniform(rng, n), uniform(rng, n)
	if mi := MutualInformation(a, b, 0); mi >= 0.02 {
		t.Errorf("independent: %v bits", mi)
	}
	near := make([]float64, n)
	for i, v := range a {
		near[i] = v + 0.005*rng.NormFloat64()
	}
	mi := MutualInformation(a, near, 0)
	if mi <= 2 {
		t.Errorf("y = x + noise: %v bits", mi)
	}
	// Invariance under strictly increasing transforms of either variable.
	for name, f := range map[string]func(float64) float64{
		"exp":  func(v float64) float64 { return math.Exp(5 * v) },
		"cube": func(v float64) float64 { return v*v*v - 0.3 },
		"atan": func(v float64) float64 { return math.Atan(20 * (v - 0.5)) },
	} {
		if got := MutualInformation(a, mapSlice(near, f), 0); math.Abs(got-mi) > 1e-9 {
			t.Errorf("%s of b: %v, want %v", name, got, mi)
		}
		if got := MutualInformation(mapSlice(a, f), near, 0); math.Abs(got-mi) > 1e-9 {
			t.Errorf("%s of a: %v, want %v", name, got, mi)
		}
	}
	// Symmetric, and bounded by log2(bins).
	if got := MutualInformation(near, a, 0); math.Abs(got-mi) > 1e-9 {
		t.Errorf("swapped: %v, want %v", got, mi)
	}
	if got, max := MutualInformation(a, a, 8), 3.0; math.Abs(got-max) > 1e-9 {
		t.Errorf("I(a;a) with 8 bins = %v, want %v", got, max)
	}
	// Heavily tied data stay well defined.
	d1 := mapSlice(a, func(v float64) float64 { return math.Floor(3 * v) })
	d2 := mapSlice(b, func(v float64) float64 { return math.Floor(3 * v) })
	if got := MutualInformation(d1, d2, 0); got < 0 || got > 0.01 {
		t.Errorf("independent discrete: %v", got)
	}
	if got, want := MutualInformation(d1, d1, 0), math.Log2(3); math.Abs(got-want) > 0.01 {
		t.Errorf("I(d;d) = %v, want about %v", got, want)
	}
	for name, got := range map[string]float64{
		"lengths": MutualInformation(a, b[:10], 0),
		"short":   MutualInformation(a[:1], b[:1], 0),
		"nan":     MutualInformation([]float64{1, math.NaN(), 3}, []float64{1, 2, 3}, 0),
	} {
		if !math.IsNaN(got) {
			t.Errorf("%s: %v, want NaN", name, got)
		}
	}
}

func TestPairwiseMI(t *testing.T) {
	const n = 5000
	rng := newRand(3)
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		x.Set(i, 0, rng.Float64())
		x.Set(i, 1, rng.Float64())
		x.Set(i, 2, rng.NormFloat64())
	}
	if mi := PairwiseMI(x, 0); mi > 0.05 {
		t.Errorf("independent columns: %v", mi)
	}
	two := x.Slice(0, n, 0, 2)
	if got, want := PairwiseMI(two, 10), MutualInformation(Column(x, 0), Column(x, 1), 10); got != want {
		t.Errorf("two columns: %v, want %v", got, want)
	}
	// Make column 2 depend on column 0: the average of the three pairs.
	for i := range n {
		x.Set(i, 2, math.Exp(x.At(i, 0)))
	}
	c0, c1, c2 := Column(x, 0), Column(x, 1), Column(x, 2)
	want := (MutualInformation(c0, c1, 10) + MutualInformation(c0, c2, 10) + MutualInformation(c1, c2, 10)) / 3
	if got := PairwiseMI(x, 10); math.Abs(got-want) > 1e-12 {
		t.Errorf("dependent: %v, want %v", got, want)
	}
	if got := PairwiseMI(x.Slice(0, n, 0, 1), 0); !math.IsNaN(got) {
		t.Errorf("one column: %v, want NaN", got)
	}
}

func TestEntropy(t *testing.T) {
	const n = 100000
	rng := newRand(4)
	u := uniform(rng, n)
	if h := Entropy(u, 0); math.Abs(h) > 0.02 {
		t.Errorf("U(0,1): %v bits, want 0", h)
	}
	if h := Entropy(mapSlice(u, func(v float64) float64 { return 4 * v }), 0); math.Abs(h-2) > 0.02 {
		t.Errorf("U(0,4): %v bits, want 2", h)
	}
	g := make([]float64, n)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	want := 0.5 * math.Log2(2*math.Pi*math.E)
	if h := Entropy(g, 0); math.Abs(h-want) > 0.05 {
		t.Errorf("N(0,1): %v bits, want %v", h, want)
	}
	if h := Entropy(g, 100); math.Abs(h-want) > 0.05 {
		t.Errorf("N(0,1) with 100 bins: %v bits, want %v", h, want)
	}
	if h := Entropy([]float64{2, 2, 2}, 0); !math.IsInf(h, -1) {
		t.Errorf("constant: %v, want -Inf", h)
	}
	// Zero interquartile range falls back to Sturges' rule.
	if h := Entropy([]float64{0, 1, 1, 1, 1, 1, 1, 2}, 0); math.IsNaN(h) || math.IsInf(h, 0) {
		t.Errorf("zero IQR: %v", h)
	}
	for _, h := range []float64{Entropy(nil, 0), Entropy([]float64{1, math.Inf(1)}, 0), Entropy([]float64{math.NaN(), 1}, 0)} {
		if !math.IsNaN(h) {
			t.Errorf("invalid input gave %v", h)
		}
	}
}

func TestPCA(t *testing.T) {
	const n = 5000
	angle := 30 * math.Pi / 180
	sin, cos := math.Sincos(angle)
	rng := newRand(5)
	x := mat.NewDense(n, 2, nil)
	for i := range n {
		u, v := 3*rng.NormFloat64(), 0.5*rng.NormFloat64()
		x.Set(i, 0, 1+cos*u-sin*v)
		x.Set(i, 1, -2+sin*u+cos*v)
	}
	p, err := FitPCA(x)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := p.Vectors.Dims(); r != 2 || c != 2 || len(p.Variances) != 2 || len(p.Mean) != 2 {
		t.Fatalf("shapes: vectors %d×%d, %d variances, %d means", r, c, len(p.Variances), len(p.Mean))
	}
	got := math.Atan2(p.Vectors.At(1, 0), p.Vectors.At(0, 0))
	// The axis is defined up to sign; the sign convention makes the
	// largest entry positive, so it points into the first quadrant here.
	if d := math.Abs(got-angle) * 180 / math.Pi; d > 2 {
		t.Errorf("principal axis at %.2f°, want 30° (off by %.2f°)", got*180/math.Pi, d)
	}
	if math.Abs(p.Variances[0]-9)/9 > 0.1 || math.Abs(p.Variances[1]-0.25)/0.25 > 0.1 {
		t.Errorf("variances %v, want about [9 0.25]", p.Variances)
	}
	if math.Abs(p.Mean[0]-1) > 0.1 || math.Abs(p.Mean[1]+2) > 0.1 {
		t.Errorf("mean %v, want about [1 -2]", p.Mean)
	}

	scores := p.Project(nil, x)
	if r, c := scores.Dims(); r != n || c != 2 {
		t.Fatalf("scores %d×%d", r, c)
	}
	s0, s1 := Column(scores, 0), Column(scores, 1)
	var m0, m1, v0, v1, c01 float64
	for i := range n {
		m0 += s0[i] / n
		m1 += s1[i] / n
	}
	for i := range n {
		v0 += (s0[i] - m0) * (s0[i] - m0) / (n - 1)
		v1 += (s1[i] - m1) * (s1[i] - m1) / (n - 1)
		c01 += (s0[i] - m0) * (s1[i] - m1) / (n - 1)
	}
	if math.Abs(m0) > 1e-9 || math.Abs(m1) > 1e-9 {
		t.Errorf("scores not centred: %v %v", m0, m1)
	}
	if math.Abs(v0-p.Variances[0]) > 1e-9*v0 || math.Abs(v1-p.Variances[1]) > 1e-9*v0 || math.Abs(c01) > 1e-9*v0 {
		t.Errorf("score covariance [%v %v; %v], want diag %v", v0, c01, v1, p.Variances)
	}

	// Reusing dst and checking shapes.
	dst := mat.NewDense(n, 2, nil)
	if p.Project(dst, x) != dst || !mat.Equal(dst, scores) {
		t.Error("Project into dst differs")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Project with wrong column count did not panic")
			}
		}()
		p.Project(nil, mat.NewDense(3, 3, nil))
	}()

	if _, err := FitPCA(mat.NewDense(1, 2, nil)); err == nil {
		t.Error("FitPCA of one sample did not fail")
	}
}

func TestColumn(t *testing.T) {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	c := Column(m, 1)
	if !slices.Equal(c, []float64{2, 5}) {
		t.Errorf("Column = %v", c)
	}
	c[0] = 100
	if m.At(0, 1) != 2 {
		t.Error("Column shares storage with the matrix")
	}
}

func BenchmarkMutualInformation(b *testing.B) {
	const n = 100000
	rng := newRand(6)
	x, y := uniform(rng, n), uniform(rng, n)
	for i := range y {
		y[i] += x[i]
	}
	b.ResetTimer()
	for b.Loop() {
		MutualInformation(x, y, 0)
	}
}
