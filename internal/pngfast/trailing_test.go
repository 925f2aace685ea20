package pngfast

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// imagePNGEveryReader decodes data by image/png from a bytes.Reader and
// from a reader of one byte a call: the image where both read the file
// (the same), nil where either refuses it. Its answer on bytes after the
// zlib checksum depends on how the reader splits the file (its zlib
// reader reads ahead by whatever a call returns).
func imagePNGEveryReader(t *testing.T, data []byte) image.Image {
	t.Helper()
	a, aerr := png.Decode(bytes.NewReader(data))
	b, berr := png.Decode(iotest.OneByteReader(bytes.NewReader(data)))
	if aerr != nil || berr != nil {
		return nil
	}
	if !sameImage(a, b) {
		t.Fatal("image/png decodes the same file otherwise from another reader")
	}
	return a
}

// TestDecodeTrailingMatchesImagePNG decodes files with bytes after the
// zlib checksum: whole IDAT chunks after the one where the stream ends
// (garbage, empty, after an ancillary chunk: image/png ignores them
// whatever its reader), bytes inside that chunk (image/png reads them
// from a bytes.Reader, refuses them one byte a call), and the stream
// split across chunks before them. Decode, from three kinds of reader,
// reads exactly the files image/png reads from every reader, with its
// pixels, and refuses the others (Decode refused every such file).
func TestDecodeTrailingMatchesImagePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	garbage := func(n int) []byte { return randomBytes(rng, n) }
	accepted, refused := 0, 0
	for _, c := range []struct {
		w, h int
		ct   byte
	}{{3, 4, 0}, {17, 5, 2}, {64, 40, 6}, {1, 1, 2}} {
		z := zlibOf(randomFilteredRows(rng, c.w, c.h, c.ct))
		head := chunk("IHDR", ihdr(uint32(c.w), uint32(c.h), c.ct))
		cut := 1 + rng.IntN(len(z)-1) // a split inside the stream
		end := chunk("IEND", nil)
		text := chunk("tEXt", []byte("k\x00v"))
		badCRC := chunk("IDAT", garbage(9))
		badCRC[len(badCRC)-1] ^= 1
		for name, data := range map[string][]byte{
			"a garbage IDAT after":           file(head, chunk("IDAT", z), chunk("IDAT", garbage(5)), end),
			"two garbage IDATs after":        file(head, chunk("IDAT", z), chunk("IDAT", garbage(5000)), chunk("IDAT", garbage(1)), end),
			"an empty IDAT after":            file(head, chunk("IDAT", z), chunk("IDAT", nil), end),
			"split, then a garbage IDAT":     file(head, chunk("IDAT", z[:cut]), chunk("IDAT", z[cut:]), chunk("IDAT", garbage(3)), end),
			"a garbage IDAT after tEXt":      file(head, chunk("IDAT", z), text, chunk("IDAT", garbage(7)), end),
			"a checksum IDAT after tEXt":     file(head, chunk("IDAT", z), text, chunk("IDAT", z[len(z)-4:]), end),
			"a bad CRC IDAT after":           file(head, chunk("IDAT", z), badCRC, end),
			"a bad CRC IDAT after tEXt":      file(head, chunk("IDAT", z), text, badCRC, end),
			"1 byte after, same IDAT":        file(head, chunk("IDAT", append(bytes.Clone(z), 0)), end),
			"5000 bytes after, same IDAT":    file(head, chunk("IDAT", append(bytes.Clone(z), garbage(5000)...)), end),
			"split, then bytes in the last":  file(head, chunk("IDAT", z[:cut]), chunk("IDAT", append(bytes.Clone(z[cut:]), 1, 2)), end),
			"bytes, then a garbage IDAT":     file(head, chunk("IDAT", append(bytes.Clone(z), 9)), chunk("IDAT", garbage(4)), end),
			"the stream's end after tEXt":    file(head, chunk("IDAT", z[:cut]), text, chunk("IDAT", z[cut:]), end),
			"checksum short, rest after":     file(head, chunk("IDAT", z[:len(z)-2]), chunk("IDAT", z[len(z)-2:]), end),
			"checksum in an IDAT after tEXt": file(head, chunk("IDAT", z[:len(z)-4]), text, chunk("IDAT", z[len(z)-4:]), end),
		} {
			if decodesLikeImagePNG(t, fmt.Sprintf("%dx%d colour type %d, %s", c.w, c.h, c.ct, name), data) {
				accepted++
			} else {
				refused++
			}
		}
	}
	if accepted < 4*6 || refused < 4*6 {
		t.Errorf("image/png read %d files and refused %d, want at least 24 of each", accepted, refused)
	}
}

// decodesLikeImagePNG checks that Decode, from three kinds of reader,
// reads data exactly when image/png reads it from every reader, with its
// pixels, and reports whether image/png reads it.
func decodesLikeImagePNG(t *testing.T, what string, data []byte) bool {
	t.Helper()
	want := imagePNGEveryReader(t, data)
	for rname, r := range map[string]io.Reader{
		"bytes":    bytes.NewReader(data),
		"one byte": iotest.OneByteReader(bytes.NewReader(data)),
		"data EOF": iotest.DataErrReader(bytes.NewReader(data)),
	} {
		got, err := Decode(r, nil)
		switch {
		case want == nil && err == nil:
			t.Errorf("%s, %s reader: decoded, where image/png refuses it from some reader", what, rname)
		case want != nil && (err != nil || !sameImage(got, want)):
			t.Errorf("%s, %s reader: %v, or pixels other than image/png's", what, rname, err)
		}
	}
	return want != nil
}

// randomBytes returns n bytes drawn from rng.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randomFilteredRows returns the filtered scanlines of a w×h image of
// 8-bit colour type ct (0 grey, 2 RGB, 6 RGBA): each row a random filter
// type 0-4 and random bytes.
func randomFilteredRows(rng *rand.Rand, w, h int, ct byte) []byte {
	bpp := map[byte]int{0: 1, 2: 3, 6: 4}[ct]
	var rows []byte
	for range h {
		rows = append(rows, byte(rng.IntN(5)))
		rows = append(rows, randomBytes(rng, w*bpp)...)
	}
	return rows
}
