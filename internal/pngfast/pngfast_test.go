package pngfast

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestEncodeDecodes checks that image/png reads back the pixels of grey
// images of 8 and 16 bits (photograph-like and random, odd sizes, a
// sub-image with its own stride and origin) and of a colour image (image/png's path).
func TestEncodeDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := image.NewGray16(image.Rect(0, 0, 37, 5))
	for i := range noise.Pix {
		noise.Pix[i] = byte(rng.IntN(256))
	}
	g := testimages.Texture(65, 33, 4)
	rgba := image.NewRGBA(image.Rect(0, 0, 9, 4))
	for i := range rgba.Pix {
		rgba.Pix[i] = byte(rng.IntN(256)) // alpha set to opaque below
	}
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i] = 255
	}
	translucent := image.NewRGBA(rgba.Rect)
	copy(translucent.Pix, rgba.Pix)
	copy(translucent.Pix[4:8], []byte{0, 0, 0, 0})   // one transparent pixel: image/png writes it exactly
	wide := image.NewRGBA(image.Rect(0, 0, 3000, 7)) // rows of more than one 64 KB band
	for i := range wide.Pix {
		wide.Pix[i] = byte(rng.IntN(256)) | byte(i%4/3*255)
	}
	for name, m := range map[string]image.Image{
		"grey":          g,
		"grey sub":      g.SubImage(image.Rect(3, 5, 40, 30)),
		"grey 1x1":      image.NewGray(image.Rect(0, 0, 1, 1)),
		"grey16 noise":  noise,
		"grey16 sub":    noise.SubImage(image.Rect(1, 1, 2, 5)),
		"rgba":          rgba,
		"rgba sub":      rgba.SubImage(image.Rect(2, 1, 9, 3)),
		"rgba wide":     wide,
		"rgba fallback": translucent,
		"grey tall":     testimages.Texture(5, 40000, 1),
	} {
		var b bytes.Buffer
		if err := Encode(&b, m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: image/png cannot read it: %v", name, err)
		}
		r := m.Bounds()
		if back.Bounds().Size() != r.Size() {
			t.Fatalf("%s: size %v, want %v", name, back.Bounds().Size(), r.Size())
		}
		for y := 0; y < r.Dy(); y++ {
			for x := 0; x < r.Dx(); x++ {
				a := color.RGBA64Model.Convert(m.At(r.Min.X+x, r.Min.Y+y))
				c := color.RGBA64Model.Convert(back.At(x, y))
				if a != c {
					t.Fatalf("%s: pixel (%d, %d) %v, read back %v", name, x, y, a, c)
				}
			}
		}
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestEncodeWriteError checks that a failing writer's error is returned.
func TestEncodeWriteError(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 300, 300))
	for _, n := range []int{0, 10, 40, 1000} {
		if err := Encode(&failWriter{n: n}, m); err == nil || err.Error() != "disk full" {
			t.Errorf("writer failing after %d bytes: got %v", n, err)
		}
	}
}

// BenchmarkEncode writes a 768×512 grey photograph-like image with this
// package and with image/png at BestSpeed (the baseline), reporting the
// bytes written.
func BenchmarkEncode(b *testing.B) {
	g := testimages.Texture(768, 512, 7)
	for _, c := range []struct {
		name string
		enc  func(*bytes.Buffer) error
	}{
		{"pngfast", func(w *bytes.Buffer) error { return Encode(w, g) }},
		{"image-png-bestspeed", func(w *bytes.Buffer) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, g)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var w bytes.Buffer
			for i := 0; i < b.N; i++ {
				w.Reset()
				if err := c.enc(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.Len()), "bytes")
		})
	}
}

// TestSubBytes checks the eight-bytes-at-a-time Sub filter against the
// byte loop, on random rows of every length up to 40 and both depths.
func TestSubBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, bpp := range []int{1, 2} {
		for n := bpp; n <= 40; n++ {
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(rng.IntN(256))
			}
			got := make([]byte, n)
			subBytes(got, src, bpp)
			for i := range src {
				want := src[i]
				if i >= bpp {
					want -= src[i-bpp]
				}
				if got[i] != want {
					t.Fatalf("bpp %d, %d bytes: byte %d is %d, want %d", bpp, n, i, got[i], want)
				}
			}
		}
	}
}
