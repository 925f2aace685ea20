package patches

import (
	"bytes"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"io"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

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

// An image on a stream followed by more data (an image header and
// /dev/zero on standard input of spca encode -: a fatal out-of-memory
// after 1.7 GB) was read whole before decoding; the stream is read as
// far as the decoders go: an image whose data end before the zeros
// decodes, and data that never end are refused.
func TestDecodeStreamThenEndless(t *testing.T) {
	var jpg, gf, tf bytes.Buffer
	grey := image.NewGray(image.Rect(0, 0, 5, 4))
	if err := jpeg.Encode(&jpg, grey, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, grey, nil); err != nil {
		t.Fatal(err)
	}
	if err := tiff.Encode(&tf, grey, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		w, h int
	}{
		{"PGM", []byte("P5\n5 4\n255\n"), 5, 4},
		{"PNG", hostile.ZeroPNG(5, 4), 5, 4},
		{"JPEG", jpg.Bytes(), 5, 4},
		{"GIF", gf.Bytes(), 5, 4},
		{"TIFF", tf.Bytes(), 5, 4},
	} {
		r := &hostile.Endless{Prefix: c.data, Limit: 256 << 20}
		img, err := Decode(r, MaxPixels(1000))
		if err != nil || img.Bounds().Dx() != c.w || img.Bounds().Dy() != c.h || r.N > 1<<20 {
			t.Errorf("%s then endless zeros: %v after %d bytes, want a %d×%d image after at most 1 MB", c.name, err, r.N, c.w, c.h)
		}
	}
	// A PNG's signature and header, then zeros: chunks of length 0 and
	// type 0, which the profile reader skipped one after the other up to
	// the stream's limit (64 MB and 16 bytes a pixel of the budget).
	// image/jpeg skips any bytes between segments: those go on to the
	// limit.
	png := hostile.ZeroPNG(5, 4)
	for _, c := range []struct {
		name string
		head []byte
		most int64
	}{
		{"PNG", png[:8+25], 1 << 20},
		{"PGM", []byte("P5 5000 4000 255\n"), 1 << 20},
		{"JPEG", jpg.Bytes()[:20], streamLimit(1000) + 1<<20},
	} {
		r := &hostile.Endless{Prefix: c.head, Limit: 256 << 20}
		var err error
		a := hostile.Allocated(func() { _, err = Decode(r, MaxPixels(1000)) })
		if err == nil || r.N > c.most {
			t.Errorf("%s header then endless zeros: %v after %d bytes, want an error after at most %d", c.name, err, r.N, c.most)
		}
		if a > hostile.Bound(int(r.N)) {
			t.Errorf("%s header then endless zeros: allocated %d MB reading %d MB", c.name, a>>20, r.N>>20)
		}
	}
	// With the default budget (10^8 pixels) a JPEG went on to 1.66 GB:
	// now to what a 5×4 image can take after its frame header, and to
	// jpegHeaderLimit before it; the error says which.
	// image/jpeg's header ends at the frame header in a JFIF file (else at
	// the first scan, which may say the colour transform): one with JFIF.
	jfif := append([]byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}, jpg.Bytes()[2:]...)
	sof := bytes.Index(jfif, []byte{0xff, 0xc0})
	for _, c := range []struct {
		name string
		head []byte
		want string
	}{
		{"before the frame header", jpg.Bytes()[:20], "no JPEG header (up to the first scan) within them"},
		{"after the frame header of 5×4", jfif[:sof+13], "far more than a 5×4 image takes"},
	} {
		r := &hostile.Endless{Prefix: c.head, Limit: 256 << 20}
		_, err := Decode(r)
		// Not ErrTooLarge, whose message says to raise the budget.
		if err == nil || errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) || r.N > streamLimit(20)+1<<20 {
			t.Errorf("JPEG %s then endless zeros, default budget: %v after %d bytes, want an error saying %q after at most %d", c.name, err, r.N, c.want, streamLimit(20)+1<<20)
		}
	}
	// The limit itself.
	p := &replay{r: &hostile.Endless{Limit: 1 << 20}, limit: 1000}
	if n, err := io.Copy(io.Discard, p); !errors.Is(err, ErrTooLarge) || n != 1000 {
		t.Errorf("a stream of 1000 bytes at most: read %d, %v, want 1000 and ErrTooLarge", n, err)
	}
}
