package spca

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// scanNearest is the reference of nodeTree.nearest: the first of the
// closest points by a scan in order.
func scanNearest(x []float64, d int, z []float64) int {
	best, bi := math.Inf(1), 0
	for i := 0; i < len(x)/d; i++ {
		if v := dist2(z, x[i*d:(i+1)*d]); v < best {
			best, bi = v, i
		}
	}
	return bi
}

// TestNodeTree checks that the k-d tree returns the scan's answer, ties
// included: on an integer grid with repeated points, queried at grid and
// half-grid points (many equidistant points), at random points, far away,
// and with NaN; and on the restart nodes of a fitted model.
func TestNodeTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	check := func(name string, x []float64, d int, queries [][]float64) {
		t.Helper()
		tree := newNodeTree(x, d)
		for _, z := range queries {
			want := scanNearest(x, d, z)
			if got := tree.nearest(z); got != want {
				t.Fatalf("%s: nearest of %v is point %d, the scan gives %d", name, z, got, want)
			}
			if got := scanNodes(x, d, z); got != want {
				t.Fatalf("%s: scanNodes' nearest of %v is point %d, the scan gives %d", name, z, got, want)
			}
		}
	}
	for _, d := range []int{1, 3, 4} {
		var grid []float64
		for i := 0; i < 700; i++ {
			for j := 0; j < d; j++ {
				grid = append(grid, float64(rng.IntN(6)))
			}
		}
		var qs [][]float64
		for i := 0; i < 3000; i++ {
			z := make([]float64, d)
			for j := range z {
				switch i % 3 {
				case 0:
					z[j] = float64(rng.IntN(13)) / 2
				case 1:
					z[j] = 8*rng.Float64() - 1
				default:
					z[j] = 1e3 * rng.NormFloat64()
				}
			}
			qs = append(qs, z)
		}
		nan := make([]float64, d)
		nan[d-1] = math.NaN()
		qs = append(qs, nan)
		check("grid", grid, d, qs)
	}
	for gamma, m := range gammaModels(t, rng, 4) {
		var qs [][]float64
		_, restartX := m.restartNodes()
		n := len(restartX) / 4
		for i := 0; i < 2000; i++ {
			p := restartX[rng.IntN(n)*4:][:4]
			z := make([]float64, 4)
			for j := range z {
				z[j] = p[j] + 0.3*rng.NormFloat64()
			}
			qs = append(qs, z, p)
		}
		check(map[float64]string{0: "gamma 0 model", 1.0 / 3: "gamma 1/3 model"}[gamma], restartX, 4, qs)
	}
}

func BenchmarkNearestNode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, n = 4, restartNodes
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	z := make([][]float64, 1024)
	for i := range z {
		z[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	tree := newNodeTree(x, d)
	b.Run("tree", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tree.nearest(z[i%len(z)])
		}
	})
	b.Run("scan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			scanNearest(x, d, z[i%len(z)])
		}
	})
	cols := columns4(x)
	defer func(k bool) { hasScan4Kernel = k }(hasScan4Kernel)
	for _, on := range []bool{false, hasScan4Kernel} {
		hasScan4Kernel = on
		b.Run(map[bool]string{false: "columns-go", true: "columns-kernel"}[on], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				scanNodes4(cols, n, (*[4]float64)(z[i%len(z)]))
			}
		})
	}
	b.Run("build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			newNodeTree(x, d)
		}
	})
}

// TestRestartNodesSizedOnce checks that the restart nodes are allocated
// at their size (appended, they took ~5 times it: fresh memory of every
// encode process).
func TestRestartNodesSizedOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for gamma, m := range gammaModels(t, rng, 4) {
		u, x := m.restartNodes()
		if len(u) == 0 || cap(u) != len(u) || cap(x) != len(x) || len(x) != len(u) {
			t.Errorf("gamma %g: restart nodes %d/%d coordinates, %d/%d positions (length/capacity)", gamma, len(u), cap(u), len(x), cap(x))
		}
	}
}

// TestSelectRank checks selectRank against a sort: the point of rank k at
// k, the lesser before it, the greater after it; on coordinates with many
// ties (the order breaks them by index), sorted, reversed and random, of
// every length up to 40 and every rank.
func TestSelectRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for n := 1; n <= 40; n++ {
		for _, kind := range []string{"ties", "sorted", "reversed", "random"} {
			x := make([]float64, n)
			for i := range x {
				switch kind {
				case "ties":
					x[i] = float64(rng.IntN(3))
				case "sorted":
					x[i] = float64(i)
				case "reversed":
					x[i] = float64(n - i)
				default:
					x[i] = rng.NormFloat64()
				}
			}
			tree := &nodeTree{d: 1, x: x}
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			slices.SortFunc(want, func(p, q int) int {
				if tree.less(p, q, 0) {
					return -1
				}
				if tree.less(q, p, 0) {
					return 1
				}
				return 0
			})
			for k := 0; k < n; k++ {
				s := rng.Perm(n)
				tree.selectRank(s, k, 0)
				if s[k] != want[k] {
					t.Fatalf("%s, n %d, rank %d: point %d, want %d", kind, n, k, s[k], want[k])
				}
				for i, p := range s {
					if i < k && !tree.less(p, s[k], 0) || i > k && !tree.less(s[k], p, 0) {
						t.Fatalf("%s, n %d, rank %d: point %d at %d on the wrong side", kind, n, k, p, i)
					}
				}
			}
		}
	}
}
