package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// Issue 23: an adaptation model whose embedded SPCA model declares a
// lattice of 2^26 nodes and holds none is refused within the allocation
// bound (it used to allocate gigabytes in adapt apply).
func TestReadHostileLattice(t *testing.T) {
	good := smallModelFile(t)
	at := bytes.Index(good, []byte("SPCAmodl"))
	n := int(binary.LittleEndian.Uint64(good[at-8:]))
	lattice, err := hostile.SPCALattice(good[at : at+n])
	if err != nil {
		t.Fatal(err)
	}
	var file []byte
	file = append(file, good[:at-8]...)
	file = binary.LittleEndian.AppendUint64(file, uint64(len(lattice)))
	file = append(file, lattice...)
	file = checksum.Append(append(file, good[at+n:len(good)-4]...))
	hostile.Check(t, "lattice of 2^26 nodes", len(file), func() { _, err = Read(bytes.NewReader(file)) })
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("got %v, want a *FormatError saying truncated", err)
	}
}
