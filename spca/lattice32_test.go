package spca

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// float32Lattice returns randomLattice's lattice with positions a float32
// holds, with all 24 bits of mantissa used (float32 arithmetic would
// round them), and the same lattice with them in x32.
func float32Lattice(rng *rand.Rand, d int) (wide, narrow *lattice) {
	wide = randomLattice(rng, d)
	for i := range wide.x {
		wide.x[i] = math.Ldexp(float64(1<<23+rng.IntN(1<<23)), -23-rng.IntN(4))
		if rng.IntN(2) == 0 {
			wide.x[i] = -wide.x[i]
		}
	}
	return wide, narrowed(wide)
}

// narrowed returns a copy of l with its positions in x32 (l's must be
// exact there).
func narrowed(l *lattice) *lattice {
	n := *l
	n.x, n.x32 = nil, make([]float32, len(l.x))
	for i, v := range l.x {
		n.x32[i] = float32(v)
	}
	return &n
}

// A lattice with its positions in float32 (x32) evaluates as the same
// lattice in float64, bit for bit: eval with and without the Jacobian
// inside, beyond and far beyond the lattice (evalCell4 and its kernels
// for d = 4, evalCellReduce up to 4, evalCellCorners above and with an
// axis of one node), fiber along every axis, node and positions (with
// the AVX kernels where the CPU has them: TestCell4Kernels32 compares
// them with the portable ones).
func TestLattice32(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 32))
	for d := 1; d <= 6; d++ {
		for single := range 2 {
			wide, narrow := float32Lattice(rng, d)
			if single == 1 { // an axis of one node: evalCellCorners
				j := rng.IntN(d)
				wide.g[j] = 1
				wide.setStrides()
				wide.x = wide.x[:wide.size()*d]
				narrow = narrowed(wide)
			}
			if !slices.Equal(narrow.positions(), wide.x) {
				t.Fatalf("d=%d: positions widened differ", d)
			}
			a, b := make([]float64, 16), make([]float64, 16)
			for i := range wide.size() {
				wide.node(i, a[:d])
				narrow.node(i, b[:d])
				if !equalBits(a[:d], b[:d]) || !equalBits(a[:d], wide.x[i*d:i*d+d]) {
					t.Fatalf("d=%d: node %d: %v, float32 %v", d, i, a[:d], b[:d])
				}
			}
			testLattice32(t, rng, d, wide, narrow)
		}
	}
}

func testLattice32(t *testing.T, rng *rand.Rand, d int, wide, narrow *lattice) {
	t.Helper()
	u := make([]float64, d)
	a, b := make([]float64, d), make([]float64, d)
	ja, jb := make([]float64, d*d), make([]float64, d*d)
	ia, ib := make([]int, d), make([]int, d)
	fa, fb := make([]float64, d), make([]float64, d)
	fibA, fibB := make([]float64, 6*d), make([]float64, 6*d)
	for trial := range 3000 {
		for j := range u {
			w := wide.width(j)
			switch rng.IntN(6) {
			case 0: // a node
				u[j] = wide.lo[j] + float64(rng.IntN(wide.g[j]))*wide.step[j]
			case 1: // beyond, within the extrapolation range
				u[j] = wide.lo[j] - w*rng.Float64()
			case 2: // far beyond
				u[j] = wide.lo[j] + w*(2+rng.Float64())*float64(2*rng.IntN(2)-1)
			default:
				u[j] = wide.lo[j] + w*rng.Float64()
			}
		}
		var jacA, jacB []float64
		if trial%3 > 0 {
			jacA, jacB = ja, jb
		}
		wide.eval(u, a, jacA, ia, fa)
		narrow.eval(u, b, jacB, ib, fb)
		if !equalBits(a, b) || jacA != nil && !equalBits(ja, jb) || !slices.Equal(ia, ib) || !equalBits(fa, fb) {
			t.Fatalf("d=%d trial %d at %v: float64 %v %v, float32 %v %v", d, trial, u, a, ja, b, jb)
		}
		j := rng.IntN(d)
		wide.fiber(j, u, fibA, ia, fa)
		narrow.fiber(j, u, fibB, ib, fb)
		if n := wide.g[j] * d; !equalBits(fibA[:n], fibB[:n]) {
			t.Fatalf("d=%d trial %d: fiber %d: float64 %v, float32 %v", d, trial, j, fibA[:n], fibB[:n])
		}
	}
}

// readSnapped returns m snapped (a copy: m is left as it is) and the
// model read from its compact file.
func readSnapped(t *testing.T, m *Model) (snapped, read *Model) {
	t.Helper()
	var full, compact bytes.Buffer
	if _, err := m.WriteTo(&full); err != nil {
		t.Fatal(err)
	}
	snapped, err := Read(&full)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapped.SnapLattice(1.0 / 128); err != nil {
		t.Fatal(err)
	}
	if _, err := snapped.WriteCompactTo(&compact); err != nil {
		t.Fatal(err)
	}
	if read, err = Read(&compact); err != nil {
		t.Fatal(err)
	}
	return snapped, read
}

// A snapped lattice is read as float32 where its integers are below
// 2^24 and as float64 where one is not (2^24 + 1 rounds in float32; 2^24
// itself, Scale32's bound, and 2^52, the largest SnapLattice stores), in
// either case with the positions written; the model read writes the same
// bytes. No float32 can overflow: validRes bounds the resolution to
// 2^-60..2^10, so the positions read as float32 are below 2^34.
func TestSnappedFloat32Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	for _, m := range gammaModels(t, rng, 3) {
		for _, big := range []float64{1<<24 - 1, -(1<<24 - 1), 1 << 24, -(1 << 24), 1<<24 + 1, -(1<<24 + 1), 1 << 52, -(1 << 52)} {
			s, _ := readSnapped(t, m)
			// The largest integer in a later coordinate than the first:
			// the coordinates read as float32 before it are widened.
			i := 3*rng.IntN(s.lat.size()) + 1 + rng.IntN(2)
			s.lat.x[i] = big * s.latRes
			var b, again bytes.Buffer
			if _, err := s.WriteCompactTo(&b); err != nil {
				t.Fatal(err)
			}
			// A bytes.Reader (the whole lattice through the integer
			// scratch) and a bytes.Buffer (Next: a slab of axis 0 at a
			// time, snappedSlabs).
			for _, rd := range []io.Reader{bytes.NewReader(b.Bytes()), bytes.NewBuffer(b.Bytes())} {
				r, err := Read(rd)
				if err != nil {
					t.Fatal(err)
				}
				if exact := math.Abs(big) < 1<<24; (r.lat.x32 != nil) != exact {
					t.Fatalf("%T: integer %v at %d: read as float32 %v", rd, big, i, r.lat.x32 != nil)
				}
				if !slices.Equal(r.lat.positions(), s.lat.x) {
					t.Fatalf("%T: integer %v at %d: positions read differ", rd, big, i)
				}
				again.Reset()
				if r.WriteCompactTo(&again); !bytes.Equal(again.Bytes(), b.Bytes()) {
					t.Fatalf("%T: integer %v: the model read writes other bytes", rd, big)
				}
			}
		}
		break // one model
	}
}

// A model read with float32 positions can be snapped again, and so can
// its metric refitted (both change positions in place: they widen them
// first); the refit shares the read model's float32 positions, which
// stay as they were.
func TestSnapFloat32Model(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	for _, m := range gammaModels(t, rng, 3) {
		s, r := readSnapped(t, m)
		if r.lat.x32 == nil {
			t.Fatal("snapped lattice not read as float32")
		}
		keep := slices.Clone(r.lat.x32)
		refit, err := r.RefitMetric(bentSample(rng, 300, 3))
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range []*Model{refit, r} {
			if err := mm.SnapLattice(1.0 / 128); err != nil || mm.lat.x32 != nil || !slices.Equal(mm.lat.x, s.lat.x) {
				t.Fatalf("snapping a model read (or its refit) again: %v, not widened or moved", err)
			}
			if mm == refit && !slices.Equal(r.lat.x32, keep) {
				t.Fatal("snapping the refit changed the read model's positions")
			}
		}
		break // one model
	}
}
