package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
		// Refused by the declared size before the checksum is read, as
		// from a stream: checking it would read the table's bytes.
		if _, err := Read(bytes.NewReader(bad)); !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, checksum not refreshed: %v, want %q", c.name, err, c.want)
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

// sparseFile is a regular file of size bytes that holds prefix and then
// zeros, as a crafted file on disk would (a file knows its size: Read
// takes its sized path). It counts the bytes Read and ReadAt deliver.
type sparseFile struct {
	prefix    []byte
	size, pos int64
	delivered int64
}

func (f *sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	clear(p[:n])
	if off < int64(len(f.prefix)) {
		copy(p[:n], f.prefix[off:])
	}
	f.delivered += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *sparseFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if n > 0 {
		err = nil
	}
	return n, err
}

func (f *sparseFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += f.pos
	case io.SeekEnd:
		off += f.size
	}
	f.pos = off
	return off, nil
}

func (f *sparseFile) Stat() (os.FileInfo, error) { return sparseInfo{f.size}, nil }

type sparseInfo struct{ size int64 }

func (i sparseInfo) Name() string       { return "crafted.model" }
func (i sparseInfo) Size() int64        { return i.size }
func (i sparseInfo) Mode() os.FileMode  { return 0o644 }
func (i sparseInfo) ModTime() time.Time { return time.Time{} }
func (i sparseInfo) IsDir() bool        { return false }
func (i sparseInfo) Sys() any           { return nil }

// TestReadLargeTablesFile: a file on disk declaring a table larger than
// Read accepts is refused from its layout's fields, without reading the
// table's bytes (rev7's open item: a crafted 986 MB file was read whole,
// 976 MB, before its LUT was refused; these files are 26 and 70 MB of
// zeros after the fields). A file longer than its layout is read only as
// far as the layout says.
func TestReadLargeTablesFile(t *testing.T) {
	good := smallModelFile(t)
	le := binary.LittleEndian
	lut := tableOffset(good)
	rays := lut + 8 + 12*DefaultLUTSize*DefaultLUTSize*DefaultLUTSize
	for _, c := range []struct {
		name   string
		at     int
		fields []uint64
		size   int64 // the whole file's, as the declared tables make it
		want   string
	}{
		{"LUT of 130 nodes", lut, []uint64{MaxStoredLUTSize + 1}, int64(lut) + 8 + 12*130*130*130 + 8 + 72 + 4, "stored LUT of 130 nodes"},
		{"rays 64 × 257", rays, []uint64{MaxRayFaceNodes, MaxRayRadii + 1}, int64(rays) + 16 + 8*(3*65*65*258+1) + 72 + 4, "ray table of 64 × 257"},
	} {
		bad := bytes.Clone(good)
		for i, v := range c.fields {
			le.PutUint64(bad[c.at+8*i:], v)
		}
		f := &sparseFile{prefix: bad[:c.at+8*len(c.fields)], size: c.size}
		_, err := Read(f)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || f.delivered > int64(c.at)+4096 {
			t.Errorf("%s in a file of %d bytes: %v after %d bytes read, want %q within %d", c.name, c.size, err, f.delivered, c.want, c.at+4096)
		}
	}
	// The same from a file on disk (sparse: its zeros take no space).
	path := filepath.Join(t.TempDir(), "crafted.model")
	bad := bytes.Clone(good[:lut+8])
	le.PutUint64(bad[lut:], MaxStoredLUTSize+1)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(lut)+8+12*130*130*130+8+72+4); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "crafted.model: adaptation model declares a stored LUT of 130 nodes") {
		t.Errorf("Load of a crafted file: %v", err)
	}
	// A valid model followed by 64 MB: refused as before, reading 1 byte
	// past the layout's end.
	f := &sparseFile{prefix: good, size: int64(len(good)) + 64<<20}
	if _, err := Read(f); err == nil || !strings.Contains(err.Error(), "checksum mismatch") || f.delivered > int64(2*len(good))+4096 {
		t.Errorf("a model followed by 64 MB of zeros: %v after %d bytes read, want a checksum mismatch within %d", err, f.delivered, 2*len(good)+4096)
	}
	// Fields after the tables are not bounded one by one: 100 bytes more
	// there (as a later version's fields, with a valid checksum) are read
	// whole, and the parse, not the bound, refuses them.
	longer := checksum.Refresh(slices.Concat(good[:len(good)-4], make([]byte, 100), good[len(good)-4:]))
	if _, err := Read(&sparseFile{prefix: longer, size: int64(len(longer))}); err == nil || !strings.Contains(err.Error(), "inconsistent layout") {
		t.Errorf("a model with 100 bytes after its fields: %v, want an inconsistent layout", err)
	}
	// The layout fields read at their offsets agree with the parse: the
	// valid model still reads, from a file or from memory, and at an
	// offset within a file.
	if _, err := Read(&sparseFile{prefix: good, size: int64(len(good))}); err != nil {
		t.Errorf("valid model from a file: %v", err)
	}
	at := bytes.NewReader(append(make([]byte, 100), good...))
	at.Seek(100, io.SeekStart)
	if _, err := Read(at); err != nil {
		t.Errorf("valid model at offset 100 of a reader: %v", err)
	}
}
