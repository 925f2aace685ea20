package pngfast

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestDecodeRGBFiltersWide decodes RGB files of Average and Paeth rows
// (and mixed filters) beside image/png, with the AVX kernels and without,
// on widths past TestDecodeCraftedMatchesImagePNG's 17 (every residue of
// 3n+1 bytes modulo the kernels' steps, up to 4097 pixels), into a
// reused image too; and each file's rows cut short (the last row, or a
// pixel of it, missing): an error wherever image/png gives one.
func TestDecodeRGBFiltersWide(t *testing.T) {
	defer func(k bool) { hasAVX = k }(hasAVX)
	kernel := hasAVX
	rng := rand.New(rand.NewPCG(31, 4))
	widths := []int{18, 19, 20, 21, 22, 23, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000, 4097}
	for i, w := range widths {
		for fi, fs := range [][]byte{{3}, {4}, {3, 4}, {4, 3, 1, 2}, {5}} {
			h := 1 + (i+fi)%4
			skew := []float64{0, 3, 30}[(i+fi)%3]
			data := craftedPNG(rng, w, h, 2, fs, skew, zlib.DefaultCompression, false)
			want, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%dx%d filters %v: image/png: %v", w, h, fs, err)
			}
			for _, on := range []bool{kernel, false} {
				hasAVX = on
				name := fmt.Sprintf("%dx%d filters %v skew %g, kernels %v", w, h, fs, skew, on)
				got, err := Decode(bytes.NewReader(data), nil)
				if err != nil || !sameImage(got, want) {
					t.Fatalf("%s: %v, or pixels differ from image/png's", name, err)
				}
				// Into an image of another size's pixels, garbled.
				into, _ := Decode(bytes.NewReader(craftedPNG(rng, w+1, h, 2, []byte{0}, 0, 1, false)), nil)
				got, err = Decode(bytes.NewReader(data), &DecodeOptions{Into: into})
				if err != nil || !sameImage(got, want) {
					t.Fatalf("%s, into a reused image: %v, or pixels differ from image/png's", name, err)
				}
			}
			// The rows cut short: the same image's raw rows less a row, a
			// pixel, a byte.
			raw := rawRows(t, data)
			for _, cut := range []int{1 + 3*w, 3, 1} {
				if cut > len(raw) {
					continue
				}
				short := file(chunk("IHDR", ihdr(uint32(w), uint32(h), 2)), chunk("IDAT", zlibOf(raw[:len(raw)-cut])), chunk("IEND", nil))
				_, werr := png.Decode(bytes.NewReader(short))
				_, err := Decode(bytes.NewReader(short), nil)
				var fe FormatError
				if werr == nil || !errors.As(err, &fe) {
					t.Fatalf("%dx%d filters %v, %d bytes short: %v (image/png: %v), want a FormatError", w, h, fs, cut, err, werr)
				}
			}
		}
	}
}

// rawRows returns the inflated IDAT data of a file that craftedPNG made
// (one IDAT chunk after IHDR).
func rawRows(t *testing.T, data []byte) []byte {
	t.Helper()
	const idat = 8 + 25 + 8 // signature, IHDR chunk, IDAT's length and type
	n := int(uint32(data[33])<<24 | uint32(data[34])<<16 | uint32(data[35])<<8 | uint32(data[36]))
	zr, err := zlib.NewReader(bytes.NewReader(data[idat : idat+n]))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestUnfilterRGBReach checks that the kernels are given only rows whose
// every 4-byte pixel load and store lies within the row and prev
// (unfilterRGB's pixels n: 3n+1 bytes at most the row's): a kernel run
// to the last pixel reads and writes back the byte after the row, past
// the end of a row at the end of its buffer, which no pixel comparison
// sees (the byte is stored unchanged).
func TestUnfilterRGBReach(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX: no kernels")
	}
	for l := range 50 {
		for _, filter := range []byte{3, 4} {
			row, prev := make([]byte, l), make([]byte, l)
			done := unfilterRGB(filter, row, prev, 3)
			if done%3 != 0 || done > 0 && done+1 > l {
				t.Errorf("filter %d, a row of %d bytes: the kernel did %d bytes, reaching byte %d", filter, l, done, done)
			}
			if l > 0 && unfilterRGB(filter, row, prev[:l-1], 3) != 0 {
				t.Errorf("filter %d, a row of %d bytes over a shorter previous row: the kernel ran", filter, l)
			}
		}
	}
}
