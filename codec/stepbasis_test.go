package codec

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
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

// TestSteppedBasisCells checks the centres of the basis where
// TestSteppedBasis cannot: a centre is the mode of a dimension's cells,
// which stays put when a few samples move across a cell's edge. Here the
// quantisers of a derived channel are replaced by ones whose thresholds
// sit exactly at training values, so that the mode turns on them, and
// centreFromBasis must give the centres prepare counts from the sample:
//   - an SPCA dimension: a threshold at each training response in turn,
//     the cell ending there one sample fuller than the next and every other
//     cell smaller (caught: the responses at unit scale taken from
//     MetricWork over the scale, equal within an ulp, ~1 % of them not bit
//     for bit; TestSteppedBasis passed with them);
//   - the rest: thresholds at every second or third distinct value of a
//     column, cells of two or three runs ending at the threshold (caught:
//     a run equal to its cell's threshold counted apart, `v < t`).
//
// It also checks the basis's stated rule: at scale c, ResponseWork gives
// c_j times its responses at unit scale, bit for bit.
func TestSteppedBasisCells(t *testing.T) {
	const upper, chunk = 12, 6 // cells: the upper neighbour's and every other's samples
	for mi, m := range reuseTestModels(t) {
		m.stepMu.Lock()
		d, err := m.derive(m.Step*0.77, true)
		m.stepMu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		for ci, c := range d.Channels {
			k, bs := c.Leading(), c.basis
			if c.SPCA == nil || k == 0 || c.Lead == nil {
				continue
			}
			u, err := c.fastFrom.unfoldedSample()
			if err != nil {
				t.Fatal(err)
			}
			scale := c.SPCA.Scale()
			ms := c.SPCA.NewMetricScratch()
			r := make([]float64, k)
			for i := 0; i < bs.n; i++ {
				c.SPCA.ResponseWork(r, u.RawRowView(i), ms)
				for j, v := range r {
					if w := scale[j] * bs.resp[i*k+j]; math.Float64bits(v) != math.Float64bits(w) {
						t.Fatalf("model %d channel %d row %d dim %d: ResponseWork %v, scale × basis response %v", mi, ci, i, j, v, w)
					}
				}
			}
			lead0, bins0 := slices.Clone(c.Lead), slices.Clone(c.Bins)
			checked := 0
			for j := 0; j < k; j++ {
				vals := make([]float64, bs.n)
				for i := range vals {
					vals[i] = scale[j] * bs.resp[i*k+j]
				}
				slices.Sort(vals)
				for p := upper + 1; p+upper+1 < bs.n; p++ {
					if vals[p] == vals[p+1] || vals[p-upper-1] == vals[p-upper] || vals[p+upper] == vals[p+upper+1] {
						continue // the cells would not hold the counts planned
					}
					// Cells (vals[p-upper-1], vals[p]] of upper+1
					// samples, (vals[p], vals[p+upper]] of upper, the
					// rest in cells of at most chunk.
					var th []float64
					for q := p - upper - 1; q >= 0; q -= chunk {
						th = append(th, vals[q])
					}
					slices.Reverse(th)
					th = append(th, vals[p])
					for q := p + upper; q < bs.n; q += chunk {
						th = append(th, vals[q])
					}
					th = slices.Compact(th)
					c.Lead, c.Bins = slices.Clone(lead0), slices.Clone(bins0)
					c.Lead[j] = &ScalarQuantizer{Levels: make([]float64, len(th)+1), Thresholds: th}
					c.Bins[j] = len(th) + 1
					if got, want := centres(c, bs); got[j] != want[j] {
						t.Fatalf("model %d channel %d dim %d, threshold at response %d of %d: centre %d from the basis, %d from the responses", mi, ci, j, p, bs.n, got[j], want[j])
					}
					checked++
				}
			}
			c.Lead, c.Bins = lead0, bins0
			// The rest: a column's samples are multiples of trainRes,
			// many equal; thresholds at every other (or third) distinct
			// value make cells of two (three) runs, the last at the
			// threshold itself, whose counts only their sum ranks.
			train, err := c.TrainingSample()
			if err != nil {
				t.Fatal(err)
			}
			rest0 := slices.Clone(c.Rest)
			for j := k; j < c.Dims(); j++ {
				vals := slices.Compact(slices.Sorted(slices.Values(mat.Col(nil, j, train))))
				for _, every := range []int{2, 3} {
					for off := 0; off < every; off++ {
						var th []float64
						for q := off; q < len(vals); q += every {
							th = append(th, vals[q])
						}
						c.Rest, c.Bins = slices.Clone(rest0), slices.Clone(bins0)
						c.Rest[j-k] = &ScalarQuantizer{Levels: make([]float64, len(th)+1), Thresholds: th}
						c.Bins[j] = len(th) + 1
						if got, want := centres(c, bs); got[j] != want[j] {
							t.Fatalf("model %d channel %d dim %d, thresholds at every %d. distinct value from %d: centre %d from the basis, %d from the sample", mi, ci, j, every, off, got[j], want[j])
						}
						checked++
					}
				}
			}
			c.Rest, c.Bins = rest0, bins0
			c.findOnce = sync.Once{}
			if checked < bs.n {
				t.Fatalf("model %d channel %d: only %d thresholds checked", mi, ci, checked)
			}
		}
	}
}

// centres returns the centres of c, whose quantisers a test changed,
// from the basis bs (centreFromBasis) and as prepare counts them from
// the training sample without it.
func centres(c *Channel, bs *stepBasis) (fromBasis, fromSample []int) {
	c.findOnce = sync.Once{}
	c.centreFromBasis(bs)
	fromBasis = c.Centre
	c.basis = nil
	c.findOnce = sync.Once{}
	err := c.prepare()
	c.basis = bs
	if err != nil {
		panic(err)
	}
	return fromBasis, c.Centre
}
