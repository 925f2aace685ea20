package pngfast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// matchStream returns a zlib stream of one final dynamic block of the
// code lengths lit and dist, and the data it codes: 64 random literals,
// then a match of every distance of dists and length of lengths (each
// followed by a literal or none, at random).
func matchStream(rng *rand.Rand, lit, dist []uint8, dists, lengths []int) ([]byte, []byte) {
	litCodes, distCodes := canonicalCodes(lit), canonicalCodes(dist)
	var w bitWriter
	w.dynamicHeader(lit, dist)
	var data []byte
	literal := func() {
		var s int
		for s = rng.IntN(256); lit[s] == 0; s = rng.IntN(256) {
		}
		w.code(uint64(litCodes[s]), uint(lit[s]))
		data = append(data, byte(s))
	}
	// symbol returns the symbol of entries whose base and extra bits
	// cover v, and the extra bits' value.
	symbol := func(entries []uint32, first, v int) (int, uint64, uint) {
		for s := first; ; s++ {
			e := entries[s]
			x := uint(e >> extraShift & 15)
			if base := int(e >> 16); base <= v && v < base+1<<x && (s != 284 || v < 258) {
				return s, uint64(v - base), x
			}
		}
	}
	for len(data) < 64 {
		literal()
	}
	for _, d := range dists {
		for _, length := range lengths {
			for len(data) < d {
				literal()
			}
			ls, lv, lx := symbol(litEntries[:], 257, length)
			ds, dv, dx := symbol(distEntries[:], 0, d)
			w.code(uint64(litCodes[ls]), uint(lit[ls]))
			w.bits(lv, lx)
			w.code(uint64(distCodes[ds]), uint(dist[ds]))
			w.bits(dv, dx)
			for range length {
				data = append(data, data[len(data)-d])
			}
			if rng.IntN(2) == 0 {
				literal()
			}
		}
	}
	w.code(uint64(litCodes[256]), uint(lit[256]))
	return w.zlibStream(data), data
}

// TestInflateKernelMatches checks the kernel against the Go loop on
// matches of every distance up to 48 (the 16-byte copy's bound and the
// byte and 8-byte copies under it) and some far ones, of every length up
// to 40 and 258, with the length and distance codes short (whole matches
// in a fast entry, and not where the extra bits are many) and long.
func TestInflateKernelMatches(t *testing.T) {
	if !hasBMI2 {
		t.Skip("no BMI2: the kernel does not run")
	}
	rng := rand.New(rand.NewPCG(25, 16))
	var dists, lengths []int
	for d := 1; d <= 48; d++ {
		dists = append(dists, d)
	}
	dists = append(dists, 63, 64, 65, 255, 256, 257, 1000, 2305, 4097)
	for l := 3; l <= 40; l++ {
		lengths = append(lengths, l)
	}
	lengths = append(lengths, 127, 130, 227, 257, 258)
	var sc huffScratch
	for trial, short := range []uint32{1, 8, 64, 4096} {
		// Length symbols short (frequent) or not; distance codes of 5
		// bits, or shorter for some.
		litFreq := make([]uint32, 286)
		for s := range litFreq {
			litFreq[s] = 1 + uint32(rng.IntN(4))
			if s > 256 {
				litFreq[s] = short * (1 + uint32(rng.IntN(8)))
			}
		}
		lit := make([]uint8, 286)
		sc.lengths(litFreq, lit, maxCodeLen)
		distFreq := make([]uint32, 30)
		for s := range distFreq {
			distFreq[s] = 1 + uint32(rng.IntN(1+trial*20))
		}
		dist := make([]uint8, 30)
		sc.lengths(distFreq, dist, maxCodeLen)
		z, data := matchStream(rng, lit, dist, dists, lengths)
		if want, ok, exact := zlibRead(z); !ok || !exact || !bytes.Equal(want, data) {
			t.Fatalf("trial %d: compress/zlib does not read the stream back", trial)
		}
		var f inflater
		if !checkInflate(t, &f, "matches", z) {
			t.Fatalf("trial %d: refused", trial)
		}
		if err := inflateBoth(t, "matches", z, len(data)); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// TestBuildFast checks each entry of the kernel's table against decoding
// its bits (and random bits after them) by the first and distance
// tables: a literal entry is the first table's, a match entry holds the
// length, distance symbol and extra bits and the bits taken that the two
// tables give, and an entry of another kind (kindFastOther, or the
// first table's subtable or invalid code) is one where they give no
// literal and no match within 12 bits and maxFastBits. Codes of random counts, skewed or
// flat, and the fixed code.
func TestBuildFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 12))
	var sc huffScratch
	var f inflater
	matches := 0
	for trial := range 200 {
		lit := make([]uint8, 286)
		dist := make([]uint8, 30)
		if trial == 0 {
			lit = make([]uint8, 288)
			for s := range lit {
				lit[s] = 8
				if s >= 144 && s < 256 {
					lit[s] = 9
				} else if s >= 256 && s < 280 {
					lit[s] = 7
				}
			}
			dist = make([]uint8, 32)
			for s := range dist {
				dist[s] = 5
			}
		} else {
			litFreq := make([]uint32, len(lit))
			for s := range litFreq {
				litFreq[s] = uint32(rng.ExpFloat64()*float64(1+trial)) + 1
				if s > 256 && trial%3 == 0 {
					litFreq[s] *= 64
				}
				if trial%5 == 0 && rng.IntN(3) == 0 {
					litFreq[s] = 0
				}
			}
			litFreq[256] = 1
			sc.lengths(litFreq, lit, maxCodeLen)
			distFreq := make([]uint32, len(dist))
			for s := range distFreq {
				distFreq[s] = uint32(rng.ExpFloat64() * float64(1+trial))
			}
			sc.lengths(distFreq, dist, maxCodeLen)
		}
		if !buildTable(f.lit[:], lit, litEntries[:], litBits) || !buildTable(f.dist[:], dist, distEntries[:], distBits) {
			continue
		}
		pairLiterals(&f.lit, lit, &f.seconds)
		f.buildFast(lit)
		for k, fe := range f.fast {
			bb := uint64(k) | rng.Uint64()<<litBits
			e := f.lit[k]
			switch fe & kindMask {
			case kindLiteral:
				if fe != e || e&kindMask != kindLiteral {
					t.Fatalf("trial %d: fast entry %#x of bits %#x is a literal, the first table's %#x", trial, fe, k, e)
				}
				continue
			case kindFastOther, kindSub, kindInvalid:
				if e&kindMask == kindLiteral {
					t.Fatalf("trial %d: fast entry of bits %#x is not a literal, the first table's %#x is", trial, k, e)
				}
			case kindMatch:
			default:
				t.Fatalf("trial %d: fast entry %#x of bits %#x has no kind", trial, fe, k)
			}
			// The match of the two tables, and the bits it takes.
			if e&kindMask != kindLength {
				if fe&kindMask == kindMatch {
					t.Fatalf("trial %d: fast entry %#x of bits %#x a match, the first table's %#x not a length", trial, fe, k, e)
				}
				continue
			}
			n := uint(e & 15)
			x := uint(e >> extraShift & 15)
			length := e>>16 + uint32(bb>>n)&(1<<x-1)
			n += x
			d := f.dist[bb>>n&(1<<distBits-1)]
			if d&kindMask == kindSub {
				d = f.dist[(d>>16+uint32(bb>>(n+distBits))&(1<<(d>>extraShift&15)-1))&(distTableLen-1)]
			}
			fits := d&kindMask == kindLength && n+uint(d&15) <= litBits && n+uint(d&15+d>>extraShift&15) <= maxFastBits
			if fe&kindMask != kindMatch {
				if fits {
					t.Fatalf("trial %d: bits %#x hold a whole match's codes, fast entry %#x", trial, k, fe)
				}
				continue
			}
			if !fits {
				t.Fatalf("trial %d: fast entry %#x of bits %#x a match, not within 12 bits (entry %#x, distance %#x)", trial, fe, k, e, d)
			}
			matches++
			dx := d >> extraShift & 15
			total := uint32(n) + d&15 + dx
			if fe&31 != total || fe>>16&0x1ff != length || fastDistBase[fe>>25] != d>>16 || fe>>extraShift&15 != dx || fe&0xe0 != 0 || fe>>30 != 0 {
				t.Fatalf("trial %d: fast entry %#x of bits %#x: want %d bits, length %d, distance base %d, %d extra bits", trial, fe, k, total, length, d>>16, dx)
			}
		}
	}
	if matches == 0 {
		t.Fatal("no match entries")
	}
}
