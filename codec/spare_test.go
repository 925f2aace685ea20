package codec

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestSpareSection0 checks the lifetime that makes a model's inflated
// section 0 the spare (donate): nothing the model keeps may refer to its
// bytes, which the first image's planes then overwrite. A model loaded
// from a file codes and decodes an image with its planes in the spare as
// it does with no spare, the same files and pixels.
func TestSpareSection0(t *testing.T) {
	path := filepath.Join(t.TempDir(), "colour.model")
	if err := smallColorModel(t, true).Save(path); err != nil {
		t.Fatal(err)
	}
	img := testimages.ColorTexture(64, 48, 9)
	left := func() int {
		spare.mu.Lock()
		defer spare.mu.Unlock()
		return len(spare.f)
	}
	code := func(withSpare bool) (file, pix []byte, took int) {
		ReleaseBuffers() // no kept buffers and no spare
		m, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if !withSpare {
			dropSpare()
		}
		before := left()
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatal(err)
		}
		dec, err := Decode(bytes.NewReader(b.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), pixelBytesOf(dec), before - left()
	}
	f0, p0, _ := code(false)
	f1, p1, took := code(true)
	defer ReleaseBuffers()
	// The encoder's three planes and the decoder's (64×48 and twice 32×24).
	if want := 2 * (64*48 + 2*32*24); took != want {
		t.Fatalf("the planes took %d values of the spare, want %d", took, want)
	}
	if !bytes.Equal(f0, f1) {
		t.Error("another file with the planes in the model's section 0")
	}
	if !bytes.Equal(p0, p1) {
		t.Error("other pixels with the planes in the model's section 0")
	}
}
