package pngfast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestUnfilterRGBKernels checks the Average and Paeth rows of 3-byte
// pixels unfiltered by the kernels (averageRGBAVX, paethRGBAVX) against
// the byte lanes in Go, on rows of 1-40 pixels of random bytes and of
// bytes near 0 and 255 (sums that wrap, Paeth's ties), the bytes past
// the row untouched.
func TestUnfilterRGBKernels(t *testing.T) {
	if !hasAVX {
		t.Log("no AVX: the Go lanes only")
	}
	defer func(k bool) { hasAVX = k }(hasAVX)
	kernel := hasAVX
	rng := rand.New(rand.NewPCG(13, 14))
	draw := func(b []byte, kind int) {
		for i := range b {
			switch kind {
			case 0:
				b[i] = byte(rng.Uint32())
			case 1:
				b[i] = []byte{0, 1, 2, 127, 128, 253, 254, 255}[rng.IntN(8)]
			default:
				b[i] = byte(100 + rng.IntN(3)) // ties
			}
		}
	}
	for trial := range 3000 {
		w := 1 + trial%40
		filter := byte(3 + trial%2)
		kind := trial / 2 % 3
		raw, prev := make([]byte, 3*w+5), make([]byte, 3*w)
		draw(raw, kind)
		draw(prev, kind)
		var got [2][]byte
		for k, on := range []bool{kernel, false} {
			hasAVX = on
			row := bytes.Clone(raw)
			if err := unfilter(filter, row[:3*w], prev, 3); err != nil {
				t.Fatal(err)
			}
			got[k] = row
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Fatalf("filter %d, %d pixels, bytes of kind %d: kernel %v, Go %v", filter, w, kind, got[0], got[1])
		}
	}
}

// BenchmarkUnfilterRGB unfilters Average and Paeth rows of 768 3-byte
// pixels (a Kodak photograph's width) by the kernels where they run.
func BenchmarkUnfilterRGB(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w = 768
	prev, row := make([]byte, 3*w), make([]byte, 3*w)
	for i := range prev {
		prev[i], row[i] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	for _, f := range []struct {
		name   string
		filter byte
	}{{"Average", 3}, {"Paeth", 4}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(3 * w)
			for range b.N {
				if err := unfilter(f.filter, row, prev, 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
