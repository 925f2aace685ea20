package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestTangentExtremeScales checks SPCATangent on arcs-thin multiplied by
// 1e-300 and 1e300, where squared distances underflow or overflow: its
// held-out accuracy must stay within a point of the unscaled set's (as
// Euclidean's does, by extremeScale), and with Ratio 1 it must vote as
// Euclidean k-NN at that scale. Measured in the input itself, the
// tangent metric's distances were all 0 at 1e-300 (accuracy 0.5) and
// every query was refused at 1e300.
func TestTangentExtremeScales(t *testing.T) {
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution = 1, 1<<12
	train, _ := testimages.GenerateClasses("arcs-thin", 120, 1)
	test, _ := testimages.GenerateClasses("arcs-thin", 200, 2)
	accuracy := func(s float64) (float64, bool) {
		var x, q mat.Dense
		x.Scale(s, train.X)
		q.Scale(s, test.X)
		c, err := Train(&x, train.Label, 2, SPCATangent, 3, opt)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		acc, err := c.Accuracy(&q, test.Label)
		if err != nil {
			t.Errorf("scale %g: %v", s, err)
			return 0, false
		}
		e, err := Train(&x, train.Label, 2, Euclidean, 3, opt)
		if err != nil {
			t.Fatal(err)
		}
		c.Ratio = 1
		got, err := c.Predict(&q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.Predict(&q)
		if err != nil {
			t.Fatal(err)
		}
		return acc, slices.Equal(got, want)
	}
	base, same := accuracy(1)
	if base < 0.9 || !same {
		t.Fatalf("unscaled: accuracy %.3f, Ratio 1 votes as Euclidean: %v", base, same)
	}
	for _, s := range []float64{1e-300, 1e300} {
		acc, same := accuracy(s)
		if math.Abs(acc-base) > 0.01 || !same {
			t.Errorf("scale %g: accuracy %.3f (unscaled %.3f), Ratio 1 votes as Euclidean: %v", s, acc, base, same)
		}
	}
}

// TestTangentModelSpan reads SPCATangent files whose first class model
// spans +Inf (its largest distance, or its scale, set to +Inf or to a
// value whose product with the other overflows: the SPCA reader takes
// any positive value): a *FormatError naming the model's span, where the
// file was read and then every query failed as bad data ('row 1, column
// 1 is +Inf', of samples that were finite). A large finite span is read
// and answers queries.
func TestTangentModelSpan(t *testing.T) {
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution = 1, 1<<12
	train, _ := testimages.GenerateClasses("arcs-thin", 120, 1)
	c, err := Train(train.X, train.Label, 2, SPCATangent, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	var mb bytes.Buffer
	if _, err := c.Models[0].WriteTo(&mb); err != nil {
		t.Fatal(err)
	}
	model := mb.Bytes()
	// The scale and the largest distance: adjacent float64s whose
	// product is MaxDistance.
	at := -1
	for p := 0; p+16 <= len(model)-4 && at < 0; p++ {
		s := math.Float64frombits(binary.LittleEndian.Uint64(model[p:]))
		d := math.Float64frombits(binary.LittleEndian.Uint64(model[p+8:]))
		if s > 0 && d > 0 && s*d == c.Models[0].MaxDistance() {
			at = p
		}
	}
	if at < 0 {
		t.Fatal("no scale and largest distance found in the model file")
	}
	refused := 0
	for _, v := range []float64{math.Inf(1), 1e308, math.MaxFloat64} {
		for field, name := range []string{"scale", "largest distance"} {
			bad := bytes.Clone(model)
			binary.LittleEndian.PutUint64(bad[at+8*field:], math.Float64bits(v))
			m, err := spca.Read(bytes.NewReader(checksum.Refresh(bad)))
			if err != nil {
				continue // the SPCA reader refuses it: as good
			}
			h := *c
			h.Models = []*spca.Model{m, c.Models[1]}
			var b bytes.Buffer
			if _, err := h.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			r, err := Read(bytes.NewReader(b.Bytes()))
			if !math.IsInf(m.MaxDistance(), 0) {
				// A finite span, however large: read, and queries
				// answered.
				if err == nil {
					_, err = r.Predict(train.X)
				}
				if err != nil {
					t.Errorf("%s %g (span %g): %v", name, v, m.MaxDistance(), err)
				}
				continue
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "spans") {
				t.Errorf("%s %g: %v, want a *FormatError naming the model's span", name, v, err)
			}
			refused++
		}
	}
	if refused < 3 {
		t.Errorf("%d files with a model spanning +Inf refused, want at least 3", refused)
	}
}
