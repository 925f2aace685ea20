package pngfast

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"

	"github.com/spcalab/spca/internal/fence"
	"github.com/spcalab/spca/testimages"
)

// zlibRead is compress/zlib's reading of z: the data, whether it
// accepts the stream (checksum included), and whether the stream ends
// exactly at the end of z.
func zlibRead(z []byte) (data []byte, ok, exact bool) {
	br := bytes.NewReader(z)
	r, err := zlib.NewReader(br)
	if err != nil {
		return nil, false, false
	}
	data, err = io.ReadAll(r)
	if err != nil {
		return nil, false, false
	}
	return data, true, br.Len() == 0
}

// checkInflate checks inflater against compress/zlib on z: it accepts z
// exactly when compress/zlib reads it through to its end, with the same
// bytes; with an output one byte longer or shorter it fails. It returns
// whether z was accepted. A stream compress/zlib rejects must fail into
// outputs of 1000 bytes and of the sizes tried. Every output lies in a
// larger buffer whose bytes after it must stay untouched: the kernel
// writes 2 literals and 16 match bytes a step, and stops while it has
// room for the longest step.
func checkInflate(t *testing.T, f *inflater, name string, z []byte, tried ...int) bool {
	t.Helper()
	into := func(n int) error {
		const guard = 512
		buf := make([]byte, n+guard)
		for i := range buf[n:] {
			buf[n+i] = 0xa5
		}
		err := f.inflate(z, buf[:n:n])
		for i, b := range buf[n:] {
			if b != 0xa5 {
				t.Fatalf("%s: inflate into %d bytes wrote byte %d after them", name, n, i)
			}
		}
		return err
	}
	want, ok, exact := zlibRead(z)
	size := len(want)
	if !ok {
		size = 1000
		for _, n := range tried {
			if into(n) == nil {
				t.Errorf("%s: compress/zlib fails, inflate reads %d bytes", name, n)
			}
		}
	}
	out := make([]byte, size)
	err := f.inflate(z, out)
	switch {
	case ok && exact && err != nil:
		t.Errorf("%s: compress/zlib reads %d bytes, inflate fails: %v", name, len(want), err)
		return false
	case !(ok && exact) && err == nil:
		t.Errorf("%s: compress/zlib fails (or stops before the end: %v), inflate reads it", name, ok)
		return false
	case err != nil:
		if _, isFormat := err.(FormatError); !isFormat {
			t.Errorf("%s: error %v is not a FormatError", name, err)
		}
		into(size)
		return false
	case !bytes.Equal(out, want):
		t.Errorf("%s: other bytes than compress/zlib", name)
		return false
	}
	into(size)
	if into(size+1) == nil {
		t.Errorf("%s: inflate into one byte more than the data: no error", name)
	}
	if size > 0 && into(size-1) == nil {
		t.Errorf("%s: inflate into one byte less than the data: no error", name)
	}
	return true
}

// inflateInputs returns data of several kinds: empty, one byte, runs
// (distance 1), short periods (overlapping copies), random and skewed
// bytes (literals), text-like repeats far apart (long distances),
// filtered image rows.
func inflateInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	in := map[string][]byte{"empty": nil, "one": {7}, "zeros": make([]byte, 70000)}
	for _, period := range []int{2, 3, 7, 64, 259, 300} {
		b := make([]byte, 5000)
		for i := range b {
			b[i] = byte(i%period*13 + i/period%3)
		}
		in["period"+string(rune('a'+period%26))] = b
	}
	random := make([]byte, 40000)
	skewed := make([]byte, 100000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for i := range skewed {
		skewed[i] = byte(rng.NormFloat64() * 6)
	}
	in["random"], in["skewed"] = random, skewed
	var text []byte
	words := []string{"principal ", "curves ", "sequential ", "analysis ", "of ", "images "}
	for len(text) < 90000 {
		text = append(text, words[rng.IntN(len(words))]...)
		if rng.IntN(50) == 0 {
			text = append(text, random[:rng.IntN(300)]...)
		}
	}
	in["text"] = text
	var rows bytes.Buffer
	if err := Encode(&rows, testimages.Texture(97, 61, 3)); err == nil {
		in["png file"] = rows.Bytes()
	}
	return in
}

// TestInflateMatchesZlib checks inflater against compress/zlib on the
// streams of compress/zlib and klauspost/compress at every level and of
// huffWriter (stored, fixed and dynamic blocks, literals only, long
// codes), then on damaged copies of them: bits flipped, bytes cut off,
// bytes appended. Both accept the same streams, with the same bytes.
func TestInflateMatchesZlib(t *testing.T) {
	var f inflater
	rng := rand.New(rand.NewPCG(7, 8))
	type stream struct {
		name string
		z    []byte
		n    int // bytes coded
	}
	var streams []stream
	for name, data := range inflateInputs() {
		for _, level := range []int{zlib.NoCompression, zlib.BestSpeed, 6, zlib.BestCompression, zlib.HuffmanOnly} {
			var b bytes.Buffer
			w, _ := zlib.NewWriterLevel(&b, level)
			w.Write(data)
			w.Close()
			streams = append(streams, stream{name + " zlib " + string(rune('0'+level+2)), b.Bytes(), len(data)})
			var k bytes.Buffer
			kw, _ := kzlib.NewWriterLevel(&k, level)
			kw.Write(data)
			kw.Close()
			streams = append(streams, stream{name + " klauspost " + string(rune('0'+level+2)), k.Bytes(), len(data)})
		}
		streams = append(streams, stream{name + " huffWriter", deflateBlocks(data), len(data)})
	}
	accepted, rejected := 0, 0
	for _, s := range streams {
		if !checkInflate(t, &f, s.name, s.z) {
			t.Fatalf("%s: an undamaged stream", s.name)
		}
		for range 40 {
			z := bytes.Clone(s.z)
			for range 1 + rng.IntN(3) {
				i := rng.IntN(len(z))
				z[i] ^= 1 << rng.IntN(8)
			}
			if checkInflate(t, &f, s.name+" flipped", z, s.n) {
				accepted++
			} else {
				rejected++
			}
		}
		for range 10 {
			checkInflate(t, &f, s.name+" cut", s.z[:rng.IntN(len(s.z))], s.n)
		}
		checkInflate(t, &f, s.name+" appended", append(bytes.Clone(s.z), 0))
	}
	t.Logf("%d streams; damaged: %d accepted (by both), %d rejected", len(streams), accepted, rejected)
}

// bitWriter writes deflate bits, the first in the low bits.
type bitWriter struct {
	b    []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman code of n bits (sent from its first bit on).
func (w *bitWriter) code(c uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		w.bits(c>>uint(i)&1, 1)
	}
}

// zlibStream wraps deflate bits in a zlib header and the Adler-32 of data.
func (w *bitWriter) zlibStream(data []byte) []byte {
	if w.nacc > 0 {
		w.bits(0, 8-w.nacc)
	}
	z := append([]byte{0x78, 0x9c}, w.b...)
	return binary.BigEndian.AppendUint32(z, adler32.Checksum(data))
}

// dynamicHeader writes a final dynamic block's header whose code-length
// code gives every length 0-15 and 16-18 a 5-bit code (symbol s is code
// s), then the literal/length and distance lengths.
func (w *bitWriter) dynamicHeader(lit, dist []uint8) {
	w.bits(1, 1)
	w.bits(2, 2)
	w.bits(uint64(len(lit)-257), 5)
	w.bits(uint64(len(dist)-1), 5)
	w.bits(19-4, 4)
	// Lengths 0-15 get 5-bit codes (half the code space), 16 and 17 3 bits
	// and 18 2 bits (the other half): a complete code.
	var cl [19]uint8
	for s := range 16 {
		cl[s] = 5
	}
	cl[16], cl[17], cl[18] = 3, 3, 2
	for _, s := range clOrder {
		w.bits(uint64(cl[s]), 3)
	}
	codes := canonicalCodes(cl[:])
	for _, l := range append(append([]uint8(nil), lit...), dist...) {
		w.code(uint64(codes[l]), uint(cl[l]))
	}
}

// canonicalCodes returns the canonical Huffman codes of the lengths.
func canonicalCodes(lengths []uint8) []uint32 {
	var count, next [16]uint32
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	code := uint32(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lengths))
	for s, l := range lengths {
		if l > 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

// TestInflateCrafted checks inflater against compress/zlib on streams
// the writers do not make: a distance code of one 1-bit code (accepted by
// both) and its missing code (rejected), an empty distance code, literal
// symbols 286-287 and distance symbols 30-31 in fixed blocks, too many
// length codes, a repeat before any length, incomplete and
// over-subscribed codes, a stored block whose lengths disagree, block
// type 3, a preset dictionary, a distance before the start, codes longer
// than the first table (subtables).
func TestInflateCrafted(t *testing.T) {
	var f inflater
	lit := make([]uint8, 257)
	for s := range 256 {
		lit[s] = 9 // 256 codes of 9 bits and 2 of 2 (256, 257): complete
	}
	lit[256] = 2
	lit = append(lit, 2) // 257: length 3
	litCodes := canonicalCodes(lit)
	data := []byte{1, 2, 2, 2, 2}
	// One distance code of one bit: 1 literal 1, 1 literal 2, length 3 at distance 1.
	single := func(distBit uint64) []byte {
		var w bitWriter
		w.dynamicHeader(lit, []uint8{1})
		for _, b := range data[:2] {
			w.code(uint64(litCodes[b]), 9)
		}
		w.code(uint64(litCodes[257]), 2)
		w.bits(distBit, 1)
		w.code(uint64(litCodes[256]), 2)
		return w.zlibStream(data)
	}
	if !checkInflate(t, &f, "single distance code", single(0)) {
		t.Fatal("a distance code of one 1-bit code is rejected")
	}
	checkInflate(t, &f, "single distance code, missing code", single(1))
	// No distance code, literals only; then a length with no distance code.
	for _, withLength := range []bool{false, true} {
		var w bitWriter
		w.dynamicHeader(lit, []uint8{0})
		for _, b := range data[:2] {
			w.code(uint64(litCodes[b]), 9)
		}
		if withLength {
			w.code(uint64(litCodes[257]), 2)
			w.bits(0, 8)
		}
		w.code(uint64(litCodes[256]), 2)
		if !checkInflate(t, &f, "empty distance code", w.zlibStream(data[:2])) && !withLength {
			t.Fatal("an empty distance code is rejected")
		}
	}
	// Fixed blocks: symbol 286 or 287 (8-bit codes 11000110, 11000111),
	// distance symbol 30 or 31, a distance before the start.
	fixed := func(tail func(w *bitWriter)) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(1, 2)
		w.code(0x30+5, 8) // literal 5
		tail(&w)
		w.code(0, 7) // end of block
		return w.zlibStream([]byte{5, 5, 5, 5})
	}
	for _, c := range []struct {
		name string
		tail func(w *bitWriter)
	}{
		{"fixed, length 3 at distance 1", func(w *bitWriter) { w.code(1, 7); w.code(0, 5) }},
		{"fixed, symbol 286", func(w *bitWriter) { w.code(0xc6, 8); w.code(0, 5) }},
		{"fixed, symbol 287", func(w *bitWriter) { w.code(0xc7, 8); w.code(0, 5) }},
		{"fixed, distance symbol 30", func(w *bitWriter) { w.code(1, 7); w.code(30, 5) }},
		{"fixed, distance 2 after one byte", func(w *bitWriter) { w.code(1, 7); w.code(1, 5) }},
	} {
		z := fixed(c.tail)
		if !checkInflate(t, &f, c.name, z, sizes(300)...) {
			// Rejected where compress/flate finds the stream corrupt,
			// not at the checksum.
			if err := f.inflate(z, make([]byte, 4)); err != errInflate {
				t.Errorf("%s: %v, want %v", c.name, err, errInflate)
			}
		}
	}
	// Headers: 287 literal lengths, 31 distance lengths (each a complete
	// code, then the end of block); a repeat first; lengths overflowing
	// the count; incomplete and over-subscribed literal codes, each
	// followed by what is the end-of-block code in them.
	header := func(name string, nlit, ndist int, lens []uint8) bool {
		var w bitWriter
		w.bits(1, 1)
		w.bits(2, 2)
		w.bits(uint64(nlit-257), 5)
		w.bits(uint64(ndist-1), 5)
		w.bits(19-4, 4)
		var cl [19]uint8
		for s := range 16 {
			cl[s] = 5
		}
		cl[16], cl[17], cl[18] = 3, 3, 2
		for _, s := range clOrder {
			w.bits(uint64(cl[s]), 3)
		}
		codes := canonicalCodes(cl[:])
		for _, l := range lens {
			w.code(uint64(codes[l]), uint(cl[l]))
			if l == 16 {
				w.bits(0, 2)
			}
		}
		if len(lens) > 256 && lens[256] > 0 {
			w.code(uint64(canonicalCodes(lens[:min(len(lens), nlit)])[256]), uint(lens[256]))
		} else {
			w.bits(0, 16)
		}
		return checkInflate(t, &f, name, w.zlibStream(nil), sizes(20)...)
	}
	pad := func(l []uint8, n int) []uint8 { return append(bytes.Clone(l), make([]uint8, n-len(l))...) }
	if !header("286 literal lengths, 30 distance lengths", 286, 30, append(pad(lit, 286), pad([]uint8{1, 1}, 30)...)) {
		t.Fatal("the header of 286 and 30 lengths is rejected")
	}
	header("287 literal lengths", 287, 30, append(pad(lit, 287), pad([]uint8{1, 1}, 30)...))
	header("31 distance lengths", 286, 31, append(pad(lit, 286), pad([]uint8{1, 1}, 31)...))
	header("repeat first", 257, 1, []uint8{16})
	incomplete := append(bytes.Repeat([]uint8{9}, 256), 9, 1)
	header("incomplete literal code", 257, 1, incomplete)
	over := append(bytes.Repeat([]uint8{8}, 256), 8, 1)
	header("over-subscribed literal code", 257, 1, over)
	// Stored blocks: good, lengths disagreeing; block type 3; a preset
	// dictionary.
	stored := func(n, nn uint16, typ uint64) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(typ, 2)
		w.bits(0, 5)
		w.bits(uint64(n)|uint64(nn)<<16, 32)
		for range n {
			w.bits(9, 8)
		}
		return w.zlibStream(bytes.Repeat([]byte{9}, int(n)))
	}
	if !checkInflate(t, &f, "stored", stored(3, ^uint16(3), 0)) {
		t.Fatal("a good stored block is rejected")
	}
	checkInflate(t, &f, "stored, lengths disagree", stored(3, ^uint16(4), 0))
	checkInflate(t, &f, "block type 3", stored(3, ^uint16(3), 3))
	dict := stored(3, ^uint16(3), 0)
	dict[1] = 0xbb // FDICT set, header check still a multiple of 31
	checkInflate(t, &f, "preset dictionary", dict)
	// Long codes: Fibonacci counts give the literal code depth 15.
	fib := make([]byte, 0, 1<<16)
	a, b := 1, 1
	for s := 0; len(fib) < cap(fib) && s < 24; s++ {
		for range a {
			if len(fib) < cap(fib) {
				fib = append(fib, byte(s*10))
			}
		}
		a, b = b, a+b
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(fib), func(i, j int) { fib[i], fib[j] = fib[j], fib[i] })
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.HuffmanOnly)
	zw.Write(fib)
	zw.Close()
	if !checkInflate(t, &f, "long codes", z.Bytes()) {
		t.Fatal("long codes: an undamaged stream")
	}
}

// sizes returns 0, 1, ..., n-1.
func sizes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// FuzzInflate checks inflater against compress/zlib on any bytes: both
// accept the same streams, with the same bytes; also with its input and
// output ending at a page it may not touch. The seeds run in plain go
// test.
func FuzzInflate(f *testing.F) {
	for _, data := range inflateInputs() {
		if len(data) > 5000 {
			data = data[:5000]
		}
		f.Add(zlibOf(data))
		f.Add(deflateBlocks(data))
	}
	var inf inflater
	var inFence, outFence fence.Fence
	f.Fuzz(func(t *testing.T, z []byte) {
		checkInflate(t, &inf, "fuzz", z)
		// Again with the stream ending where memory the process may not
		// touch begins, into an output that ends there too: no byte
		// after either is read or written (the kernel, assembly, would
		// fault), and the same result.
		want, ok, exact := zlibRead(z)
		size := len(want)
		if !(ok && exact) {
			size = 1000
		}
		in, out := inFence.At(t, len(z)), outFence.At(t, size)
		if in == nil || out == nil {
			return
		}
		copy(in, z)
		err := inf.inflate(in, out)
		if (err == nil) != (ok && exact) || err == nil && !bytes.Equal(out, want) {
			t.Fatalf("at the end of readable memory: %v, other bytes or another result than compress/zlib's (accepts: %v)", err, ok && exact)
		}
	})
}

// adler32Of is hash/adler32's checksum: every length up to 300 bytes and
// long inputs (past the 64 KB reductions), of random bytes and of 0xff
// bytes (the largest sums), and from offsets that misalign the words.
func TestAdler32Of(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	for _, fill := range []func() byte{func() byte { return byte(rng.IntN(256)) }, func() byte { return 0xff }} {
		data := make([]byte, 300<<10)
		for i := range data {
			data[i] = fill()
		}
		for n := range 301 {
			if got, want := adler32Of(data[3:3+n]), adler32.Checksum(data[3:3+n]); got != want {
				t.Fatalf("%d bytes: %08x, want %08x", n, got, want)
			}
		}
		for _, n := range []int{1<<16 - 1, 1 << 16, 1<<16 + 9, 200000, len(data) - 5} {
			if got, want := adler32Of(data[5:5+n]), adler32.Checksum(data[5:5+n]); got != want {
				t.Fatalf("%d bytes: %08x, want %08x", n, got, want)
			}
		}
	}
}

// pairLiterals gives every entry of the first table what visiting each
// entry and pairing it with the entry of the bits after its code gives
// (the definition, pairAll below), for Huffman codes of 286
// literal/length symbols from random counts, skewed or flat, with
// unused symbols, and for the fixed code.
func TestPairLiterals(t *testing.T) {
	// pairAll: each entry from the last, paired with the still single
	// entry of the bits after its code.
	pairAll := func(table *[litTableLen]uint32) {
		for i := 1<<litBits - 1; i >= 0; i-- {
			e := table[i]
			l := e & 15
			if e&kindMask != kindLiteral || l >= litBits {
				continue
			}
			e2 := table[i>>l]
			if e2&kindMask != kindLiteral || l+e2&15 > litBits {
				continue
			}
			table[i] = e&0xff0000 | (e2>>16&0xff)<<24 | 2<<extraShift | kindLiteral | (l + e2&15)
		}
	}
	rng := rand.New(rand.NewPCG(12, 286))
	var sc huffScratch
	var seconds [1 << (litBits - 1)]uint32
	for trial := range 300 {
		lengths := make([]uint8, 286)
		freq := make([]uint32, 286)
		for s := range freq {
			switch {
			case trial%5 == 0 && rng.IntN(3) == 0:
			case trial%2 == 0:
				freq[s] = uint32(rng.ExpFloat64()*float64(1+trial)) + 1
			default:
				freq[s] = uint32(1 + rng.IntN(1+trial))
			}
		}
		if trial == 0 {
			lengths = make([]uint8, 288)
			for s := range lengths { // the fixed code
				lengths[s] = 8
				if s >= 144 && s < 256 {
					lengths[s] = 9
				} else if s >= 256 && s < 280 {
					lengths[s] = 7
				}
			}
		} else {
			sc.lengths(freq, lengths, maxCodeLen)
		}
		var want, got [litTableLen]uint32
		if !buildTable(want[:], lengths, litEntries[:], litBits) {
			t.Fatalf("trial %d: code refused", trial)
		}
		got = want
		pairAll(&want)
		pairLiterals(&got, lengths, &seconds)
		if got != want {
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("trial %d (lengths %v): entry %d is %#x, want %#x", trial, lengths, i, got[i], want[i])
				}
			}
		}
	}
}
