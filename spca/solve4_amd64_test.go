package spca

import (
	"math"
	"math/rand/v2"
	"testing"
)

// solve4AVX returns the determinant and adjugate-times-b of solve4Go and
// maxAbs16's scale bit for bit, on random matrices of mixed magnitudes and signs, nearly
// singular ones, exact zeros of both signs, infinities and NaNs (every
// lane and sign pattern of the adjugate's terms is exercised, and a
// planted swap of two columns' sign masks fails it).
func TestSolve4Kernel(t *testing.T) {
	if !hasSolve4Kernel {
		t.Skip("no AVX2: only solve4Go runs here")
	}
	rng := rand.New(rand.NewPCG(24, 7))
	for trial := range 200000 {
		a, b := randomSolve4(rng, trial)
		var xg, xk [4]float64
		ag, bg := a, b
		dg := solve4Go(&ag, &bg, &xg)
		dk, sk := solve4AVX(&a, &b, &xk)
		if sg := maxAbs16(&ag); math.Float64bits(sg) != math.Float64bits(sk) {
			t.Fatalf("trial %d: scale %v (%#x), maxAbs16 %v (%#x); a %v", trial, sk, math.Float64bits(sk), sg, math.Float64bits(sg), a)
		}
		if !equalBits(a[:], ag[:]) || !equalBits(b[:], bg[:]) {
			t.Fatalf("trial %d: the kernel changed its inputs", trial)
		}
		if math.Float64bits(dg) != math.Float64bits(dk) && !(dg != dg && dk != dk) {
			t.Fatalf("trial %d: det %v (%#x), Go %v (%#x); a %v", trial, dk, math.Float64bits(dk), dg, math.Float64bits(dg), a)
		}
		for k := range xg {
			if math.Float64bits(xg[k]) != math.Float64bits(xk[k]) && !(xg[k] != xg[k] && xk[k] != xk[k]) {
				t.Fatalf("trial %d: x[%d] %v, Go %v; a %v b %v", trial, k, xk[k], xg[k], a, b)
			}
		}
	}
}

// randomSolve4 returns a matrix and a right-hand side for trial of the
// solve4 kernels' tests: normal entries at scales 2^-40..2^39, nearly
// dependent rows (trial%5 == 1), special values and NaNs of other
// payloads (2), small integers (3).
func randomSolve4(rng *rand.Rand, trial int) (a [16]float64, b [4]float64) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 1e300, -1e-300}
	scale := math.Ldexp(1, rng.IntN(80)-40)
	for i := range a {
		a[i] = rng.NormFloat64() * scale
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	switch trial % 5 {
	case 1: // nearly dependent rows
		for k := range 4 {
			a[12+k] = a[k] + a[4+k] + 1e-9*rng.NormFloat64()
		}
	case 2: // special values here and there, NaNs of other payloads
		for range 1 + rng.IntN(4) {
			a[rng.IntN(16)] = special[rng.IntN(len(special))]
		}
		if rng.IntN(4) == 0 {
			a[rng.IntN(16)] = math.Float64frombits(0x7ff0000000000000 | rng.Uint64()>>12 | 1 | rng.Uint64()&(1<<63))
		}
		if rng.IntN(2) == 0 {
			b[rng.IntN(4)] = special[rng.IntN(len(special))]
		}
	case 3: // small integers: exact products, many ties and zeros
		for i := range a {
			a[i] = float64(rng.IntN(5) - 2)
		}
	}
	return a, b
}

// TestNewtonSolve4Kernel checks newtonSolve4AVX against newtonSolve4Go
// bit for bit (the step, ok, and u, left unchanged where the solve
// fails) on randomSolve4's matrices, the residual split into a sample z
// and a lattice point xx, with random un, u and scales.
func TestNewtonSolve4Kernel(t *testing.T) {
	if !hasSolve4Kernel {
		t.Skip("no AVX2: only newtonSolve4Go runs here")
	}
	rng := rand.New(rand.NewPCG(33, 4))
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y }
	fails := 0
	for trial := range 100000 {
		jac, b := randomSolve4(rng, trial)
		var z, xx, un, u [4]float64
		for k := range 4 {
			xx[k] = rng.NormFloat64()
			z[k] = xx[k] + b[k]
			un[k] = rng.NormFloat64()
			u[k] = rng.NormFloat64()
		}
		if trial%7 == 0 {
			z[rng.IntN(4)] = b[rng.IntN(4)] // special values too
		}
		scale := math.Ldexp(0.5+rng.Float64(), rng.IntN(20)-10)
		ja, ug := jac, u
		sg, okg := newtonSolve4Go(&jac, &z, &xx, &un, scale, &ug)
		uk := u
		sk, okk := newtonSolve4AVX(&ja, &z, &xx, &un, scale, &uk)
		if !okg {
			fails++
		}
		if okg != okk || !same(sg, sk) {
			t.Fatalf("trial %d: step %v ok %v, Go %v ok %v; jac %v z %v xx %v", trial, sk, okk, sg, okg, jac, z, xx)
		}
		if !equalBits(ja[:], jac[:]) {
			t.Fatalf("trial %d: the kernel changed the Jacobian", trial)
		}
		for k := range u {
			if !same(ug[k], uk[k]) {
				t.Fatalf("trial %d: u[%d] %v, Go %v", trial, k, uk[k], ug[k])
			}
		}
	}
	if fails == 0 || fails > 90000 {
		t.Fatalf("%d of 100000 solves failed", fails)
	}
}
