package hostile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
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

// SPCALattice returns the start of the SPCA model file model (as
// spca.Model.WriteTo writes it) with its lattice changed to declare
// 2^26 nodes — the most the format allows — and the node array's count
// set to match, followed by no node data: a file of a few hundred bytes
// that asks for gigabytes if the reader trusts the count.
func SPCALattice(model []byte) ([]byte, error) {
	le := binary.LittleEndian
	if len(model) < 16 || string(model[:8]) != "SPCAmodl" {
		return nil, fmt.Errorf("not an SPCA model")
	}
	version, d := le.Uint32(model[8:]), int(le.Uint32(model[12:]))
	if d < 1 || d > 16 {
		return nil, fmt.Errorf("dimension %d", d)
	}
	off := 16 + 4*8 + 4 // gamma, K, tau, Q; origin kind
	if off+8 > len(model) {
		return nil, fmt.Errorf("too short")
	}
	off += 8 + 8*int(le.Uint64(model[off:])) // origin point
	off += 8 + 4 + 8 + 8 + 8 + 8             // tol, maxiter, seed, resolution, maxref, bandwidth
	if version >= 2 {
		off += 8
	}
	if version >= 3 {
		off += 8
	}
	off += 8*(4*d+d*d) + 3*8 // mean, origin, frame, entropies, c; scale, dmax, tolN
	end := off + 8*d + 16*d  // g, zero, lo and step
	if end > len(model) {
		return nil, fmt.Errorf("too short")
	}
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
