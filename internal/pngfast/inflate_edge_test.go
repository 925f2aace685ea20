package pngfast

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"image/png"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"testing/iotest"
)

// TestInflateEdges checks inflater against compress/zlib at the limits
// of the format (review of session 12's inflater): stored blocks of 0
// and 65535 bytes and one after another, matches at distance 32768 (the
// largest, 13 extra bits all ones) and one byte too far, lengths 3 and
// 258 and the 284+31 form of 258, zlib headers with another method, a
// window over 32 KB, a bad check value, and a damaged Adler-32.
func TestInflateEdges(t *testing.T) {
	var f inflater
	rng := rand.New(rand.NewPCG(9, 10))
	// Stored blocks.
	storedBlocks := func(sizes []int, final bool) ([]byte, []byte) {
		var w bitWriter
		var data []byte
		for i, n := range sizes {
			last := uint64(0)
			if final && i == len(sizes)-1 {
				last = 1
			}
			w.bits(last, 1)
			w.bits(0, 2)
			if w.nacc > 0 {
				w.bits(0, 8-w.nacc)
			}
			w.bits(uint64(n)|uint64(^uint16(n))<<16, 32)
			for range n {
				b := byte(rng.Uint32())
				data = append(data, b)
				w.bits(uint64(b), 8)
			}
		}
		return w.zlibStream(data), data
	}
	for _, c := range []struct {
		name  string
		sizes []int
		final bool
		ok    bool
	}{
		{"stored 0", []int{0}, true, true},
		{"stored 65535", []int{65535}, true, true},
		{"stored 65535, 65535, 1", []int{65535, 65535, 1}, true, true},
		{"stored 0, 0, 5", []int{0, 0, 5}, true, true},
		{"stored, no final block", []int{10}, false, false},
	} {
		z, _ := storedBlocks(c.sizes, c.final)
		if checkInflate(t, &f, c.name, z) != c.ok {
			t.Errorf("%s: accepted %v, want %v", c.name, !c.ok, c.ok)
		}
	}
	// Fixed blocks: n literals, then a match of length at distance dist.
	lengthSym := func(length int) (sym, extra, nextra int) {
		base := []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
		bits := []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
		for i := len(base) - 1; i >= 0; i-- {
			if length >= base[i] {
				return 257 + i, length - base[i], bits[i]
			}
		}
		panic("length")
	}
	distSym := func(dist int) (sym, extra, nextra int) {
		for s := 29; s >= 0; s-- {
			nb := max(0, s/2-1)
			base := 1
			if s < 4 {
				base = s + 1
			} else {
				base = (2+s%2)<<nb + 1
			}
			if dist >= base {
				return s, dist - base, nb
			}
		}
		panic("dist")
	}
	litCode := func(w *bitWriter, s int) {
		switch {
		case s < 144:
			w.code(uint64(0x30+s), 8)
		case s < 256:
			w.code(uint64(0x190+s-144), 9)
		case s < 280:
			w.code(uint64(s-256), 7)
		default:
			w.code(uint64(0xc0+s-280), 8)
		}
	}
	match := func(n, length, dist int, sym285 int) ([]byte, []byte) {
		var w bitWriter
		w.bits(1, 1)
		w.bits(1, 2)
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
			litCode(&w, int(data[i]))
		}
		ls, le, ln := lengthSym(length)
		if sym285 >= 0 {
			ls, le, ln = 284, sym285, 5 // 227 + 31 = 258 by the other code
		}
		litCode(&w, ls)
		w.bits(uint64(le), uint(ln))
		ds, de, dn := distSym(dist)
		w.code(uint64(ds), 5)
		w.bits(uint64(de), uint(dn))
		litCode(&w, 256)
		for i := 0; i < length && dist <= len(data); i++ {
			data = append(data, data[len(data)-dist])
		}
		return w.zlibStream(data), data
	}
	for _, c := range []struct {
		name                string
		n, length, dist, fm int
		ok                  bool
	}{
		{"distance 32768, length 258", 32768, 258, 32768, -1, true},
		{"distance 32768, length 3", 40000, 3, 32768, -1, true},
		{"distance 32768 after 32767 bytes", 32767, 258, 32768, -1, false},
		{"distance 1, length 258", 1, 258, 1, -1, true},
		{"distance 24577 (symbol 29, no extra)", 30000, 10, 24577, -1, true},
		{"length 227+31 by symbol 284", 10, 258, 5, 31, true},
		{"length 227+30 by symbol 284", 10, 257, 5, 30, true},
	} {
		z, data := match(c.n, c.length, c.dist, c.fm)
		ok := checkInflate(t, &f, c.name, z)
		if ok != c.ok {
			t.Errorf("%s: accepted %v, want %v", c.name, ok, c.ok)
		}
		if want, zok, _ := zlibRead(z); ok && zok && !bytes.Equal(want, data) {
			t.Errorf("%s: compress/zlib reads other bytes than the stream codes (test's coding wrong)", c.name)
		}
	}
	// zlib headers and trailers around a good stream.
	good, data := storedBlocks([]int{100}, true)
	mutate := func(f func(z []byte) []byte) []byte { return f(bytes.Clone(good)) }
	check := func(b0, b1 byte) []byte {
		return mutate(func(z []byte) []byte {
			z[0], z[1] = b0, b1
			if v := uint16(b0)<<8 | uint16(b1); v%31 != 0 {
				z[1] += byte(31 - v%31) // a valid check value again
			}
			return z
		})
	}
	for _, c := range []struct {
		name string
		z    []byte
	}{
		{"method 7", check(0x77, 0)},
		{"method 15", check(0x7f, 0)},
		{"window 64 KB (CINFO 8)", check(0x88, 0)},
		{"window 256 bytes (CINFO 0)", check(0x08, 0)},
		{"bad check value", mutate(func(z []byte) []byte { z[1]++; return z })},
		{"preset dictionary", check(0x78, 0x20)},
		{"Adler-32 off by one", mutate(func(z []byte) []byte { z[len(z)-1]++; return z })},
		{"Adler-32 of nothing", mutate(func(z []byte) []byte {
			return binary.BigEndian.AppendUint32(z[:len(z)-4], adler32.Checksum(nil))
		})},
		{"no Adler-32", good[:len(good)-4]},
		{"three bytes of Adler-32", good[:len(good)-1]},
		{"two streams", append(bytes.Clone(good), good...)},
	} {
		checkInflate(t, &f, c.name, c.z, len(data))
	}
}

// TestDecodeSplitIDAT checks Decode against image/png on the same pixels
// with their zlib stream cut into IDAT chunks of 1 byte, with empty IDAT
// chunks between, and read through a reader that gives one byte a call
// (or data with io.EOF): the inflater sees one stream, whatever the
// chunks. Grey, RGB and RGBA, 1 to 3 rows.
func TestDecodeSplitIDAT(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, ct := range []struct {
		typ byte
		bpp int
	}{{0, 1}, {2, 3}, {6, 4}} {
		for _, wh := range [][2]int{{1, 1}, {7, 3}, {33, 2}} {
			w, h := wh[0], wh[1]
			var rows []byte
			for range h {
				rows = append(rows, byte(rng.IntN(5))) // filter 0-4
				for range w * ct.bpp {
					rows = append(rows, byte(rng.Uint32()))
				}
			}
			z := zlibOf(rows)
			var ones, empties [][]byte
			for i := range z {
				ones = append(ones, chunk("IDAT", z[i:i+1]))
				empties = append(empties, chunk("IDAT", nil), chunk("IDAT", z[i:i+1]))
			}
			head := chunk("IHDR", ihdr(uint32(w), uint32(h), ct.typ))
			whole := file(head, chunk("IDAT", z), chunk("IEND", nil))
			want, err := png.Decode(bytes.NewReader(whole))
			if err != nil {
				t.Fatalf("colour type %d %dx%d: image/png: %v", ct.typ, w, h, err)
			}
			for name, data := range map[string][]byte{
				"1-byte IDATs":        file(append(append([][]byte{head}, ones...), chunk("IEND", nil))...),
				"empty IDATs between": file(append(append(append([][]byte{head}, empties...), chunk("IDAT", nil)), chunk("IEND", nil))...),
			} {
				if alt, err := png.Decode(bytes.NewReader(data)); err != nil || !sameImage(alt, want) {
					t.Fatalf("%s: image/png reads it otherwise (%v)", name, err)
				}
				for rname, r := range map[string]io.Reader{
					"bytes":    bytes.NewReader(data),
					"one byte": iotest.OneByteReader(bytes.NewReader(data)),
					"data EOF": iotest.DataErrReader(bytes.NewReader(data)),
				} {
					got, err := Decode(r, nil)
					if err != nil || !sameImage(got, want) {
						t.Errorf("colour type %d %dx%d, %s, %s reader: %v, or pixels differ from image/png's", ct.typ, w, h, name, rname, err)
					}
				}
			}
		}
	}
}

// On a 32-bit platform the size of the inflated rows of 32768×65536 grey
// (2^31 + 65536 bytes) was a negative int and make panicked; it is a
// FormatError there. (On 64-bit platforms the size is believed as far as
// the compressed data can fill it: 2 GB for these 2.1 MB, not tried.)
func TestDecodeHugeOn32Bit(t *testing.T) {
	if strconv.IntSize == 64 {
		t.Skip("32-bit platforms only (GOARCH=arm go test -exec qemu-arm-static)")
	}
	idat := make([]byte, (1<<31)/maxInflation+1<<20)
	data := file(chunk("IHDR", ihdr(32768, 65536, 0)), chunk("IDAT", idat), chunk("IEND", nil))
	var fe FormatError
	if _, err := Decode(bytes.NewReader(data), nil); !errors.As(err, &fe) {
		t.Errorf("32768×65536 grey with %d bytes of data: %v, want a FormatError", len(idat), err)
	}
}
