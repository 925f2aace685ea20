package pngfast

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDecodeIDATLayoutsMatchImagePNG decodes files whose IDAT chunks are
// laid out in ways TestDecodeTrailingMatchesImagePNG does not: empty
// chunks before, inside and after the stream, the stream one byte a
// chunk, its two-byte header alone, the checksum split byte by byte,
// empty chunks between the stream's end and garbage, and no IEND. Decode,
// from three kinds of reader, reads exactly the files image/png reads
// from every reader, with its pixels.
func TestDecodeIDATLayoutsMatchImagePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 26))
	garbage := func(n int) []byte { return randomBytes(rng, n) }
	accepted, refused := 0, 0
	for _, c := range []struct {
		w, h int
		ct   byte
	}{{3, 4, 0}, {17, 5, 2}, {9, 7, 6}, {1, 1, 0}} {
		z := zlibOf(randomFilteredRows(rng, c.w, c.h, c.ct))
		head := chunk("IHDR", ihdr(uint32(c.w), uint32(c.h), c.ct))
		cut := 1 + rng.IntN(len(z)-1)
		end := chunk("IEND", nil)
		empty := chunk("IDAT", nil)
		var bytewise [][]byte
		bytewise = append(bytewise, head)
		for i := range z {
			bytewise = append(bytewise, chunk("IDAT", z[i:i+1]))
		}
		n := len(z)
		for name, data := range map[string][]byte{
			"an empty IDAT before":              file(head, empty, chunk("IDAT", z), end),
			"an empty IDAT inside":              file(head, chunk("IDAT", z[:cut]), empty, chunk("IDAT", z[cut:]), end),
			"empty IDATs then garbage after":    file(head, chunk("IDAT", z), empty, empty, chunk("IDAT", garbage(6)), end),
			"one byte a chunk":                  file(append(bytewise, end)...),
			"the zlib header alone":             file(head, chunk("IDAT", z[:2]), chunk("IDAT", z[2:]), end),
			"checksum byte by byte":             file(head, chunk("IDAT", z[:n-4]), chunk("IDAT", z[n-4:n-3]), chunk("IDAT", z[n-3:n-2]), chunk("IDAT", z[n-2:n-1]), chunk("IDAT", z[n-1:]), end),
			"checksum byte by byte, then junk":  file(head, chunk("IDAT", z[:n-2]), chunk("IDAT", z[n-2:n-1]), chunk("IDAT", z[n-1:]), chunk("IDAT", garbage(2)), end),
			"only empty IDATs":                  file(head, empty, empty, end),
			"no IEND":                           file(head, chunk("IDAT", z)),
			"no IEND, a garbage IDAT after":     file(head, chunk("IDAT", z), chunk("IDAT", garbage(3))),
			"IEND with data":                    file(head, chunk("IDAT", z), chunk("IEND", []byte{0})),
			"stream short by one byte":          file(head, chunk("IDAT", z[:n-1]), end),
			"stream short, the byte after tEXt": file(head, chunk("IDAT", z[:n-1]), chunk("tEXt", []byte("k\x00v")), chunk("IDAT", z[n-1:]), end),
		} {
			if decodesLikeImagePNG(t, fmt.Sprintf("%dx%d colour type %d, %s", c.w, c.h, c.ct, name), data) {
				accepted++
			} else {
				refused++
			}
		}
	}
	if accepted < 4*5 || refused < 4*5 {
		t.Errorf("image/png read %d files and refused %d, want at least 20 of each", accepted, refused)
	}
}
