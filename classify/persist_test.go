package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// smallClassifier trains a classifier of 60 moons with metric.
func smallClassifier(t testing.TB, metric Metric) (*Classifier, testimages.Labelled) {
	t.Helper()
	l, _ := testimages.GenerateClasses("moons", 60, 1)
	opt := spca.DefaultOptions()
	opt.Resolution = 1 << 10
	opt.K = 0.3
	c, err := Train(l.X, l.Label, 2, metric, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	c.Values = []float64{-1, 7}
	return c, l
}

func encode(t testing.TB, c *Classifier) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPersist checks that a classifier read back predicts the same, writes
// the same bytes, and that damaged files give a *FormatError.
func TestPersist(t *testing.T) {
	q, _ := testimages.GenerateClasses("moons", 40, 2)
	for _, metric := range Metrics() {
		c, _ := smallClassifier(t, metric)
		data := encode(t, c)
		c2, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%v: %v", metric, err)
		}
		p1, _ := c.Predict(q.X)
		p2, err := c2.Predict(q.X)
		if err != nil || !equalInts(p1, p2) || c2.K != 3 || c2.Metric != metric || c2.Values[1] != 7 {
			t.Errorf("%v: read back predicts %v, want %v (%v)", metric, p2, p1, err)
		}
		if !bytes.Equal(encode(t, c2), data) {
			t.Errorf("%v: rewriting gives other bytes", metric)
		}
		var fe *FormatError
		for name, bad := range map[string][]byte{
			"truncated":   data[:len(data)/2],
			"flipped":     append(append([]byte{}, data[:20]...), append([]byte{data[20] ^ 1}, data[21:]...)...),
			"not a model": []byte("hello, world"),
		} {
			if _, err := Read(bytes.NewReader(bad)); !errors.As(err, &fe) {
				t.Errorf("%v %s: %v, want a *FormatError", metric, name, err)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzRead checks that Read never panics, allocates at most
// hostile.Bound of its input, that every rejection is a *FormatError, and
// that what it accepts predicts and round-trips (written again and read
// back, the same bytes). Inputs
// are tried as given and with their checksum recomputed, so that
// mutations reach the fields behind it.
func FuzzRead(f *testing.F) {
	for _, metric := range []Metric{Euclidean, SPCA, SPCASelect, SPCATangent, SPCAFisher} {
		c, _ := smallClassifier(f, metric)
		f.Add(encode(f, c))
		if metric == SPCAFisher {
			// Frames of another shape (refused): every query's distance
			// overflowed with the first.
			f.Add(withFrame(encode(f, c), 2, []float64{1e300, 1e300, 1e300, 1e300}))
			f.Add(withFrame(encode(f, c), 2, []float64{0, 0, 0, 0}))
		}
	}
	q := mat.NewDense(1, 2, []float64{0.5, 0.25})
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, in := range [][]byte{data, checksum.Refresh(data)} {
			if i == 1 && bytes.Equal(in, data) {
				continue // a valid checksum already: the same input again
			}
			var c *Classifier
			var err error
			hostile.Check(t, "Read", len(in), func() { c, err = Read(bytes.NewReader(in)) })
			if err != nil {
				if !errors.As(err, new(*FormatError)) {
					t.Fatalf("error of another type: %v", err)
				}
				continue
			}
			// Read whole: written again and read back, the same bytes.
			file := encode(t, c)
			back, err := Read(bytes.NewReader(file))
			if err != nil {
				t.Fatalf("an accepted classifier's own file is refused: %v", err)
			}
			if !bytes.Equal(encode(t, back), file) {
				t.Fatal("an accepted classifier read back from its own file writes other bytes")
			}
			if _, d := c.x.Dims(); d == 2 {
				if _, err := c.Predict(q); err != nil {
					t.Fatalf("accepted classifier fails to predict: %v", err)
				}
			}
		}
	})
}

// TestPersistWeights checks the dimension weights of a version-2 file:
// they are read back, and a weight outside [0, 1] is a *FormatError.
func TestPersistWeights(t *testing.T) {
	c, _ := smallClassifier(t, SPCASelect)
	data := encode(t, c)
	if v := binary.LittleEndian.Uint32(data[8:]); v != 2 {
		t.Errorf("spca-select written as version %d, want 2", v)
	}
	if v := binary.LittleEndian.Uint32(encode(t, func() *Classifier { c, _ := smallClassifier(t, SPCA); return c }())[8:]); v != 1 {
		t.Errorf("spca written as version %d, want 1 (unchanged files)", v)
	}
	c2, err := Read(bytes.NewReader(data))
	if err != nil || len(c2.Weights) != 2 || c2.Weights[0] != c.Weights[0] || c2.Weights[1] != c.Weights[1] {
		t.Fatalf("weights %v read back as %v (%v)", c.Weights, c2.Weights, err)
	}
	bad := append([]byte{}, data...)
	binary.LittleEndian.PutUint64(bad[len(bad)-4-16:], math.Float64bits(2))
	var fe *FormatError
	if _, err := Read(bytes.NewReader(checksum.Refresh(bad))); !errors.As(err, &fe) || !strings.Contains(err.Error(), "dimension weight 1") {
		t.Errorf("weight 2: %v, want a *FormatError naming the weight", err)
	}
}

// Read of /dev/zero read until killed (io.ReadAll before the magic
// number); an endless input is refused from its first bytes.
func TestReadEndless(t *testing.T) {
	r := &hostile.Endless{Limit: 64 << 20}
	var fe *FormatError
	if _, err := Read(r); !errors.As(err, &fe) || r.N > 4096 {
		t.Errorf("Read of endless zeros: %v after %d bytes, want a *FormatError after a few", err, r.N)
	}
}
