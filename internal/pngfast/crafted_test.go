package pngfast

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
)

// craftedPNG returns an 8-bit PNG of colour type ct (0 grey, 2 RGB, 6
// RGBA), w×h, whose rows carry the filter types of filters (cycled; 5 =
// random per row) over raw bytes drawn from a distribution of the given
// skew (0 uniform; larger, geometric, for long Huffman codes), compressed
// at level, with optional interlacing (which Decode leaves to image/png).
func craftedPNG(rng *rand.Rand, w, h int, ct byte, filters []byte, skew float64, level int, interlace bool) []byte {
	bpp := map[byte]int{0: 1, 2: 3, 6: 4}[ct]
	var raw []byte
	if interlace {
		// Adam7: the passes' rows, each with its filter byte.
		for p := range 7 {
			x0, y0, dx, dy := []int{0, 4, 0, 2, 0, 1, 0}[p], []int{0, 0, 4, 0, 2, 0, 1}[p], []int{8, 8, 4, 4, 2, 2, 1}[p], []int{8, 8, 8, 4, 4, 2, 2}[p]
			pw, ph := (w-x0+dx-1)/dx, (h-y0+dy-1)/dy
			if pw <= 0 || ph <= 0 {
				continue
			}
			raw = appendRows(rng, raw, pw*bpp, ph, filters, skew)
		}
	} else {
		raw = appendRows(rng, raw, w*bpp, h, filters, skew)
	}
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, level)
	if err != nil {
		panic(err)
	}
	zw.Write(raw)
	zw.Close()
	hd := ihdr(uint32(w), uint32(h), ct)
	if interlace {
		hd[12] = 1
	}
	return file(chunk("IHDR", hd), chunk("IDAT", z.Bytes()), chunk("IEND", nil))
}

func appendRows(rng *rand.Rand, raw []byte, n, h int, filters []byte, skew float64) []byte {
	for y := range h {
		f := filters[y%len(filters)]
		if f == 5 {
			f = byte(rng.IntN(5))
		}
		raw = append(raw, f)
		for range n {
			var v byte
			if skew == 0 {
				v = byte(rng.IntN(256))
			} else {
				v = byte(rng.ExpFloat64() * skew)
			}
			raw = append(raw, v)
		}
	}
	return raw
}

// TestDecodeCraftedMatchesImagePNG decodes crafted files beside image/png:
// every filter type (Paeth, average and up on odd widths, the first row,
// pairs of rows) on grey, RGB and RGBA of widths 1 to 17, stored, fixed
// and dynamic Huffman blocks (skewed bytes give codes up to 15 bits, past
// the pair table), interlaced files (ErrUnsupported, image/png's to
// read), and each with its Adler-32, a chunk CRC or a deflate byte
// damaged. Decode must return image/png's pixels, or an error wherever
// image/png gives one.
func TestDecodeCraftedMatchesImagePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	levels := []int{zlib.NoCompression, zlib.BestSpeed, zlib.DefaultCompression, zlib.BestCompression, flate.HuffmanOnly}
	filterSets := [][]byte{{0}, {1}, {2}, {3}, {4}, {4, 3}, {3, 4}, {2, 4}, {5}}
	checked, damagedRefused := 0, 0
	for _, ct := range []byte{0, 2, 6} {
		for w := 1; w <= 17; w++ {
			for fi, fs := range filterSets {
				h := 1 + rng.IntN(6)
				level := levels[(w+fi)%len(levels)]
				skew := []float64{0, 0.7, 3, 30}[(w+int(ct))%4]
				interlace := fi == len(filterSets)-1 && w%3 == 0
				data := craftedPNG(rng, w, h, ct, fs, skew, level, interlace)
				name := fmt.Sprintf("type %d %dx%d filters %v level %d skew %g interlaced %v", ct, w, h, fs, level, skew, interlace)
				want, werr := png.Decode(bytes.NewReader(data))
				if werr != nil {
					t.Fatalf("%s: image/png: %v", name, werr)
				}
				got, err := Decode(bytes.NewReader(data), nil)
				switch {
				case interlace && !errors.Is(err, ErrUnsupported):
					t.Fatalf("%s: %v, want ErrUnsupported", name, err)
				case interlace:
				case err != nil:
					t.Fatalf("%s: %v", name, err)
				case !sameImage(got, want):
					t.Fatalf("%s: pixels differ from image/png's", name)
				}
				checked++
				// Damaged: the Adler-32 (last 4 bytes of IDAT's data), the
				// IDAT CRC, and a byte inside the deflate stream.
				idatEnd := len(data) - 12 - 4 // IEND chunk, IDAT CRC
				for _, off := range []int{idatEnd - 1, idatEnd - 4, idatEnd + 2, 33 + 8 + 2 + rng.IntN(max(1, idatEnd-4-43))} {
					bad := bytes.Clone(data)
					bad[off] ^= byte(1 + rng.IntN(255))
					_, werr := png.Decode(bytes.NewReader(bad))
					got, err := Decode(bytes.NewReader(bad), nil)
					if err == nil && (werr != nil || !sameImage(got, mustDecode(t, bad))) {
						t.Fatalf("%s, byte %d damaged: decoded, image/png: %v", name, off, werr)
					}
					if err != nil {
						damagedRefused++
					}
				}
			}
		}
	}
	if checked != 3*17*len(filterSets) || damagedRefused < 3*checked {
		t.Fatalf("%d files checked, %d damaged copies refused", checked, damagedRefused)
	}
}

func mustDecode(t *testing.T, b []byte) image.Image {
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
