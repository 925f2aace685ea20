package spca_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
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
