package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/checksum"
)

// TestReadRatioHostile reads SPCATangent files whose ratio is NaN,
// infinite, zero, negative or just below 1 (a *FormatError naming it),
// or 1, huge or the largest float64 (read, and every query answered with
// a label: the squared distance, clamped at 0, never NaN); and a
// Euclidean file relabelled version 3 with a ratio appended (a
// *FormatError: version 3 holds SPCATangent only).
func TestReadRatioHostile(t *testing.T) {
	c, _ := smallClassifier(t, SPCATangent)
	data := encode(t, c)
	at := len(data) - 4 - 8
	with := func(r float64) []byte {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint64(bad[at:], math.Float64bits(r))
		return checksum.Refresh(bad)
	}
	var fe *FormatError
	for _, r := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -2, math.Nextafter(1, 0)} {
		if _, err := Read(bytes.NewReader(with(r))); !errors.As(err, &fe) {
			t.Errorf("ratio %g: %v, want a *FormatError", r, err)
		}
	}
	q := mat.NewDense(4, 2, []float64{0.5, 0.25, 1.5, -0.2, 0, 0, -3, 7})
	for _, r := range []float64{1, 1e300, math.MaxFloat64} {
		c2, err := Read(bytes.NewReader(with(r)))
		if err != nil {
			t.Errorf("ratio %g: %v", r, err)
			continue
		}
		p, err := c2.Predict(q)
		if err != nil || len(p) != 4 {
			t.Errorf("ratio %g: predictions %v, %v", r, p, err)
		}
		for _, l := range p {
			if l < 0 || l >= c2.Classes() {
				t.Errorf("ratio %g: label %d", r, l)
			}
		}
	}
	e, _ := smallClassifier(t, Euclidean)
	eb := encode(t, e)
	eb = binary.LittleEndian.AppendUint64(eb[:len(eb)-4], math.Float64bits(2))
	binary.LittleEndian.PutUint32(eb[8:], 3)
	if _, err := Read(bytes.NewReader(checksum.Append(eb))); !errors.As(err, &fe) {
		t.Errorf("a Euclidean classifier in a version-3 file: %v, want a *FormatError", err)
	}
}
