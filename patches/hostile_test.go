package patches

import (
	"bytes"
	"errors"
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
