package spca_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

func smallModel(t testing.TB) (*spca.Model, *mat.Dense) {
	t.Helper()
	s := testimages.Spiral(600, 11)
	return fitFor(t, "small-spiral", s.X, withGamma(1.0/3)), s.X
}

// Acceptance 4: bad training data gives a *DataError, never a panic.
func TestFitBadData(t *testing.T) {
	good := testimages.Spiral(300, 1).X
	withValue := func(v float64) *mat.Dense {
		x := mat.DenseCopyOf(good)
		x.Set(17, 1, v)
		return x
	}
	line := mat.NewDense(200, 2, nil)
	for i := 0; i < 200; i++ {
		line.Set(i, 0, float64(i))
		line.Set(i, 1, 2*float64(i)+1)
	}
	constant := mat.NewDense(50, 3, nil)
	constant.Apply(func(_, _ int, _ float64) float64 { return 4 }, constant)
	cases := []struct {
		name string
		x    mat.Matrix
		opt  func(*spca.Options)
	}{
		{"NaN", withValue(math.NaN()), nil},
		{"+Inf", withValue(math.Inf(1)), nil},
		{"-Inf", withValue(math.Inf(-1)), nil},
		{"too few for k", mat.NewDense(20, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 41}), nil},
		{"two samples", mat.NewDense(2, 2, []float64{1, 2, 3, 5}), nil},
		{"collinear", line, nil},
		{"constant", constant, nil},
	}
	for _, c := range cases {
		o := withGamma(0)
		if c.opt != nil {
			c.opt(&o)
		}
		_, err := spca.Fit(c.x, o)
		var de *spca.DataError
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v, want a *DataError", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

func TestFitBadOptions(t *testing.T) {
	x := testimages.Spiral(300, 1).X
	for name, set := range map[string]func(*spca.Options){
		"negative gamma":  func(o *spca.Options) { o.Gamma = -1 },
		"NaN gamma":       func(o *spca.Options) { o.Gamma = math.NaN() },
		"K zero":          func(o *spca.Options) { o.K = 0 },
		"K above 1":       func(o *spca.Options) { o.K = 1.5 },
		"tau zero":        func(o *spca.Options) { o.Tau = 0 },
		"q zero":          func(o *spca.Options) { o.Q = 0 },
		"given origin":    func(o *spca.Options) { o.Origin = spca.OriginGiven },
		"far origin":      func(o *spca.Options) { o.Origin, o.OriginPoint = spca.OriginGiven, []float64{100, 100} },
		"short scale":     func(o *spca.Options) { o.Scale = []float64{1} },
		"zero scale":      func(o *spca.Options) { o.Scale = []float64{1, 0} },
		"bandwidth NaN":   func(o *spca.Options) { o.Bandwidth = math.NaN() },
		"conditioning 2":  func(o *spca.Options) { o.Conditioning = 2 },
		"conditioning <0": func(o *spca.Options) { o.Conditioning = -0.1 },
		"neighbours 2":    func(o *spca.Options) { o.Neighbours = 2 },
		"neighbours NaN":  func(o *spca.Options) { o.Neighbours = math.NaN() },
	} {
		o := withGamma(0)
		set(&o)
		_, err := spca.Fit(x, o)
		var oe *spca.OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%s: got %v, want an *OptionError", name, err)
		}
	}
}

func TestTransformBadInput(t *testing.T) {
	m, _ := smallModel(t)
	r := make([]float64, 2)
	if _, err := m.Transform(r, []float64{1, 2, 3}); err == nil {
		t.Error("wrong dimension accepted by Transform")
	}
	if _, err := m.Transform(r, []float64{math.NaN(), 0}); err == nil {
		t.Error("NaN accepted by Transform")
	}
	if err := m.Inverse(r, []float64{math.Inf(1), 0}); err == nil {
		t.Error("Inf accepted by Inverse")
	}
	if _, _, err := m.TransformBatch(mat.NewDense(3, 3, nil)); err == nil {
		t.Error("wrong dimension accepted by TransformBatch")
	}
	if _, err := m.InverseBatch(mat.NewDense(3, 1, nil)); err == nil {
		t.Error("wrong dimension accepted by InverseBatch")
	}
}

// Points far outside the manifold are clamped in bounded time, and
// responses far outside [0, 1] still invert to finite points.
func TestFarPoints(t *testing.T) {
	m, _ := smallModel(t)
	far := mat.NewDense(4, 2, []float64{1e6, 1e6, -1e9, 3, 0, 1e12, 50, -50})
	start := time.Now()
	r, st, err := m.TransformBatch(far)
	if err != nil {
		t.Fatal(err)
	}
	if st.Clamped == 0 {
		t.Errorf("far points not reported as clamped: %+v", st)
	}
	if st.MaxIter > m.Options().MaxIter {
		t.Errorf("iteration cap exceeded: %d", st.MaxIter)
	}
	for _, v := range r.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite response %v", v)
		}
	}
	x, err := m.InverseBatch(mat.NewDense(2, 2, []float64{1e9, -1e9, -5, 7}))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range x.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 100*m.MaxDistance() {
			t.Fatalf("inverse of a far response is absurd: %v", v)
		}
	}
	t.Logf("far points: %v in %v", st, time.Since(start))
}

// Acceptance 5: same data, options and seed give byte-identical model
// files, whatever the number of workers.
func TestDeterminism(t *testing.T) {
	x := testimages.DelicadoFixed(3000, 3).X
	var files [][]byte
	for _, workers := range []int{1, 2, 5} {
		o := withGamma(1.0 / 3)
		o.Workers = workers
		o.MaxReference = 1000  // exercises the seeded subsample
		o.Resolution = 1 << 14 // coarse (1/16 of the default): still split over the workers
		m, err := spca.Fit(x, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		files = append(files, b.Bytes())
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Fatalf("model bytes differ between runs (%d vs %d bytes)", len(files[0]), len(files[i]))
		}
	}
	o := withGamma(1.0 / 3)
	o.MaxReference = 1000
	o.Resolution = 1 << 14
	o.Seed = 2
	m, err := spca.Fit(x, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.WriteTo(&b)
	if bytes.Equal(b.Bytes(), files[0]) {
		t.Error("a different seed gave the same model: the seed is not used")
	}
}

func TestSaveLoad(t *testing.T) {
	m, x := smallModel(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.spca")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, err := spca.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r1, _, _ := m.TransformBatch(x)
	r2, _, _ := m2.TransformBatch(x)
	if !mat.Equal(r1, r2) {
		t.Fatal("loaded model transforms differently")
	}
	x1, _ := m.InverseBatch(r1)
	x2, _ := m2.InverseBatch(r1)
	if !mat.Equal(x1, x2) {
		t.Fatal("loaded model inverts differently")
	}
	var a, b bytes.Buffer
	m.WriteTo(&a)
	m2.WriteTo(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("re-saved model differs")
	}
	// A failed save leaves the previous file untouched and no temporary.
	if err := m.Save(filepath.Join(dir, "missing", "m.spca")); err == nil {
		t.Error("save into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed save, want 1", len(entries))
	}
}

// TestReadVersion1 reads a model in the version 1 layout (no Conditioning
// field, written before the option existed): it loads with the conditioning
// version 1 used, and transforms like the model it came from.
func TestReadVersion1(t *testing.T) {
	m, x := smallModel(t)
	if got := m.Options().Conditioning; got != spca.DefaultConditioning {
		t.Fatalf("conditioning %v, want the default %v", got, spca.DefaultConditioning)
	}
	var b bytes.Buffer
	m.WriteTo(&b)
	v2 := b.Bytes()
	// Magic, version, dimension, gamma, k, tau, q, origin kind, empty
	// origin point, tol, max-iter, seed, resolution, max-reference,
	// bandwidth: the conditioning follows at byte 104.
	const at = 8 + 4 + 4 + 4*8 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8
	if math.Float64frombits(binary.LittleEndian.Uint64(v2[at:])) != spca.DefaultConditioning {
		t.Fatal("conditioning not where the version 2 layout puts it")
	}
	v1 := append(append([]byte(nil), v2[:at]...), v2[at+8:len(v2)-4]...)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	v1 = checksum.Append(v1)
	old, err := spca.Read(bytes.NewReader(v1))
	if err != nil {
		t.Fatalf("version 1 model: %v", err)
	}
	if got := old.Options().Conditioning; got != spca.DefaultConditioning {
		t.Errorf("version 1 model: conditioning %v, want %v", got, spca.DefaultConditioning)
	}
	r1, _, _ := m.TransformBatch(x)
	r2, _, _ := old.TransformBatch(x)
	if !mat.Equal(r1, r2) {
		t.Error("version 1 model transforms differently")
	}
}

// Acceptance 4: corrupt, truncated or foreign files give *FormatError.
func TestReadCorrupt(t *testing.T) {
	m, _ := smallModel(t)
	var b bytes.Buffer
	m.WriteTo(&b)
	good := b.Bytes()
	cases := map[string][]byte{
		"empty":     {},
		"foreign":   []byte("P6\n3 2\n255\n"),
		"png":       {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0},
		"truncated": good[:len(good)/2],
		"no crc":    good[:len(good)-4],
		"version":   append(append([]byte("SPCAmodl"), 9, 0, 0, 0), good[12:]...),
	}
	for _, off := range []int{20, 200, len(good) / 3, len(good) - 10} {
		c := append([]byte(nil), good...)
		c[off] ^= 0x40
		cases["flipped byte "+itoa(off)] = c
	}
	for name, data := range cases {
		_, err := spca.Read(bytes.NewReader(data))
		var fe *spca.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a *FormatError", name, err)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// FuzzRead checks that no input makes the model decoder panic or hang,
// that whatever it accepts can be used, and that it round-trips: written
// again (WriteTo, WriteCompactTo) and read back, the same bytes.
func FuzzRead(f *testing.F) {
	s := testimages.Spiral(300, 1)
	o := withGamma(1)
	o.Resolution = 2048
	m, err := spca.Fit(s.X, o)
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	m.WriteTo(&b)
	good := b.Bytes()
	f.Add(good)
	f.Add(good[:100])
	f.Add(withNormalisation(f, good, 0, math.Inf(1))) // a scale of +Inf (refused)
	f.Add(withNormalisation(f, good, 1, 1e300))       // a large finite largest distance
	if h, err := hostile.SPCALattice(good); err == nil {
		f.Add(h) // issue 23: 2^26 nodes declared, none held
	}
	if h, err := hostile.SPCAFlatModel(good); err == nil {
		f.Add(h) // issue 24: flat metric tables (the inverse gave NaN)
	}
	// Version 4, of a gamma-0 model (tables of one fiber).
	o0 := withGamma(0)
	o0.Resolution = 2048
	if m0, err := spca.Fit(s.X, o0); err == nil {
		var c bytes.Buffer
		m0.WriteCompactTo(&c)
		f.Add(c.Bytes())
		// Version 6: the lattice snapped, stored as integers.
		if err := m0.SnapLattice(1e-3); err == nil {
			c.Reset()
			m0.WriteCompactTo(&c)
			f.Add(c.Bytes())
			f.Add(c.Bytes()[:c.Len()*2/3])
			// Version 7 (a 2-D model): the lattice as float32, at 64
			// bytes of the file's start, or of 5 bytes before it.
			for _, base := range []int64{0, 5} {
				c.Reset()
				m0.WriteStoredTo(&c, base)
				f.Add(bytes.Clone(c.Bytes()))
			}
			f.Add(bytes.Clone(c.Bytes()[:c.Len()*2/3]))
			if h, err := hostile.SPCALattice(c.Bytes()); err == nil {
				f.Add(h) // version 7 declaring 2^26 nodes, holding none
				if _, err := spca.Read(bytes.NewReader(h)); err == nil {
					f.Error("a version 7 model declaring 2^26 nodes and holding none was read")
				}
			} else {
				f.Errorf("hostile.SPCALattice of a version 7 model: %v", err)
			}
		}
	}
	// Version 3: the k-neighbours density, with an out-of-range share.
	o.Neighbours = 0.1
	m3, err := spca.Fit(s.X, o)
	if err != nil {
		f.Fatal(err)
	}
	b.Reset()
	m3.WriteTo(&b)
	v3 := b.Bytes()
	f.Add(v3)
	bad := bytes.Clone(v3)
	// Bandwidth, Conditioning and Neighbours are stored in a row.
	var row []byte
	for _, v := range []float64{spca.DefaultBandwidth, spca.DefaultConditioning, 0.1} {
		row = binary.LittleEndian.AppendUint64(row, math.Float64bits(v))
	}
	at := bytes.Index(bad, row)
	if at < 0 {
		f.Fatal("Neighbours not found in the version 3 file")
	}
	binary.LittleEndian.PutUint64(bad[at+16:], math.Float64bits(1.5))
	f.Add(checksum.Refresh(bad))
	if _, err := spca.Read(bytes.NewReader(checksum.Refresh(bad))); err == nil {
		f.Error("a model with Neighbours 1.5 was read")
	}
	// Version 2 with ExtendedOptions (DensityFloor, ReflectDensity, FloorOfMean).
	oe := withGamma(1)
	oe.Resolution = 2048
	oe.DensityFloor = 0.05
	oe.ReflectDensity = true
	oe.FloorOfMean = true
	if me, err := spca.Fit(s.X, oe); err == nil {
		b.Reset()
		me.WriteTo(&b)
		f.Add(bytes.Clone(b.Bytes()))
	}
	f.Add([]byte("SPCAmodl"))
	f.Add([]byte("SPCAmodl\x01\x00\x00\x00\xff\xff\xff\xff"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Also with the checksum recomputed, so that a mutated model can
		// be accepted and used.
		for i, d := range [][]byte{data, checksum.Refresh(data)} {
			if i == 1 && bytes.Equal(d, data) {
				continue // a valid checksum already: the same input again
			}
			var m *spca.Model
			var err error
			hostile.Check(t, "spca.Read", len(d), func() { m, err = spca.Read(bytes.NewReader(d)) })
			// In place (a codec model's section 0 of the fast-load form),
			// without the checksum: a *FormatError or a model that, if
			// Read took the bytes too, is Read's.
			var sm *spca.Model
			var serr error
			hostile.Check(t, "spca.ReadEmbeddedShared", len(d), func() { sm, _, serr = spca.ReadEmbeddedShared(bytes.Clone(d), nil) })
			if fe := new(spca.FormatError); serr != nil && !errors.As(serr, &fe) {
				t.Fatalf("ReadEmbeddedShared: error of another type: %v", serr)
			}
			if err == nil && serr != nil {
				t.Fatalf("Read accepts what ReadEmbeddedShared refuses: %v", serr)
			}
			if err == nil {
				var a, b bytes.Buffer
				m.WriteCompactTo(&a)
				sm.WriteCompactTo(&b)
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatal("ReadEmbeddedShared read another model than Read")
				}
			}
			if err != nil {
				var fe *spca.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error of another type: %v", err)
				}
				continue
			}
			r := make([]float64, m.Dim())
			x := make([]float64, m.Dim())
			m.Transform(r, x)
			m.Inverse(x, r)
			// No NaN from finite values with an accepted model.
			for k := range r {
				if math.IsNaN(r[k]) || math.IsNaN(x[k]) {
					t.Fatalf("NaN: Transform(0) = %v, Inverse of it %v", r, x)
				}
			}
			// What Read accepts it read whole: written again (either
			// layout) and read back, it writes the same bytes. A field
			// the reader drops or misplaces fails here, not only in use.
			var w, c bytes.Buffer
			if _, err := m.WriteTo(&w); err != nil {
				t.Fatalf("WriteTo of an accepted model: %v", err)
			}
			if _, err := m.WriteCompactTo(&c); err != nil {
				t.Fatalf("WriteCompactTo of an accepted model: %v", err)
			}
			for name, file := range map[string][]byte{"WriteTo": w.Bytes(), "WriteCompactTo": c.Bytes()} {
				back, err := spca.Read(bytes.NewReader(file))
				if err != nil {
					t.Fatalf("an accepted model's %s file is refused: %v", name, err)
				}
				var again bytes.Buffer
				back.WriteTo(&again)
				if !bytes.Equal(again.Bytes(), w.Bytes()) {
					t.Fatalf("an accepted model read back from its %s file writes other bytes", name)
				}
			}
		}
	})
}

// TestNeighboursModel fits with the k-neighbours density: the model is
// invertible, its metric differs from the kernel one, and it is written
// as version 3 (read back with its option); models without the option
// keep the version 2 layout.
func TestNeighboursModel(t *testing.T) {
	kernel, x := smallModel(t)
	o := withGamma(1.0 / 3)
	o.Neighbours = 0.1
	m := fitFor(t, "small-spiral-neighbours", x, o)
	errs, _ := roundTripErrors(t, m, x)
	if p95 := errs[len(errs)*95/100]; p95 > 1e-3 {
		t.Errorf("round trip: 95th percentile error %.2g of Dmax, want <= 1e-3", p95)
	}
	rk, _, _ := kernel.TransformBatch(x)
	rn, _, _ := m.TransformBatch(x)
	if mat.EqualApprox(rk, rn, 1e-3) {
		t.Error("the k-neighbours metric gives the kernel metric's responses")
	}
	version := func(m *spca.Model) (uint32, []byte) {
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint32(b.Bytes()[8:12]), b.Bytes()
	}
	if v, _ := version(kernel); v != 2 {
		t.Errorf("kernel model written as version %d, want 2", v)
	}
	v, data := version(m)
	if v != 3 {
		t.Errorf("k-neighbours model written as version %d, want 3", v)
	}
	m2, err := spca.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := m2.Options().Neighbours; got != 0.1 {
		t.Errorf("read back Neighbours %v, want 0.1", got)
	}
	r2, _, _ := m2.TransformBatch(x)
	if !mat.Equal(rn, r2) {
		t.Error("the model read back transforms differently")
	}
}
