package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNewtonCell4Kernel checks newtonCell4AVX against newtonCell4Go bit
// for bit (z, un; then, where neither clamps, the fractions, the base and
// the flags) on random 4-axis lattices, at coordinates on nodes, at the
// clamp's bounds and one ulp past them, within the lattice, beyond it
// within the clamp, far beyond, and at NaN, ±Inf and −0, with samples
// that hold the same values.
func TestNewtonCell4Kernel(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX")
	}
	rng := rand.New(rand.NewPCG(24, 42))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	counts := [3]int{}
	for lat := range 40 {
		l := randomLattice(rng, 4)
		if lat%4 == 0 {
			// Larger axes, as the codec's models (40×11×11×11).
			for j := range l.g {
				l.g[j] = 2 + rng.IntN(40)
			}
			l.setStrides()
			l.x = make([]float64, l.size()*4)
		}
		if !l.nk.ok {
			t.Fatal("a small lattice without the kernel's constants")
		}
		mean := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		scale := math.Ldexp(0.5+rng.Float64(), rng.IntN(9)-4)
		for trial := range 4000 {
			var u, x [4]float64
			for j := range 4 {
				w := l.width(j)
				var v float64 // un's value
				switch rng.IntN(10) {
				case 0:
					v = l.lo[j] + float64(rng.IntN(l.g[j]))*l.step[j]
				case 1:
					v = l.nk.clampLo[j]
					if rng.IntN(2) == 0 {
						v = math.Nextafter(v, math.Inf(-1))
					}
				case 2:
					v = l.nk.clampHi[j]
					if rng.IntN(2) == 0 {
						v = math.Nextafter(v, math.Inf(1))
					}
				case 3:
					v = l.lo[j] - w*rng.Float64()
				case 4:
					v = l.lo[j] + w*(1+rng.Float64())
				case 5:
					v = l.lo[j] + w*(2+10*rng.Float64())*float64(2*rng.IntN(2)-1)
				case 6:
					if trial%8 == 0 {
						v = special[rng.IntN(len(special))]
						break
					}
					fallthrough
				default:
					v = l.lo[j] + w*rng.Float64()
				}
				u[j] = v * scale
				if rng.IntN(2) == 0 && !math.IsInf(v, 0) && v == v {
					u[j] = v // un = v/scale: any value
				}
				x[j] = mean[j] + scale*rng.NormFloat64()
				if trial%50 == 0 {
					x[j] = special[rng.IntN(len(special))]
				}
			}
			var za, ua, ca, zb, ub, cb [4]float64
			ba, fa := newtonCell4AVX(&u, &x, &mean, scale, &l.nk, &za, &ua, &ca)
			bb, fb := l.newtonCell4Go(&u, &x, &mean, scale, &zb, &ub, &cb)
			if !equalBits(za[:], zb[:]) || !equalBits(ua[:], ub[:]) || fa&1 != fb&1 {
				t.Fatalf("lattice %d, trial %d, u %v x %v: kernel z %v un %v flags %d, Go %v %v %d", lat, trial, u, x, za, ua, fa, zb, ub, fb)
			}
			if fb&1 != 0 {
				counts[0]++
				continue
			}
			if ba != bb || fa != fb || !equalBits(ca[:], cb[:]) {
				t.Fatalf("lattice %d, trial %d, u %v (un %v): kernel base %d flags %d c %v, Go %d %d %v", lat, trial, u, ub, ba, fa, ca, bb, fb, cb)
			}
			counts[1+fb>>1]++
		}
	}
	if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 {
		t.Fatalf("clamped, inside, outside: %v (each case must occur)", counts)
	}
}
