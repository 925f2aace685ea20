package patches

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/hostile"
)

// Issue 23: a 261 KB all-zero PNG of 16384×16384 (5.7 GB in spca encode
// before) is refused by the default pixel budget, from its header, within
// the allocation bound; a budget raised to its size lets it through the
// header check.
func TestDecodeHugePNG(t *testing.T) {
	data := hostile.ZeroPNG(16384, 16384)
	var err error
	hostile.Check(t, "16384×16384 PNG", len(data), func() { _, err = Decode(bytes.NewReader(data)) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16384×16384") {
		t.Errorf("%d-byte PNG of 16384×16384: got %v, want ErrTooLarge", len(data), err)
	}
	if DefaultMaxPixels >= 16384*16384 {
		t.Errorf("DefaultMaxPixels %d admits 16384²", DefaultMaxPixels)
	}
	// Under a budget of its size the header passes (a 32×32 file, as
	// decoding 16384² here would take gigabytes).
	small := hostile.ZeroPNG(32, 32)
	if img, err := Decode(bytes.NewReader(small), MaxPixels(32*32)); err != nil || img.Bounds().Dx() != 32 {
		t.Errorf("32×32 PNG under a budget of 1024 pixels: %v", err)
	}
}

// Decode of a stream (no Seek) read it whole before looking at it: an
// endless one (/dev/zero as standard input of spca encode -) until the
// process was killed. Data in no known format are refused from their
// first bytes; an image from a stream still decodes.
func TestDecodeEndlessStream(t *testing.T) {
	r := &hostile.Endless{Limit: 64 << 20}
	if _, err := Decode(r); !errors.Is(err, ErrNotImage) || r.N > sniffBytes {
		t.Errorf("Decode of endless zeros: %v after %d bytes, want ErrNotImage after %d", err, r.N, sniffBytes)
	}
	for _, data := range [][]byte{nil, []byte("P7"), []byte("not an image")} {
		if _, err := Decode(struct{ io.Reader }{bytes.NewReader(data)}); !errors.Is(err, ErrNotImage) {
			t.Errorf("Decode of the stream %q: %v, want ErrNotImage", data, err)
		}
	}
	png := hostile.ZeroPNG(3, 2)
	img, err := Decode(struct{ io.Reader }{bytes.NewReader(png)})
	if err != nil || img.Bounds().Dx() != 3 || img.Bounds().Dy() != 2 {
		t.Errorf("Decode of a 3×2 PNG stream: %v, %v", img, err)
	}
}
