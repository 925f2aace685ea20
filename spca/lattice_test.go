package spca

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// randomLattice returns a d-dimensional lattice of 2 to 5 nodes per axis
// with random spacings and node positions.
func randomLattice(rng *rand.Rand, d int) *lattice {
	l := &lattice{d: d, g: make([]int, d), lo: make([]float64, d), step: make([]float64, d), zero: make([]int, d)}
	for j := range l.g {
		l.g[j] = 2 + rng.IntN(4)
		l.lo[j] = rng.NormFloat64()
		l.step[j] = 0.1 + rng.Float64()
	}
	l.setStrides()
	l.x = make([]float64, l.size()*d)
	for i := range l.x {
		l.x[i] = rng.NormFloat64()
	}
	return l
}

// The reduction evaluation of a lattice cell gives the value and Jacobian
// of the per-corner weighted sum, in every dimension it handles, inside
// cells and at their faces.
func TestEvalCellReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for d := 1; d <= maxReduceDim; d++ {
		l := randomLattice(rng, d)
		frac := make([]float64, d)
		a, b := make([]float64, d), make([]float64, d)
		ja, jb := make([]float64, d*d), make([]float64, d*d)
		for trial := 0; trial < 200; trial++ {
			base := 0
			for j := 0; j < d; j++ {
				base += rng.IntN(l.g[j]-1) * l.strides[j]
				switch trial % 4 {
				case 0:
					frac[j] = 0
				case 1:
					frac[j] = 1
				default:
					frac[j] = rng.Float64()
				}
			}
			l.evalCellReduce(base, a, ja, frac)
			l.evalCellCorners(base, b, jb, frac)
			for k := range a {
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Fatalf("d=%d: value %d: %v, corners %v", d, k, a[k], b[k])
				}
			}
			for k := range ja {
				if math.Abs(ja[k]-jb[k]) > 1e-11 {
					t.Fatalf("d=%d: Jacobian %d: %v, corners %v", d, k, ja[k], jb[k])
				}
			}
			l.evalCellReduce(base, a, nil, frac)
			for k := range a {
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Fatalf("d=%d: value without Jacobian %d: %v, corners %v", d, k, a[k], b[k])
				}
			}
		}
	}
}

// The d = 4 specialisation gives the generic reduction's values and
// Jacobians, with and without the Jacobian: the same operations in the
// same order, so bit-identical on amd64 (a platform that fuses
// multiply-adds may round differently: there the test allows 1e-12).
func TestEvalCell4(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d = 4
	l := randomLattice(rng, d)
	same := near
	if runtime.GOARCH == "amd64" {
		same = func(a, b float64) bool { return a == b }
	}
	frac := make([]float64, d)
	a, b, c := make([]float64, d), make([]float64, d), make([]float64, d)
	ja, jb := make([]float64, d*d), make([]float64, d*d)
	for trial := 0; trial < 5000; trial++ {
		base := 0
		for j := 0; j < d; j++ {
			base += rng.IntN(l.g[j]-1) * l.strides[j]
			frac[j] = rng.Float64()
		}
		l.evalCell4(base, a, ja, frac)
		l.evalCellReduce(base, b, jb, frac)
		l.evalCell4(base, c, nil, frac)
		for k := range a {
			if !same(a[k], b[k]) || !same(c[k], b[k]) {
				t.Fatalf("value %d: %v (no Jacobian %v), generic %v", k, a[k], c[k], b[k])
			}
		}
		for k := range ja {
			if !same(ja[k], jb[k]) {
				t.Fatalf("Jacobian %d: %v, generic %v", k, ja[k], jb[k])
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }

// multilinearPoly is a multilinear polynomial in x0..x3: element m
// multiplies the product of the x_j whose bit j is set in m.
type multilinearPoly [16]float64

func (p *multilinearPoly) at(x [4]float64) float64 {
	s := 0.0
	for m, c := range p {
		term := c
		for j := 0; j < 4; j++ {
			if m>>j&1 == 1 {
				term *= x[j]
			}
		}
		s += term
	}
	return s
}

// deriv is ∂p/∂x_j at x.
func (p *multilinearPoly) deriv(j int, x [4]float64) float64 {
	s := 0.0
	for m, c := range p {
		if m>>j&1 == 0 {
			continue
		}
		term := c
		for i := 0; i < 4; i++ {
			if i != j && m>>i&1 == 1 {
				term *= x[i]
			}
		}
		s += term
	}
	return s
}

// The kernels reproduce multilinear polynomials and their derivatives
// inside a cell with edges of any length, return the corner values at
// the corners (the first exactly), and cellGrad4's value is cellValue8's
// after the reduction along axis 0, bit for bit.
func TestCellKernels4(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 6))
	for trial := 0; trial < 2000; trial++ {
		var p multilinearPoly
		for m := range p {
			p[m] = rng.NormFloat64()
		}
		var lo, h [4]float64
		for j := range h {
			lo[j] = rng.NormFloat64()
			h[j] = math.Exp(rng.NormFloat64())
		}
		var c [16]float64
		for n := range c {
			var x [4]float64
			for j := range x {
				x[j] = lo[j] + float64(n>>j&1)*h[j]
			}
			c[n] = p.at(x)
		}
		var tt, x [4]float64
		for j := range tt {
			tt[j] = rng.Float64()
			if trial%4 == 0 { // a corner
				tt[j] = float64(rng.IntN(2))
			}
			x[j] = lo[j] + tt[j]*h[j]
		}
		var c8 [8]float64
		for m := range c8 {
			c8[m] = c[2*m] + float64(tt[0]*(c[2*m+1]-c[2*m])) // as cellGrad4 (no FMA)
		}
		v := cellValue8(&c8, tt[1], tt[2], tt[3])
		gv, d0, d1, d2, d3 := cellGrad4(&c, tt[0], tt[1], tt[2], tt[3], 1/h[0], 1/h[1], 1/h[2], 1/h[3])
		if gv != v {
			t.Fatalf("cellGrad4's value %v, cellValue8's %v", gv, v)
		}
		if trial%4 == 0 {
			n := 0
			for j := range tt {
				n |= int(tt[j]) << j
			}
			// a + 1·(b − a) may miss b by an ulp; a + 0·(b − a) is a.
			if !near(v, c[n]) || n == 0 && v != c[0] {
				t.Fatalf("corner %d: %v, want %v", n, v, c[n])
			}
		}
		if want := p.at(x); !near(v, want) {
			t.Fatalf("value at %v: %v, want %v", tt, v, want)
		}
		for j, d := range [4]float64{d0, d1, d2, d3} {
			if want := p.deriv(j, x); !near(d, want) {
				t.Fatalf("derivative %d at %v: %v, want %v", j, tt, d, want)
			}
		}
	}
}

var cellSink float64

func BenchmarkCellValue8(b *testing.B) {
	var c [8]float64
	for i := range c {
		c[i] = float64(i * i)
	}
	for i := 0; i < b.N; i++ {
		cellSink += cellValue8(&c, 0.5, 0.75, cellSink*1e-300)
	}
}

func BenchmarkCellGrad4(b *testing.B) {
	var c [16]float64
	for i := range c {
		c[i] = float64(i * i)
	}
	for i := 0; i < b.N; i++ {
		v, d0, d1, d2, d3 := cellGrad4(&c, 0.25, 0.5, 0.75, cellSink*1e-300, 1, 2, 3, 4)
		cellSink += v + d0 + d1 + d2 + d3
	}
}

// randomCell4 returns the base of a random cell of the 4-D lattice l and
// fills frac with fractions at and between the cell's ends.
func randomCell4(rng *rand.Rand, l *lattice, frac []float64) int {
	base := 0
	for j := 0; j < 4; j++ {
		base += rng.IntN(l.g[j]-1) * l.strides[j]
		switch rng.IntN(4) {
		case 0:
			frac[j] = 0
		case 1:
			frac[j] = 1
		default:
			frac[j] = rng.Float64()
		}
	}
	return base
}

// randomCellBases returns 256 random cell bases of the 4-D lattice l.
func randomCellBases(rng *rand.Rand, l *lattice) []int {
	bases := make([]int, 256)
	for i := range bases {
		for j := 0; j < 4; j++ {
			bases[i] += rng.IntN(l.g[j]-1) * l.strides[j]
		}
	}
	return bases
}

// sameBits fails t unless got and want agree to the last bit.
func sameBits(t *testing.T, trial int, what string, got, want []float64) {
	t.Helper()
	for k := range got {
		if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
			t.Fatalf("trial %d %s %d: %v, Go kernel %v", trial, what, k, got[k], want[k])
		}
	}
}

// valueCell4 (the AVX kernel where the CPU has it) is valueCell4Go to the
// last bit, fractions at and between the cell's ends.
func TestValueCell4Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	l := randomLattice(rng, 4)
	frac, a, b := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	for trial := 0; trial < 5000; trial++ {
		base := randomCell4(rng, l, frac)
		l.valueCell4(base, a, frac)
		l.valueCell4Go(base, b, frac)
		sameBits(t, trial, "component", a, b)
	}
}

// BenchmarkValueCell4 times one 4-D cell's value (the inversion of a
// leading cell in the codec) by the portable kernel and by valueCell4
// (AVX where the CPU has it), on float64 positions and on float32 ones
// ("32": a snapped lattice read from a file), in the L1 cache.
func BenchmarkValueCell4(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	l, l32 := float32Lattice(rng, 4)
	bases := randomCellBases(rng, l)
	frac, dst := []float64{0.3, 0.6, 0.1, 0.9}, make([]float64, 4)
	b.Run("go", func(b *testing.B) {
		for i := range b.N {
			l.valueCell4Go(bases[i&255], dst, frac)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			l.valueCell4(bases[i&255], dst, frac)
		}
	})
	b.Run("go32", func(b *testing.B) {
		for i := range b.N {
			l32.valueCell4Go(bases[i&255], dst, frac)
		}
	})
	b.Run("fast32", func(b *testing.B) {
		for i := range b.N {
			l32.valueCell4(bases[i&255], dst, frac)
		}
	})
}

// evalCell4 with the Jacobian (the AVX kernel where the CPU has it) is
// gradCell4Go to the last bit.
func TestGradCell4Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for lat := 0; lat < 4; lat++ {
		l := randomLattice(rng, 4)
		frac, a, b := make([]float64, 4), make([]float64, 4), make([]float64, 4)
		ja, jb := make([]float64, 16), make([]float64, 16)
		for trial := 0; trial < 2000; trial++ {
			base := randomCell4(rng, l, frac)
			l.evalCell4(base, a, ja, frac)
			l.gradCell4Go(base, b, jb, frac)
			sameBits(t, trial, "value", a, b)
			sameBits(t, trial, "Jacobian", ja, jb)
		}
	}
}

// BenchmarkGradCell4 times one 4-D cell's value and Jacobian (a Newton
// step of the codec's fast path) by the portable kernel and by evalCell4
// (AVX where the CPU has it), on float64 positions and on float32 ones
// ("32"), in the L1 cache.
func BenchmarkGradCell4(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	l, l32 := float32Lattice(rng, 4)
	bases := randomCellBases(rng, l)
	frac, dst, jac := []float64{0.3, 0.6, 0.1, 0.9}, make([]float64, 4), make([]float64, 16)
	b.Run("go", func(b *testing.B) {
		for i := range b.N {
			l.gradCell4Go(bases[i&255], dst, jac, frac)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			l.evalCell4(bases[i&255], dst, jac, frac)
		}
	})
	b.Run("go32", func(b *testing.B) {
		for i := range b.N {
			l32.gradCell4Go(bases[i&255], dst, jac, frac)
		}
	})
	b.Run("fast32", func(b *testing.B) {
		for i := range b.N {
			l32.evalCell4(bases[i&255], dst, jac, frac)
		}
	})
}

// BenchmarkLatticeEval times a 4-D lattice evaluation inside the lattice,
// without and with the Jacobian (the inversion of a codec cell and a
// Newton step).
func BenchmarkLatticeEval(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 16))
	l := randomLattice(rng, 4)
	us := make([][]float64, 256)
	for i := range us {
		us[i] = make([]float64, 4)
		for j := range us[i] {
			us[i][j] = l.lo[j] + rng.Float64()*float64(l.g[j]-1)*l.step[j]
		}
	}
	dst, jac, idx, frac := make([]float64, 4), make([]float64, 16), make([]int, 4), make([]float64, 4)
	b.Run("value", func(b *testing.B) {
		for i := range b.N {
			l.eval(us[i&255], dst, nil, idx, frac)
		}
	})
	b.Run("jacobian", func(b *testing.B) {
		for i := range b.N {
			l.eval(us[i&255], dst, jac, idx, frac)
		}
	})
}

// eval4 and clampU4, d = 4's unrolled paths, give evalAny's and
// clampAny's bits (values, Jacobians, cells, fractions, clamped
// coordinates and flags) at points inside the lattice, on its nodes,
// beyond it within the extrapolation range and far beyond, and at NaN.
func TestEval4(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	const d = 4
	l := randomLattice(rng, d)
	if !l.reduce {
		t.Fatal("a 4-d lattice without reduce")
	}
	u, v := make([]float64, d), make([]float64, d)
	a, b := make([]float64, d), make([]float64, d)
	ja, jb := make([]float64, d*d), make([]float64, d*d)
	ia, ib := make([]int, d), make([]int, d)
	fa, fb := make([]float64, d), make([]float64, d)
	outside, clamped := 0, 0
	for trial := range 20000 {
		for j := range u {
			w := l.width(j)
			switch rng.IntN(8) {
			case 0: // a node
				u[j] = l.lo[j] + float64(rng.IntN(l.g[j]))*l.step[j]
			case 1: // beyond, within the extrapolation range
				u[j] = l.lo[j] - w*rng.Float64()
			case 2: // far beyond
				u[j] = l.lo[j] + w*(2+rng.Float64())*float64(2*rng.IntN(2)-1)
			case 3:
				if trial%50 == 0 {
					u[j] = math.NaN()
					continue
				}
				fallthrough
			default:
				u[j] = l.lo[j] + w*rng.Float64()
			}
		}
		copy(v, u)
		ca, cb := l.clampU(u), l.clampAny(v)
		if ca != cb || !equalBits(u, v) {
			t.Fatalf("trial %d: clampU4 %v %v, clampAny %v %v", trial, u, ca, v, cb)
		}
		if ca {
			clamped++
		}
		jac := trial%2 == 0
		if jac {
			l.eval(u, a, ja, ia, fa)
			l.evalAny(v, b, jb, ib, fb)
		} else {
			l.eval(u, a, nil, ia, fa)
			l.evalAny(v, b, nil, ib, fb)
		}
		if !equalBits(a, b) || jac && !equalBits(ja, jb) || !slices.Equal(ia, ib) || !equalBits(fa, fb) {
			t.Fatalf("trial %d at %v: eval4 %v %v %v %v, evalAny %v %v %v %v", trial, u, a, ja, ia, fa, b, jb, ib, fb)
		}
		for j, x := range v {
			if x < l.lo[j] || x > l.lo[j]+l.width(j) {
				outside++ // evalOutside's extrapolation
				break
			}
		}
	}
	if outside == 0 || clamped == 0 {
		t.Fatalf("no point beyond the lattice (%d) or clamped (%d)", outside, clamped)
	}
}

// equalBits reports whether a and b hold the same bit patterns.
func equalBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}
