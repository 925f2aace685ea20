package codec

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestEncodeGrayFreshMemory bounds the memory a 768×512 8-bit grey encode
// allocates beyond the model's tables, with no buffers kept from earlier
// images (ReleaseBuffers): what a process that encodes one image touches
// for the first time, each page of it a page fault and its zeroing. The
// transform reads the 8-bit samples (no float64 plane: 8 bytes a pixel)
// and the loop filter fit and gain work in bands and rows (its planes of
// the whole image were ~13 bytes a pixel): 43.8 -> 22.9 bytes a pixel
// (the responses, 8 bytes a pixel for 3×3 patches, their indices, 4, the
// reconstruction and the deblocking's copies, the stream).
func TestEncodeGrayFreshMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // a cell cache per worker
	m := stepModel(t)
	img := testimages.Texture(768, 512, 21)
	var o Options
	var first bytes.Buffer
	if err := Encode(&first, img, m, &o); err != nil { // the model's lazy tables
		t.Fatal(err)
	}
	if h, err := DecodeHeader(&first); err != nil || !hasLoopFilter(h.Version) || h.LoopFilter == nil {
		t.Fatalf("header %+v (%v): no loop filter, the test covers less than it says", h, err)
	}
	ReleaseBuffers()
	perPixel := freshBytesPerPixel(t, 768*512, func() error { return Encode(io.Discard, img, m, &o) })
	t.Logf("fresh memory of a 768×512 grey encode: %.1f bytes a pixel", perPixel)
	const most = 28
	if perPixel > most {
		t.Errorf("a 768×512 grey encode allocated %.1f bytes a pixel, want at most %d", perPixel, most)
	}
}

// TestDecodeGrayFreshMemory is TestEncodeGrayFreshMemory for a decode of
// the same image, with no edge predictor kept either: the predictor's
// cells grow 4 times at a time (appending grew them 1.25 times at a time,
// to ~5 times their final size): 20.7 -> 17.5 bytes a pixel.
func TestDecodeGrayFreshMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	m := stepModel(t)
	var file bytes.Buffer
	if err := Encode(&file, testimages.Texture(768, 512, 21), m, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(bytes.NewReader(file.Bytes()), m); err != nil { // the model's lazy tables
		t.Fatal(err)
	}
	ReleaseBuffers()
	for _, c := range m.Channels { // and the predictors kept for the next image
		c.cellsMu.Lock()
		c.edges = nil
		c.cellsMu.Unlock()
	}
	perPixel := freshBytesPerPixel(t, 768*512, func() error {
		_, err := Decode(bytes.NewReader(file.Bytes()), m)
		return err
	})
	t.Logf("fresh memory of a 768×512 grey decode: %.1f bytes a pixel", perPixel)
	const most = 19
	if perPixel > most {
		t.Errorf("a 768×512 grey decode allocated %.1f bytes a pixel, want at most %d", perPixel, most)
	}
}

// freshBytesPerPixel runs code once after two collections (the second
// empties the sync.Pools the first moved to their victim caches) and
// returns the bytes it allocated per pixel of an image of pixels pixels.
func freshBytesPerPixel(t *testing.T, pixels int, code func() error) float64 {
	t.Helper()
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := code(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(pixels)
}
