package testimages

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func sameBits(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

func TestDeterminism(t *testing.T) {
	for _, name := range Names() {
		a, err := Generate(name, 500, 7)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := Generate(name, 500, 7)
		if !sameBits(a.X, b.X) || !sameBits(a.Latent, b.Latent) {
			t.Errorf("%s: same seed gave different data", name)
		}
		c, _ := Generate(name, 500, 8)
		if sameBits(a.X, c.X) || sameBits(a.Latent, c.Latent) {
			t.Errorf("%s: different seeds gave identical data", name)
		}
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name  string
		d     int
		names []string
	}{
		{"spiral", 2, []string{"arc", "offset"}},
		{"swissroll", 3, []string{"angle", "height"}},
		{"delicado-fixed", 3, []string{"arc", "along", "across"}},
		{"delicado-twisted", 3, []string{"arc", "along", "across"}},
		{"curve3d", 3, []string{"t"}},
	}
	if len(tests) != len(Names()) {
		t.Fatalf("Names() = %v, test covers %d", Names(), len(tests))
	}
	for _, test := range tests {
		for _, n := range []int{1, 123} {
			s, err := Generate(test.name, n, 1)
			if err != nil {
				t.Fatalf("%s: %v", test.name, err)
			}
			if r, c := s.X.Dims(); r != n || c != test.d {
				t.Errorf("%s: X is %d×%d, want %d×%d", test.name, r, c, n, test.d)
			}
			if r, c := s.Latent.Dims(); r != n || c != len(test.names) {
				t.Errorf("%s: Latent is %d×%d, want %d×%d", test.name, r, c, n, len(test.names))
			}
			if !slices.Equal(s.LatentNames, test.names) {
				t.Errorf("%s: LatentNames = %v, want %v", test.name, s.LatentNames, test.names)
			}
			for i := range n {
				for j := range test.d {
					if v := s.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%s: X[%d,%d] = %v", test.name, i, j, v)
					}
				}
			}
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, n := range []int{0, -1, MaxSamples + 1, math.MaxInt} {
		if _, err := Generate("spiral", n, 1); err == nil {
			t.Errorf("Generate(spiral, %d) did not fail", n)
		}
	}
	for _, name := range []string{"", "Spiral", "swiss-roll", "nonsense"} {
		if _, err := Generate(name, 10, 1); err == nil {
			t.Errorf("Generate(%q) did not fail", name)
		}
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Spiral(0)":         func() { Spiral(0, 1) },
		"SwissRoll(-1)":     func() { SwissRoll(-1, 0.5, 1) },
		"SwissRoll noise":   func() { SwissRoll(10, -0.5, 1) },
		"DelicadoFixed(0)":  func() { DelicadoFixed(0, 1) },
		"DelicadoTwisted":   func() { DelicadoTwisted(0, 1) },
		"Curve3D noise NaN": func() { Curve3D(10, math.NaN(), 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestSpiralArcInverse(t *testing.T) {
	if spiralArc(spiralT0) != 0 {
		t.Fatalf("arc at t0 = %v", spiralArc(spiralT0))
	}
	// Compare the analytic arc length with a numerical integral.
	const steps = 100000
	var num float64
	h := (spiralT1 - spiralT0) / steps
	for k := range steps {
		tm := spiralT0 + (float64(k)+0.5)*h
		num += h * math.Hypot(spiralA+spiralB*tm, spiralB)
	}
	if math.Abs(num-spiralLength) > 1e-6 {
		t.Errorf("arc length %v, numerical %v", spiralLength, num)
	}
	for k := range 101 {
		s := spiralLength * float64(k) / 100
		if got := spiralArc(spiralT(s)); math.Abs(got-s) > 1e-10 {
			t.Errorf("arc(t(%v)) = %v", s, got)
		}
	}
}

func TestSpiralGeometry(t *testing.T) {
	const n = 2000
	s := Spiral(n, 3)

	// Dense polyline of the centre line with the arc length of each vertex.
	const grid = 40000
	type vertex struct{ x, y, arc float64 }
	line := make([]vertex, grid+1)
	for k := range line {
		tk := spiralT0 + (spiralT1-spiralT0)*float64(k)/grid
		cx, cy, _, _ := spiralCentre(tk)
		line[k] = vertex{cx, cy, spiralArc(tk)}
	}

	maxOff := spiralTrunc * spiralGap
	for i := range n {
		arc, off := s.Latent.At(i, 0), s.Latent.At(i, 1)
		if arc < 0 || arc > spiralLength {
			t.Fatalf("sample %d: arc %v outside [0, %v]", i, arc, spiralLength)
		}
		if math.Abs(off) > maxOff {
			t.Fatalf("sample %d: offset %v exceeds %v", i, off, maxOff)
		}
		x, y := s.X.At(i, 0), s.X.At(i, 1)
		// The nearest point of the centre line must be the sample's own
		// point: otherwise the arms overlap.
		best, bestD := 0, math.Inf(1)
		for k, v := range line {
			if d := math.Hypot(x-v.x, y-v.y); d < bestD {
				best, bestD = k, d
			}
		}
		if math.Abs(line[best].arc-arc) > 0.01 {
			t.Fatalf("sample %d: nearest centre point at arc %v, own arc %v", i, line[best].arc, arc)
		}
		if math.Abs(bestD-math.Abs(off)) > 1e-3 {
			t.Fatalf("sample %d: distance to centre line %v, |offset| %v", i, bestD, math.Abs(off))
		}
	}
}

// kurtosis returns the (non-excess) kurtosis m4/m2² about the mean.
func kurtosis(x []float64) float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var m2, m4 float64
	for _, v := range x {
		d := (v - mean) * (v - mean)
		m2 += d
		m4 += d * d
	}
	m2 /= float64(len(x))
	m4 /= float64(len(x))
	return m4 / (m2 * m2)
}

func TestSpiralOffsetShape(t *testing.T) {
	const n = 20000
	s := Spiral(n, 11)
	var lap, uni []float64
	var quarter [4][]float64
	for i := range n {
		u := s.Latent.At(i, 0) / spiralLength
		off := s.Latent.At(i, 1)
		laplace, scale := spiralSpread(u)
		if laplace {
			lap = append(lap, off/scale)
		} else {
			uni = append(uni, off/scale)
		}
		q := min(int(4*u), 3)
		quarter[q] = append(quarter[q], off)
	}
	if k := kurtosis(lap); k < 4.5 {
		t.Errorf("kurtosis of the Laplacian half = %.3f, want > 4.5", k)
	}
	if k := kurtosis(uni); k > 2.2 {
		t.Errorf("kurtosis of the uniform half = %.3f, want < 2.2", k)
	}
	// Samples are uniform in arc length: about n/2 in each half.
	if math.Abs(float64(len(lap))-n/2) > 4*math.Sqrt(n/4) {
		t.Errorf("%d of %d samples in the first half", len(lap), n)
	}
	// The spread increases along the curve.
	prev := 0.0
	for q, v := range quarter {
		var ss float64
		for _, o := range v {
			ss += o * o
		}
		sd := math.Sqrt(ss / float64(len(v)))
		if sd <= prev {
			t.Errorf("offset sd in quarter %d = %v, not above %v", q, sd, prev)
		}
		prev = sd
	}
}

func TestSwissRoll(t *testing.T) {
	const n = 5000
	s := SwissRoll(n, 0, 5)
	minA, maxA, minH, maxH := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range n {
		a, h := s.Latent.At(i, 0), s.Latent.At(i, 1)
		if a < 1.5*math.Pi || a >= 4.5*math.Pi || h < 0 || h >= 21 {
			t.Fatalf("sample %d: latent (%v, %v) out of range", i, a, h)
		}
		minA, maxA = min(minA, a), max(maxA, a)
		minH, maxH = min(minH, h), max(maxH, h)
		// Without noise X is exactly the roll.
		if x, z := s.X.At(i, 0), s.X.At(i, 2); math.Abs(math.Hypot(x, z)-a) > 1e-9 || s.X.At(i, 1) != h {
			t.Fatalf("sample %d: X = %v not on the roll", i, mat.Row(nil, i, s.X))
		}
	}
	if minA > 1.5*math.Pi+0.05 || maxA < 4.5*math.Pi-0.05 || minH > 0.1 || maxH < 20.9 {
		t.Errorf("latent ranges [%v, %v]×[%v, %v] do not fill the roll", minA, maxA, minH, maxH)
	}

	// The noise has the requested standard deviation.
	noisy := SwissRoll(n, 0.5, 5)
	var ss float64
	for i := range n {
		ss += math.Pow(noisy.X.At(i, 1)-noisy.Latent.At(i, 1), 2)
	}
	if sd := math.Sqrt(ss / n); math.Abs(sd-0.5) > 0.03 {
		t.Errorf("noise sd = %v, want 0.5", sd)
	}
}

func TestDelicado(t *testing.T) {
	const n = 3000
	for name, s := range map[string]Samples{
		"fixed":   DelicadoFixed(n, 2),
		"twisted": DelicadoTwisted(n, 2),
	} {
		for i := range n {
			arc, a, e := s.Latent.At(i, 0), s.Latent.At(i, 1), s.Latent.At(i, 2)
			if arc < 0 || arc > 3*math.Pi || a < -1 || a > 1 {
				t.Fatalf("%s sample %d: latent (%v, %v, %v) out of range", name, i, arc, a, e)
			}
			x, y, z := s.X.At(i, 0), s.X.At(i, 1), s.X.At(i, 2)
			// The sample lies in the normal plane at its arc position...
			tt := arc / 3
			if d := x*math.Sin(tt) - y*math.Cos(tt); math.Abs(d) > 1e-9 {
				t.Fatalf("%s sample %d: %v off the normal plane", name, i, d)
			}
			// ...at distance hypot(a, 0.3a²+e) from the first curve.
			dist := math.Hypot(math.Hypot(x, y)-3, z)
			if want := math.Hypot(a, 0.3*a*a+e); math.Abs(dist-want) > 1e-9 {
				t.Fatalf("%s sample %d: distance %v, want %v", name, i, dist, want)
			}
			if name == "fixed" && math.Abs(z-a) > 1e-12 {
				t.Fatalf("fixed sample %d: z = %v, along = %v", i, z, a)
			}
		}
	}
	// In the twisted set the elongation turns from z to the in-plane
	// normal: near the end of the arc z barely varies.
	s := DelicadoTwisted(n, 4)
	var zs []float64
	for i := range n {
		if s.Latent.At(i, 0) > 3*math.Pi*0.95 {
			zs = append(zs, s.X.At(i, 2))
		}
	}
	var ss float64
	for _, z := range zs {
		ss += z * z
	}
	if sd := math.Sqrt(ss / float64(len(zs))); sd > 0.2 {
		t.Errorf("twisted: z spread at the end = %v, want small", sd)
	}
}

func TestCurve3D(t *testing.T) {
	const n = 20000
	s := Curve3D(n, 0.1, 9)
	var ssLo, ssHi float64
	var nLo, nHi int
	for i := range n {
		tt := s.Latent.At(i, 0)
		if tt < 0 || tt >= 1 {
			t.Fatalf("sample %d: t = %v", i, tt)
		}
		sin, cos := math.Sincos(1.5 * math.Pi * tt)
		dx := s.X.At(i, 0) - 3*cos
		dy := s.X.At(i, 1) - 3*sin
		dz := s.X.At(i, 2) - 4*tt
		d2 := (dx*dx + dy*dy + dz*dz) / 3
		switch {
		case tt < 0.1:
			ssLo += d2
			nLo++
		case tt > 0.9:
			ssHi += d2
			nHi++
		}
	}
	lo, hi := math.Sqrt(ssLo/float64(nLo)), math.Sqrt(ssHi/float64(nHi))
	// Expected about 0.1·(0.3+0.035) and 0.1·(0.3+0.665).
	if math.Abs(lo-0.0335) > 0.003 || math.Abs(hi-0.0965) > 0.006 {
		t.Errorf("noise sd near the start %v and end %v", lo, hi)
	}
}
