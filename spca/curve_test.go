package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// nearVertex skips vertices by the triangle inequality; its answers must
// be those of the full scan, on random walks of steps of one length (as
// curves are drawn) and of random lengths, in 2 to 5 dimensions, for
// points near and far, strict and not, at radii around the distances.
func TestNearVertexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	scan := func(p, pts []float64, n, d int, r2 float64, strict bool) bool {
		for i := 0; i < n; i++ {
			if v := dist2(p, pts[i*d:i*d+d]); v < r2 || !strict && v == r2 {
				return true
			}
		}
		return false
	}
	checked, found := 0, 0
	for trial := range 400 {
		d := 2 + trial%4
		n := 1 + rng.IntN(300)
		tau := math.Pow(10, -3+2*rng.Float64())
		pl := polyline{pts: make([]float64, n*d), s: make([]float64, n)}
		dir := make([]float64, d)
		for i := 1; i < n; i++ {
			if rng.IntN(4) == 0 || i == 1 { // turn
				for k := range dir {
					dir[k] = rng.NormFloat64()
				}
				nd := norm(dir)
				for k := range dir {
					dir[k] /= nd
				}
			}
			l := tau
			if trial%2 == 1 {
				l *= rng.Float64() // shorter steps: the bound is the longest
			}
			for k := range d {
				pl.pts[i*d+k] = pl.pts[(i-1)*d+k] + l*dir[k]
			}
			pl.s[i] = pl.s[i-1] + l
		}
		step := pl.maxStep(d)
		p := make([]float64, d)
		for q := range 20 {
			v := rng.IntN(n)
			spread := tau * math.Pow(10, 2*rng.Float64()) * float64(q%4+1)
			for k := range p {
				p[k] = pl.pts[v*d+k] + spread*rng.NormFloat64()
			}
			// Radii at the distances of some vertices exactly (the
			// boundary of strict), and around them.
			w := rng.IntN(n)
			rd := dist2(p, pl.pts[w*d:w*d+d])
			for _, r2 := range []float64{rd, math.Nextafter(rd, 0), rd * 1.01, tau * tau, 4 * tau * tau} {
				for _, strict := range []bool{true, false} {
					m := n - rng.IntN(min(n, 6))
					want := scan(p, pl.pts, m, d, r2, strict)
					if got := nearVertex(p, pl.pts, m, d, math.Sqrt(r2), r2, strict, step); got != want {
						t.Fatalf("trial %d: d %d, %d of %d vertices, r² %g, strict %v: nearVertex %v, scan %v", trial, d, m, n, r2, strict, got, want)
					}
					checked++
					if want {
						found++
					}
				}
			}
		}
	}
	if found < checked/10 || found > checked*9/10 {
		t.Errorf("%d of %d queries found a vertex: the cases do not test both answers", found, checked)
	}
}
