package pngfast

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// inflate reads a zlib stream with the standard library (which checks
// the Adler-32 too).
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("inflate close: %v", err)
	}
	return b
}

// deflateBlocks codes the blocks as one zlib stream.
func deflateBlocks(blocks ...[]byte) []byte {
	h := newHuffWriter()
	h.reset()
	var z []byte
	for _, b := range blocks {
		h.block(b)
		z = append(z, h.take()...)
	}
	h.close()
	return append(z, h.take()...)
}

// TestHuffWriterRoundTrip checks that compress/zlib reads back what
// huffWriter codes: no data, one byte, one value repeated (two symbols
// with the end of block), counts in a Fibonacci sequence (whose Huffman
// code is deeper than 15 bits: the length limit), random and skewed
// bytes, several blocks in a stream, an odd tail after the three-at-a-
// time loop.
func TestHuffWriterRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var fib []byte
	a, b := 1, 1
	for s := 0; s < 27; s++ {
		for range a {
			fib = append(fib, byte(s))
		}
		a, b = b, a+b
	}
	rng.Shuffle(len(fib), func(i, j int) { fib[i], fib[j] = fib[j], fib[i] })
	random := make([]byte, 100_001)
	skewed := make([]byte, 70_000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	for i := range skewed {
		skewed[i] = byte(rng.NormFloat64() * 3)
	}
	for name, blocks := range map[string][][]byte{
		"none":      nil,
		"empty":     {{}},
		"one byte":  {{7}},
		"two bytes": {{0, 255}},
		"constant":  {bytes.Repeat([]byte{1}, 1000)},
		"zeros":     {make([]byte, 5)},
		"fibonacci": {fib},
		"random":    {random},
		"skewed":    {skewed},
		"blocks":    {skewed[:1000], random[:77], {9}, fib[:4000], {}, skewed},
		"every byte": {func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}()},
	} {
		z := deflateBlocks(blocks...)
		got := inflate(t, z)
		want := bytes.Join(blocks, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: read back %d bytes, want %d (equal: %v)", name, len(got), len(want), bytes.Equal(got, want))
		}
	}
}

// TestHuffLengths checks the code lengths: within the limit, zero for
// unused symbols only, and a complete prefix code (Kraft sum exactly 1),
// on random counts, Fibonacci counts and single symbols.
func TestHuffLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sc huffScratch
	check := func(name string, freq []uint32, limit uint8) {
		lengths := make([]uint8, len(freq))
		sc.lengths(freq, lengths, limit)
		used, kraft := 0, 0.0
		for s, l := range lengths {
			if l > limit {
				t.Fatalf("%s: symbol %d has length %d > %d", name, s, l, limit)
			}
			if freq[s] != 0 {
				used++
				if l == 0 {
					t.Fatalf("%s: used symbol %d has no code", name, s)
				}
			}
			if l != 0 {
				kraft += 1 / float64(uint64(1)<<l)
			}
		}
		if used > 0 && kraft != 1 {
			t.Fatalf("%s: Kraft sum %v, want 1", name, kraft)
		}
	}
	for k := range 200 {
		freq := make([]uint32, 257)
		for s := range freq {
			if rng.IntN(3) > 0 {
				freq[s] = uint32(rng.ExpFloat64() * float64(uint32(1)<<rng.IntN(20)))
			}
		}
		check("random", freq, 15)
		check("random cl", freq[:19], 7)
		_ = k
	}
	fib := make([]uint32, 257)
	a, b := uint32(1), uint32(1)
	for s := range 40 {
		fib[s], a, b = a, b, a+b
	}
	check("fibonacci", fib, 15)
	check("fibonacci cl", fib[:19], 7)
	for _, s := range []int{0, 1, 18} {
		freq := make([]uint32, 19)
		freq[s] = 9
		check("single", freq, 7)
	}
	check("none", make([]uint32, 19), 7)
}

// FuzzHuffWriter checks that compress/zlib reads back any data coded
// by huffWriter, split into two blocks at any point.
func FuzzHuffWriter(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add([]byte("aaaaaaaaaaaaaaab"), uint16(3))
	f.Add(bytes.Repeat([]byte{0, 1, 2, 3, 200}, 50), uint16(101))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		k := min(int(cut), len(data))
		got := inflate(t, deflateBlocks(data[:k], data[k:]))
		if !bytes.Equal(got, data) {
			t.Fatalf("read back %q, want %q", got, data)
		}
	})
}

// TestSortCounts compares sortCounts with slices.Sort on keys as lengths
// builds them (symbols increasing, counts of 1 to 32 bits, many tied).
func TestSortCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var spare []uint64
	for k := range 3000 {
		n := rng.IntN(300)
		bitsOf := 1 + rng.IntN(32)
		keys := make([]uint64, 0, n)
		for s := range n {
			if rng.IntN(4) == 0 {
				continue
			}
			c := rng.Uint64() & (1<<bitsOf - 1)
			if k%3 == 0 {
				c = uint64(rng.IntN(4)) << (8 * rng.IntN(4)) // ties, one digit
			}
			keys = append(keys, c<<16|uint64(s))
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		var got []uint64
		got, spare = sortCounts(slices.Clone(keys), spare)
		if !slices.Equal(got, want) {
			t.Fatalf("keys %x: sorted %x, want %x", keys, got, want)
		}
	}
}

// lengthsQueues is the Huffman construction lengths must match, written
// plainly: the used symbols sorted by count (then symbol), two queues,
// the smaller weight first and a leaf before a node of the same weight;
// over the limit, the counts halved (kept nonzero) and built again.
func lengthsQueues(freq []uint32, limit uint8) []uint8 {
	f := slices.Clone(freq)
	out := make([]uint8, len(freq))
	for {
		var syms []int
		for s, c := range f {
			if c != 0 {
				syms = append(syms, s)
			}
		}
		switch len(syms) {
		case 0:
			return out
		case 1:
			out[syms[0]] = 1
			if syms[0] == 0 {
				out[1] = 1
			} else {
				out[0] = 1
			}
			return out
		}
		slices.SortStableFunc(syms, func(a, b int) int { return cmp.Compare(f[a], f[b]) })
		n := len(syms)
		w := make([]uint64, 0, 2*n)
		for _, s := range syms {
			w = append(w, uint64(f[s]))
		}
		parent := make([]int, 2*n-1)
		leaf, node := 0, n
		take := func() int {
			if leaf < n && (node == len(w) || w[leaf] <= w[node]) {
				leaf++
				return leaf - 1
			}
			node++
			return node - 1
		}
		for len(w) < 2*n-1 {
			a := take()
			b := take()
			parent[a], parent[b] = len(w), len(w)
			w = append(w, w[a]+w[b])
		}
		over := false
		clear(out)
		for k, s := range syms {
			d := 0
			for i := k; i != 2*n-2; i = parent[i] {
				d++
			}
			out[s] = uint8(d)
			over = over || d > int(limit)
		}
		if !over {
			return out
		}
		for s := range f {
			if f[s] != 0 {
				f[s] = f[s]>>1 | 1
			}
		}
	}
}

// TestHuffLengthsSame checks lengths against lengthsQueues: the same
// code lengths, so the same PNG bytes, on counts with ties, zeros, skews
// that pass the limit (rebuilds) and the byte counts of 64 KB blocks.
func TestHuffLengthsSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var sc huffScratch
	for k := range 2000 {
		n := []int{19, 257}[k%2]
		limit := []uint8{7, 15}[k%2]
		freq := make([]uint32, n)
		for s := range freq {
			switch k % 5 {
			case 0:
				freq[s] = uint32(rng.IntN(4))
			case 1:
				freq[s] = uint32(rng.ExpFloat64() * float64(uint32(1)<<rng.IntN(20)))
			case 2:
				freq[s] = uint32(1) << rng.IntN(25) // skewed: over the limit
			default:
				if rng.IntN(4) > 0 {
					freq[s] = uint32(max(0, rng.NormFloat64()*float64(1+k%300)+300))
				}
			}
		}
		got := make([]uint8, n)
		sc.lengths(freq, got, limit)
		if want := lengthsQueues(freq, limit); !slices.Equal(got, want) {
			t.Fatalf("counts %v: lengths %v, want %v", freq, got, want)
		}
	}
}
