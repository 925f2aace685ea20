package codec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestAxisNodes checks the fast path's node placement: for Gaussian data
// of deviation σ, a density proportional to p^α is the Gaussian of
// deviation σ/√α, so the nodes must sit at its quantiles, truncated to the
// range of the data.
func TestAxisNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	const sigma, g = 20.0, 16
	col := make([]float64, 200000)
	for i := range col {
		col[i] = 5 + sigma*rng.NormFloat64()
	}
	slices.Sort(col)
	ax := axisNodes(col, g)
	lo, hi := col[0], col[len(col)-1]
	if ax[0] != lo || ax[g-1] != hi {
		t.Fatalf("ends %v, %v: want the data's range %v, %v", ax[0], ax[g-1], lo, hi)
	}
	wide := distuv.Normal{Mu: 5, Sigma: sigma / math.Sqrt(nodeDensity)}
	plo, phi := wide.CDF(lo), wide.CDF(hi)
	worst := 0.0
	for i := 1; i < g; i++ {
		if ax[i] <= ax[i-1] {
			t.Fatalf("nodes not increasing at %d: %v", i, ax)
		}
		want := wide.Quantile(plo + (phi-plo)*float64(i)/float64(g-1))
		worst = max(worst, math.Abs(ax[i]-want))
	}
	// The largest distance is at the end nodes: the histogram's sparse
	// tail bins (a fraction of a sample each beyond 4σ) weigh less than
	// their density to the power 1/3 (0.11σ here; quantiles would be
	// 0.005σ from their reference, and an exponent of 1/5 0.32σ).
	t.Logf("nodes %.1f; largest distance from the quantiles of N(5, σ²/α) %.3fσ", ax, worst/sigma)
	if worst > 0.2*sigma {
		t.Errorf("nodes %.2fσ from the quantiles of the p^α density", worst/sigma)
	}

	// Constant and two-valued data still give g nodes, at the values.
	for _, c := range [][]float64{{3, 3, 3}, {1, 1, 2}} {
		ax := axisNodes(c, 4)
		if len(ax) != 4 || ax[0] != c[0] || ax[3] != c[len(c)-1] {
			t.Errorf("nodes of %v: %v", c, ax)
		}
	}
}

// tableNodes is the number of nodes per axis of randomTable.
const tableNodes = 5

// randomTable returns the node strides and random node values (4 per
// node) of a 4-dimensional table of tableNodes nodes per axis.
func randomTable(rng *rand.Rand) (str []int, vals []float32) {
	const g = tableNodes
	str = []int{g * g * g, g * g, g, 1}
	vals = make([]float32, 4*g*g*g*g)
	for i := range vals {
		vals[i] = float32(rng.NormFloat64() * 100)
	}
	return str, vals
}

// randomTableCell returns the base of a random cell of randomTable's
// table with strides str and fills frac with a position in it, on the
// cell's faces (fractions 0 or 1) if faces.
func randomTableCell(rng *rand.Rand, str []int, frac []float64, faces bool) int {
	base := 0
	for j := range frac {
		base += rng.IntN(tableNodes-1) * str[j]
		frac[j] = rng.Float64()
		if faces {
			frac[j] = float64(rng.IntN(2))
		}
	}
	return base
}

// TestReduce4 checks that reduce4 interpolates bit for bit as the generic
// reduce.
func TestReduce4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	str, vals := randomTable(rng)
	frac, a, b := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	buf := make([]float64, 16*4)
	for trial := 0; trial < 1000; trial++ {
		base := randomTableCell(rng, str, frac, trial%10 == 0)
		reduce4(vals, str, base, frac, a)
		reduce(vals, str, base, frac, b, buf)
		if !slices.Equal(a, b) {
			t.Fatalf("cell %d at %v: reduce4 %v, reduce %v", base, frac, a, b)
		}
	}
}

// simplex4 reproduces the node values at the corners of a cell and any
// affine function of the position inside it (linear on each simplex).
func TestSimplex4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	str, vals := randomTable(rng)
	const g = tableNodes
	frac, u := make([]float64, 4), make([]float64, 4)
	for trial := 0; trial < 1000; trial++ {
		base, corner := 0, 0
		for j := range frac {
			base += rng.IntN(g-1) * str[j]
			b := rng.IntN(2)
			frac[j] = float64(b)
			corner += b * str[j]
		}
		simplex4(vals, str, base, frac, u)
		for q, v := range u {
			if w := float64(vals[4*(base+corner)+q]); v != w {
				t.Fatalf("corner %d of cell %d, value %d: %g, want %g", corner, base, q, v, w)
			}
		}
	}
	// Random node values, against the walk along the axes sorted by
	// decreasing fraction, with fractions beyond the cell too (the end
	// cells extrapolate).
	ref := make([]float64, 4)
	for trial := 0; trial < 1000; trial++ {
		base := 0
		for j := range frac {
			base += rng.IntN(g-1) * str[j]
			frac[j] = rng.Float64()
			if trial%4 == 0 {
				frac[j] = 3*rng.Float64() - 1
			}
		}
		order := []int{0, 1, 2, 3}
		sort.SliceStable(order, func(a, b int) bool { return frac[order[a]] > frac[order[b]] })
		o, prev := base, 1.0
		clear(ref)
		for step := 0; step <= 4; step++ {
			next := 0.0
			if step < 4 {
				next = frac[order[step]]
			}
			for q := range ref {
				ref[q] += (prev - next) * float64(vals[4*o+q])
			}
			if step < 4 {
				o += str[order[step]]
			}
			prev = next
		}
		simplex4(vals, str, base, frac, u)
		for q := range u {
			if math.Abs(u[q]-ref[q]) > 1e-9*(1+math.Abs(ref[q])) {
				t.Fatalf("cell %d at %v, value %d: %g, want %g", base, frac, q, u[q], ref[q])
			}
		}
	}
	// Node values an affine function of the node's position.
	coef := [4][5]float64{}
	for q := range coef {
		for j := range coef[q] {
			coef[q][j] = float64(rng.IntN(21) - 10)
		}
	}
	for n := 0; n < g*g*g*g; n++ {
		for q := 0; q < 4; q++ {
			v := coef[q][4]
			for j := 0; j < 4; j++ {
				v += coef[q][j] * float64(n/str[j]%g)
			}
			vals[4*n+q] = float32(v)
		}
	}
	pos := make([]int, 4)
	for trial := 0; trial < 1000; trial++ {
		base := 0
		for j := range frac {
			pos[j] = rng.IntN(g - 1)
			base += pos[j] * str[j]
			frac[j] = rng.Float64()
		}
		simplex4(vals, str, base, frac, u)
		for q, v := range u {
			w := coef[q][4]
			for j := 0; j < 4; j++ {
				w += coef[q][j] * (float64(pos[j]) + frac[j])
			}
			if math.Abs(v-w) > 1e-9*(1+math.Abs(w)) {
				t.Fatalf("affine values at %v in cell %v, value %d: %g, want %g", frac, pos, q, v, w)
			}
		}
	}
}

// TestSetBinsRebuildsStart checks that a model whose bins change after it
// encoded codes like a model that never had the old bins: the start table
// of the nearest assignment (responses in bins) is rebuilt with them.
func TestSetBinsRebuildsStart(t *testing.T) {
	var stored bytes.Buffer
	if _, err := trainedModel(t).WriteTo(&stored); err != nil {
		t.Fatal(err)
	}
	load := func() *Model {
		m, err := ReadModel(bytes.NewReader(stored.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	_, test := images()
	encode := func(m *Model) []byte {
		var w bytes.Buffer
		if err := Encode(&w, test[0], m, nil); err != nil {
			t.Fatal(err)
		}
		return w.Bytes()
	}
	used, fresh := load(), load()
	before := encode(used) // builds the start table at 66 bins
	for _, m := range []*Model{used, fresh} {
		if err := m.SetBins(246); err != nil {
			t.Fatal(err)
		}
	}
	if c := used.Channels[0]; c.start != nil {
		t.Fatal("the start table survived SetBins")
	}
	after, want := encode(used), encode(fresh)
	if !bytes.Equal(after, want) {
		t.Errorf("after SetBins(246) the used model codes %d bytes, a fresh one %d: not the same file", len(after), len(want))
	}
	if bytes.Equal(before, after) {
		t.Error("66 and 246 bins coded the same file")
	}
}

// reduce4 (the AVX kernel where the CPU has it) is reduce4Go to the last
// bit.
func TestReduce4Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	str, vals := randomTable(rng)
	frac, a, b := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	for trial := 0; trial < 2000; trial++ {
		base := randomTableCell(rng, str, frac, trial%10 == 0)
		reduce4(vals, str, base, frac, a)
		reduce4Go(vals, str, base, frac, b)
		for q := range a {
			if math.Float64bits(a[q]) != math.Float64bits(b[q]) {
				t.Fatalf("cell %d at %v: value %d is %v, Go kernel %v", base, frac, q, a[q], b[q])
			}
		}
	}
}

// BenchmarkReduce4 times one interpolation of the fast path's table (the
// encoder's first guess of a patch's responses) by the portable kernel
// and by reduce4 (AVX where the CPU has it).
func BenchmarkReduce4(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	str, vals := randomTable(rng)
	bases := make([]int, 256)
	for i := range bases {
		for j := 0; j < 4; j++ {
			bases[i] += rng.IntN(tableNodes-1) * str[j]
		}
	}
	frac, u := []float64{0.3, 0.6, 0.1, 0.9}, make([]float64, 4)
	b.Run("go", func(b *testing.B) {
		for i := range b.N {
			reduce4Go(vals, str, bases[i&255], frac, u)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			reduce4(vals, str, bases[i&255], frac, u)
		}
	})
}

// TestLocate4 checks locate4 against locate on random grids (uneven
// nodes, 5 to 40 a axis): values inside the nodes, on them, at the ends,
// beyond them within and past the extrapolated half span, infinite and
// NaN must give the same cell, fractions and verdict.
func TestLocate4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 50 {
		f := &fastPath{k: 4, nodes: make([][]float64, 4)}
		g := 5 + rng.IntN(36)
		for j := range f.nodes {
			ax := make([]float64, g)
			ax[0] = rng.NormFloat64() * 100
			for i := 1; i < g; i++ {
				ax[i] = ax[i-1] + rng.ExpFloat64()*math.Pow(10, float64(rng.IntN(5)-2))
			}
			f.nodes[j] = ax
		}
		f.setLook()
		y, a, b := make([]float64, 4), make([]float64, 4), make([]float64, 4)
		for range 2000 {
			for j := range y {
				ax := f.nodes[j]
				lo, hi := ax[0], ax[g-1]
				switch rng.IntN(10) {
				case 0:
					y[j] = ax[rng.IntN(g)]
				case 1:
					y[j] = lo - rng.Float64()*(hi-lo)
				case 2:
					y[j] = hi + rng.Float64()*(hi-lo)
				case 3:
					y[j] = []float64{math.Inf(1), math.Inf(-1), math.NaN(), lo, hi, math.Nextafter(hi, math.Inf(1))}[rng.IntN(6)]
				default:
					y[j] = lo + rng.Float64()*(hi-lo)
				}
			}
			clear(a)
			clear(b)
			ba, oka := f.locate4(y, a)
			bb, okb := f.locate(y, b)
			if oka != okb || oka && (ba != bb || !slices.Equal(a, b)) {
				t.Fatalf("trial %d, y %v: locate4 %d %v %v, locate %d %v %v", trial, y, ba, a, oka, bb, b, okb)
			}
		}
	}
}
