package patches

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/testimages"
)

// counting returns a w×h plane whose sample at (x, y) is 1000y + x.
func counting(w, h int) Plane {
	p := NewPlane(w, h)
	for y := range h {
		for x := range w {
			p.Set(x, y, float64(1000*y+x))
		}
	}
	return p
}

// opaque hides the concrete type of a matrix, to exercise generic paths.
type opaque struct{ mat.Matrix }

func TestExtractAssemble(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		for _, sz := range [][2]int{{1, 1}, {13, 7}, {7, 13}, {16, 9}, {24, 24}} {
			w, h := sz[0], sz[1]
			p := counting(w, h)
			x, g := Extract(p, n)
			bw, bh := (w+n-1)/n, (h+n-1)/n
			if g.W != w || g.H != h || g.N != n || g.PaddedW != bw*n || g.PaddedH != bh*n {
				t.Fatalf("n=%d %d×%d: grid %+v", n, w, h, g)
			}
			if r, c := x.Dims(); r != bw*bh || c != n*n || r != g.Blocks() || c != g.Dim() {
				t.Fatalf("n=%d %d×%d: matrix %d×%d", n, w, h, r, c)
			}
			// Every entry is the edge-replicated sample it stands for.
			for by := range bh {
				for bx := range bw {
					for j := range n * n {
						px := min(bx*n+j%n, w-1)
						py := min(by*n+j/n, h-1)
						if got := x.At(by*bw+bx, j); got != p.At(px, py) {
							t.Fatalf("n=%d %d×%d: block (%d,%d) entry %d = %v, want %v", n, w, h, bx, by, j, got, p.At(px, py))
						}
					}
				}
			}
			for _, m := range []mat.Matrix{x, opaque{x}} {
				q := Assemble(m, g)
				if q.W != w || q.H != h {
					t.Fatalf("n=%d: assembled %d×%d", n, q.W, q.H)
				}
				for i := range p.Pix {
					if math.Float64bits(p.Pix[i]) != math.Float64bits(q.Pix[i]) {
						t.Fatalf("n=%d %d×%d %T: sample %d = %v, want %v", n, w, h, m, i, q.Pix[i], p.Pix[i])
					}
				}
			}
		}
	}
	// A view of a wider matrix assembles too.
	p := counting(5, 3)
	x, g := Extract(p, 2)
	wide := mat.NewDense(g.Blocks(), 7, nil)
	view := wide.Slice(0, g.Blocks(), 2, 6).(*mat.Dense)
	view.Copy(x)
	if q := Assemble(view, g); RMSE(p, q) != 0 {
		t.Error("Assemble of a strided view differs")
	}

	// Empty planes have no blocks.
	if x, g := Extract(NewPlane(0, 4), 2); x != nil || g.Blocks() != 0 || Assemble(nil, g).H != 4 {
		t.Errorf("empty plane: %v %+v", x, g)
	}
	mustPanic(t, "n = 0", func() { Extract(p, 0) })
	mustPanic(t, "wrong matrix", func() { Assemble(mat.NewDense(2, 4, nil), g) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

func TestSample(t *testing.T) {
	// Planes of distinct values: the top-left sample of a patch tells
	// where it came from. The middle plane is too small for 3×3 patches.
	a := counting(20, 10)
	b := counting(2, 2)
	c := counting(9, 15)
	for i := range c.Pix {
		c.Pix[i] += 1e6
	}
	planes := []Plane{a, b, c}
	const n = 3
	total := 18*8 + 7*13

	x := Sample(planes, n, 100, 42)
	if r, cc := x.Dims(); r != 100 || cc != n*n {
		t.Fatalf("dims %d×%d", r, cc)
	}
	seen := map[float64]bool{}
	for i := range 100 {
		v := x.At(i, 0)
		p, off := a, 0.0
		if v >= 1e6 {
			p, off = c, 1e6
		}
		x0, y0 := int(v-off)%1000, int(v-off)/1000
		if x0 > p.W-n || y0 > p.H-n {
			t.Fatalf("row %d: patch at (%d, %d) overflows", i, x0, y0)
		}
		for j := range n * n {
			if x.At(i, j) != p.At(x0+j%n, y0+j/n) {
				t.Fatalf("row %d is not the patch at (%d, %d)", i, x0, y0)
			}
		}
		if seen[v] {
			t.Fatalf("position %v drawn twice", v)
		}
		seen[v] = true
	}
	if !mat.Equal(x, Sample(planes, n, 100, 42)) {
		t.Error("same seed gave different samples")
	}
	if mat.Equal(x, Sample(planes, n, 100, 43)) {
		t.Error("different seeds gave the same samples")
	}

	// Asking for more than there is returns every position once.
	all := Sample(planes, n, 10*total, 1)
	if r, _ := all.Dims(); r != total {
		t.Fatalf("capped sample has %d rows, want %d", r, total)
	}
	seen = map[float64]bool{}
	for i := range total {
		seen[all.At(i, 0)] = true
	}
	if len(seen) != total {
		t.Errorf("capped sample has %d distinct positions, want %d", len(seen), total)
	}

	// Planes are drawn in proportion to their positions.
	big := Sample(planes, n, 200, 7)
	fromC := 0
	for i := range 200 {
		if big.At(i, 0) >= 1e6 {
			fromC++
		}
	}
	if want := 200 * 91 / total; math.Abs(float64(fromC-want)) > 25 {
		t.Errorf("%d of 200 patches from the second plane, want about %d", fromC, want)
	}

	mustPanic(t, "no room", func() { Sample([]Plane{b}, n, 5, 1) })
	mustPanic(t, "count 0", func() { Sample(planes, n, 0, 1) })
}

func BenchmarkExtractAssemble(b *testing.B) {
	p := Luminance(testimages.Texture(768, 512, 1))
	for _, n := range []int{2, 8} {
		b.Run(map[int]string{2: "n=2", 8: "n=8"}[n], func(b *testing.B) {
			b.SetBytes(int64(8 * len(p.Pix)))
			for b.Loop() {
				x, g := Extract(p, n)
				Assemble(x, g)
			}
		})
	}
}
