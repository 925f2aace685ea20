package spca_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// withNormalisation returns the model file good (as WriteTo writes it)
// with its scale (field 0), largest distance (1) or Newton tolerance (2)
// set to v, the checksum made valid.
func withNormalisation(t testing.TB, good []byte, field int, v float64) []byte {
	t.Helper()
	at, _, err := hostile.SPCALatticeAt(good)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(good)
	// The three float64s just before the lattice.
	binary.LittleEndian.PutUint64(b[at-24+8*field:], math.Float64bits(v))
	return checksum.Refresh(b)
}

// TestReadInfiniteNormalisation reads model files whose scale, largest
// distance or Newton tolerance is +Inf: a *FormatError naming the
// field. Read took them (any positive value), and a scale of +Inf mapped
// every sample to the origin: Unfold and Inverse gave ±Inf for finite
// inputs (and codec channels coded every patch alike, silently). The
// largest finite values are read as before: a fit of data at that range
// gives them too (its outputs in input units may overflow as theirs do).
func TestReadInfiniteNormalisation(t *testing.T) {
	s := testimages.Spiral(300, 1)
	for _, gamma := range []float64{1, 0} {
		o := withGamma(gamma)
		o.Resolution = 2048
		m, err := spca.Fit(s.X, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		x := []float64{s.X.At(5, 0), s.X.At(5, 1)}
		for field, name := range []string{"scale", "largest distance", "Newton tolerance"} {
			_, err := spca.Read(bytes.NewReader(withNormalisation(t, b.Bytes(), field, math.Inf(1))))
			var fe *spca.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), name) {
				t.Errorf("gamma %g, %s +Inf: %v, want a *FormatError naming the %s", gamma, name, err, name)
			}
			// Large finite values: read, and the training sample maps to
			// finite responses and back.
			hm, err := spca.Read(bytes.NewReader(withNormalisation(t, b.Bytes(), field, 1e300)))
			if err != nil {
				t.Errorf("gamma %g, %s 1e300: %v", gamma, name, err)
				continue
			}
			r, inv := make([]float64, 2), make([]float64, 2)
			if _, err := hm.Transform(r, x); err != nil {
				t.Fatal(err)
			}
			if err := hm.Inverse(inv, r); err != nil {
				t.Fatal(err)
			}
			for _, v := range append(r, inv...) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("gamma %g, %s 1e300: responses %v, inverse %v", gamma, name, r, inv)
					break
				}
			}
		}
	}
}
