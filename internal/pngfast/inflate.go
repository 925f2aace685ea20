package pngfast

import (
	"encoding/binary"
	"math/bits"
)

// inflater decodes a zlib stream (RFC 1950, 1951) held in memory into a
// buffer of the exact size the image needs: no window, no reader, no
// copy out of a dictionary, and back-references copied within the
// buffer. The bits are read 8 bytes at a time into a 64-bit buffer and
// the Huffman codes decoded from tables indexed by the next bits
// (klauspost/compress's reader took 8 % of a batch encode from PNG, perf).
// It accepts exactly the streams compress/flate and compress/zlib
// accept, with their checks (complete codes but for the single code of
// one bit, lengths within the alphabets, distances within the data
// decoded so far, the Adler-32), and no bytes after the stream
// (errTrailing: Decode takes them in whole IDAT chunks).
type inflater struct {
	lit [litTableLen]uint32
	// seconds is pairLiterals' scratch.
	seconds [1 << (litBits - 1)]uint32
	dist    [distTableLen]uint32
	// fast is the kernel's first table (buildFast), where the table of
	// the next 12 bits is built only where the kernel runs.
	fast  [1 << litBits]uint32
	cl    [1 << maxCLLn]uint32
	lens  [maxNumLit + maxNumDist]uint8
	in    []byte
	pos   int    // next byte of in to load
	over  int    // zero bytes loaded past the end of in
	bb    uint64 // bits loaded, the next in the low bits (and above nb, the bytes from pos on)
	nb    uint   // how many of bb's bits are loaded and unread
	final bool
	end   int // the stream's length, Adler-32 included, where inflate returned errTrailing
}

const (
	litBits    = 12 // bits of the literal/length code's first table (12 pairs more literals than 11: -20 % on kodim13)
	distBits   = 8  // and of the distance code's
	maxNumLit  = 286
	maxNumDist = 30
	maxCodeLen = 15
	// Table lengths: powers of two (indices masked, no bounds checks) at
	// least the first table and a subtable per symbol.
	litTableLen  = 1 << 13 // >= 1<<litBits + 288<<(maxCodeLen-litBits)
	distTableLen = 1 << 13 // >= 1<<distBits + 32<<(maxCodeLen-distBits)
)

// A table entry: the code's length in bits 0-3 (bits 4-7 zero: the
// kernel shifts the bit buffer by the entry and subtracts its low byte),
// its kind in bits 8-10, the extra bits that follow it (for a subtable:
// the bits that index it; for literals: how many, 1 or 2) in bits 12-15,
// its value (literal bytes, base length or distance, subtable offset)
// from bit 16 on.
const extraShift = 12

const (
	kindLiteral = iota << 8
	kindLength  // a length (literal/length code) or a distance
	kindEnd     // end of block
	kindSub     // the value is the offset of the subtable of the longer codes with these first bits
	kindInvalid // no code, or symbols 286-287 and 30-31
	kindMask    = 7 << 8
)

// litEntries and distEntries are the entries of the symbols, without
// their code lengths.
var litEntries, distEntries = func() (lit [288]uint32, dist [32]uint32) {
	for s := range 256 {
		lit[s] = uint32(s)<<16 | 1<<extraShift | kindLiteral
	}
	lit[256] = kindEnd
	base := 3
	for s := 257; s < 288; s++ {
		extra := 0
		if s >= 265 && s < 285 {
			extra = (s - 261) / 4
		}
		switch {
		case s == 285:
			lit[s] = 258<<16 | kindLength
		case s > 285:
			lit[s] = kindInvalid
		default:
			lit[s] = uint32(base)<<16 | uint32(extra)<<extraShift | kindLength
			base += 1 << extra
		}
	}
	base = 1
	for s := range 32 {
		extra := 0
		if s >= 4 {
			extra = (s - 2) / 2
		}
		if s >= maxNumDist {
			dist[s] = kindInvalid
			continue
		}
		dist[s] = uint32(base)<<16 | uint32(extra)<<extraShift | kindLength
		base += 1 << extra
	}
	return lit, dist
}()

// clEntries are the entries of the code-length alphabet: the symbol.
var clEntries = func() (e [19]uint32) {
	for s := range e {
		e[s] = uint32(s) << 16
	}
	return e
}()

// firstCodes returns the first canonical code of each length (RFC 1951,
// 3.2.2) for the counts of codes by length.
func firstCodes(count *[maxCodeLen + 1]int) (next [maxCodeLen + 1]int) {
	code := 0
	for l := 1; l <= maxCodeLen; l++ {
		code <<= 1
		next[l] = code
		code += count[l]
	}
	return next
}

// buildTable fills table for the canonical code of the lengths: its first
// 1<<primary entries indexed by the next primary bits (reversed code),
// those of the longer codes pointing at subtables after them indexed by
// the bits that follow. It returns false where compress/flate rejects
// the code: over-subscribed, or incomplete but for a single code of one
// bit. A code of no symbols is accepted (every entry invalid).
//
// The first table is built length by length: the codes of length l go
// into its first 1<<l entries, which are then copied after themselves
// for length l+1 (libdeflate's way), so an entry is written once and the
// copies are memmoves (writing each code's 1<<(primary-l) entries one by
// one, after setting them all invalid, was 7 % of an inflate). Entries
// no code of up to l bits reaches are copies of the first two, invalid.
func buildTable(table []uint32, lengths []uint8, entries []uint32, primary uint) bool {
	var count [maxCodeLen + 1]int
	maxLen := uint(0)
	for _, l := range lengths {
		count[l]++
		maxLen = max(maxLen, uint(l))
	}
	n := 1 << primary
	next := firstCodes(&count)
	// After the longest codes, a complete code has used all 1<<maxLen.
	if code := next[maxLen] + count[maxLen]; maxLen > 0 && code != 1<<maxLen && !(code == 1 && maxLen == 1) {
		return false
	}
	// The symbols by length, then by value: the canonical order.
	var start [maxCodeLen + 2]int
	for l := 1; l <= maxCodeLen; l++ {
		start[l+1] = start[l] + count[l]
	}
	var sorted [maxNumLit + maxNumDist]uint16
	at := start
	for s, l := range lengths {
		if l > 0 {
			sorted[at[l]] = uint16(s)
			at[l]++
		}
	}
	table[0], table[1] = kindInvalid, kindInvalid
	size := 2
	for l := 1; l <= int(min(maxLen, primary)); l++ {
		if l > 1 {
			copy(table[size:2*size], table[:size])
			size *= 2
		}
		c := next[l]
		for _, s := range sorted[start[l]:start[l+1]] {
			table[bits.Reverse16(uint16(c))>>(16-l)] = entries[s] | uint32(l)
			c++
		}
	}
	for ; size < n; size *= 2 {
		copy(table[size:2*size], table[:size])
	}
	if maxLen <= primary {
		return true
	}
	subBits := maxLen - primary
	off := n
	for l := int(primary) + 1; l <= int(maxLen); l++ {
		c := next[l]
		for _, s := range sorted[start[l]:start[l+1]] {
			r := int(bits.Reverse16(uint16(c)) >> (16 - l))
			c++
			p := r & (n - 1)
			if table[p]&kindMask != kindSub {
				table[p] = uint32(off)<<16 | uint32(subBits)<<extraShift | kindSub
				off += 1 << subBits
			}
			sub := table[table[p]>>16 : int(table[p]>>16)+1<<subBits]
			e := entries[s] | uint32(l)
			for k := r >> primary; k < len(sub); k += 1 << (uint(l) - primary) {
				sub[k] = e
			}
		}
	}
	return true
}

// pairLiterals makes the entries of the first table whose bits hold a
// literal's code and then another's decode both: the second is the entry
// of the bits after the first code, if that code fits in them. lengths
// are the code's lengths (literals first); seconds is scratch. Only the
// literals whose codes leave room for the shortest literal code are
// visited, each entry of theirs once, against the single literals of the
// entries that short bits index, listed first (visiting every entry of the
// table took a fifth of a grey PNG's read: image/png writes a block, and
// its tables, every ~9 KB of pixels).
func pairLiterals(table *[litTableLen]uint32, lengths []uint8, seconds *[1 << (litBits - 1)]uint32) {
	var count [maxCodeLen + 1]int
	minLen := uint32(maxCodeLen + 1)
	for s, l := range lengths {
		count[l]++
		if s < 256 && l > 0 {
			minLen = min(minLen, uint32(l))
		}
	}
	if 2*minLen > litBits {
		return
	}
	// The second literal of the bits k: its byte in bits 24-31, its code's
	// length in bits 0-3 (15, more than any room, if not a literal).
	sec := seconds[:1<<(litBits-minLen)]
	for k, e := range table[:len(sec)] {
		sec[k] = 15
		if e&kindMask == kindLiteral {
			sec[k] = (e>>16&0xff)<<24 | e&15
		}
	}
	// The canonical codes, as buildTable assigns them.
	next := firstCodes(&count)
	for s, l1 := range lengths[:min(256, len(lengths))] {
		if l1 == 0 {
			continue
		}
		c := next[l1]
		next[l1]++
		if uint32(l1)+minLen > litBits {
			continue
		}
		rem := litBits - uint32(l1)
		r := int(bits.Reverse16(uint16(c)) >> (16 - l1))
		first := uint32(s)<<16 | 2<<extraShift | kindLiteral | uint32(l1)
		for k, p := range sec[:1<<rem] {
			if p&15 <= rem {
				table[r|k<<l1] = first + p
			}
		}
	}
}

// A fast entry (the kernel's table, buildFast) is an entry of the first
// literal/length table, or one that decodes a whole match: a length
// code, its extra bits and a distance code fit in the 12 bits that index
// it. Such an entry holds the bits the match takes, its distance's extra
// bits included, in bits 0-4 (bits 5-7 zero), kindMatch, the distance's
// extra bits in bits 12-15, the length in bits 16-24 and the distance
// symbol in bits 25-29. The other entries that are not literals are
// kindFastOther: the kernel decodes those symbols by lit and dist.
// Matches were half of a held-out colour PNG's symbols, mostly 3-6 bytes
// long: their two lookups in a row, and the branch between a literal and
// a match, which a photograph's data leave to chance, cost more than the
// bytes they make (~26 cycles a symbol; 4.7 M symbols in 12 images).
const (
	kindMatch     = 1 << 8
	kindFastOther = 2 << 8
)

// fastDistBase is the base distance of each distance symbol: the kernel
// indexes it by bits 25-31 of any entry, literals too (7 bits).
var fastDistBase = func() (b [128]uint32) {
	for s := range maxNumDist {
		b[s] = distEntries[s] >> 16
	}
	return b
}()

// distSymbol is the distance symbol of a base distance.
func distSymbol(base uint32) uint32 {
	if base <= 4 {
		return base - 1
	}
	e := uint32(bits.Len32(base-1)) - 2 // the extra bits
	return 2*e + 2 + (base-1)>>e&1
}

// buildFast builds the kernel's table from the first table and the
// distance table of the block (lit and dist), the code lengths of its
// literal/length alphabet given. It copies the first table (its entries
// other than literals and lengths have kindEnd's bit or a higher one:
// kindFastOther's for the kernel), and rewrites the entries of each
// length code of 12 bits or fewer (the canonical codes, as buildTable
// assigns them): a match where its extra bits and the distance's code fit
// in the entry's 12 bits and the match takes maxFastBits or fewer,
// kindFastOther where not (a longer distance code, or an invalid one).
// The distance code is looked up once for the entries of all its extra
// bits (looking it up for each of the 4096 entries, after a pass over
// them all, was 9 % of an inflate).
func (f *inflater) buildFast(lengths []uint8) {
	copy(f.fast[:], f.lit[:len(f.fast)])
	var part distParts
	f.distParts(&part)
	var count [maxCodeLen + 1]int
	for _, l := range lengths {
		count[l]++
	}
	next := firstCodes(&count)
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		if s <= 256 || uint(l) > litBits {
			continue
		}
		r := int(bits.Reverse16(uint16(c)) >> (16 - l))
		e := litEntries[s]
		x := uint(e >> extraShift & 15)
		if e&kindMask != kindLength || uint(l)+x > litBits {
			// Symbols 286-287, or extra bits past the entry's.
			for j := range 1 << (litBits - uint(l)) {
				f.fast[r|j<<l] = kindFastOther
			}
			continue
		}
		// The bits after the code: extra bits, then the distance.
		lx := uint(l) + x
		room := litBits - lx
		head := uint32(lx) | kindMatch | e&^0xffff
		for rest := range 1 << room {
			k := r | rest<<lx
			m := uint32(kindFastOther)
			if dl := part.bits[rest&(1<<distBits-1)]; dl <= uint8(room) {
				m = head + part.entry[rest&(1<<distBits-1)]
			} else if dl == subPart && room > distBits {
				if p := f.subPart(rest, room); p != kindFastOther {
					m = head + p
				}
			}
			if m&31 > maxFastBits {
				m = kindFastOther
			}
			if m == kindFastOther {
				for v := range 1 << x {
					f.fast[k|v<<l] = m
				}
				continue
			}
			for v := range 1 << x {
				f.fast[k|v<<l] = m + uint32(v)<<16
			}
		}
	}
}

// maxFastBits bounds the bits of a fast entry: the kernel refills its
// bit buffer (to 56 bits or more) once for two entries, and indexes the
// table by the 12 bits left after them. A match whose distance's extra
// bits take it over (distances over 8 KB coded in 5 or more bits) is left
// to the first table's entries.
const maxFastBits = 56/2 - litBits/2

// distParts are the distance code's parts of the fast entries of the
// first distance table's entries: the bits a distance code takes (or
// noPart, or subPart for a subtable), and what the entry adds to a
// length's: the code's and extra bits' count, the extra bits in bits
// 12-15 and the symbol in bits 25-29.
type distParts struct {
	bits  [1 << distBits]uint8
	entry [1 << distBits]uint32
}

const (
	noPart  = 255
	subPart = 254
)

// partOf is the part of distance entry d (kindLength).
func partOf(d uint32) uint32 {
	return d&15 + d>>extraShift&15 | d&(15<<extraShift) | distSymbol(d>>16)<<25
}

// distParts computes the parts of the block's distance table.
func (f *inflater) distParts(p *distParts) {
	for i, d := range f.dist[:1<<distBits] {
		switch d & kindMask {
		case kindLength:
			p.bits[i], p.entry[i] = uint8(d&15), partOf(d)
		case kindSub:
			p.bits[i] = subPart
		default:
			p.bits[i] = noPart
		}
	}
}

// subPart is the part of the distance code in the room bits rest (more
// than distBits) when its first bits index a subtable, or kindFastOther
// if the code is longer than the room or invalid.
func (f *inflater) subPart(rest int, room uint) uint32 {
	d := f.dist[rest&(1<<distBits-1)]
	d = f.dist[(d>>16+uint32(rest>>distBits)&(1<<(d>>extraShift&15)-1))&(distTableLen-1)]
	if d&kindMask != kindLength || uint(d&15) > room {
		return kindFastOther
	}
	return partOf(d)
}

// kernelOutMargin is the output codes' kernel (amd64) keeps free: four
// entries of two literals and a match of 258 bytes copied 16 bytes a
// step (inflate_amd64.s's loop checks against it as a constant).
const kernelOutMargin = 320

// errInflate is the FormatError of a malformed zlib stream.
const errInflate = FormatError("invalid compressed pixel data")

// inflate decodes the zlib stream in into out, which it must fill
// exactly, and checks that the stream ends with the Adler-32 of out at
// the end of in.
func (f *inflater) inflate(in, out []byte) error {
	if len(in) < 2 {
		return errInflate
	}
	// Header as compress/zlib checks it; a preset dictionary is an error.
	if in[0]&0x0f != 8 || in[0]>>4 > 7 || (uint(in[0])<<8|uint(in[1]))%31 != 0 || in[1]&0x20 != 0 {
		return errInflate
	}
	f.in, f.pos, f.over, f.bb, f.nb, f.final = in, 2, 0, 0, 0, false
	o := 0
	for !f.final {
		var err error
		if o, err = f.block(out, o); err != nil {
			return err
		}
	}
	if o != len(out) {
		return FormatError("not enough pixel data")
	}
	// The stream ends at a byte boundary; then the Adler-32, big-endian.
	end := f.pos + f.over - int(f.nb>>3)
	if end+4 > len(in) {
		return FormatError("truncated pixel data")
	}
	if binary.BigEndian.Uint32(in[end:]) != adler32Of(out) {
		return FormatError("pixel data checksum mismatch")
	}
	if end+4 != len(in) {
		f.end = end + 4
		return errTrailing
	}
	return nil
}

// errTrailing is inflate's error for bytes after the Adler-32 (the
// stream's length in f.end).
const errTrailing = FormatError("data after the pixel data")

// refill loads bytes into the bit buffer until it holds at least 56
// bits, zeros past the end of the input (more than the buffer can hold
// unread means bits past the end were read: an error).
func (f *inflater) refill() error {
	if f.nb >= 56 {
		return nil
	}
	if f.pos+8 <= len(f.in) {
		f.bb |= binary.LittleEndian.Uint64(f.in[f.pos:]) << f.nb
		f.pos += int(63-f.nb) >> 3
		f.nb |= 56
		return nil
	}
	for f.nb <= 56 {
		if f.pos < len(f.in) {
			f.bb |= uint64(f.in[f.pos]) << f.nb
			f.pos++
		} else {
			f.over++
		}
		f.nb += 8
	}
	if f.over > 8 {
		return FormatError("truncated pixel data")
	}
	return nil
}

// bits reads n <= 32 bits.
func (f *inflater) bits(n uint) (uint32, error) {
	if f.nb < n {
		if err := f.refill(); err != nil {
			return 0, err
		}
	}
	v := uint32(f.bb & (1<<n - 1))
	f.bb >>= n
	f.nb -= n
	return v, nil
}

// block decodes one block into out from o on and returns where it ended.
func (f *inflater) block(out []byte, o int) (int, error) {
	h, err := f.bits(3)
	if err != nil {
		return o, err
	}
	f.final = h&1 != 0
	switch h >> 1 {
	case 0:
		return f.stored(out, o)
	case 1:
		for s := range 288 {
			f.lens[s] = 8
			if s >= 144 && s < 256 {
				f.lens[s] = 9
			} else if s >= 256 && s < 280 {
				f.lens[s] = 7
			}
		}
		buildTable(f.lit[:], f.lens[:288], litEntries[:], litBits)
		pairLiterals(&f.lit, f.lens[:288], &f.seconds)
		lit := f.lens[:288]
		var dist [32]uint8
		for s := range dist {
			dist[s] = 5
		}
		buildTable(f.dist[:], dist[:], distEntries[:], distBits)
		if hasBMI2 {
			f.buildFast(lit)
		}
	case 2:
		if err := f.tables(); err != nil {
			return o, err
		}
	default:
		return o, errInflate
	}
	return f.codes(out, o)
}

// stored copies a stored block.
func (f *inflater) stored(out []byte, o int) (int, error) {
	f.bb >>= f.nb & 7
	f.nb -= f.nb & 7
	p := f.pos + f.over - int(f.nb>>3)
	f.bb, f.nb, f.over = 0, 0, 0
	if p+4 > len(f.in) {
		return o, FormatError("truncated pixel data")
	}
	n := int(binary.LittleEndian.Uint16(f.in[p:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(f.in[p+2:]) {
		return o, errInflate
	}
	p += 4
	if p+n > len(f.in) {
		return o, FormatError("truncated pixel data")
	}
	if o+n > len(out) {
		return o, FormatError("too much pixel data")
	}
	copy(out[o:], f.in[p:p+n])
	f.pos = p + n
	return o + n, nil
}

// tables reads a dynamic block's codes.
func (f *inflater) tables() error {
	h, err := f.bits(14)
	if err != nil {
		return err
	}
	nlit, ndist, ncl := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlit > maxNumLit || ndist > maxNumDist {
		return errInflate
	}
	var cl [numCL]uint8
	for i := range ncl {
		v, err := f.bits(3)
		if err != nil {
			return err
		}
		cl[clOrder[i]] = uint8(v)
	}
	if !buildTable(f.cl[:], cl[:], clEntries[:], maxCLLn) {
		return errInflate
	}
	lens := f.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if f.nb < 16 {
			if err := f.refill(); err != nil {
				return err
			}
		}
		e := f.cl[f.bb&(1<<maxCLLn-1)]
		if e&kindMask == kindInvalid {
			return errInflate
		}
		f.bb >>= e & 15
		f.nb -= uint(e & 15)
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return errInflate
			}
			rep, v = 3+int(f.bb&3), lens[i-1]
			f.bb >>= 2
			f.nb -= 2
		case 17:
			rep = 3 + int(f.bb&7)
			f.bb >>= 3
			f.nb -= 3
		default:
			rep = 11 + int(f.bb&127)
			f.bb >>= 7
			f.nb -= 7
		}
		if i+rep > len(lens) {
			return errInflate
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	if !buildTable(f.lit[:], lens[:nlit], litEntries[:], litBits) || !buildTable(f.dist[:], lens[nlit:], distEntries[:], distBits) {
		return errInflate
	}
	pairLiterals(&f.lit, lens[:nlit], &f.seconds)
	if hasBMI2 {
		f.buildFast(lens[:nlit])
	}
	return nil
}

// codes decodes a Huffman-coded block's symbols into out from o on: a
// fast loop while 8 bytes of input and 3 of output are left, then one
// symbol at a time (slowCodes). After a refill the bit buffer holds at
// least 56 bits: three literal codes (15 bits at most), or a length code,
// its extra bits, a distance code and its extra bits (15+5+15+13 = 48).
func (f *inflater) codes(out []byte, o int) (int, error) {
	bb, nb := f.bb, f.nb
	in, pos := f.in, f.pos
	lit := &f.lit
	const litMask = 1<<litBits - 1
	for pos+8 <= len(in) && len(out)-o >= 6 {
		// The kernel, where it runs, decodes while both ends are far,
		// and stops before a symbol it leaves to this loop: the end of
		// the block, an invalid code or distance.
		pos, bb, nb, o = codesKernel(f, in, pos, bb, nb, out, o)
		if pos+8 > len(in) || len(out)-o < 6 {
			break
		}
		bb |= binary.LittleEndian.Uint64(in[pos:]) << nb
		pos += int(63-nb) >> 3
		nb |= 56
		// Up to three entries of one or two literals, the common case
		// of a filtered image; each writes two bytes, the second
		// overwritten next if the entry held one literal.
		e := lit[bb&litMask]
		if e&kindMask == kindLiteral {
			bb >>= e & 15
			nb -= uint(e & 15)
			w := out[o : o+2]
			w[0], w[1] = byte(e>>16), byte(e>>24)
			o += int(e >> extraShift & 3)
			e = lit[bb&litMask]
			if e&kindMask == kindLiteral {
				bb >>= e & 15
				nb -= uint(e & 15)
				w := out[o : o+2]
				w[0], w[1] = byte(e>>16), byte(e>>24)
				o += int(e >> extraShift & 3)
				e = lit[bb&litMask]
				if e&kindMask == kindLiteral {
					bb >>= e & 15
					nb -= uint(e & 15)
					w := out[o : o+2]
					w[0], w[1] = byte(e>>16), byte(e>>24)
					o += int(e >> extraShift & 3)
					continue
				}
			}
		}
		// e is the next entry, not consumed, not a literal of the first
		// table: a longer code (a single literal), a length or the end.
		if e&kindMask == kindSub {
			e = lit[(e>>16+uint32(bb>>litBits)&(1<<(e>>extraShift&15)-1))&(litTableLen-1)]
		}
		bb >>= e & 15
		nb -= uint(e & 15)
		switch e & kindMask {
		case kindLiteral:
			if o >= len(out) {
				return o, FormatError("too much pixel data")
			}
			out[o] = byte(e >> 16)
			o++
			continue
		case kindLength:
		case kindEnd:
			f.bb, f.nb, f.pos = bb, nb, pos
			return o, nil
		default:
			return o, errInflate
		}
		if nb < 33 {
			// Not the first symbol since the refill: another (the
			// first left at least 56-15 bits).
			if pos+8 > len(in) {
				f.bb, f.nb, f.pos = bb, nb, pos
				if err := f.refill(); err != nil {
					return o, err
				}
				bb, nb, pos = f.bb, f.nb, f.pos
			} else {
				bb |= binary.LittleEndian.Uint64(in[pos:]) << nb
				pos += int(63-nb) >> 3
				nb |= 56
			}
		}
		var err error
		if o, bb, nb, err = f.match(out, o, e, bb, nb); err != nil {
			return o, err
		}
	}
	f.bb, f.nb, f.pos = bb, nb, pos
	return f.slowCodes(out, o)
}

// match decodes the extra bits of the length of entry e, the distance,
// and copies; bb holds at least 33 bits.
func (f *inflater) match(out []byte, o int, e uint32, bb uint64, nb uint) (int, uint64, uint, error) {
	const distMask = 1<<distBits - 1
	x := uint(e >> extraShift & 15)
	length := int(e>>16) + int(bb&(1<<x-1))
	bb >>= x
	nb -= x
	d := f.dist[bb&distMask]
	if d&kindMask == kindSub {
		d = f.dist[(d>>16+uint32(bb>>distBits)&(1<<(d>>extraShift&15)-1))&(distTableLen-1)]
	}
	if d&kindMask != kindLength {
		return o, bb, nb, errInflate
	}
	bb >>= d & 15
	nb -= uint(d & 15)
	x = uint(d >> extraShift & 15)
	dist := int(d>>16) + int(bb&(1<<x-1))
	bb >>= x
	nb -= x
	if dist > o {
		return o, bb, nb, errInflate
	}
	if length > len(out)-o {
		return o, bb, nb, FormatError("too much pixel data")
	}
	src := o - dist
	switch {
	case dist >= 8 && len(out)-o >= length+8:
		// Eight bytes a step, each read at least 8 bytes behind where it
		// is stored; up to 7 bytes past the match are stored too, and
		// overwritten by what follows it (copy's call was half of a
		// short match's instructions; most matches of a photograph are
		// a few bytes long).
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(out[o+i:], binary.LittleEndian.Uint64(out[src+i:]))
		}
	case dist >= length:
		copy(out[o:o+length], out[src:src+length])
	case dist == 1:
		b := out[src]
		for i := range out[o : o+length] {
			out[o+i] = b
		}
	default:
		for i := range length {
			out[o+i] = out[src+i]
		}
	}
	return o + length, bb, nb, nil
}

// slowCodes decodes symbols one at a time, refilling before each: the
// end of the input or of the output is near.
func (f *inflater) slowCodes(out []byte, o int) (int, error) {
	for {
		if err := f.refill(); err != nil {
			return o, err
		}
		bb := f.bb
		e := f.lit[bb&(1<<litBits-1)]
		if e&kindMask == kindSub {
			e = f.lit[(e>>16+uint32(bb>>litBits)&(1<<(e>>extraShift&15)-1))&(litTableLen-1)]
		}
		bb >>= e & 15
		nb := f.nb - uint(e&15)
		switch e & kindMask {
		case kindLiteral:
			f.bb, f.nb = bb, nb
			n := int(e >> extraShift & 3)
			if n > len(out)-o {
				return o, FormatError("too much pixel data")
			}
			out[o] = byte(e >> 16)
			if n == 2 {
				out[o+1] = byte(e >> 24)
			}
			o += n
			continue
		case kindLength:
		case kindEnd:
			f.bb, f.nb = bb, nb
			return o, nil
		default:
			return o, errInflate
		}
		var err error
		o, f.bb, f.nb, err = f.match(out, o, e, bb, nb)
		if err != nil {
			return o, err
		}
	}
}
