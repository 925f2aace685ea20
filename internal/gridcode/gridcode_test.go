package gridcode

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRoundTrip checks that Diff, Zigzag and Planes are inverted by
// AddPlane, Unzigzag and Undiff, on a smooth grid (whose differences are
// small: width 1) and on random values of every size (wrapping sums).
func TestRoundTrip(t *testing.T) {
	g := []int{5, 3, 4}
	n := 2 * 5 * 3 * 4 // the grid twice
	smooth := make([]int64, n)
	for i := range smooth {
		a, b, c := i/12%5, i/4%3, i%4
		smooth[i] = int64(10 + 7*a - 3*b + 2*c + a*b*c)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]int64, n)
	for i := range random {
		random[i] = int64(rng.Uint64())
	}
	for name, v := range map[string][]int64{"smooth": smooth, "random": random} {
		c := slices.Clone(v)
		Diff(c, g)
		w := Zigzag(c)
		if name == "smooth" && w != 1 {
			t.Errorf("smooth grid: width %d, want 1", w)
		}
		var file []byte
		Planes(c, w, func(p []byte) { file = append(file, p...) })
		if len(file) != w*n {
			t.Fatalf("%s: %d bytes, want %d", name, len(file), w*n)
		}
		back := make([]int64, n)
		for b := 0; b < w; b++ {
			AddPlane(back, file[b*n:(b+1)*n], b)
		}
		Unzigzag(back)
		Undiff(back, g)
		if !slices.Equal(back, v) {
			t.Fatalf("%s: values differ after the round trip", name)
		}
	}
}

// undiffRef is Undiff as first written: one index loop per axis.
func undiffRef(v []int64, g []int) {
	s := 1
	for j := len(g) - 1; j >= 0; j-- {
		n := g[j]
		for b := 0; b < len(v); b += s * n {
			for i := b + s; i < b+s*n; i++ {
				v[i] += v[i-s]
			}
		}
		s *= n
	}
}

// randomShape returns a grid of 1-4 axes of 1-7 nodes each and its node
// count.
func randomShape(rng *rand.Rand) ([]int, int) {
	g := make([]int, 1+rng.IntN(4))
	n := 1
	for j := range g {
		g[j] = 1 + rng.IntN(7)
		n *= g[j]
	}
	return g, n
}

// TestUndiffRows checks Undiff (running sums along the last axis, row
// additions along the others) against the one-loop form on random shapes,
// axes of length 1 and several grids in a row included, with wrapping sums.
func TestUndiffRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		g, n := randomShape(rng)
		v := make([]int64, n*(1+rng.IntN(3)))
		for i := range v {
			if trial%2 == 0 {
				v[i] = int64(rng.Uint64())
			} else {
				v[i] = rng.Int64N(200) - 100
			}
		}
		want := slices.Clone(v)
		undiffRef(want, g)
		Undiff(v, g)
		if !slices.Equal(v, want) {
			t.Fatalf("shape %v, %d values: Undiff differs from the one-loop form", g, len(v))
		}
	}
}

// joinRef is JoinPlanes and UndiffAxes(lo, len(g)-1) of the n values of
// width w in planes by the plain steps: AddPlane, Unzigzag, UndiffAxes.
func joinRef(planes []byte, n, w int, g []int, lo int) []int64 {
	v := make([]int64, n)
	for b := range w {
		AddPlane(v, planes[b*n:(b+1)*n], b)
	}
	Unzigzag(v)
	UndiffAxes(v, g, lo, len(g))
	return v
}

// TestJoinPlanes checks JoinPlanes and UndiffAxes (the axes between the
// last and lo; the caller does those before lo) against AddPlane,
// Unzigzag and Undiff, on random shapes, every width, and values that
// wrap.
func TestJoinPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 400 {
		g, n := randomShape(rng)
		v := make([]int64, n)
		bits := 1 + trial%64
		for i := range v {
			v[i] = int64(rng.Uint64()) >> (64 - bits)
		}
		c := slices.Clone(v)
		Diff(c, g)
		w := Zigzag(c)
		var file []byte
		Planes(c, w, func(p []byte) { file = append(file, p...) })
		lo := rng.IntN(len(g))
		got := make([]int64, n)
		for i := range got {
			got[i] = int64(rng.Uint64()) // JoinPlanes sets every value
		}
		JoinPlanes(got, file, g[len(g)-1])
		UndiffAxes(got, g, lo, len(g)-1)
		want := joinRef(file, n, w, g, lo) // the axes before lo left, as in got
		if !slices.Equal(got, want) {
			t.Fatalf("shape %v, width %d, lo %d: values differ", g, w, lo)
		}
		UndiffAxes(got, g, 0, lo)
		if !slices.Equal(got, v) {
			t.Fatalf("shape %v, width %d, lo %d: not the coded values", g, w, lo)
		}
	}
}

// BenchmarkUndiff times Undiff on the fast path's grid of a codec model
// (16^4 nodes), against the one-loop form it replaced.
func BenchmarkUndiff(b *testing.B) {
	g := []int{16, 16, 16, 16}
	v := make([]int64, 1<<16)
	for name, f := range map[string]func([]int64, []int){"rows": Undiff, "one-loop": undiffRef} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				f(v, g)
			}
		})
	}
}

// FuzzJoinPlanes checks JoinPlanes and UndiffAxes, the lattice decoders
// of every model load (spca, codec), against AddPlane, Unzigzag and
// Undiff on any bytes: a grid of 1-4 axes of 1-8 nodes (data[0:5]),
// planes of width 1-8 (data[5]), the axes before lo (data[6]) left, the
// planes from data[7:] (zeros past its end), repeated grids included.
func FuzzJoinPlanes(f *testing.F) {
	f.Add([]byte{2, 3, 4, 0, 0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{4, 8, 8, 8, 8, 8, 3, 0xff, 0xfe, 0x80, 0x7f})
	f.Add([]byte{1, 1, 0, 0, 0, 4, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 7 {
			return
		}
		g := make([]int, 1+int(data[0])%4)
		m := 1
		for j := range g {
			g[j] = 1 + int(data[1+j])%8
			m *= g[j]
		}
		m *= 1 + int(data[0])/4%3 // the grid repeated, as Diff allows
		w := 1 + int(data[5])%8
		lo := int(data[6]) % len(g)
		planes := make([]byte, w*m)
		copy(planes, data[7:])
		got := make([]int64, m)
		for i := range got {
			got[i] = int64(uint64(i) * 0x9e3779b97f4a7c15) // JoinPlanes sets every value
		}
		JoinPlanes(got, planes, g[len(g)-1])
		UndiffAxes(got, g, lo, len(g)-1)
		want := joinRef(planes, m, w, g, lo)
		if !slices.Equal(got, want) {
			t.Fatalf("shape %v (%d values), width %d, lo %d: JoinPlanes differs from AddPlane, Unzigzag and Undiff", g, m, w, lo)
		}
		// Diff, Zigzag and Planes invert the full Undiff.
		UndiffAxes(got, g, 0, lo)
		c := slices.Clone(got)
		Diff(c, g)
		cw := Zigzag(c)
		var file []byte
		Planes(c, cw, func(p []byte) { file = append(file, p...) })
		back := make([]int64, m)
		JoinPlanes(back, file, g[len(g)-1])
		UndiffAxes(back, g, 0, len(g)-1)
		if !slices.Equal(back, got) {
			t.Fatalf("shape %v, width %d: Diff, Zigzag and Planes do not invert", g, cw)
		}
	})
}
