package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
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
		var file, plain bytes.Buffer
		if _, err := m0.WriteTo(&file); err != nil {
			b.Fatal(err)
		}
		if _, err := m0.writeTo(&plain, false); err != nil {
			b.Fatal(err)
		}
		// first: a model file without the step basis (the training
		// sample unfolded); first-stored: with it.
		for _, f := range []struct {
			name string
			data []byte
		}{{"first", plain.Bytes()}, {"first-stored", file.Bytes()}} {
			b.Run(fmt.Sprintf("%dx%d/%s", m0.Patch, m0.Patch, f.name), func(b *testing.B) {
				var cpu time.Duration
				for n := 0; n < b.N; n++ {
					b.StopTimer()
					m, err := ReadModel(bytes.NewReader(f.data))
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
		}
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
	var ms []*Model
	for _, m := range reuseTestModels(t) {
		// Trained, and read back from its file (whose step basis, stored,
		// is read rather than computed).
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		back, err := ReadModel(&b)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m, back)
	}
	for mi, m := range ms {
		// Every response of the trained models; every fifth of those
		// read back (their reference, prepare without the basis, decodes
		// the file's sample at every call: 30 s for all of them).
		stride := 1 + 4*(mi%2)
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
				for p := upper + 1; p+upper+1 < bs.n; p += stride {
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
			if checked < bs.n/stride {
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

// TestStepBasisFile checks the step-basis sections of model files: a
// model read from a file with them holds bit for bit the basis the same
// model computes without them (responses, medians, ranges, sorted
// columns), codes every image at other steps and at target rates to the
// same bytes, and decodes them to the same pixels, with either file; the
// files are deterministic (written again from either model read back:
// the same bytes), the basis is dropped when the model's scale changes,
// and a damaged or foreign basis section is a *ModelError naming it.
func TestStepBasisFile(t *testing.T) {
	ms := append([]*Model(nil), reuseTestModels(t)...)
	ms = append(ms, smallColorModel(t, true))
	grey, colour := testimages.Texture(61, 45, 8), testimages.ColorTexture(52, 40, 3)
	for i, m0 := range ms {
		var with, without bytes.Buffer
		if _, err := m0.WriteTo(&with); err != nil {
			t.Fatal(err)
		}
		if _, err := m0.writeTo(&without, false); err != nil {
			t.Fatal(err)
		}
		read := func(data []byte) *Model {
			m, err := ReadModel(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("model %d: %v", i, err)
			}
			return m
		}
		a, b := read(with.Bytes()), read(without.Bytes())
		if a.StepBasisBytes() == 0 || b.StepBasisBytes() != 0 || a.ID() != m0.ID() || b.ID() != m0.ID() {
			t.Fatalf("model %d: step basis bytes %d and %d, IDs %s %s, want >0, 0, %s", i,
				a.StepBasisBytes(), b.StepBasisBytes(), a.ID().Short(), b.ID().Short(), m0.ID().Short())
		}
		for j, x := range []*Model{a, b} {
			var again bytes.Buffer
			if _, err := x.WriteTo(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), with.Bytes()) {
				t.Errorf("model %d: written again from file %d, other bytes", i, j)
			}
		}
		a.stepMu.Lock()
		b.stepMu.Lock()
		errA, errB := a.loadBases(), b.loadBases()
		a.stepMu.Unlock()
		b.stepMu.Unlock()
		if errA != nil || errB != nil {
			t.Fatalf("model %d: bases: %v, %v", i, errA, errB)
		}
		for ci := range a.stepBasis {
			if d := basisDiff(a.stepBasis[ci], b.stepBasis[ci]); d != "" {
				t.Errorf("model %d channel %d: stored basis: %s", i, ci, d)
			}
		}
		img := image.Image(grey)
		if m0.Color {
			img = colour
		}
		for _, f := range []float64{0.31, 0.6, 2.2, 9} {
			// Fresh models each time, so that each derives its step.
			fa, fb := read(with.Bytes()), read(without.Bytes())
			var ca, cb bytes.Buffer
			errA := Encode(&ca, img, fa, &Options{Step: m0.Step * f})
			errB := Encode(&cb, img, fb, &Options{Step: m0.Step * f})
			if (errA == nil) != (errB == nil) || !bytes.Equal(ca.Bytes(), cb.Bytes()) {
				t.Fatalf("model %d step ×%g: coded files differ (errors %v, %v)", i, f, errA, errB)
			}
			if errA != nil {
				continue
			}
			pa, errA := Decode(bytes.NewReader(ca.Bytes()), read(with.Bytes()))
			pb, errB := Decode(bytes.NewReader(ca.Bytes()), read(without.Bytes()))
			if errA != nil || errB != nil || !imagesEqual(pa, pb) {
				t.Fatalf("model %d step ×%g: decoded differently (errors %v, %v)", i, f, errA, errB)
			}
		}
		if !m0.Color {
			for _, bpp := range []float64{0.5, 1.5} {
				sa, _, errA := StepForRate(img, read(with.Bytes()), bpp, nil)
				sb, _, errB := StepForRate(img, read(without.Bytes()), bpp, nil)
				if errA != nil || errB != nil || sa != sb {
					t.Errorf("model %d --bpp %g: steps %v and %v (errors %v, %v)", i, bpp, sa, sb, errA, errB)
				}
			}
		}
		// A new scale drops the stored basis: the file written then is the
		// model's at that scale.
		if err := a.SetStep(m0.Step * 1.5); err != nil {
			t.Fatal(err)
		}
		if err := b.SetStep(m0.Step * 1.5); err != nil {
			t.Fatal(err)
		}
		var wa, wb bytes.Buffer
		if _, err := a.WriteTo(&wa); err != nil {
			t.Fatal(err)
		}
		if _, err := b.WriteTo(&wb); err != nil {
			t.Fatal(err)
		}
		if a.StepBasisBytes() != 0 || !bytes.Equal(wa.Bytes(), wb.Bytes()) {
			t.Errorf("model %d at a new step: basis bytes %d, files equal %v", i, a.StepBasisBytes(), bytes.Equal(wa.Bytes(), wb.Bytes()))
		}
	}
}

// basisDiff describes the first difference of two step bases ("" if none).
func basisDiff(a, b *stepBasis) string {
	switch {
	case a.n != b.n:
		return fmt.Sprintf("%d patches, want %d", a.n, b.n)
	case !bitsEqual(a.ext, b.ext):
		return fmt.Sprintf("ranges %v, want %v", a.ext, b.ext)
	case !slices.Equal(a.mid, b.mid):
		return fmt.Sprintf("medians %v, want %v", a.mid, b.mid)
	case !bitsEqual(a.norm, b.norm):
		return "responses (norm) differ"
	case !bitsEqual(a.resp, b.resp):
		return "responses (resp) differ"
	case (a.rest == nil) != (b.rest == nil) || len(a.rest) != len(b.rest):
		return fmt.Sprintf("%d sorted columns, want %d", len(a.rest), len(b.rest))
	}
	for j := range a.rest {
		x, y := a.rest[j], b.rest[j]
		if !bitsEqual(x.vals, y.vals) || !slices.Equal(x.at, y.at) || !slices.Equal(x.sum, y.sum) {
			return fmt.Sprintf("sorted column %d differs", j)
		}
	}
	return ""
}

// TestStepBasisHostile checks damaged step-basis sections: a corrupt
// frame, another model's basis, an unknown version, a count changed, and
// the section cut short are each a *ModelError naming the section, from
// Stepped, from the coder at another step and from LoadSections, while
// the model's own step still codes; a basis section in a model of the
// fixed-resolution mode is refused at load.
func TestStepBasisHostile(t *testing.T) {
	m := smallStepModel(t)
	other := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Seed = 3, 12, 99 })
	var b, ob bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := other.WriteTo(&ob); err != nil {
		t.Fatal(err)
	}
	head, frames := sectionFrames(t, b.Bytes())
	_, otherFrames := sectionFrames(t, ob.Bytes())
	if len(frames) != 4 || len(otherFrames) != 4 {
		t.Fatalf("%d and %d sections for one channel, want 4", len(frames), len(otherFrames))
	}
	size, err := declaredSize(frames[3], len(frames[3]))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := modelDecoder().DecodeAll(frames[3], make([]byte, 0, size))
	if err != nil {
		t.Fatal(err)
	}
	// recode returns the basis section's content changed by edit, as a
	// frame with a valid checksum.
	recode := func(edit func(p []byte) []byte) []byte {
		p := edit(slices.Clone(plain[:len(plain)-4]))
		return modelEncoder().EncodeAll(checksum.Append(p), nil)
	}
	corrupt := slices.Clone(frames[3])
	corrupt[len(corrupt)/2] ^= 0x55
	img := testimages.Texture(30, 26, 4)
	for what, frame := range map[string][]byte{
		"corrupt":       corrupt,
		"another model": otherFrames[3],
		"version 2":     recode(func(p []byte) []byte { p[0] = 2; return p }),
		"patches + 1":   recode(func(p []byte) []byte { p[33]++; return p }),
		"cut short":     recode(func(p []byte) []byte { return p[:len(p)-3] }),
		"rest flag 2":   recode(func(p []byte) []byte { p[38] = 2; return p }),
		// ext (k values from byte 39), then mid (2k): an extent of 0
		// gave spca's "invalid option: Scale values must be finite and
		// > 0", a median far outside the responses was taken.
		"extent 0":  recode(func(p []byte) []byte { binary.LittleEndian.PutUint64(p[39:], 0); return p }),
		"extent -1": recode(func(p []byte) []byte { binary.LittleEndian.PutUint64(p[39:], math.Float64bits(-1)); return p }),
		"median 1e300": recode(func(p []byte) []byte {
			binary.LittleEndian.PutUint64(p[39+8*int(p[37]):], math.Float64bits(1e300))
			return p
		}),
		"NaN response": recode(func(p []byte) []byte {
			// The first value of column 0: its two high byte planes
			// (planes low bytes first, after ext and mid) all ones.
			n, k := int(binary.LittleEndian.Uint32(p[33:])), int(p[37])
			at := 39 + 24*k
			p[at+6*n], p[at+7*n] = 0xff, 0x7f
			return p
		}),
	} {
		data := slices.Concat(head, frames[0], frames[1], frames[2], frame)
		binary.LittleEndian.PutUint32(data[len(ModelMagic)+5+4*3:], uint32(len(frame)))
		back, err := ReadModel(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: refused at load (%v); the basis is read on first use", what, err)
		}
		if err := Encode(io.Discard, img, back, nil); err != nil {
			t.Errorf("%s: the model's own step fails: %v", what, err)
		}
		var me *ModelError
		name := "section 3 (step basis)"
		if _, err := back.Stepped(m.Step * 2); !errors.As(err, &me) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: Stepped gave %v, want a *ModelError naming %q", what, err, name)
		}
		if err := Encode(io.Discard, img, back, &Options{Step: m.Step * 3}); !errors.As(err, &me) {
			t.Errorf("%s: Encode at another step gave %v, want a *ModelError", what, err)
		}
		again, err := ReadModel(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := again.LoadSections(); !errors.As(err, &me) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: LoadSections gave %v, want a *ModelError naming %q", what, err, name)
		}
	}
	// A fixed-resolution model with a fourth section.
	var fb bytes.Buffer
	fixed := smallModel(t)
	if _, err := fixed.WriteTo(&fb); err != nil {
		t.Fatal(err)
	}
	fhead, fframes := sectionFrames(t, fb.Bytes())
	if len(fframes) != 3 {
		t.Fatalf("fixed-resolution model: %d sections, want 3", len(fframes))
	}
	data := slices.Concat(fhead[:len(ModelMagic)+4], []byte{4}, fhead[len(ModelMagic)+5:], binary.LittleEndian.AppendUint32(nil, uint32(len(frames[3]))))
	data = slices.Concat(data, fframes[0], fframes[1], fframes[2], frames[3])
	var me *ModelError
	if _, err := ReadModel(bytes.NewReader(data)); !errors.As(err, &me) || !strings.Contains(err.Error(), "4 sections for 1 channels") {
		t.Errorf("fixed-resolution model with a basis section: got %v, want a *ModelError", err)
	}
}

// TestSectionedVersions checks that a file with step bases carries a
// container version of its own (18), so that a build from before them
// names the version it cannot read rather than the section count, and
// that the reader holds each version to its own number of sections.
func TestSectionedVersions(t *testing.T) {
	m := smallStepModel(t)
	var with, without bytes.Buffer
	if _, err := m.WriteTo(&with); err != nil {
		t.Fatal(err)
	}
	if _, err := m.writeTo(&without, false); err != nil {
		t.Fatal(err)
	}
	version := func(b []byte) uint32 { return binary.LittleEndian.Uint32(b[len(ModelMagic):]) }
	if v := version(with.Bytes()); v != modelVersionSectionedBasis {
		t.Errorf("a model with its step basis: container version %d, want %d", v, modelVersionSectionedBasis)
	}
	if v := version(without.Bytes()); v != modelVersionSectioned {
		t.Errorf("a model without its step basis: container version %d, want %d", v, modelVersionSectioned)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"with": with.Bytes(), "without": without.Bytes()} {
		if _, err := ReadModel(bytes.NewReader(b)); err != nil {
			t.Errorf("ReadModel, %s the basis: %v", name, err)
		}
		path := filepath.Join(dir, name+".model")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		lm, err := LoadModel(path)
		if err != nil {
			t.Errorf("LoadModel, %s the basis: %v", name, err)
			continue
		}
		lm.Close()
	}
	relabel := func(b []byte, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[len(ModelMagic):], v)
		return c
	}
	fixed := smallModel(t)
	var fb bytes.Buffer
	if _, err := fixed.WriteTo(&fb); err != nil {
		t.Fatal(err)
	}
	_, frames := sectionFrames(t, with.Bytes())
	fhead, fframes := sectionFrames(t, fb.Bytes())
	fixed4 := slices.Concat(fhead[:len(ModelMagic)+4], []byte{4}, fhead[len(ModelMagic)+5:], binary.LittleEndian.AppendUint32(nil, uint32(len(frames[3]))),
		fframes[0], fframes[1], fframes[2], frames[3])
	for _, tc := range []struct {
		what string
		data []byte
		want string
	}{
		{"step bases labelled 17", relabel(with.Bytes(), modelVersionSectioned), "4 sections for 1 channels (version 17 has 3)"},
		{"no step bases labelled 18", relabel(without.Bytes(), modelVersionSectionedBasis), "3 sections for 1 channels (version 18 has 4)"},
		{"fixed resolution labelled 18", relabel(fixed4, modelVersionSectionedBasis), "version 18 (with step bases) of a model without a step"},
		{"a later container", relabel(with.Bytes(), modelVersionSectionedBasis+1), "unsupported version 19 (this build reads 1 to 5 and the containers 16 to 18)"},
	} {
		var me *ModelError
		if _, err := ReadModel(bytes.NewReader(tc.data)); !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a *ModelError saying %q", tc.what, err, tc.want)
		}
	}
}

// TestSortFloats checks the radix sort of centreFromBasis's columns
// against slices.Sort on values of both signs, zeros of both signs,
// infinities, subnormals, ties and one value, and modeCell against the
// count of every value into its cell on columns with ties and values on
// the thresholds.
func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(300)
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(8) {
			case 0:
				x[i] = math.Copysign(0, float64(rng.IntN(2))-0.5)
			case 1:
				x[i] = math.Inf(2*rng.IntN(2) - 1)
			case 2:
				x[i] = float64(rng.IntN(5)) * 0.25 // ties, on thresholds
			case 3:
				x[i] = 5e-324 * float64(rng.IntN(9)-4)
			default:
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		got := slices.Clone(x)
		sortFloats(got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d: position %d holds %v, want %v", trial, i, got[i], want[i])
			}
		}
		// modeCell of finite values against the counts.
		fin := slices.DeleteFunc(slices.Clone(got), func(v float64) bool { return math.IsInf(v, 0) })
		th := []float64{-1, -0.25, 0, 0.25, 0.5, 0.75, 1, 3}[:2+rng.IntN(7)]
		f := newCellFinder(th)
		s := []float64{1, 0.5, 3, 1e-3}[rng.IntN(4)]
		counts := make([]int, len(th)+1)
		for _, v := range fin {
			counts[f.index(s*v)]++
		}
		best := 0
		for b, c := range counts {
			if c > counts[best] {
				best = b
			}
		}
		if got := modeCell(fin, s, &f); got != best {
			t.Fatalf("trial %d: modeCell %d, the counts' mode %d (%v)", trial, got, best, counts)
		}
	}
}
