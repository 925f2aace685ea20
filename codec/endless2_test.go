package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/spcalab/spca/internal/hostile"
)

// A codec model's magic number and version followed by endless data (a
// stream: 'spca encode --model <(head -c 12 m.model; cat /dev/zero)')
// was read up to 1 GiB before the version's container was looked at: 30 s
// and 2.7 GB of memory for "larger than 1 GiB". A stream is read as far
// as the container's section table says, then refused: zero sections,
// data after the sections, a zstd container without a frame.
func TestEndlessAfterVersion(t *testing.T) {
	const limit = 64 << 20
	le := binary.LittleEndian
	head := func(version uint32, rest ...byte) []byte {
		return append(le.AppendUint32([]byte(ModelMagic), version), rest...)
	}
	one := head(modelVersionSectioned, 1)
	one = le.AppendUint32(one, 100) // one section of 100 bytes
	for _, c := range []struct {
		name   string
		prefix []byte
		most   int64
	}{
		{"sectioned, zeros", head(modelVersionSectioned), 4096},
		{"sectioned, one section of 100 bytes, zeros", one, 4096},
		{"zstd, zeros", head(modelVersionZstd), 4096},
	} {
		r := &hostile.Endless{Prefix: c.prefix, Limit: limit}
		var me *ModelError
		if _, err := ReadModel(r); !errors.As(err, &me) || r.N > c.most {
			t.Errorf("%s: %v after %d bytes, want a *ModelError after at most %d", c.name, err, r.N, c.most)
		}
	}
	// A model from a stream (no size) still reads, and with a byte more
	// is refused.
	m := smallModel(t)
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadModel(struct{ io.Reader }{bytes.NewReader(b.Bytes())}); err != nil || got.ID() != m.ID() {
		t.Errorf("a model from a stream: %v", err)
	}
	var me *ModelError
	if _, err := ReadModel(struct{ io.Reader }{bytes.NewReader(append(bytes.Clone(b.Bytes()), 0))}); !errors.As(err, &me) {
		t.Errorf("a model and one byte more from a stream: %v, want a *ModelError", err)
	}
}
