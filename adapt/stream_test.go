package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// stream hides the size of a reader (a pipe, standard input).
type stream struct{ io.Reader }

// A model from a pipe (adapt apply --model <(...), standard input) after a
// valid header and then endless data is refused after the bytes its
// layout says, not after maxModelBytes (2 GiB): rev5's open item.
func TestReadEndlessStream(t *testing.T) {
	good := smallModelFile(t)
	const limit = 64 << 20
	for _, c := range []struct {
		name   string
		prefix []byte
		most   int64 // bytes the reader may take
		want   string
	}{
		{"header", good[:len(ModelMagic)+4], 4096, "embedded SPCA model A"},
		{"header and statistics", good[:len(ModelMagic)+4+304], 4096, "embedded SPCA model A"},
		{"model", good, int64(len(good)) + 1, "checksum mismatch"},
		{"model without its checksum", good[:len(good)-4], int64(len(good)) + 1, "checksum mismatch"},
	} {
		r := &hostile.Endless{Prefix: c.prefix, Limit: limit}
		_, err := Read(stream{r})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || r.N > c.most {
			t.Errorf("%s, then endless zeros: %v after %d bytes, want a *FormatError saying %q after at most %d", c.name, err, r.N, c.want, c.most)
		}
	}
}

// Read of a stream reads what Read of the same bytes in memory reads:
// the same model, or an error where it gives one (truncated, corrupt,
// data after the end, every kind of file of TestReadErrors).
func TestReadStreamAgrees(t *testing.T) {
	good := smallModelFile(t)
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)/2] ^= 0x40
	inputs := [][]byte{good, append(append([]byte(nil), good...), 0), append(append([]byte(nil), good...), good...),
		corrupt, checksum.Refresh(corrupt), withSPCA(t, good, hostile.SPCAFlatModel), nil, []byte(ModelMagic),
		// An embedded model with bytes after its end, within its declared
		// length: refused from a stream (which cannot skip them, they may
		// be endless), so refused in memory too.
		withSPCA(t, good, func(b []byte) ([]byte, error) { return append(append([]byte(nil), b...), 0, 0), nil })}
	for _, n := range []int{len(ModelMagic) + 4, len(ModelMagic) + 40, 400, len(good) / 3, len(good) / 2, len(good) - 200, len(good) - 5, len(good) - 1} {
		inputs = append(inputs, good[:n], checksum.Refresh(good[:n]))
	}
	for i, in := range inputs {
		want, werr := Read(bytes.NewReader(in))
		got, gerr := Read(stream{bytes.NewReader(in)})
		if (werr == nil) != (gerr == nil) || i == 8 && werr == nil {
			t.Errorf("input %d (%d bytes): in memory %v, from a stream %v", i, len(in), werr, gerr)
			continue
		}
		var fe *FormatError
		if gerr != nil && !errors.As(gerr, &fe) {
			t.Errorf("input %d: from a stream %v, want a *FormatError", i, gerr)
		}
		if werr == nil && !bytes.Equal(modelBytes(t, want), modelBytes(t, got)) {
			t.Errorf("input %d: the model read from a stream differs", i)
		}
	}
	// A read error is returned as such, not as a truncated model.
	_, err := Read(stream{io.MultiReader(bytes.NewReader(good[:len(good)/2]), iotestErr{})})
	if err == nil || !strings.Contains(err.Error(), "pipe broke") {
		t.Errorf("read error in the middle: %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("pipe broke") }

// tableOffset returns the offset in the model file b of the stored LUT's
// size field (its rays' N field follows the LUT's values).
func tableOffset(b []byte) int {
	le := binary.LittleEndian
	off := len(ModelMagic) + 4 + 16 + 48 + 240 // samples, whites, statistics
	for range 2 {                              // the embedded models
		off += 8 + int(le.Uint64(b[off:]))
	}
	off += 72 + 8 + 24 // anchor, ceiling, gains
	return off + 8 + 4*int(le.Uint64(b[off:]))
}

// A model declaring a stored LUT or ray table larger than any trainer of
// ours writes (within the format's own limits: a 256-node LUT is 201 MB,
// a 1024 × 30 ray table 781 MB) is refused by its declared size, before
// its data are read: such a stream (986 MB of zeros) took 50 s and
// 3.4 GB to read (rev6's open item), and the file in memory said only
// 'inconsistent layout'. WriteTo refuses to write such a model.
func TestReadLargeTables(t *testing.T) {
	good := smallModelFile(t)
	le := binary.LittleEndian
	lut := tableOffset(good)
	if le.Uint64(good[lut:]) != DefaultLUTSize {
		t.Fatalf("LUT size field %d, want %d", le.Uint64(good[lut:]), DefaultLUTSize)
	}
	rays := lut + 8 + 12*DefaultLUTSize*DefaultLUTSize*DefaultLUTSize
	if le.Uint64(good[rays:]) != RayFaceNodes || le.Uint64(good[rays+8:]) != RayRadii {
		t.Fatalf("ray table fields %d × %d", le.Uint64(good[rays:]), le.Uint64(good[rays+8:]))
	}
	for _, c := range []struct {
		name   string
		at     int
		fields []uint64
		want   string
	}{
		{"LUT of 256 nodes", lut, []uint64{256}, "stored LUT of 256 nodes"},
		{"LUT of 130 nodes", lut, []uint64{MaxStoredLUTSize + 1}, "stored LUT of 130 nodes"},
		{"rays 1024 × 30", rays, []uint64{1024, 30}, "ray table of 1024 × 30"},
		{"rays 32 × 257", rays, []uint64{RayFaceNodes, MaxRayRadii + 1}, "ray table of 32 × 257"},
	} {
		bad := bytes.Clone(good)
		for i, v := range c.fields {
			le.PutUint64(bad[c.at+8*i:], v)
		}
		r := &hostile.Endless{Prefix: bad[:c.at+8*len(c.fields)], Limit: 1 << 30}
		_, err := Read(stream{r})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || r.N > int64(c.at)+64 {
			t.Errorf("%s, then endless zeros: %v after %d bytes, want %q within %d", c.name, err, r.N, c.want, c.at+64)
		}
		if _, err := Read(bytes.NewReader(checksum.Refresh(bad))); !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, in memory: %v, want %q", c.name, err, c.want)
		}
		if _, err := Read(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("%s, checksum not refreshed: %v, want a checksum mismatch", c.name, err)
		}
	}
	// The largest tables read are written and read back.
	m, err := Read(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	m.LUT = &LUT{Size: MaxStoredLUTSize, DomainMax: [3]float64{1, 1, 1}, Table: make([]float32, 3*MaxStoredLUTSize*MaxStoredLUTSize*MaxStoredLUTSize)}
	m.Rays = &RayTable{N: MaxRayFaceNodes, R: MaxRayRadii, Q: make([]float64, 3*(MaxRayFaceNodes+1)*(MaxRayFaceNodes+1)*(MaxRayRadii+1))}
	if back := readBack(t, m); back.LUT.Size != MaxStoredLUTSize || back.Rays.N != MaxRayFaceNodes || back.Rays.R != MaxRayRadii {
		t.Errorf("largest tables read back as LUT %d, rays %d × %d", back.LUT.Size, back.Rays.N, back.Rays.R)
	}
	m.LUT = &LUT{Size: MaxStoredLUTSize + 1, DomainMax: [3]float64{1, 1, 1}, Table: make([]float32, 3*(MaxStoredLUTSize+1)*(MaxStoredLUTSize+1)*(MaxStoredLUTSize+1))}
	if _, err := m.WriteTo(io.Discard); err == nil || !strings.Contains(err.Error(), "cannot write the model: it holds a stored LUT of 130") {
		t.Errorf("WriteTo of a 130-node LUT: %v", err)
	}
	m.LUT = nil
	m.Rays.R++
	if _, err := m.WriteTo(io.Discard); err == nil || !strings.Contains(err.Error(), "values, want") {
		t.Errorf("WriteTo of a ray table of the wrong length: %v", err)
	}
}
