package spca

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// blendTable writes the metric table of axis j at conditioning point u_<j
// (weights from tableWeights): the whole fiber, the reference of
// searchBlend.
func (m *Model) blendTable(j int, w *work) []float64 {
	out := make([]float64, m.tnodes[j])
	if j == 0 {
		copy(out, m.tables[0])
		return out
	}
	wts, offs := m.cornerFibers(j, w)
	for c, wt := range wts {
		row := m.tables[j][offs[c] : offs[c]+len(out)]
		for i := range out {
			out[i] += float64(wt * row[i]) // rounded as searchBlend does (no FMA)
		}
	}
	return out
}

// bentSample returns n points in d dimensions around a parabola, with
// heavy-tailed spread shrinking along the later axes.
func bentSample(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		a := rng.Float64()*4 - 2
		x.Set(i, 0, a)
		for j := 1; j < d; j++ {
			x.Set(i, j, 0.3*a*a/float64(j)+0.2*rng.NormFloat64()*rng.ExpFloat64()/float64(j))
		}
	}
	return x
}

// TestSearchBlend checks that the lazy search of the inverse metric finds
// exactly the segment, and the same blended values, as a binary search on
// the whole blended table, for responses inside and beyond the tables of
// a fitted 4-D model.
func TestSearchBlend(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(7, 8))
	x := bentSample(rng, 1500, d)
	o := DefaultOptions()
	o.Gamma = 1.0 / 3
	o.Resolution = 1 << 12
	m, err := Fit(x, o)
	if err != nil {
		t.Fatal(err)
	}
	w := m.newWork()
	u := make([]float64, d)
	for trial := 0; trial < 3000; trial++ {
		for a := range u {
			u[a] = m.lat.lo[a] + (rng.Float64()*1.2-0.1)*m.lat.width(a)
		}
		for j := 0; j < d; j++ {
			m.tableWeights(j, u, w)
			full := m.blendTable(j, w)
			v := full[0] + (rng.Float64()*1.4-0.2)*(full[len(full)-1]-full[0])
			if trial%10 == 0 {
				v = full[rng.IntN(len(full))] // on a node
			}
			want := searchSegment(full, v)
			i, t0, t1 := m.searchBlend(j, v, w)
			if i != want || t0 != full[i] || t1 != full[i+1] {
				t.Fatalf("axis %d, v %v: segment %d (%v, %v), whole table %d (%v, %v)", j, v, i, t0, t1, want, full[want], full[want+1])
			}
		}
		if trial == 1500 {
			// Flat runs, as saturated metrics have at the ends of their
			// tables: ties must resolve as in searchSegment.
			for j := 1; j < d; j++ {
				g := m.tnodes[j]
				for off := 0; off < len(m.tables[j]); off += g {
					f := m.tables[j][off : off+g]
					f[1], f[2] = f[0], f[0]
					f[g-2], f[g-3] = f[g-1], f[g-1]
					f[g/2+1] = f[g/2]
				}
			}
		}
	}
}

// gammaModels yields models fitted at gamma 0 (a separable metric) and
// 1/3 (a conditional one) to one bent d-dimensional sample of rng.
func gammaModels(t *testing.T, rng *rand.Rand, d int) iter.Seq2[float64, *Model] {
	x := bentSample(rng, 1500, d)
	return func(yield func(float64, *Model) bool) {
		for _, gamma := range []float64{0, 1.0 / 3} {
			o := DefaultOptions()
			o.Gamma = gamma
			o.Resolution = 1 << 12
			m, err := Fit(x, o)
			if err != nil {
				t.Fatal(err)
			}
			if !yield(gamma, m) {
				return
			}
		}
	}
}

// TestSameFibers checks that gamma 0 gives metric tables of one repeated
// fiber, read without blending, and that the reading agrees with the
// blend of 2^j fibers to rounding, forward and inverse; other gammas keep
// their conditional tables.
func TestSameFibers(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(9, 10))
	for gamma, m := range gammaModels(t, rng, d) {
		for j := 1; j < d; j++ {
			if m.sameFibers[j] != (gamma == 0) {
				t.Fatalf("gamma %v, axis %d: sameFibers %v", gamma, j, m.sameFibers[j])
			}
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		loaded, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(loaded.sameFibers, m.sameFibers) {
			t.Fatalf("gamma %v: loaded sameFibers %v, fitted %v", gamma, loaded.sameFibers, m.sameFibers)
		}
		if gamma != 0 {
			continue
		}
		blend := *m
		blend.sameFibers = make([]bool, d)
		w, wb := m.newWork(), blend.newWork()
		u, r, rb, back := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for trial := 0; trial < 2000; trial++ {
			for a := range u {
				u[a] = m.lat.lo[a] + (rng.Float64()*1.2-0.1)*m.lat.width(a)
			}
			m.lat.clampU(u)
			m.metricForward(u, r, w)
			blend.metricForward(u, rb, wb)
			for j := range r {
				if math.Abs(r[j]-rb[j]) > 1e-12*(1+math.Abs(rb[j])) {
					t.Fatalf("u %v: response %d is %v, blended %v", u, j, r[j], rb[j])
				}
			}
			// Where the table is at its floor the inverse is ill
			// conditioned in u, so the round trip is checked on responses.
			m.metricInverse(r, back, w)
			m.metricForward(back, rb, w)
			for j := range r {
				if math.Abs(r[j]-rb[j]) > 1e-12*(1+math.Abs(r[j])) {
					t.Fatalf("u %v: responses %v, after the inverse %v", u, r, rb)
				}
			}
		}
	}
}

// TestCompactFormat checks version 4 (WriteCompactTo): a gamma-0 model's
// repeated fibers are stored once, so the file is smaller than version 2's
// by most of its tables; the model read keeps one fiber, transforms and
// inverts bit-identically, and writes version 2's bytes again; a gamma-1/3
// model's tables are stored whole.
func TestCompactFormat(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(9, 10))
	x := bentSample(rng, 200, d)
	for gamma, m := range gammaModels(t, rng, d) {
		var full, compact, again bytes.Buffer
		if _, err := m.WriteTo(&full); err != nil {
			t.Fatal(err)
		}
		if _, err := m.WriteCompactTo(&compact); err != nil {
			t.Fatal(err)
		}
		loaded, err := Read(bytes.NewReader(compact.Bytes()))
		if err != nil {
			t.Fatalf("gamma %v: %v", gamma, err)
		}
		if _, err := loaded.WriteTo(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(full.Bytes(), again.Bytes()) {
			t.Fatalf("gamma %v: the compact file read back writes other version-2 bytes", gamma)
		}
		saved := 0
		for j := 1; j < d; j++ {
			saved += 8 * (len(m.tables[j]) - len(loaded.tables[j]))
		}
		// Version 4 adds a flag per table and the Neighbours option.
		if got := full.Len() - compact.Len(); got != saved-d-8 {
			t.Errorf("gamma %v: compact file %d bytes smaller, the repeated fibers are %d", gamma, got, saved)
		}
		if gamma == 0 && saved == 0 {
			t.Errorf("gamma 0: no fiber saved")
		}
		if gamma != 0 && saved != 0 {
			t.Errorf("gamma %v: %d bytes of conditional tables dropped", gamma, saved)
		}
		sameMaps(t, fmt.Sprintf("gamma %v: the compact model", gamma), m, loaded, x)
	}
}

// TestNeighbourDensity checks the k-neighbours rule on one fiber: exact on
// a uniform stretch, zero beyond the samples, and with the heavy tails
// (1/distance) that distinguish it from a kernel estimate.
func TestNeighbourDensity(t *testing.T) {
	const g = 400
	mass := make([]float64, g)
	for i := 100; i < 300; i++ {
		mass[i] = 1
	}
	p := make([]float64, g)
	neighbourDensity(mass, 0.1, p, make([]float64, g+1)) // k = 20 nodes' mass: window half-width 10
	for i := range p {
		switch {
		case i < 100 || i >= 300:
			if p[i] != 0 {
				t.Fatalf("node %d outside the samples: density %g, want 0", i, p[i])
			}
		case i >= 111 && i < 289:
			if math.Abs(p[i]-1) > 1e-12 {
				t.Fatalf("node %d on a uniform stretch: density %g, want 1", i, p[i])
			}
		}
	}
	// At the edge the window reaches inward only: twice as wide.
	if math.Abs(p[100]-20.0/(2*19.5)) > 1e-12 {
		t.Errorf("edge node: density %g, want %g", p[100], 20.0/(2*19.5))
	}

	// Laplace sample, linearly binned: the estimate follows the density
	// in the bulk and exceeds it by far in the sparse tail.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range mass {
		mass[i] = 0
	}
	const n, scale = 20000, 20.0 // nodes per unit of the Laplace scale
	for i := 0; i < n; i++ {
		v := 200 + scale*rng.ExpFloat64()*float64(1-2*rng.IntN(2))
		if v < 0 || v > g-1 {
			continue
		}
		k := int(v)
		f := v - float64(k)
		mass[k] += 1 - f
		if k+1 < g {
			mass[k+1] += f
		}
	}
	neighbourDensity(mass, 0.05, p, make([]float64, g+1))
	truth := func(i int) float64 { return n / (2 * scale) * math.Exp(-math.Abs(float64(i)-200)/scale) }
	for _, i := range []int{180, 185, 215, 230} {
		if rel := p[i]/truth(i) - 1; math.Abs(rel) > 0.15 {
			t.Errorf("node %d in the bulk: density %.1f, true %.1f", i, p[i], truth(i))
		}
	}
	last := 0
	for i := range mass {
		if mass[i] > 0 {
			last = i
		}
	}
	if ratio := p[last] / truth(last); ratio < 10 {
		t.Errorf("last sample (node %d): density %.3g only %.1f× the true %.3g; want heavy tails", last, p[last], ratio, truth(last))
	} else {
		t.Logf("last sample (node %d): k-neighbours density %.1f× the true one", last, ratio)
	}
}

// TestLevelInverse checks that the per-level inverse of a gamma-0 model
// gives exactly Inverse of the levels, with levels inside, at and beyond
// the ends of the responses' range (clamped), and that a model whose
// metric is conditional has none; in 3 dimensions and in 4 (invert4's
// path, the 4×4 codec's).
func TestLevelInverse(t *testing.T) {
	for _, d := range []int{3, 4} {
		testLevelInverse(t, d)
	}
}

func testLevelInverse(t *testing.T, d int) {
	rng := rand.New(rand.NewPCG(11, uint64(d)))
	for gamma, m := range gammaModels(t, rng, d) {
		c := m.Scale()
		levels := make([][]float64, d)
		for j := range levels {
			for b := 0; b < 40; b++ {
				levels[j] = append(levels[j], c[j]*(float64(b)/39*1.4-0.2))
			}
		}
		inv, ok := m.LevelInverse(levels)
		if ok != (gamma == 0) {
			t.Fatalf("gamma %v: separable %v", gamma, ok)
		}
		if !ok {
			continue
		}
		b := make([]int, d)
		r := make([]float64, d)
		got, want := make([]float64, d), make([]float64, d)
		const trials = 2000
		inside := 0 // trials invert4 answered
		for trial := 0; trial < trials; trial++ {
			for j := range b {
				b[j] = rng.IntN(len(levels[j]))
				r[j] = levels[j][b[j]]
			}
			inv.Invert(got, b, nil)
			if err := m.Inverse(want, r); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("d %d, levels %v: %v, Inverse %v", d, b, got, want)
			}
			var g4 [4]float64
			if d == 4 && m.lat.reduce && inv.invert4(&g4, (*[4]int)(b)) {
				inside++
				if !slices.Equal(g4[:], want) {
					t.Fatalf("levels %v: invert4 %v, Inverse %v", b, g4, want)
				}
			}
		}
		if d == 4 && inside < trials/10 { // ~23 %: levels beyond the ends leave the lattice
			t.Errorf("invert4 answered %d of %d trials: its path is not tested", inside, trials)
		}
	}
}

// TestSnappedFormat checks version 6 (SnapLattice, then WriteCompactTo):
// the snapped lattice moves by at most half the resolution, is read back
// exactly (the model read writes the same version-2 and version-6 bytes,
// transforms and inverts bit-identically), with and without typical
// responses; snapping twice changes nothing; and the file is smaller than
// version 4's.
func TestSnappedFormat(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(11, 12))
	x := bentSample(rng, 200, d)
	for gamma, m := range gammaModels(t, rng, d) {
		for _, typical := range []bool{false, true} {
			if typical {
				r, _, err := m.TransformBatch(x)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.SetTypical(r); err != nil {
					t.Fatal(err)
				}
			}
			var before bytes.Buffer
			m.WriteCompactTo(&before)
			old := append([]float64(nil), m.lat.x...)
			const eps = 1e-4
			if err := m.SnapLattice(eps); err != nil {
				t.Fatal(err)
			}
			for i, v := range m.lat.x {
				if math.Abs(v-old[i])*m.scale > eps/2 {
					t.Fatalf("gamma %v: node value %d moved by %g, more than %g", gamma, i, (v-old[i])*m.scale, eps/2)
				}
			}
			snapped := append([]float64(nil), m.lat.x...)
			if err := m.SnapLattice(eps); err != nil || !slices.Equal(snapped, m.lat.x) {
				t.Fatalf("gamma %v: snapping twice changed the lattice (%v)", gamma, err)
			}
			var full, compact, again, again6 bytes.Buffer
			m.WriteTo(&full)
			if _, err := m.WriteCompactTo(&compact); err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint32(compact.Bytes()[8:]); v != versionSnapped {
				t.Fatalf("gamma %v: snapped model written in version %d", gamma, v)
			}
			if !typical && compact.Len() >= before.Len() { // (then m is snapped already)
				t.Errorf("gamma %v: version 6 file of %d bytes, version 4/5 %d", gamma, compact.Len(), before.Len())
			}
			t.Logf("gamma %v typical %v: %d bytes, before %d", gamma, typical, compact.Len(), before.Len())
			loaded, err := Read(bytes.NewReader(compact.Bytes()))
			if err != nil {
				t.Fatalf("gamma %v: %v", gamma, err)
			}
			if (loaded.typical != nil) != typical || !slices.Equal(loaded.lat.positions(), m.lat.x) {
				t.Fatalf("gamma %v: typical %v, lattice read back differs", gamma, typical)
			}
			if (loaded.lat.x32 != nil) != (d > 1) {
				t.Fatalf("gamma %v: d = %d, lattice read as float32: %v", gamma, d, loaded.lat.x32 != nil)
			}
			// A reader of unknown length decodes the lattice through the
			// int64 scratch (intPlane), a bytes.Reader straight into the
			// floats (floatPlane): the same values.
			streamed, err := Read(struct{ io.Reader }{bytes.NewReader(compact.Bytes())})
			if err != nil || !slices.Equal(streamed.lat.positions(), m.lat.x) {
				t.Fatalf("gamma %v: lattice read from a stream differs (%v)", gamma, err)
			}
			loaded.WriteTo(&again)
			loaded.WriteCompactTo(&again6)
			if !bytes.Equal(full.Bytes(), again.Bytes()) || !bytes.Equal(compact.Bytes(), again6.Bytes()) {
				t.Fatalf("gamma %v: the model read back writes other bytes", gamma)
			}
			// Through a reader that does not tell its size.
			if _, err := Read(io.MultiReader(bytes.NewReader(compact.Bytes()))); err != nil {
				t.Fatalf("gamma %v: %v", gamma, err)
			}
			for cut := 0; cut < compact.Len(); cut += 1 + compact.Len()/50 {
				if _, err := Read(bytes.NewReader(compact.Bytes()[:cut])); err == nil {
					t.Fatalf("gamma %v: truncated at %d: no error", gamma, cut)
				}
			}
			sameMaps(t, fmt.Sprintf("gamma %v: the snapped model read back", gamma), m, loaded, x)
		}
	}
	if err := (&Model{scale: 1}).SnapLattice(0); err == nil {
		t.Error("resolution 0 accepted")
	}
}

// sameMaps fails the test unless got transforms x and inverts the
// responses exactly as want does (a model read back from a file must
// be the model written).
func sameMaps(t *testing.T, what string, want, got *Model, x mat.Matrix) {
	t.Helper()
	r1, _, err1 := want.TransformBatch(x)
	r2, _, err2 := got.TransformBatch(x)
	if err1 != nil || err2 != nil || !mat.Equal(r1, r2) {
		t.Fatalf("%s transforms differently (%v, %v)", what, err1, err2)
	}
	x1, _ := want.InverseBatch(r1)
	x2, _ := got.InverseBatch(r1)
	if !mat.Equal(x1, x2) {
		t.Fatalf("%s inverts differently", what)
	}
}

// BenchmarkLevelInverse times Invert (the codec's inversion of a leading
// cell) against the route through eval it replaces inside the lattice,
// on a 4-D gamma-0 model with 40 levels per axis.
func BenchmarkLevelInverse(b *testing.B) {
	const d = 4
	rng := rand.New(rand.NewPCG(17, 18))
	o := DefaultOptions()
	o.Gamma, o.Resolution = 0, 1<<12
	m, err := Fit(bentSample(rng, 1500, d), o)
	if err != nil {
		b.Fatal(err)
	}
	c := m.Scale()
	levels := make([][]float64, d)
	for j := range levels {
		for l := 0; l < 40; l++ {
			levels[j] = append(levels[j], c[j]*float64(l)/39)
		}
	}
	inv, ok := m.LevelInverse(levels)
	if !ok {
		b.Fatal("not separable")
	}
	cells := make([][]int, 256)
	for i := range cells {
		cells[i] = []int{rng.IntN(40), rng.IntN(40), rng.IntN(40), rng.IntN(40)}
	}
	s, dst := m.NewMetricScratch(), make([]float64, d)
	b.Run("eval", func(b *testing.B) {
		for i := range b.N {
			inv.invertEval(dst, cells[i&255], s.w)
		}
	})
	b.Run("tables", func(b *testing.B) {
		for i := range b.N {
			inv.Invert(dst, cells[i&255], s)
		}
	})
}

// TestUnfoldedResponses checks that the responses ResponseWork computes
// from UnfoldedBatch's coordinates are TransformBatch's bit for bit, at
// the model's scale and, from the same coordinates, at another one
// (WithScale), for gamma 0 and 1/3, on samples inside and beyond the
// training range.
func TestUnfoldedResponses(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(21, 22))
	x := bentSample(rng, 300, d)
	for i := 0; i < 30; i++ {
		x.Set(i, 0, 3*x.At(i, 0)) // beyond the lattice
	}
	for gamma, m := range gammaModels(t, rng, d) {
		u, err := m.UnfoldedBatch(x)
		if err != nil {
			t.Fatal(err)
		}
		other, err := m.WithScale([]float64{7.5, 0.3, 130})
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range []*Model{m, other} {
			want, _, err := mm.TransformBatch(x)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, d)
			s := mm.NewMetricScratch()
			for i := range 300 {
				mm.ResponseWork(got, u.RawRowView(i), s)
				for j, v := range got {
					if math.Float64bits(v) != math.Float64bits(want.At(i, j)) {
						t.Fatalf("gamma %g scale %v row %d: response %d %v from the unfolded coordinates, TransformBatch %v", gamma, mm.Scale(), i, j, v, want.At(i, j))
					}
				}
			}
		}
	}
}

// metricForward4, the d = 4 path of a gamma 0 model, gives
// metricForwardAny's bits at points across the lattice, beyond it within
// the clamp and at its nodes (a model of gamma 1/3 keeps the general
// path).
func TestMetricForward4(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(24, 10))
	for gamma, m := range gammaModels(t, rng, d) {
		w := m.newWork()
		u, r, rb := make([]float64, d), make([]float64, d), make([]float64, d)
		for trial := range 5000 {
			for a := range u {
				u[a] = m.lat.lo[a] + (rng.Float64()*3-1)*m.lat.width(a)
				if trial%7 == 0 {
					u[a] = m.lat.lo[a] + float64(rng.IntN(m.tnodes[a]))*m.tstep[a]
				}
			}
			m.lat.clampU(u)
			m.metricForward(u, r, w)
			m.metricForwardAny(u, rb, w)
			if !equalBits(r, rb) {
				t.Fatalf("gamma %v, u %v: responses %v, metricForwardAny %v", gamma, u, r, rb)
			}
		}
	}
}

// newtonStep4, NewtonStep's d = 4 path, gives newtonStepAny's bits (the
// new coordinates, the step's length and whether it is trusted) from
// points near and far from the unfolding of samples, inside the lattice
// and beyond it, for models of gamma 0 and 1/3.
func TestNewtonStep4(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(24, 11))
	for gamma, m := range gammaModels(t, rng, d) {
		s := m.NewMetricScratch()
		x := make([]float64, d)
		ua, ub := make([]float64, d), make([]float64, d)
		refused := 0
		for trial := range 3000 {
			for k := range x {
				x[k] = m.mean[k] + m.scale*rng.NormFloat64()
			}
			if _, err := m.Unfold(ua, x); err != nil {
				t.Fatal(err)
			}
			for k := range ua {
				ua[k] += m.scale * rng.NormFloat64() * math.Ldexp(1, -rng.IntN(12))
				if trial%10 == 0 {
					ua[k] = m.scale * 10 * rng.NormFloat64() // beyond the clamp
				}
			}
			copy(ub, ua)
			sa, oka := m.NewtonStep(ua, x, s)
			sb, okb := m.newtonStepAny(ub, x, s.w)
			if oka != okb || math.Float64bits(sa) != math.Float64bits(sb) || !equalBits(ua, ub) {
				t.Fatalf("gamma %v, trial %d: newtonStep4 %v %v %v, newtonStepAny %v %v %v", gamma, trial, ua, sa, oka, ub, sb, okb)
			}
			if !oka {
				refused++
			}
		}
		if refused == 0 || refused == 3000 {
			t.Fatalf("gamma %v: %d of 3000 steps refused", gamma, refused)
		}
	}
}
