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
		filter := byte(3 + trial/40%2) // every width with each filter
		kind := trial / 80 % 3
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

// TestUnfilterRGBPair checks two Average or Paeth rows of 3-byte pixels
// unfiltered at once by the kernels (unfilterRGBPair) against the rows
// one by one in Go, as TestUnfilterRGBKernels does single rows: rows of
// 1-40 pixels, the bytes past them untouched.
func TestUnfilterRGBPair(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX: no kernels")
	}
	defer func(k bool) { hasAVX = k }(hasAVX)
	rng := rand.New(rand.NewPCG(15, 16))
	vals := []byte{0, 1, 2, 127, 128, 253, 254, 255}
	for trial := range 3000 {
		w := 1 + trial%40
		filter := byte(3 + trial/40%2) // every width with each filter
		kind := trial / 80 % 3
		buf, prev := make([]byte, 6*w+5), make([]byte, 3*w)
		for _, b := range [][]byte{buf, prev} {
			for i := range b {
				switch kind {
				case 0:
					b[i] = byte(rng.Uint32())
				case 1:
					b[i] = vals[rng.IntN(len(vals))]
				default:
					b[i] = byte(100 + rng.IntN(3))
				}
			}
		}
		want := bytes.Clone(buf)
		hasAVX = false
		for _, r := range [][2]int{{0, 3 * w}, {3 * w, 6 * w}} {
			up := prev
			if r[0] > 0 {
				up = want[:3*w]
			}
			if err := unfilter(filter, want[r[0]:r[1]], up, 3); err != nil {
				t.Fatal(err)
			}
		}
		hasAVX = true
		got := bytes.Clone(buf)
		if !unfilterRGBPair(filter, got[:3*w], got[3*w:6*w], prev) {
			if w >= 3 {
				t.Fatalf("filter %d, %d pixels: the kernels did not run", filter, w)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("filter %d, %d pixels, bytes of kind %d: kernels %v, Go %v", filter, w, kind, got, want)
		}
	}
}

// BenchmarkUnfilterRGB unfilters Average and Paeth rows of 768 3-byte
// pixels (a Kodak photograph's width) by the kernels where they run, one
// row at a time and two (Pair: MB/s of both rows).
func BenchmarkUnfilterRGB(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w = 768
	prev, row, row2 := make([]byte, 3*w), make([]byte, 3*w), make([]byte, 3*w)
	for i := range prev {
		prev[i], row[i], row2[i] = byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())
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
		b.Run(f.name+"Pair", func(b *testing.B) {
			b.SetBytes(2 * 3 * w)
			for range b.N {
				if !unfilterRGBPair(f.filter, row, row2, prev) {
					b.Fatal("the kernels did not run")
				}
			}
		})
	}
}
