package codec

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// TestRestTableLayout checks the field offsets restindex_amd64.s reads
// (amd64's: elsewhere no kernel reads them, and 32-bit slices and ints
// are smaller).
func TestRestTableLayout(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the kernel is amd64's")
	}
	var rt restTable
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"lo", unsafe.Offsetof(rt.lo), 0}, {"scale", unsafe.Offsetof(rt.scale), 24}, {"last", unsafe.Offsetof(rt.last), 48},
		{"firstAt", unsafe.Offsetof(rt.firstAt), 72}, {"tAt", unsafe.Offsetof(rt.tAt), 96},
		{"first", unsafe.Offsetof(rt.first), 120}, {"t", unsafe.Offsetof(rt.t), 144}, {"steps", unsafe.Offsetof(rt.steps), 168},
		{"near", unsafe.Offsetof(rt.near), 176}, {"base", unsafe.Offsetof(rt.base), 200},
	} {
		if f.got != f.want {
			t.Errorf("restTable.%s at %d, the kernel reads it at %d", f.name, f.got, f.want)
		}
	}
}

// restFinders returns n finders of dead-zone quantisers like a model's
// rest (thresholds ±(z + m·step) of varied lengths), and with irregular
// a few others: one threshold, none, all equal, unevenly spaced.
func restFinders(rng *rand.Rand, n int, irregular bool) []cellFinder {
	fs := make([]cellFinder, n)
	for j := range fs {
		var t []float64
		kind := j % 11
		if !irregular {
			kind = 0
		}
		switch kind {
		case 3:
			t = []float64{rng.NormFloat64()}
		case 5:
			t = nil
		case 7:
			t = []float64{2, 2, 2}
		case 9:
			v := -50.0
			for range 2 + rng.IntN(30) {
				v += rng.ExpFloat64() * 7
				t = append(t, v)
			}
		default:
			step, z := 10+rng.Float64()*30, 0.6+rng.Float64()
			m := 1 + rng.IntN(30)
			for q := m - 1; q >= 0; q-- {
				t = append(t, -(z+float64(q))*step)
			}
			for q := range m {
				t = append(t, (z+float64(q))*step)
			}
		}
		fs[j] = newCellFinder(t)
	}
	return fs
}

// TestRestIndices checks restIndices (the AVX2 kernel where the machine
// has it) against cellFinder.index value by value: random values, the
// thresholds themselves and their neighbours, far outside, ±Inf and NaN.
func TestRestIndices(t *testing.T) {
	if !hasGather {
		t.Log("no AVX2: checks the Go loop only")
	}
	rng := rand.New(rand.NewPCG(7, 24))
	for _, c := range []struct {
		n         int
		irregular bool
	}{{1, false}, {4, false}, {7, false}, {12, false}, {60, false}, {61, false}, {4, true}, {60, true}} {
		n, fs := c.n, restFinders(rng, c.n, c.irregular)
		rt := newRestTable(fs)
		if !c.irregular && rt == nil {
			t.Fatalf("%d dead-zone quantisers: no restTable", n)
		}
		row, got := make([]float64, n), make([]int32, n)
		for trial := range 3000 {
			for j, f := range fs {
				switch r := rng.IntN(10); {
				case r < 5 || len(f.t) == 0:
					row[j] = rng.NormFloat64() * 80
				case r < 8:
					x := f.t[rng.IntN(len(f.t))]
					row[j] = []float64{x, math.Nextafter(x, math.Inf(1)), math.Nextafter(x, math.Inf(-1))}[rng.IntN(3)]
				default:
					row[j] = []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, 0, math.Copysign(0, -1)}[rng.IntN(7)]
				}
			}
			restIndices(got, row, fs, rt)
			for j, f := range fs {
				if want := int32(f.index(row[j])); got[j] != want {
					t.Fatalf("%d dims, trial %d: dimension %d, value %v: index %d, want %d (thresholds %v)", n, trial, j, row[j], got[j], want, f.t)
				}
			}
		}
	}
}

// TestRestIndicesDeadZone is TestRestIndices on rows whose values mostly
// lie in or next to their dead zones (as a photograph's rest coefficients
// do), so that most groups of four take the kernel's test of the window
// of three cells (restTable.near): values inside, the window's bounds and
// middle thresholds and their neighbours, and now and then a value
// elsewhere, ±Inf, NaN or ±0.
func TestRestIndicesDeadZone(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 31))
	for _, c := range []struct {
		n         int
		irregular bool
	}{{4, false}, {8, false}, {60, false}, {63, false}, {60, true}} {
		n, fs := c.n, restFinders(rng, c.n, c.irregular)
		rt := newRestTable(fs)
		if rt == nil {
			t.Fatalf("%d quantisers: no restTable", n)
		}
		row, got := make([]float64, n), make([]int32, n)
		inside := 0 // groups of four all within their windows
		for trial := range 3000 {
			for j := range fs {
				g := j / 4 * 16
				lo, hi, m1, m2 := rt.near[g+j%4], rt.near[g+4+j%4], rt.near[g+8+j%4], rt.near[g+12+j%4]
				switch r := rng.IntN(40); {
				case r < 30 && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && lo < hi:
					row[j] = lo + (hi-lo)*rng.Float64()
				case r < 30:
					row[j] = rng.NormFloat64() * 30
				case r < 37:
					x := []float64{lo, hi, m1, m2}[rng.IntN(4)]
					row[j] = []float64{x, math.Nextafter(x, math.Inf(1)), math.Nextafter(x, math.Inf(-1))}[rng.IntN(3)]
				case r < 38:
					row[j] = rng.NormFloat64() * 200
				default:
					row[j] = []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1)}[rng.IntN(5)]
				}
			}
			restIndices(got, row, fs, rt)
			for g := 0; g+4 <= n; g += 4 {
				in := true
				for j := g; j < g+4; j++ {
					in = in && rt.near[4*g+j-g] < row[j] && row[j] <= rt.near[4*g+4+j-g]
				}
				if in {
					inside++
				}
			}
			for j, f := range fs {
				if want := int32(f.index(row[j])); got[j] != want {
					t.Fatalf("%d dims, trial %d: dimension %d, value %v: index %d, want %d (thresholds %v)", n, trial, j, row[j], got[j], want, f.t)
				}
			}
		}
		if groups := 3000 * (n / 4); inside < groups/10 {
			t.Errorf("%d dims: %d of %d groups within their windows: the test misses the kernel's shortcut", n, inside, groups)
		}
	}
}

// BenchmarkRestIndices times restIndices on rows of 60 dead-zone
// quantisers (an 8×8 model's rest) against cellFinder.index's loop.
func BenchmarkRestIndices(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 24))
	fs := restFinders(rng, 60, false)
	rt := newRestTable(fs)
	rows := make([][]float64, 1024)
	for i := range rows {
		rows[i] = make([]float64, len(fs))
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64() * 30 / float64(1+j/8)
		}
	}
	out := make([]int32, len(fs))
	b.Run("kernel", func(b *testing.B) {
		for i := range b.N {
			restIndices(out, rows[i%len(rows)], fs, rt)
		}
	})
	b.Run("go", func(b *testing.B) {
		for i := range b.N {
			restIndices(out, rows[i%len(rows)], fs, nil)
		}
	})
}
