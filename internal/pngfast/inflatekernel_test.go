package pngfast

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
)

// craftedBlock returns a zlib stream of one final dynamic block whose
// codes reach 15 bits in both alphabets (subtables of both tables), with
// n bytes of literals and matches of every length and of distances up
// to 32768 at random, and the data it codes. With bad > 0 the match at
// byte bad or after reaches before the data's start.
func craftedBlock(rng *rand.Rand, n, bad int) ([]byte, []byte) {
	var sc huffScratch
	litFreq := make([]uint32, 286)
	for s := range litFreq {
		litFreq[s] = uint32(rng.ExpFloat64()*50) + 1
	}
	litFreq[256] = 1
	lit := make([]uint8, 286)
	sc.lengths(litFreq, lit, maxCodeLen)
	// Distances: Fibonacci counts over a shuffled order give codes of 1
	// to 15 bits, the long ones of any distance.
	distFreq := make([]uint32, 30)
	order := rng.Perm(30)
	a, b := uint32(1), uint32(1)
	for _, s := range order[:22] {
		distFreq[s] = a
		a, b = b, a+b
	}
	dist := make([]uint8, 30)
	sc.lengths(distFreq, dist, maxCodeLen)
	litCodes, distCodes := canonicalCodes(lit), canonicalCodes(dist)
	var used []int
	for s, l := range dist {
		if l > 0 {
			used = append(used, s)
		}
	}
	var w bitWriter
	w.dynamicHeader(lit, dist)
	var data []byte
	for len(data) < n {
		if rng.IntN(3) > 0 || len(data) == 0 {
			var s int
			for s = rng.IntN(256); lit[s] == 0; s = rng.IntN(256) {
			}
			w.code(uint64(litCodes[s]), uint(lit[s]))
			data = append(data, byte(s))
			continue
		}
		var ls int
		for ls = 257 + rng.IntN(29); lit[ls] == 0; ls = 257 + rng.IntN(29) {
		}
		le := litEntries[ls]
		lx := uint(le >> extraShift & 15)
		lv := uint64(rng.IntN(1 << lx))
		length := int(le>>16) + int(lv)
		// A distance within the data, long codes as often as short.
		ds := used[rng.IntN(len(used))]
		de := distEntries[ds]
		dx := uint(de >> extraShift & 15)
		dv := uint64(rng.IntN(1 << dx))
		d := int(de>>16) + int(dv)
		if d > len(data) && !(bad > 0 && len(data) >= bad) {
			// Too far: the largest distance of the data instead, by the
			// code of the shortest distance symbol that covers it.
			d = 1 + rng.IntN(len(data))
			ds = -1
			for _, s := range used {
				e := distEntries[s]
				if lo := int(e >> 16); lo <= d && d < lo+1<<(e>>extraShift&15) && (ds < 0 || dist[s] < dist[ds]) {
					ds = s
				}
			}
			if ds < 0 {
				continue
			}
			de = distEntries[ds]
			dx = uint(de >> extraShift & 15)
			dv = uint64(d - int(de>>16))
		}
		w.code(uint64(litCodes[ls]), uint(lit[ls]))
		w.bits(lv, lx)
		w.code(uint64(distCodes[ds]), uint(dist[ds]))
		w.bits(dv, dx)
		for range length {
			if d > len(data) {
				data = append(data, 0)
				continue
			}
			data = append(data, data[len(data)-d])
		}
	}
	w.code(uint64(litCodes[256]), uint(lit[256]))
	return w.zlibStream(data), data
}

// inflateBoth inflates z into n bytes with the kernel off and on, and
// fails t unless both give the same error, bytes and end.
func inflateBoth(t *testing.T, name string, z []byte, n int) error {
	t.Helper()
	defer func(k bool) { hasBMI2 = k }(hasBMI2)
	var off, on inflater
	hasBMI2 = false
	want := make([]byte, n)
	werr := off.inflate(z, want)
	hasBMI2 = true
	got := make([]byte, n)
	gerr := on.inflate(z, got)
	if gerr != werr || (werr == nil || werr == errTrailing) && (!bytes.Equal(got, want) || on.end != off.end) {
		t.Fatalf("%s: kernel gives %v, Go %v (same bytes %v)", name, gerr, werr, bytes.Equal(got, want))
	}
	return werr
}

// TestInflateKernel checks the inflater with its kernel against the Go
// loop alone, on streams of compress/zlib at every level, of huffWriter,
// and crafted ones (codes of 15 bits in both alphabets, every match
// length, distances of every code, a distance before the data's start
// deep in the output), undamaged and damaged: the same bytes and the
// same errors. It checks that the kernel decodes a stream's bulk.
func TestInflateKernel(t *testing.T) {
	if !hasBMI2 {
		t.Skip("no BMI2: the kernel does not run")
	}
	rng := rand.New(rand.NewPCG(24, 7))
	type stream struct {
		name string
		z    []byte
		n    int
	}
	var streams []stream
	for name, data := range inflateInputs() {
		for _, level := range []int{zlib.NoCompression, zlib.BestSpeed, 6, zlib.BestCompression, zlib.HuffmanOnly} {
			var b bytes.Buffer
			w, _ := zlib.NewWriterLevel(&b, level)
			w.Write(data)
			w.Close()
			streams = append(streams, stream{name + " zlib", b.Bytes(), len(data)})
		}
		streams = append(streams, stream{name + " huffWriter", deflateBlocks(data), len(data)})
	}
	for i := range 12 {
		z, data := craftedBlock(rng, 2000+rng.IntN(60000), 0)
		if want, ok, exact := zlibRead(z); !ok || !exact || !bytes.Equal(want, data) {
			t.Fatalf("crafted stream %d: compress/zlib does not read it back", i)
		}
		streams = append(streams, stream{"crafted", z, len(data)})
		bad := 400 + rng.IntN(1500)
		z, data = craftedBlock(rng, bad+2000, bad)
		if err := inflateBoth(t, "crafted, bad distance", z, len(data)); err != errInflate {
			t.Fatalf("crafted stream with a distance before the start: %v, want %v", err, errInflate)
		}
	}
	for _, s := range streams {
		if err := inflateBoth(t, s.name, s.z, s.n); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for range 30 {
			z := bytes.Clone(s.z)
			for range 1 + rng.IntN(3) {
				i := rng.IntN(len(z))
				z[i] ^= 1 << rng.IntN(8)
			}
			inflateBoth(t, s.name+" flipped", z, s.n)
		}
		inflateBoth(t, s.name+" cut", s.z[:rng.IntN(len(s.z))], s.n)
		inflateBoth(t, s.name+" one byte more", s.z, s.n+1)
	}
	// The kernel alone, from a block's first symbol: it stops only where
	// the output's margin begins (the block ends at the data's end).
	z, data := craftedBlock(rng, 50000, 0)
	var f inflater
	f.in, f.pos = z, 2
	if h, err := f.bits(3); err != nil || h != 5 {
		t.Fatalf("crafted block header %d, %v", h, err)
	}
	if err := f.tables(); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(data))
	pos, bb, nb, o := codesKernel(&f, f.in, f.pos, f.bb, f.nb, out, 0)
	if o < len(out)-kernelOutMargin-258 || o > len(out)-kernelOutMargin+8+258 {
		t.Fatalf("the kernel stopped at byte %d of %d", o, len(out))
	}
	f.pos, f.bb, f.nb = pos, bb, nb
	end, err := f.codes(out, o)
	if err != nil || end != len(out) || !bytes.Equal(out, data) {
		t.Fatalf("after the kernel: %d bytes, %v, same %v", end, err, bytes.Equal(out, data))
	}
}

// splitIDAT returns the file of craftedPNG with its IDAT data split into
// chunks at random places.
func splitIDAT(rng *rand.Rand, data []byte) []byte {
	n := int(binary.BigEndian.Uint32(data[33:]))
	idat := data[41 : 41+n]
	parts := [][]byte{data[:33]}
	for len(idat) > 0 {
		k := min(len(idat), 1+rng.IntN(len(idat)))
		parts = append(parts, chunk("IDAT", idat[:k]))
		idat = idat[k:]
	}
	parts = append(parts, chunk("IEND", nil))
	return bytes.Join(parts, nil)
}

// TestDecodeKernelMatchesImagePNG decodes crafted files large enough for
// the inflater's kernel (grey, RGB and RGBA; widths 1 to 20000; every
// compression level; codes up to 15 bits; the IDAT data in one chunk or
// split in several; interlaced ones are ErrUnsupported) with the kernel
// on and off: the same pixels as image/png, and on damaged copies the
// same error with the kernel as without, an error wherever image/png
// gives one.
func TestDecodeKernelMatchesImagePNG(t *testing.T) {
	if !hasBMI2 {
		t.Skip("no BMI2: the kernel does not run")
	}
	defer func(k bool) { hasBMI2 = k }(hasBMI2)
	decode := func(data []byte, kernel bool) (image.Image, error) {
		hasBMI2 = kernel
		return Decode(bytes.NewReader(data), nil)
	}
	rng := rand.New(rand.NewPCG(24, 13))
	levels := []int{zlib.NoCompression, zlib.BestSpeed, zlib.DefaultCompression, zlib.BestCompression, flate.HuffmanOnly}
	checked := 0
	for _, ct := range []byte{0, 2, 6} {
		for wi, w := range []int{1, 2, 3, 7, 33, 257, 1000, 4099, 20000} {
			h := max(2, 6000/w)
			level := levels[(wi+int(ct))%len(levels)]
			skew := []float64{0, 0.7, 3, 30}[(wi+int(ct))%4]
			interlace := wi == 4
			data := craftedPNG(rng, w, h, ct, []byte{5}, skew, level, interlace)
			if wi%2 == 1 {
				data = splitIDAT(rng, data)
			}
			name := fmt.Sprintf("type %d %dx%d level %d skew %g interlaced %v", ct, w, h, level, skew, interlace)
			want, werr := png.Decode(bytes.NewReader(data))
			if werr != nil {
				t.Fatalf("%s: image/png: %v", name, werr)
			}
			got, err := decode(data, true)
			off, oerr := decode(data, false)
			switch {
			case interlace && !(errors.Is(err, ErrUnsupported) && errors.Is(oerr, ErrUnsupported)):
				t.Fatalf("%s: %v, %v, want ErrUnsupported", name, err, oerr)
			case interlace:
				continue
			case err != nil || oerr != nil:
				t.Fatalf("%s: %v (kernel off: %v)", name, err, oerr)
			case !sameImage(got, want) || !sameImage(off, want):
				t.Fatalf("%s: pixels differ from image/png's", name)
			}
			checked++
			for range 20 {
				bad := bytes.Clone(data)
				bad[43+rng.IntN(len(data)-12-4-43)] ^= byte(1 + rng.IntN(255))
				_, werr := png.Decode(bytes.NewReader(bad))
				got, err := decode(bad, true)
				off, oerr := decode(bad, false)
				if fmt.Sprint(err) != fmt.Sprint(oerr) || err == nil && !sameImage(got, off) {
					t.Fatalf("%s damaged: kernel %v, Go %v", name, err, oerr)
				}
				if err == nil && werr != nil {
					t.Fatalf("%s damaged: decoded, image/png: %v", name, werr)
				}
			}
		}
	}
	if checked != 3*8 {
		t.Fatalf("%d files checked", checked)
	}
}

// TestBuildTable checks buildTable's tables code by code: every symbol's
// canonical code (reversed, as the bits arrive) leads, through a
// subtable if it is longer than the first table's bits, to the symbol's
// entry with its length; the first table's other entries are subtable
// pointers (as many as the long codes' distinct first bits) or invalid
// where no code reaches (the single code of one bit, no code). Codes of
// random skewed counts of 2 to 288 symbols limited to 15 bits (2 to 19
// symbols, 7 bits, for the code-length code),
// into tables of 12, 8 and 7 first bits; stale tables are reused.
func TestBuildTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 21))
	var sc huffScratch
	var table [litTableLen]uint32
	entries := make([]uint32, 288)
	for s := range entries {
		entries[s] = uint32(s)<<16 | kindLength | uint32(s%13)<<extraShift
	}
	for trial := range 400 {
		primary := []uint{litBits, distBits, maxCLLn}[trial%3]
		lengths := make([]uint8, 2+rng.IntN(287))
		if primary == maxCLLn {
			lengths = make([]uint8, 2+rng.IntN(numCL-1))
		}
		switch trial % 10 {
		case 0:
			clear(lengths)
		case 1:
			clear(lengths)
			lengths[rng.IntN(len(lengths))] = 1
		default:
			freq := make([]uint32, len(lengths))
			for s := range freq {
				if rng.IntN(4) > 0 {
					freq[s] = uint32(rng.ExpFloat64()*float64(1+trial*trial)) + 1
				}
			}
			limit := uint8(maxCodeLen)
			if primary == maxCLLn {
				limit = 7
			}
			sc.lengths(freq, lengths, limit)
		}
		for i := range table {
			table[i] = rng.Uint32() // stale
		}
		if !buildTable(table[:], lengths, entries, primary) {
			t.Fatalf("trial %d: code refused", trial)
		}
		n := 1 << primary
		codes := canonicalCodes(lengths)
		reached := make([]bool, n)
		prefixes := map[int]bool{}
		for s, l := range lengths {
			if l == 0 {
				continue
			}
			r := 0
			for i := range int(l) {
				r |= int(codes[s]>>i&1) << (int(l) - 1 - i)
			}
			e := table[r&(n-1)]
			if uint(l) > primary {
				if e&kindMask != kindSub {
					t.Fatalf("trial %d: symbol %d (%d bits): first entry %#x, no subtable", trial, s, l, e)
				}
				prefixes[r&(n-1)] = true
				e = table[int(e>>16)+(r>>primary)&(1<<(e>>extraShift&15)-1)]
			} else {
				for k := r; k < n; k += 1 << l {
					reached[k] = true
					if table[k] != e {
						t.Fatalf("trial %d: symbol %d: entries %d and %d differ", trial, s, r, k)
					}
				}
			}
			if e != entries[s]|uint32(l) {
				t.Fatalf("trial %d: symbol %d (%d bits, code %b): entry %#x, want %#x", trial, s, l, codes[s], e, entries[s]|uint32(l))
			}
		}
		for k := range n {
			if e := table[k]; !reached[k] && !(prefixes[k] && e&kindMask == kindSub) && e != kindInvalid {
				t.Fatalf("trial %d: entry %d reached by no code is %#x", trial, k, e)
			}
		}
	}
}
