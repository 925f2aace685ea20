package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
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

// On a 32-bit platform a colour file's header within the default budget
// (2896×2896, 8.4 megapixels) followed by endless data was read toward
// maxCodedBytes, 1.6 GB, into a bytes.Buffer, which panicked
// (bytes.ErrTooLarge) once its capacity reached 1 GiB, half of what an
// int holds: the data is refused, as a FormatError, at most math.MaxInt/4
// bytes in. (On 64-bit platforms the bound is maxCodedBytes, 1.6 GB here:
// not read.)
func TestEndlessInput32(t *testing.T) {
	if strconv.IntSize == 64 {
		t.Skip("32-bit platforms only (GOARCH=arm go test -exec qemu-arm-static)")
	}
	m := smallColorModel(t, true)
	var spc bytes.Buffer
	if err := Encode(&spc, testimages.ColorTexture(16, 16, 1), m, nil); err != nil {
		t.Fatal(err)
	}
	head := bytes.Clone(spc.Bytes()[:fixedHeaderBytes])
	const side = 2896
	binary.LittleEndian.PutUint32(head[len(Magic)+1+32:], side)
	binary.LittleEndian.PutUint32(head[len(Magic)+1+32+4:], side)
	h, err := parseFixedHeader(head)
	if err != nil || side*side > DefaultMaxPixels || maxCodedBytes(h) < 1<<30 {
		t.Fatalf("the test's header: %v, %d pixels, %d bytes at most (want within the budget, over 1 GiB)", err, side*side, maxCodedBytes(h))
	}
	r := &hostile.Endless{Prefix: head, Limit: 1 << 31}
	var fe *FormatError
	if _, err := Decode(r, m); !errors.As(err, &fe) || r.N > math.MaxInt/4+1 {
		t.Errorf("Decode of a %d×%d colour header and endless zeros: %v after %d bytes, want a *FormatError after at most %d", side, side, err, r.N, math.MaxInt/4+1)
	}
}
