package spca_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// hostileLattice is smallModel's file with a lattice declaring 2^26 nodes
// (within the format's limits) and holding none of them.
func hostileLattice(t *testing.T) []byte {
	t.Helper()
	m, _ := smallModel(t)
	var b bytes.Buffer
	m.WriteTo(&b)
	data, err := hostile.SPCALattice(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Issue 23: a model whose lattice declares 2^26 nodes but holds no data
// is refused as truncated having allocated in proportion to its bytes
// (it used to allocate 8.4 GB before failing).
func TestReadHostileLattice(t *testing.T) {
	data := hostileLattice(t)
	var err error
	hostile.Check(t, "lattice of 2^26 nodes", len(data), func() {
		_, err = spca.Read(bytes.NewReader(data))
	})
	var fe *spca.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("got %v, want a *FormatError saying truncated", err)
	}
}

// streamReader hides the length of a reader (a file read through a pipe).
type streamReader struct{ r io.Reader }

func (s streamReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// Issue 24: a version-6 model whose lattice and metric tables hold the
// most integer values the format allows (one byte each in the file,
// eight in memory; a valid model) is read within the allocation bound,
// from memory and from a stream of unknown length; ReadLimited refuses
// it within a smaller limit, naming the array.
func TestReadHostileIntModel(t *testing.T) {
	m, _ := smallModel(t)
	var b bytes.Buffer
	m.WriteTo(&b)
	data, err := hostile.SPCAIntModel(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		r    func() io.Reader
	}{
		{"bytes", func() io.Reader { return bytes.NewReader(data) }},
		{"stream", func() io.Reader { return streamReader{bytes.NewReader(data)} }},
	} {
		var err error
		hostile.Check(t, c.name, len(data), func() { _, err = spca.Read(c.r()) })
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// 12 MB: less than the lattice's 16 MB of float32s (its integers
	// are exact in them), charged before its int64 scratch.
	limit := int64(12 << 20)
	var fe *spca.FormatError
	if _, err := spca.ReadLimited(bytes.NewReader(data), &limit); !errors.As(err, &fe) || !strings.Contains(err.Error(), "the lattice needs more memory") {
		t.Errorf("within 12 MB: got %v, want a *FormatError naming the lattice", err)
	}
}

// Issue 24: models whose metric tables have flat steps (values equal to
// the next) are read (the format allows non-decreasing tables, and
// snapping keeps only increasing fibers increasing) but no transform or
// inverse of finite values gives NaN: a flat model (every table 0, the
// lattice 0) and the integer model of TestReadHostileIntModel.
func TestFlatTablesNoNaN(t *testing.T) {
	m0, x := smallModel(t)
	var b bytes.Buffer
	m0.WriteTo(&b)
	for _, craft := range []func([]byte) ([]byte, error){hostile.SPCAFlatModel, hostile.SPCAIntModel} {
		data, err := craft(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		m, err := spca.Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		r, u := make([]float64, m.Dim()), make([]float64, m.Dim())
		n, _ := x.Dims()
		for i := 0; i < n; i += n / 20 {
			if _, err := m.Transform(r, x.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
			for _, v := range r {
				if math.IsNaN(v) {
					t.Fatalf("Transform(%v) = %v", x.RawRowView(i), r)
				}
			}
		}
		for _, v := range []float64{-1e300, -1, 0, 0.5, 1, 1e300} {
			for k := range r {
				r[k] = v
			}
			if err := m.Inverse(u, r); err != nil {
				t.Fatal(err)
			}
			for _, y := range u {
				if math.IsNaN(y) {
					t.Fatalf("Inverse(%v) = %v", r, u)
				}
			}
		}
	}
}

// Samples scaled to the ends of the float64 range (1e300, 1e-300) are not
// constant: their sums of squares overflow or underflow, and Fit used to
// refuse them as "data are constant (zero variance)". The responses are
// those of the same samples unscaled, up to rounding.
func TestFitExtremeScale(t *testing.T) {
	x := testimages.Spiral(300, 1).X
	base := fitFor(t, "spiral-300-1", x, withGamma(1.0/3))
	want, _, err := base.TransformBatch(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e300, 1e-300} {
		xs := mat.DenseCopyOf(x)
		xs.Scale(s, xs)
		m, err := spca.Fit(xs, withGamma(1.0/3))
		if err != nil {
			t.Errorf("scale %g: Fit: %v", s, err)
			continue
		}
		got, _, err := m.TransformBatch(xs)
		if err != nil {
			t.Fatalf("scale %g: TransformBatch: %v", s, err)
		}
		n, d := got.Dims()
		worst := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				worst = max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
			}
		}
		if worst > 1e-6 {
			t.Errorf("scale %g: responses differ from the unscaled ones by up to %g", s, worst)
		}
	}
	// Still refused: data that do overflow once centred and scaled.
	for _, v := range []float64{math.MaxFloat64, 5e-324} {
		c := mat.NewDense(10, 2, nil)
		c.Apply(func(_, _ int, _ float64) float64 { return v }, c)
		var de *spca.DataError
		if _, err := spca.Fit(c, withGamma(1.0/3)); !errors.As(err, &de) || !strings.Contains(err.Error(), "constant") {
			t.Errorf("constant %g: got %v, want a *DataError saying constant", v, err)
		}
	}
}

// Fit with Tau 1e-5 ran for minutes (500 samples: more than 60 s; 1e-3:
// 15 s): every step of a curve is checked against the steps before it, up
// to 5000 a curve. Tau below MinTau is an *OptionError, at once.
func TestFitMinTau(t *testing.T) {
	x := testimages.Spiral(40, 1).X
	o := withGamma(1.0 / 3)
	o.Tau = minTauBelow
	o.Resolution = 1 << 8
	start := time.Now()
	_, err := spca.Fit(x, o)
	var oe *spca.OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "Tau") {
		t.Errorf("Tau %g: got %v after %v, want an *OptionError naming Tau", o.Tau, err, time.Since(start))
	}
	o.Tau = spca.MinTau
	o.MaxIter = 1
	if _, err := spca.Fit(x, o); errors.As(err, &oe) {
		t.Errorf("Tau = MinTau refused: %v", err)
	}
}

const minTauBelow = spca.MinTau / 2

// A MaxReference too small for K was reported as bad data ("fewer samples
// than k needs: K=0.1 of 1 samples"), blaming the data, which have enough
// samples: it is an *OptionError naming MaxReference.
func TestFitMaxReferenceTooSmall(t *testing.T) {
	x := testimages.Spiral(300, 1).X
	o := withGamma(1.0 / 3)
	o.MaxReference = 10
	_, err := spca.Fit(x, o)
	var oe *spca.OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "MaxReference 10") {
		t.Errorf("got %v, want an *OptionError naming MaxReference 10", err)
	}
	// Too few samples in the data is still bad data.
	var de *spca.DataError
	if _, err := spca.Fit(x.Slice(0, 10, 0, 2), withGamma(1.0/3)); !errors.As(err, &de) {
		t.Errorf("10 samples: got %v, want a *DataError", err)
	}
	// A K too small for all the samples is not the cap's fault (K 1e-9
	// said "MaxReference 10 is too small").
	o = withGamma(1.0 / 3)
	o.MaxReference, o.K = 10, 1e-9
	if _, err := spca.Fit(x, o); !errors.As(err, &de) || !strings.Contains(err.Error(), "K=1e-09 of 300 samples gives 0 neighbours") {
		t.Errorf("K 1e-9: got %v, want a *DataError naming K and the 300 samples", err)
	}
	// Columns of very different units are named, not called constant or
	// collinear (a spread of 1e6 beside 0.01).
	mixed := mat.NewDense(300, 2, nil)
	for i := range 300 {
		mixed.Set(i, 0, 1e6*x.At(i, 0))
		mixed.Set(i, 1, 0.01*x.At(i, 1))
	}
	if _, err := spca.Fit(mixed, withGamma(1.0/3)); !errors.As(err, &de) || !strings.Contains(err.Error(), "column 2 spreads") || strings.Contains(err.Error(), "collinear") {
		t.Errorf("columns of spreads 1e6 and 0.01: got %v, want a *DataError naming column 2's scale", err)
	}
	line := mat.NewDense(300, 2, nil)
	for i := range 300 {
		line.Set(i, 0, x.At(i, 0))
		line.Set(i, 1, 2*x.At(i, 0))
	}
	if _, err := spca.Fit(line, withGamma(1.0/3)); !errors.As(err, &de) || !strings.Contains(err.Error(), "constant or collinear") {
		t.Errorf("collinear columns: got %v, want 'constant or collinear'", err)
	}
	// One sample is one (spca fit of a one-row CSV said "1 samples").
	for n, want := range map[int]string{1: "1 sample: need at least 3", 2: "2 samples: need at least 3"} {
		if _, err := spca.Fit(x.Slice(0, n, 0, 2), withGamma(1.0/3)); !errors.As(err, &de) || !strings.Contains(err.Error(), want) {
			t.Errorf("%d samples: got %v, want a *DataError saying %q", n, err, want)
		}
	}
}

// Responses far beyond the model's range were clamped to the edge of its
// lattice without a word (r = 1e300 inverted to the edge point, as every
// response beyond it): InverseBatchStats counts them. Responses a little
// outside [0, 1], which the metric extrapolates, are not counted, nor are
// the responses of samples far outside the data, which Transform clamps
// to the edge of that range (up to rounding).
func TestInverseClampedCounted(t *testing.T) {
	x := testimages.Spiral(300, 1).X
	m := fitFor(t, "spiral-300-1", x, withGamma(1.0/3))
	r := mat.NewDense(6, 2, []float64{
		0.5, 0.5,
		1.02, 0.5, // just beyond: extrapolated
		0.5, 0.5,
		1e300, 0.5, // far beyond: clamped
		0.5, -1e6,
		1e300, -1e300,
	})
	got, st, err := m.InverseBatchStats(r)
	if err != nil {
		t.Fatal(err)
	}
	if st.N != 6 || st.Clamped != 3 {
		t.Errorf("InverseBatchStats: %+v, want N 6, Clamped 3", st)
	}
	want, err := m.InverseBatch(r)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want) {
		t.Error("InverseBatchStats and InverseBatch differ")
	}
	red, rst, err := m.InverseReducedStats(r.Slice(0, 6, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if want, err := m.InverseReduced(r.Slice(0, 6, 0, 1)); err != nil || !mat.Equal(red, want) {
		t.Errorf("InverseReducedStats and InverseReduced differ (%v)", err)
	}
	if rst.N != 6 || rst.Clamped != 2 {
		t.Errorf("InverseReducedStats: %+v, want N 6, Clamped 2", rst)
	}
	far := mat.DenseCopyOf(x)
	far.Scale(5, far)
	rf, fst, err := m.TransformBatch(far)
	if err != nil {
		t.Fatal(err)
	}
	if _, ist, err := m.InverseBatchStats(rf); err != nil || ist.Clamped != 0 || fst.Clamped == 0 {
		t.Errorf("samples 5 times farther out: %d clamped by Transform (want > 0), their responses %d by the inverse (want 0; %v)",
			fst.Clamped, ist.Clamped, err)
	}
}

// A 32-bit count or index of 2^31 or more was a negative int on 32-bit
// platforms: a zero node of 0xffffffff (-1) passed "below the axis's
// nodes". Refused on every platform, as other values out of range.
func TestReadNegative32(t *testing.T) {
	file, at, d := smallModelLattice(t)
	for _, field := range []struct {
		name string
		off  int
	}{{"node count", at}, {"zero node", at + 4*d}, {"last zero node", at + 4*d + 4*(d-1)}} {
		for _, v := range []uint32{1 << 31, 1<<32 - 1} {
			data := bytes.Clone(file)
			binary.LittleEndian.PutUint32(data[field.off:], v)
			data = checksum.Refresh(data)
			var fe *spca.FormatError
			if _, err := spca.Read(bytes.NewReader(data)); !errors.As(err, &fe) {
				t.Errorf("%s %#x: %v, want a *FormatError", field.name, v, err)
			}
		}
	}
}

// A lattice whose node counts multiply beyond 2^26 is refused as such,
// also where the product wraps a 32-bit int: every axis of 2^20 nodes
// made 2^(20·d), 0 modulo 2^32, which passed the bound there
// (GOARCH=arm go test -exec qemu-arm-static).
func TestReadNodesProduct(t *testing.T) {
	file, at, d := smallModelLattice(t)
	if d < 2 {
		t.Fatalf("smallModel has %d axes, want 2 or more", d)
	}
	data := bytes.Clone(file)
	for j := range d {
		binary.LittleEndian.PutUint32(data[at+4*j:], 1<<20)
	}
	data = checksum.Refresh(data)
	if _, err := spca.Read(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "lattice of more than 67108864 nodes") {
		t.Errorf("%d axes of 2^20 nodes: %v, want an error saying more than 2^26 nodes", d, err)
	}
}

// ReadEmbedded reads the model ReadLimited reads, within the same memory
// bound, and does not compare the model's own checksum (its caller
// checked the bytes with the checksum of the file around them): a
// changed checksum, which ReadLimited refuses, reads.
func TestReadEmbedded(t *testing.T) {
	m, _ := smallModel(t)
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	for _, r := range []func([]byte) io.Reader{
		func(d []byte) io.Reader { return bytes.NewBuffer(d) }, // planes read in place
		func(d []byte) io.Reader { return bytes.NewReader(d) },
		func(d []byte) io.Reader { return streamReader{bytes.NewReader(d)} },
	} {
		limit := int64(64 << 20)
		want, err := spca.ReadLimited(r(data), &limit)
		if err != nil {
			t.Fatal(err)
		}
		limitE := int64(64 << 20)
		got, err := spca.ReadEmbedded(r(data), &limitE)
		if err != nil {
			t.Fatal(err)
		}
		if limitE != limit {
			t.Errorf("ReadEmbedded left %d bytes of the limit, ReadLimited %d", limitE, limit)
		}
		var wb, gb bytes.Buffer
		want.WriteTo(&wb)
		got.WriteTo(&gb)
		if !bytes.Equal(wb.Bytes(), gb.Bytes()) {
			t.Error("ReadEmbedded read another model than ReadLimited")
		}
		bad := bytes.Clone(data)
		bad[len(bad)-1] ^= 1
		if _, err := spca.ReadEmbedded(r(bad), nil); err != nil {
			t.Errorf("ReadEmbedded of a model with another checksum: %v", err)
		}
		if _, err := spca.ReadLimited(r(bad), nil); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("ReadLimited of a model with another checksum: %v, want a checksum mismatch", err)
		}
		if _, err := spca.ReadEmbedded(r(data[:len(data)-2]), nil); err == nil {
			t.Error("ReadEmbedded of a model without the end of its checksum: no error")
		}
	}
}

// smallModelLattice returns smallModel's file, the offset of its first
// lattice's node counts and its number of axes.
func smallModelLattice(t *testing.T) (file []byte, at, d int) {
	t.Helper()
	m, _ := smallModel(t)
	var b bytes.Buffer
	m.WriteTo(&b)
	at, d, err := hostile.SPCALatticeAt(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), at, d
}
