package codec

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestCellFinder checks the finder against the binary search it replaces
// on thresholds of every kind the coder meets (uniform dead zones, uneven
// Lloyd–Max cells, repeated and tiny spans) and on values at, between,
// just beside and far beyond the thresholds.
func TestCellFinder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := [][]float64{
		nil,
		{0},
		{1, 1},
		{-1, 1e-300, 2e-300},
		{0, math.Nextafter(0, 1), math.Nextafter(math.Nextafter(0, 1), 1)},
	}
	for n := 2; n < 400; n = n*3/2 + 1 {
		u := make([]float64, n)
		for i := range u {
			u[i] = (float64(i) - float64(n)/3 + 2.0/3) * 7.3
		}
		sets = append(sets, u)
		g := make([]float64, n)
		for i := range g {
			g[i] = rng.NormFloat64() * math.Exp(3*rng.Float64())
		}
		sort.Float64s(g)
		sets = append(sets, g)
		d := append([]float64(nil), g...)
		for i := 1; i < len(d); i += 3 {
			d[i] = d[i-1]
		}
		sets = append(sets, d)
	}
	for si, th := range sets {
		f := newCellFinder(th)
		var probe []float64
		for _, v := range th {
			probe = append(probe, v, math.Nextafter(v, math.Inf(-1)), math.Nextafter(v, math.Inf(1)))
		}
		for range 2000 {
			probe = append(probe, rng.NormFloat64()*1e3, rng.NormFloat64())
		}
		probe = append(probe, math.Inf(1), math.Inf(-1), -math.MaxFloat64, math.MaxFloat64)
		for _, v := range probe {
			if got, want := f.index(v), sort.SearchFloat64s(th, v); got != want {
				t.Fatalf("set %d (%d thresholds): index(%v) = %d, binary search %d", si, len(th), v, got, want)
			}
		}
	}
}

func BenchmarkCellFinder(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	th := make([]float64, 300)
	for i := range th {
		th[i] = float64(i) - 150
	}
	v := make([]float64, 4096)
	for i := range v {
		v[i] = rng.NormFloat64() * 20
	}
	f := newCellFinder(th)
	b.Run("finder", func(b *testing.B) {
		s := 0
		for i := 0; i < b.N; i++ {
			s += f.index(v[i%len(v)])
		}
		_ = s
	})
	b.Run("binary-search", func(b *testing.B) {
		s := 0
		for i := 0; i < b.N; i++ {
			s += sort.SearchFloat64s(th, v[i%len(v)])
		}
		_ = s
	})
}
