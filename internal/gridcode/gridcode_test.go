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
