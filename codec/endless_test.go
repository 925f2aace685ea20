package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/testimages"
)

// An endless input (/dev/zero as a model ran out of memory: ReadModel
// read up to 1 GiB before it looked at the magic number; as an .spc file
// DecodeWith read up to 2 GiB) is refused from its first bytes, as is an
// .spc file whose header declares more pixels than the budget.
func TestEndlessInputs(t *testing.T) {
	const limit = 64 << 20
	r := &hostile.Endless{Limit: limit}
	var me *ModelError
	if _, err := ReadModel(r); !errors.As(err, &me) || r.N > 4096 {
		t.Errorf("ReadModel of endless zeros: %v after %d bytes, want a *ModelError after a few", err, r.N)
	}
	r = &hostile.Endless{Prefix: []byte("SPCAmodl"), Limit: limit}
	if _, err := ReadModel(r); !errors.As(err, &me) || r.N > 4096 {
		t.Errorf("ReadModel of an SPCA model's magic and zeros: %v after %d bytes", err, r.N)
	}
	m := smallModel(t)
	r = &hostile.Endless{Limit: limit}
	var fe *FormatError
	if _, err := Decode(r, m); !errors.As(err, &fe) || r.N > 4096 {
		t.Errorf("Decode of endless zeros: %v after %d bytes, want a *FormatError after a few", err, r.N)
	}
	var spc bytes.Buffer
	if err := Encode(&spc, testimages.Texture(16, 16, 1), m, nil); err != nil {
		t.Fatal(err)
	}
	head := bytes.Clone(spc.Bytes()[:fixedHeaderBytes])
	binary.LittleEndian.PutUint32(head[len(Magic)+1+32:], 100)
	binary.LittleEndian.PutUint32(head[len(Magic)+1+32+4:], 100)
	r = &hostile.Endless{Prefix: head, Limit: limit}
	if _, err := DecodeWith(r, m, &DecodeOptions{MaxPixels: 1000}); !errors.Is(err, ErrTooLarge) || r.N > 4096 {
		t.Errorf("DecodeWith of a 100×100 header and endless zeros, budget 1000 pixels: %v after %d bytes, want ErrTooLarge after a few", err, r.N)
	}
	// A valid file's header, then endless data (standard input): refused
	// after at most maxCodedBytes of the header's 16×16 image, not 2 GiB.
	r = &hostile.Endless{Prefix: spc.Bytes()[:fixedHeaderBytes], Limit: limit}
	h, err := parseFixedHeader(spc.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(r, m); !errors.As(err, &fe) || int64(r.N) > int64(fixedHeaderBytes)+maxCodedBytes(h)+1 {
		t.Errorf("Decode of a 16×16 file's header and endless zeros: %v after %d bytes, want a *FormatError after at most %d", err, r.N, int64(fixedHeaderBytes)+maxCodedBytes(h)+1)
	}
	// Still read whole: the file itself, and a model.
	if _, err := Decode(bytes.NewReader(spc.Bytes()), m); err != nil {
		t.Error(err)
	}
	var mb bytes.Buffer
	if _, err := m.WriteTo(&mb); err != nil {
		t.Fatal(err)
	}
	if m2, err := ReadModel(bytes.NewReader(mb.Bytes())); err != nil || m2.ID() != m.ID() {
		t.Errorf("ReadModel of the model's own bytes: %v", err)
	}
}
