package hostile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"testing"
)

// Bound is the most a reader may allocate to read (and reject) an input
// of n bytes: 64 MB plus ten times the input.
func Bound(n int) uint64 { return 64<<20 + 10*uint64(n) }

// Allocated returns the bytes allocated (runtime.MemStats.TotalAlloc)
// while f runs. Other goroutines' allocations are counted too, so it is
// meant for tests that do not run in parallel.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Check runs f, the reading of an input of n bytes, and fails t if it
// allocates more than Bound(n).
func Check(t testing.TB, name string, n int, f func()) {
	t.Helper()
	if a := Allocated(f); a > Bound(n) {
		t.Errorf("%s: reading %d bytes allocated %d MB, bound %d MB", name, n, a>>20, Bound(n)>>20)
	}
}

// extendedOptions is spca.ExtendedOptions, the flag of the version word
// for files that store DensityFloor and option bits after Neighbours
// (9 bytes).
const extendedOptions = 1 << 8

// SPCALattice returns the start of the SPCA model file model (as
// spca.Model.WriteTo writes it) with its lattice changed to declare
// 2^26 nodes — the most the format allows — and the node array's count
// set to match, followed by no node data: a file of a few hundred bytes
// that asks for gigabytes if the reader trusts the count.
func SPCALattice(model []byte) ([]byte, error) {
	le := binary.LittleEndian
	off, d, err := SPCALatticeAt(model)
	if err != nil {
		return nil, err
	}
	end := off + 8*d + 16*d // g, zero, lo and step
	out := append([]byte(nil), model[:end]...)
	// 2^26 nodes over d axes, each of at least 2 nodes, at most 2^20.
	left, nodes := 26, 1
	for j := 0; j < d; j++ {
		bits := left / (d - j)
		if bits < 1 {
			bits = 1
		}
		left -= bits
		g := 1 << bits
		nodes *= g
		le.PutUint32(out[off+4*j:], uint32(g))
	}
	return le.AppendUint64(out, uint64(nodes*d)), nil
}

// SPCALatticeAt returns where the lattice of the SPCA model file model
// starts (its d node counts, uint32, then d zero nodes, uint32, then d
// pairs of lo and step, float64), and its dimension d.
func SPCALatticeAt(model []byte) (at, d int, err error) {
	le := binary.LittleEndian
	if len(model) < 16 || string(model[:8]) != "SPCAmodl" {
		return 0, 0, fmt.Errorf("not an SPCA model")
	}
	version, d := le.Uint32(model[8:]), int(le.Uint32(model[12:]))
	if d < 1 || d > 16 {
		return 0, 0, fmt.Errorf("dimension %d", d)
	}
	off := 16 + 4*8 + 4 // gamma, K, tau, Q; origin kind
	if off+8 > len(model) {
		return 0, 0, fmt.Errorf("too short")
	}
	off += 8 + 8*int(le.Uint64(model[off:])) // origin point
	off += 8 + 4 + 8 + 8 + 8 + 8             // tol, maxiter, seed, resolution, maxref, bandwidth
	ext := version&extendedOptions != 0
	version &^= extendedOptions
	if version >= 2 {
		off += 8
	}
	if version >= 3 {
		off += 8
	}
	if ext {
		off += 9 // DensityFloor, option bits
	}
	off += 8*(4*d+d*d) + 3*8 // mean, origin, frame, entropies, c; scale, dmax, tolN
	if off+8*d+16*d > len(model) {
		return 0, 0, fmt.Errorf("too short")
	}
	return off, d, nil
}

// ZeroPNG returns a valid 8-bit greyscale PNG of w×h black pixels, built
// row by row without holding the image: 16384×16384 takes 261 KB.
func ZeroPNG(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		b.Write(n[:])
		c := crc32.NewIEEE()
		c.Write([]byte(kind))
		c.Write(data)
		b.WriteString(kind)
		b.Write(data)
		binary.BigEndian.PutUint32(n[:], c.Sum32())
		b.Write(n[:])
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	chunk("IHDR", append(ihdr, 8, 0, 0, 0, 0)) // 8-bit grey
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+w) // filter byte 0 and the row
	for y := 0; y < h; y++ {
		zw.Write(row)
	}
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// PNGWithCRCs returns data with the CRC of every whole chunk after the
// PNG signature recomputed (data itself where none changes); the bytes
// after the last whole chunk are kept. Fuzz targets decode it beside their
// input: a byte mutated inside a chunk fails that chunk's CRC, so without
// it the readers behind the CRC check (IHDR, the inflater, the unfilter)
// see little but the seeds' chunks.
func PNGWithCRCs(data []byte) []byte {
	out := data
	for at := 8; at+12 <= len(data); {
		n := binary.BigEndian.Uint32(data[at:])
		if uint64(n) > uint64(len(data)-at-12) {
			break
		}
		end := at + 8 + int(n)
		if crc := crc32.ChecksumIEEE(data[at+4 : end]); binary.BigEndian.Uint32(data[end:]) != crc {
			if &out[0] == &data[0] {
				out = bytes.Clone(data)
			}
			binary.BigEndian.PutUint32(out[end:], crc)
		}
		at = end + 4
	}
	return out
}

// SPCAIntModel returns a version-6 SPCA model file built from the
// header of model (any version, as spca.Model.WriteTo writes it): its
// lattice declares the most integer-coded values the format allows
// (2^22 coordinates, the nodes a power of two), all zero, and its metric
// tables (flag 2: the whole table, or 3: one fiber when the whole
// exceeds 2^22 values) the ramp 0, 1, 2, ... along every fiber (valid,
// increasing), each stored as one byte plane; then a first curve of two
// vertices and the checksum. Each value takes one byte in the file and
// eight in memory: a few kilobytes once compressed (a codec model) that
// decode to tens of megabytes.
func SPCAIntModel(model []byte) ([]byte, error) { return spcaIntModel(model, 22, false) }

// SPCAFlatModel is SPCAIntModel with a lattice of at most 2^10
// coordinates (a small file) and every metric table flat (all its
// values 0): steps of zero that the inverse divides by.
func SPCAFlatModel(model []byte) ([]byte, error) { return spcaIntModel(model, 10, true) }

// spcaIntModel builds the files above with at most 2^size lattice
// coordinates.
func spcaIntModel(model []byte, size int, flat bool) ([]byte, error) {
	le := binary.LittleEndian
	if len(model) < 16 || string(model[:8]) != "SPCAmodl" {
		return nil, fmt.Errorf("not an SPCA model")
	}
	version, d := le.Uint32(model[8:]), int(le.Uint32(model[12:]))
	if d < 1 || d > 16 {
		return nil, fmt.Errorf("dimension %d", d)
	}
	off := 16 + 4*8 + 4
	if off+8 > len(model) {
		return nil, fmt.Errorf("too short")
	}
	off += 8 + 8*int(le.Uint64(model[off:]))
	off += 8 + 4 + 8 + 8 + 8 + 8
	ext := version & extendedOptions
	version &^= extendedOptions
	if version >= 2 {
		off += 8
	}
	var out []byte
	if version >= 3 {
		off += 8
		out = append(out, model[:off]...)
	} else { // version 6 has the Neighbours option: 0
		out = append(append(out, model[:off]...), make([]byte, 8)...)
	}
	if ext != 0 {
		out = append(out, model[off:off+9]...) // DensityFloor, option bits
		off += 9
	}
	le.PutUint32(out[8:], 6|ext)
	stats := 8*(4*d+d*d) + 3*8
	if off+stats+24*d > len(model) {
		return nil, fmt.Errorf("too short")
	}
	out = append(out, model[off:off+stats]...)
	off += stats
	lohi := model[off+8*d : off+24*d]
	// 2^size coordinates: nodes the largest power of two <= 2^size/d.
	bits := size
	for (1<<bits)*d > 1<<size {
		bits--
	}
	g := make([]int, d)
	left := bits
	for j := range g {
		b := max(1, left/(d-j))
		left -= b
		g[j] = 1 << b
		out = le.AppendUint32(out, uint32(g[j]))
	}
	nodes := 1 << bits
	out = append(out, make([]byte, 4*d)...) // zero node 0 on every axis
	out = append(out, lohi...)
	const res = 0x1p-7
	out = append(out, 1)
	out = le.AppendUint64(out, math.Float64bits(res))
	for q := 0; q < d; q++ {
		out = append(append(out, 1), make([]byte, nodes)...) // w = 1, zeros
	}
	// A ramp along the last axis of a table, the same in every fiber:
	// after the differences, 1 (zigzag 2) on the first fiber, 0 elsewhere.
	ramp := func(n, tn int) {
		out = append(out, 1) // w
		at := len(out)
		out = append(out, make([]byte, n)...)
		for i := 1; i < tn && !flat; i++ {
			out[at+i] = 2
		}
	}
	fibers := 1
	for j := 0; j < d; j++ {
		tn := max(g[j], min(1024, (1<<20)/fibers))
		flag, n := byte(2), fibers*tn
		if n > 1<<22 {
			flag, n = 3, tn
		}
		out = append(out, flag)
		out = le.AppendUint64(out, math.Float64bits(res))
		ramp(n, tn)
		fibers *= g[j]
	}
	out = le.AppendUint32(out, 0) // first curve over nodes 0 to 1
	out = le.AppendUint32(out, 1)
	out = le.AppendUint32(out, 2) // of two vertices
	out = append(out, make([]byte, 8*2*d)...)
	out = le.AppendUint64(out, 0)
	out = le.AppendUint64(out, math.Float64bits(1))
	out = append(out, 0) // no typical responses
	return le.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli))), nil
}

// Endless is a reader of Prefix and then zero bytes without end, as
// /dev/zero or a stream: a reader of a format must refuse it from its
// first bytes instead of reading it all. It counts the bytes read (N) and
// fails after Limit of them, so that a reader that does read it all fails
// a test instead of running out of memory.
type Endless struct {
	Prefix   []byte
	Limit, N int64
}

func (e *Endless) Read(p []byte) (int, error) {
	if e.N >= e.Limit {
		return 0, errors.New("hostile: read past the limit of an endless reader")
	}
	p = p[:min(int64(len(p)), e.Limit-e.N)]
	n := 0
	if e.N < int64(len(e.Prefix)) {
		n = copy(p, e.Prefix[e.N:])
	}
	clear(p[n:])
	e.N += int64(len(p))
	return len(p), nil
}
