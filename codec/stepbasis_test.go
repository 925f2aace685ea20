package codec

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"
)

// TestSteppedBasis checks that a model Stepped derives from the step
// basis (sorted columns, responses at unit scale) holds bit for bit the
// quantisers, bins, centres and SPCA scales of deriving it from the whole
// training sample at that step (derive's reference path, the code before
// the basis): for an 8×8 and a 4×4 gamma-0 model, a 2×2 one whose
// dimensions all lead (gamma 1/3), a colour model and a PCA-only one,
// each trained and read back from its file (integer sample), at steps
// finer and coarser than their own.
func TestSteppedBasis(t *testing.T) {
	ms := append([]*Model(nil), reuseTestModels(t)...)
	col := smallColorModel(t, true)
	pca, err := PCABaseline(col)
	if err != nil {
		t.Fatal(err)
	}
	ms = append(ms, col, pca)
	for i, m0 := range ms {
		models := []*Model{m0}
		if m0 != pca { // WriteTo refuses a PCA baseline
			var b bytes.Buffer
			if _, err := m0.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			back, err := ReadModel(&b)
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, back)
		}
		for j, m := range models {
			for _, f := range []float64{0.13, 0.5, 0.77, 1.9, 4.3, 31} {
				name := fmt.Sprintf("model%d/read%d/step×%g", i, j, f)
				step := m.Step * f
				m.stepMu.Lock()
				fast, errF := m.derive(step, true)
				slow, errS := m.derive(step, false)
				m.stepMu.Unlock()
				if (errF == nil) != (errS == nil) {
					t.Fatalf("%s: errors %v and %v", name, errF, errS)
				}
				if errF != nil {
					continue
				}
				for ci, c := range fast.Channels {
					if c.basis == nil || c.basis.rest == nil && c.Dims() > c.Leading() {
						t.Fatalf("%s: channel %d derived without its basis", name, ci)
					}
					if d := channelDiff(c, slow.Channels[ci]); d != "" {
						t.Errorf("%s channel %d: %s", name, ci, d)
					}
				}
			}
		}
	}
}

// channelDiff describes the first difference of a's and b's quantisers,
// bins, centres and SPCA scales ("" if none).
func channelDiff(a, b *Channel) string {
	if !slices.Equal(a.Bins, b.Bins) {
		return fmt.Sprintf("bins %v, want %v", a.Bins, b.Bins)
	}
	if !slices.Equal(a.Centre, b.Centre) {
		return fmt.Sprintf("centre %v, want %v", a.Centre, b.Centre)
	}
	if a.SPCA != nil && !bitsEqual(a.SPCA.Scale(), b.SPCA.Scale()) {
		return fmt.Sprintf("SPCA scale %v, want %v", a.SPCA.Scale(), b.SPCA.Scale())
	}
	qa := append(append([]*ScalarQuantizer(nil), a.Lead...), a.Rest...)
	qb := append(append([]*ScalarQuantizer(nil), b.Lead...), b.Rest...)
	if len(qa) != len(qb) {
		return fmt.Sprintf("%d quantisers, want %d", len(qa), len(qb))
	}
	for j := range qa {
		if !bitsEqual(qa[j].Levels, qb[j].Levels) || !bitsEqual(qa[j].Thresholds, qb[j].Thresholds) {
			return fmt.Sprintf("dimension %d: quantiser %v / %v, want %v / %v", j, qa[j].Levels, qa[j].Thresholds, qb[j].Levels, qb[j].Thresholds)
		}
	}
	return ""
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestRadixSort sorts random integers of small and full spans, with
// duplicates and the extremes of int32, as slices.Sort does.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, span := range []int64{1, 2, 255, 256, 70000, 1 << 24, 1 << 32} {
		for _, n := range []int{0, 1, 2, 17, 5000} {
			x := make([]int32, n)
			for i := range x {
				x[i] = int32(rng.Int64N(span) - span/2) // span 2^32: all of int32
			}
			if n > 2 {
				x[0], x[1] = math.MaxInt32, math.MinInt32
				if span < 1<<32 {
					x[0], x[1] = x[2], x[2]
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			radixSort(x, make([]int32, n))
			if !slices.Equal(x, want) {
				t.Fatalf("span %d, %d values: not sorted as slices.Sort sorts", span, n)
			}
		}
	}
}

// BenchmarkStepped derives a model at a new step from the 4×4 and 8×8
// models of TestSteppedBasis read from their files: "first" is a
// process's first step (the basis built, the sample unfolded), "next"
// every further one, with their CPU time (cpu-ms/op; the wall time counts
// waits on a loaded machine). SPCA_BENCH_MODEL names a model file to use
// instead.
func BenchmarkStepped(b *testing.B) {
	models := reuseTestModels(b)[:2]
	if p := os.Getenv("SPCA_BENCH_MODEL"); p != "" {
		m, err := LoadModel(p)
		if err != nil {
			b.Fatal(err)
		}
		models = []*Model{m}
	}
	for _, m0 := range models {
		var file bytes.Buffer
		if _, err := m0.WriteTo(&file); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dx%d/first", m0.Patch, m0.Patch), func(b *testing.B) {
			var cpu time.Duration
			for n := 0; n < b.N; n++ {
				b.StopTimer()
				m, err := ReadModel(bytes.NewReader(file.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				c0 := processCPU()
				if _, err := m.Stepped(m.Step * 0.6); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU() - c0
			}
			b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/op")
		})
		b.Run(fmt.Sprintf("%dx%d/next", m0.Patch, m0.Patch), func(b *testing.B) {
			m, err := ReadModel(bytes.NewReader(file.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.Stepped(m.Step * 2); err != nil { // the basis
				b.Fatal(err)
			}
			b.ResetTimer()
			c0 := processCPU()
			for n := 0; n < b.N; n++ {
				if _, err := m.Stepped(m.Step * (0.5 + float64(n%1000)/1000)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((processCPU()-c0).Seconds()*1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestSelectNth checks quickselect against sorting, with many duplicates
// and sorted, reversed and constant inputs.
func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 10, 1001, 20000} {
		for kind := 0; kind < 4; kind++ {
			x := make([]float64, n)
			for i := range x {
				switch kind {
				case 0:
					x[i] = rng.NormFloat64()
				case 1:
					x[i] = float64(rng.IntN(5))
				case 2:
					x[i] = float64(n - i)
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			for _, i := range []int{0, n / 2, (n - 1) / 2, n - 1} {
				y := slices.Clone(x)
				if got := selectNth(y, i); got != want[i] || slices.Max(y[:i+1]) != got || slices.Min(y[i:]) != got {
					t.Fatalf("n %d, kind %d: element %d is %v, want %v, or not partitioned", n, kind, i, got, want[i])
				}
			}
		}
	}
}
