package spca

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// TestReadUnknownVersion checks that a model file of a version this
// build does not read (0, the next one, 255; with and without the
// ExtendedOptions flag), its checksum valid, is refused with a
// *FormatError naming the version, from every layout WriteTo and
// WriteCompactTo write: a later program's file is not parsed as one of
// this build's layouts. (TestReadCorrupt's version case changes the
// version without the checksum, which refuses it first.)
func TestReadUnknownVersion(t *testing.T) {
	o := DefaultOptions()
	o.Resolution = 1 << 10
	m, err := Fit(testimages.Spiral(300, 1).X, o)
	if err != nil {
		t.Fatal(err)
	}
	var full, compact bytes.Buffer
	if _, err := m.WriteTo(&full); err != nil {
		t.Fatal(err)
	}
	if _, err := m.WriteCompactTo(&compact); err != nil {
		t.Fatal(err)
	}
	for _, file := range [][]byte{full.Bytes(), compact.Bytes()} {
		flag := binary.LittleEndian.Uint32(file[8:]) & ExtendedOptions
		for _, v := range []uint32{0, modelVersion + 1, 255} {
			for _, f := range []uint32{flag, flag ^ ExtendedOptions} {
				b := append([]byte(nil), file[:len(file)-4]...)
				binary.LittleEndian.PutUint32(b[8:], v|f)
				_, err := Read(bytes.NewReader(checksum.Append(b)))
				var fe *FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), "unsupported version") {
					t.Errorf("version %d (flag %d, from version %d): %v, want a *FormatError naming the version",
						v, f, binary.LittleEndian.Uint32(file[8:])&^ExtendedOptions, err)
				}
			}
		}
	}
}
