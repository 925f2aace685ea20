package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// header returns the first 32 bytes of a classifier file: the magic
// number, version 1, metric, k, classes, n samples of dimension d.
func header(metric Metric, k, classes, n, d uint32) []byte {
	b := []byte(fileMagic)
	for _, v := range []uint32{1, uint32(metric), k, classes, n, d} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// A stream that goes on past a classifier's header (/dev/zero after the
// magic number and a header) was read whole (io.ReadAll after the magic
// number: until killed); it is read as far as the header's sizes reach
// and refused. A header declaring 2^24 samples of dimension 4096 (512 GiB
// of samples) is refused from its sizes, before its samples are read.
func TestReadEndlessAfterHeader(t *testing.T) {
	const limit = 64 << 20
	for _, c := range []struct {
		name, want string
		head       []byte
		most       int64
	}{
		{"magic and zeros", "version 0", []byte(fileMagic), 4096},
		{"2 samples of dimension 3 and zeros", "after the end", header(Euclidean, 1, 2, 2, 3), 4096},
		{"2^24 samples of dimension 4096", "larger than", header(Euclidean, 1, 2, maxSamples, MaxDim), 4096},
		{"spca-per-class with 2^16 classes, no models", "0 SPCA models", header(SPCAPerClass, 1, 1<<16, 1<<16, 16), 16 << 20},
	} {
		r := &hostile.Endless{Prefix: c.head, Limit: limit}
		var fe *FormatError
		var err error
		a := hostile.Allocated(func() { _, err = Read(r) })
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || r.N > c.most {
			t.Errorf("%s: %v after %d bytes, want a *FormatError (%q) after at most %d", c.name, err, r.N, c.want, c.most)
		}
		if a > hostile.Bound(int(r.N)) {
			t.Errorf("%s: allocated %d MB reading %d bytes", c.name, a>>20, r.N)
		}
	}
}

// A short file whose header declares the most samples of the largest
// dimension (8·2^36 bytes: more than a 32-bit int holds) is a
// *FormatError, without allocating for them.
func TestReadHugeHeader(t *testing.T) {
	for _, head := range [][]byte{
		header(Euclidean, 1, 2, maxSamples, MaxDim),
		header(Euclidean, 1, 1<<16, maxSamples, MaxDim),
		header(SPCAPerClass, 1, 1<<16, 1<<16, 1),
	} {
		in := append(head, make([]byte, 1024)...)
		var fe *FormatError
		var err error
		hostile.Check(t, "Read", len(in), func() { _, err = Read(bytes.NewReader(in)) })
		if !errors.As(err, &fe) {
			t.Errorf("header %x: %v, want a *FormatError", head[8:], err)
		}
	}
	// 2^17 samples of dimension 4096: on a 32-bit platform the size of the
	// samples, 8·2^29 bytes, wrapped to 0 and the file's 512 KB of labels
	// passed for the whole; the samples' matrix then panicked.
	in := header(Euclidean, 1, 2, 1<<17, MaxDim)
	in = checksum.Append(append(in, make([]byte, 16+4<<17+4)...))
	var fe *FormatError
	var err error
	hostile.Check(t, "Read", len(in), func() { _, err = Read(bytes.NewReader(in)) })
	if !errors.As(err, &fe) {
		t.Errorf("2^17 samples of dimension 4096 in %d bytes: %v, want a *FormatError", len(in), err)
	}
}

// A label of 0xffffffff was -1 on 32-bit platforms and passed "below the
// classes"; refused on every platform.
func TestReadLabel32(t *testing.T) {
	c, _ := smallClassifier(t, Euclidean)
	data := encode(t, c)
	n, d := c.x.Dims()
	at := 32 + 8*c.classes + 8*n*d // the first label
	for _, v := range []uint32{1 << 31, 1<<32 - 1} {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint32(bad[at:], v)
		var fe *FormatError
		if _, err := Read(bytes.NewReader(checksum.Refresh(bad))); !errors.As(err, &fe) {
			t.Errorf("label %#x: %v, want a *FormatError", v, err)
		}
	}
}
