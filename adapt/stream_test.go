package adapt

import (
	"bytes"
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
