package spca

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/fileio"
	"github.com/spcalab/spca/internal/gridcode"
)

// Model file format (little-endian), version 2, 3, 4 or 5:
//
//	magic    [8]byte "SPCAmodl"
//	version  uint32
//	payload  (fields below, in order)
//	checksum uint32 CRC-32C of magic, version and payload
//
// Version 2 added Options.Conditioning after Options.Bandwidth; version 1
// files (written before it existed, with conditioning 0.1) are still read.
// Version 3 adds Options.Neighbours after Options.Conditioning; it is
// written only for models that use it, so that every other model keeps
// the bytes (and the content hash other formats identify it by) of
// version 2.
// Version 4 (WriteCompactTo) is version 3 with, before each metric table,
// a byte: 1 if every fiber of the table is the same (gamma 0: see
// setSameFibers), which is then stored once, 0 if the whole table
// follows. The 4×4 gamma-0 Kodak codec's SPCA model shrinks from 25.6 to
// 8.7 MB, and the model read keeps that one fiber.
// Version 5 is version 4 with the typical responses (SetTypical, d
// values) after the first curve; it is written, by WriteTo as by
// WriteCompactTo, only for models that have them, so other models keep
// their bytes.
// Version 6 (WriteCompactTo of a model whose lattice SnapLattice
// rounded) is version 4 with the lattice positions stored as integers:
// a byte 1, the resolution (f64, a power of two: the positions are its
// multiples), then per coordinate a byte w (1 to 8) and the residuals of
// the coordinate's integers after a first difference along every axis
// of the lattice (the n-dimensional Lorenzo predictor, exact on
// multilinear maps: the lattice is smooth), zigzag-coded, in w bytes
// each, stored as w byte planes (all low bytes first); a byte 0 instead
// stores the positions as a version-4 array. The metric tables' flags
// may also be 2 (the whole table) or 3 (one fiber) for a table stored as
// integers: its resolution (f64), then a byte w and the byte planes of
// its differences as above, on the grid of its fibers × its nodes. After
// the first curve, a byte 1 and the typical responses, or a byte 0. The 4×4 gamma-0 Kodak
// codec's lattice (2^20 values, 8.4 MB in float64) takes about 1 MB
// once the codec model file is compressed.
// Version 7 (WriteStoredTo) is version 6 with the lattice positions
// stored as float32, ready to use: a byte 2, the resolution (f64, as
// version 6: the positions are its multiples, integers below 2^24 times
// it), a byte p (below 64) and p bytes of zeros, which align what follows
// to 64 bytes of the writer's base (a codec model's section), then the
// prod(g)×d positions, little-endian float32, node after node. A reader
// of the model's bytes in memory (ReadEmbeddedShared) uses them in place:
// no decoding, no copy (the 8×8 grey Kodak codec's lattice took 55 % of
// its load from raw blocks, JoinPlanes and UndiffSlabs). It is written
// only where version 6 would be and its lattice would load as float32
// (d > 1), else WriteStoredTo writes what WriteCompactTo does.
// Any of these versions may carry the flag ExtendedOptions (bit 8 of the
// version word: 258 is version 2 with it): the options then continue,
// after Conditioning (and Neighbours from version 3), with
// Options.DensityFloor (f64) and a byte of option bits (bit 0:
// Options.ReflectDensity, bit 1: Options.FloorOfMean; the others 0). Both shape the metric tables,
// which every version stores, but a model read back refits its metric
// (RefitMetric) with them. The flag is written only for models that set
// one of them, so every other model (the codec's) keeps its bytes; files
// written before it read back with DensityFloor 0 and neither option.
// The payload holds the options, the normalisation, the ranking at the
// origin, the lattice of curve positions, the metric tables and the drawn
// first curve. Every count is validated against the lattice shape before
// anything is allocated, so a hostile file cannot request absurd memory.
const (
	// ModelMagic is the first bytes of a model file.
	ModelMagic = "SPCAmodl"
	// modelVersion is the latest version, the last this build reads.
	modelVersion = versionStored
	// versionCompact stores repeated metric fibers once.
	versionCompact = 4
	// versionTypical is versionCompact with the typical responses.
	versionTypical = 5
	// versionSnapped stores a snapped lattice as integers.
	versionSnapped = 6
	// versionStored is versionSnapped with the lattice stored as float32.
	versionStored = 7
	// storedAlign is the alignment of version 7's lattice (bytes).
	storedAlign = 64
	// ExtendedOptions is the flag of the version word for models that
	// store DensityFloor, ReflectDensity and FloorOfMean (see the format
	// above).
	ExtendedOptions = 1 << 8
	maxNodes        = 1 << 26
	// maxSnappedValues bounds the lattice values of the integer form
	// (one byte each at the least, eight in memory); larger lattices are
	// stored as float64.
	maxSnappedValues = 1 << 22
)

// Resolutions SnapLattice accepts.
const (
	minLatticeRes = 0x1p-60
	maxLatticeRes = 0x1p10
)

// SnapLattice rounds the lattice positions to multiples of the largest
// power of two at most eps/s, where s is the model's normalisation
// scale, so that no point of the model's inverse map moves by more than
// eps/2 per coordinate (eps in input units: 1/128 of a grey level in the
// codec), and the metric tables to a power of two about 2^-20 of their
// largest value (a fiber that increased still increases: by one such
// step at least per node). WriteCompactTo then stores them as small
// integers (version 6), several times smaller than float64 once
// compressed. It
// changes the model: call it before using the model, never while other
// goroutines use it. Snapping again at the same eps changes nothing.
func (m *Model) SnapLattice(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return optionError(fmt.Sprintf("SnapLattice: resolution %g must be finite and > 0", eps))
	}
	_, e := math.Frexp(eps / m.scale)
	res := math.Ldexp(1, e-1)
	if res < minLatticeRes || res > maxLatticeRes {
		return optionError(fmt.Sprintf("SnapLattice: resolution %g out of range for a scale of %g", eps, m.scale))
	}
	m.lat.widen()
	for _, v := range m.lat.x {
		if math.Abs(v/res) > 1<<52 {
			return optionError(fmt.Sprintf("SnapLattice: resolution %g too fine for positions of %g", eps, v))
		}
	}
	for i, v := range m.lat.x {
		if v = math.Round(v/res) * res; v == 0 {
			v = 0 // not -0: the integers cannot store it
		}
		m.lat.x[i] = v
	}
	m.latRes = res
	// The metric tables (cumulative lengths along the fibers, smooth
	// across them) to about 2^-20 of their largest value.
	if m.tabRes == nil {
		m.tabRes = make([]float64, len(m.tables))
	}
	for j, t := range m.tables {
		big := 0.0
		for _, v := range t {
			big = math.Max(big, math.Abs(v))
		}
		r := math.Ldexp(1, math.Ilogb(big)-20)
		if m.tabRes[j] > 0 { // snapped before: keep its resolution
			r = m.tabRes[j]
		}
		if !(big > 0) || !validRes(r) {
			continue
		}
		g := m.tnodes[j]
		prev := 0.0 // the value before rounding of the previous node
		for i, v := range t {
			q := math.Round(v/r) * r
			// A fiber that increased keeps increasing: the inverse
			// divides by the steps (one of r more at the most per node).
			if i%g > 0 && v > prev && q <= t[i-1] {
				q = t[i-1] + r
			}
			if q == 0 {
				q = 0
			}
			prev, t[i] = v, q
		}
		m.tabRes[j] = r
	}
	m.setSameFibers() // rounding may make fibers equal that differed in the last bits
	m.setFiber0()
	m.setRestartNodes()
	return nil
}

// snappedInts returns coordinate q of the lattice positions as multiples
// of m.latRes, and whether they all are.
func (m *Model) snappedInts(q int, pos []float64, v []int64) bool {
	d := m.d
	for i := range v {
		x := pos[i*d+q] / m.latRes
		if x != math.Trunc(x) || math.Abs(x) > 1<<52 || x == 0 && math.Signbit(x) {
			return false
		}
		v[i] = int64(x)
	}
	return true
}

// encoder writes a model to w and its checksum h, gathering the small
// fields in blocks (blk): handed over 8 bytes at a time, the values of a
// 1<<16-node 4-D model (a codec model's) took a CRC-32C update and a
// bytes.Buffer write each, 40 % of the write's time.
type encoder struct {
	// base is the bytes before w's first, for version 7's alignment.
	base int64
	w    io.Writer
	h    hash.Hash32
	n    int64
	err  error
	buf  [8]byte
	blk  []byte // at most encoderBlock bytes not yet written
}

const encoderBlock = 8 << 10

func newEncoder(w io.Writer) *encoder {
	return &encoder{w: w, h: crc32.New(checksum.Table), blk: make([]byte, 0, encoderBlock)}
}

func (e *encoder) write(b []byte) {
	if len(e.blk)+len(b) > cap(e.blk) {
		e.flush()
		if len(b) >= cap(e.blk) {
			e.out(b)
			return
		}
	}
	e.blk = append(e.blk, b...)
}

// flush writes the gathered bytes.
func (e *encoder) flush() {
	e.out(e.blk)
	e.blk = e.blk[:0]
}

func (e *encoder) out(b []byte) {
	if e.err != nil || len(b) == 0 {
		return
	}
	e.h.Write(b)
	k, err := e.w.Write(b)
	e.n += int64(k)
	e.err = err
}

func (e *encoder) u32(v uint32) {
	if len(e.blk)+4 > cap(e.blk) {
		e.flush()
	}
	e.blk = binary.LittleEndian.AppendUint32(e.blk, v)
}
func (e *encoder) u64(v uint64) {
	if len(e.blk)+8 > cap(e.blk) {
		e.flush()
	}
	e.blk = binary.LittleEndian.AppendUint64(e.blk, v)
}
func (e *encoder) f64(v float64) {
	e.u64(math.Float64bits(v))
}

// f64s writes the count and the values.
func (e *encoder) f64s(v []float64) {
	e.u64(uint64(len(v)))
	e.f64vals(v)
}

// f64vals writes the values, as many at a time as the block has room
// for: one f64 call per value (a bounds check and a flush test each) was
// most of the writer's time on the tables of version 2 models.
func (e *encoder) f64vals(v []float64) {
	for len(v) > 0 {
		k := len(e.blk)
		n := min(len(v), (cap(e.blk)-k)/8)
		if n == 0 {
			e.flush()
			continue
		}
		b := e.blk[k : k+8*n]
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		e.blk = e.blk[:k+8*n]
		v = v[n:]
	}
}
func (e *encoder) ints(v []int) {
	for _, x := range v {
		e.u32(uint32(x))
	}
}

// WriteTo writes the model in the versioned binary format (version 2, or
// 3 with the Neighbours option, 5 with typical responses). Equal models
// give identical bytes.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	version := uint32(2)
	if m.opt.Neighbours != 0 {
		version = 3
	}
	if m.typical != nil {
		version = versionTypical
	}
	return m.write(w, version)
}

// WriteCompactTo writes the model in version 4: version 3 with the
// metric tables whose fibers are all the same stored once, smaller and
// faster to read. Read reads it into the same model (WriteTo of either
// gives the same bytes).
func (m *Model) WriteCompactTo(w io.Writer) (int64, error) {
	if m.latRes > 0 && m.lat.size()*m.d <= maxSnappedValues {
		return m.write(w, versionSnapped)
	}
	if m.typical != nil {
		return m.write(w, versionTypical)
	}
	return m.write(w, versionCompact)
}

// WriteStoredTo is WriteCompactTo writing, where it would write version 6
// and the lattice loads as float32, version 7: the lattice stored as
// float32, aligned to 64 bytes counted from base bytes before w's first
// (a codec model writes its SPCA models into its sections; see the
// format). Read reads it into the same model; ReadEmbeddedShared of the
// bytes in memory uses the lattice in place.
func (m *Model) WriteStoredTo(w io.Writer, base int64) (int64, error) {
	if m.latRes > 0 && m.lat.size()*m.d <= maxSnappedValues && m.d > 1 && storable32(m.lat.positions(), m.latRes) {
		e := newEncoder(w)
		e.base = base
		return m.writeWith(e, versionStored)
	}
	return m.WriteCompactTo(w)
}

// storable32 reports whether every position is an integer below 2^24
// times res (not -0): what version 6 reads back as float32.
func storable32(pos []float64, res float64) bool {
	for _, v := range pos {
		q := v / res
		if q != math.Trunc(q) || math.Abs(q) >= 1<<24 || q == 0 && math.Signbit(q) {
			return false
		}
	}
	return true
}

// extended reports whether the model's options need ExtendedOptions.
func (m *Model) extended() bool {
	return m.opt.DensityFloor != 0 || m.opt.ReflectDensity || m.opt.FloorOfMean
}

func (m *Model) write(w io.Writer, version uint32) (int64, error) {
	return m.writeWith(newEncoder(w), version)
}

// writeWith is write through the encoder e.
func (m *Model) writeWith(e *encoder, version uint32) (int64, error) {
	e.write([]byte(ModelMagic))
	if m.extended() {
		e.u32(version | ExtendedOptions)
	} else {
		e.u32(version)
	}
	d := m.d
	e.u32(uint32(d))
	o := m.opt
	e.f64(o.Gamma)
	e.f64(o.K)
	e.f64(o.Tau)
	e.f64(o.Q)
	e.u32(uint32(o.Origin))
	e.f64s(o.OriginPoint)
	e.f64(o.Tol)
	e.u32(uint32(o.MaxIter))
	e.u64(o.Seed)
	e.u64(uint64(o.Resolution))
	e.u64(uint64(o.MaxReference))
	e.f64(o.Bandwidth)
	e.f64(o.Conditioning)
	if version >= 3 {
		e.f64(o.Neighbours)
	}
	if m.extended() {
		e.f64(o.DensityFloor)
		e.write([]byte{b2u8(o.ReflectDensity) | b2u8(o.FloorOfMean)<<1})
	}
	for _, v := range [][]float64{m.mean, m.origin, m.frame0, m.entropies, m.c} {
		e.f64vals(v)
	}
	e.f64(m.scale)
	e.f64(m.dmax)
	e.f64(m.tolN)
	l := &m.lat
	e.ints(l.g)
	e.ints(l.zero)
	for j := 0; j < d; j++ {
		e.f64(l.lo[j])
		e.f64(l.step[j])
	}
	switch version {
	case versionStored:
		e.stored(m)
	case versionSnapped:
		e.snapped(m)
	default:
		e.f64s(l.positions())
	}
	fibers := 1
	for j, t := range m.tables {
		g := m.tnodes[j]
		switch {
		case version >= versionSnapped && e.intTable(m, j):
		case version >= versionCompact && m.sameFibers[j]:
			e.write([]byte{1})
			e.f64s(t[:g])
		case version >= versionCompact:
			e.write([]byte{0})
			e.f64s(t)
		default:
			// A model read from version 4 keeps one fiber of such a
			// table: repeat it.
			e.u64(uint64(fibers * g))
			for f := 0; f < fibers; f++ {
				off := 0
				if len(t) > g {
					off = f * g
				}
				e.f64vals(t[off : off+g])
			}
		}
		fibers *= m.lat.g[j]
	}
	e.u32(uint32(m.fiber0Lo))
	e.u32(uint32(m.fiber0Hi))
	e.u32(uint32(m.curve1.len()))
	e.f64vals(m.curve1.pts)
	e.f64vals(m.curve1.s)
	if version >= versionSnapped {
		e.write([]byte{b2u8(m.typical != nil)})
	}
	if version == versionTypical || version >= versionSnapped && m.typical != nil {
		e.f64vals(m.typical)
	}
	e.flush()
	sum := e.h.Sum32()
	binary.LittleEndian.PutUint32(e.buf[:4], sum)
	if e.err == nil {
		k, err := e.w.Write(e.buf[:4])
		e.n += int64(k)
		e.err = err
	}
	return e.n, e.err
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// snapped writes the lattice positions of version 6: as integers if they
// are all multiples of m.latRes, else as float64.
func (e *encoder) snapped(m *Model) {
	l := &m.lat
	n := l.size()
	pos := l.positions()
	planes := make([][]int64, m.d)
	for q := range planes {
		planes[q] = make([]int64, n)
		if !m.snappedInts(q, pos, planes[q]) {
			e.write([]byte{0})
			e.f64s(pos)
			return
		}
	}
	e.write([]byte{1})
	e.f64(m.latRes)
	for _, v := range planes {
		gridcode.Diff(v, l.g)
		w := gridcode.Zigzag(v)
		e.write([]byte{byte(w)})
		gridcode.Planes(v, w, e.write)
	}
}

// stored writes the lattice positions of version 7 (see the format):
// flag 2, the resolution, the padding to 64 bytes of e's base, the
// positions as float32 (WriteStoredTo checked that they are exact).
func (e *encoder) stored(m *Model) {
	e.write([]byte{2})
	e.f64(m.latRes)
	at := e.base + e.n + int64(len(e.blk)) + 1 // after the padding's count
	pad := int(-at & (storedAlign - 1))
	e.write([]byte{byte(pad)})
	e.write(make([]byte, pad))
	pos := m.lat.positions()
	var b [encoderBlock]byte
	for len(pos) > 0 {
		k := min(len(pos), len(b)/4)
		for i, v := range pos[:k] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
		}
		e.write(b[:4*k])
		pos = pos[k:]
	}
}

// intTable writes metric table j as integers (flag 2, or 3 for one
// fiber), if SnapLattice rounded it, and reports whether it did.
func (e *encoder) intTable(m *Model, j int) bool {
	if j >= len(m.tabRes) || m.tabRes[j] == 0 {
		return false
	}
	res, t, flag := m.tabRes[j], m.tables[j], byte(2)
	shape := append(append([]int(nil), m.lat.g[:j]...), m.tnodes[j])
	if m.sameFibers[j] {
		t, flag, shape = t[:m.tnodes[j]], 3, shape[j:]
	}
	if len(t) > maxSnappedValues {
		return false
	}
	v := make([]int64, len(t))
	for i, x := range t {
		q := x / res
		if q != math.Trunc(q) || math.Abs(q) > 1<<52 || q == 0 && math.Signbit(q) {
			return false
		}
		v[i] = int64(q)
	}
	e.write([]byte{flag})
	e.f64(res)
	gridcode.Diff(v, shape)
	w := gridcode.Zigzag(v)
	e.write([]byte{byte(w)})
	gridcode.Planes(v, w, e.write)
	return true
}

type decoder struct {
	// ints is the integer scratch of intPlane, reused by every integer
	// array of a file: the allocations stay within 8 bytes per value
	// held (9 with it). planes is the byte scratch of its planes (at
	// most 8 bytes more per value), when the reader tells its length.
	ints   []int64
	planes []byte
	r      io.Reader
	h      hash.Hash32
	err    error
	buf    [8]byte
	// The memory bound (see charge): limit, if not nil, is what the
	// arrays may still take; else the bound follows the bytes read, n,
	// and those the reader said it held at the start, known.
	limit   *int64
	used, n int64
	known   int64
	// share lets a version 7 lattice be used in place, in the bytes the
	// reader holds (ReadEmbeddedShared); shared reports that one was.
	share, shared bool
}

// intScratch keeps a decoder's integer scratch (decoder.ints) for the
// next model read; nothing read refers to it.
var intScratch = sync.Pool{New: func() any { return new([]int64) }}

// TakeScratch takes the integer scratch kept for the next model read out
// of its pool and returns it (nil if none is kept): nothing refers to it,
// and a caller that reads no more models may use its memory (codec hands
// it to a process's first image); the next read makes its own.
func TakeScratch() []int64 {
	sp, ok := intScratch.Get().(*[]int64)
	if !ok {
		return nil
	}
	return *sp
}

// Memory bound of Read (issue 23): reading a file of n bytes allocates
// at most boundBase + boundPerByte×n bytes. The arrays the decoder
// allocates in proportion to what the file declares are charged against
// it, less boundReserve for the rest (the model's small slices, the
// tables Read derives): an integer value takes one byte in the file and
// eight in memory, so counts alone cannot hold the bound.
const (
	boundBase    = 64 << 20
	boundPerByte = 10
	boundReserve = 8 << 20
)

// charge accounts for an allocation of size bytes for what (the field
// named in the error), and reports whether the bound allows it.
func (dc *decoder) charge(size int, what string) bool {
	if dc.err != nil {
		return false
	}
	dc.used += int64(size)
	if dc.limit != nil {
		*dc.limit -= int64(size)
		if *dc.limit >= 0 {
			return true
		}
	} else if dc.used <= boundBase-boundReserve+boundPerByte*max(dc.n, dc.known) {
		return true
	}
	if dc.limit != nil {
		dc.fail("%s needs more memory than the file holding the model allows (%d MB)", what, dc.used>>20)
	} else {
		dc.fail("%s needs more memory than the file's size allows (%d MB; the bound is 64 MB + 10 × the bytes read)", what, dc.used>>20)
	}
	return false
}

func (dc *decoder) fail(format string, a ...any) {
	if dc.err == nil {
		dc.err = &FormatError{fmt.Sprintf(format, a...)}
	}
}

func (dc *decoder) read(b []byte) {
	if dc.err != nil {
		return
	}
	if _, err := io.ReadFull(dc.r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			dc.fail("truncated")
		} else {
			dc.err = err
		}
		return
	}
	dc.n += int64(len(b))
	if dc.h != nil {
		dc.h.Write(b)
	}
}
func (dc *decoder) u32() uint32 {
	dc.read(dc.buf[:4])
	if dc.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint32(dc.buf[:4])
}

// maxLatticeExtent bounds the coordinates of a lattice read from a file.
const maxLatticeExtent = 1e100

// count reads a 32-bit count or index: 2^31 and more is refused (a
// negative int on a 32-bit platform, which passed the range checks).
func (dc *decoder) count() int {
	v := dc.u32()
	if v > math.MaxInt32 {
		dc.fail("value %d out of range", v)
		return 0
	}
	return int(v)
}

func (dc *decoder) u64() uint64 {
	dc.read(dc.buf[:8])
	if dc.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(dc.buf[:8])
}

// f64 reads a finite float.
func (dc *decoder) f64() float64 {
	v := math.Float64frombits(dc.u64())
	if math.IsNaN(v) || math.IsInf(v, -1) {
		dc.fail("non-finite value")
		return 0
	}
	return v
}

// chunkValues is how many values the decoder reads before growing a
// slice further: a file declaring a large array but holding few bytes
// fails as truncated having allocated in proportion to what it holds,
// not to what it declares.
const chunkValues = 1 << 14

// f64n reads a count that must equal want, then the values of what.
func (dc *decoder) f64n(want int, what string) []float64 {
	n := dc.u64()
	if dc.err != nil {
		return nil
	}
	if n != uint64(want) {
		dc.fail("array of %d values where the lattice needs %d", n, want)
		return nil
	}
	return dc.vecOf(want, what)
}

// vec reads n finite values, in blocks (one by one, through the
// checksum's hash, they were a third of loading a codec model), growing
// the slice as they arrive, unless the reader reports that it holds them
// all (bytes.Reader: a codec model's embedded SPCA model).
func (dc *decoder) vec(n int) []float64 { return dc.vecOf(n, "an array") }

// vecOf is vec for the array what (named in errors).
func (dc *decoder) vecOf(n int, what string) []float64 {
	c := min(n, chunkValues)
	if l, ok := dc.r.(interface{ Len() int }); ok && l.Len()/8 >= n {
		c = n
	}
	if !dc.charge(8*c, what) {
		return nil
	}
	v := make([]float64, 0, c)
	var buf [8 * 1024]byte
	for len(v) < n && dc.err == nil {
		k := min(n-len(v), len(buf)/8)
		dc.read(buf[:8*k])
		if dc.err != nil {
			break
		}
		if len(v)+k > cap(v) {
			nc := min(n, max(len(v)+k, 2*cap(v)))
			if !dc.charge(8*nc, what) {
				break
			}
			v = append(make([]float64, 0, nc), v...)
		}
		for i := range k {
			x := math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
			if math.IsNaN(x) || math.IsInf(x, 0) {
				dc.fail("non-finite value")
			}
			v = append(v, x)
		}
	}
	if dc.err != nil {
		return nil
	}
	return v
}

// intPlane reads the integers of one coordinate on a grid of nodes
// nodes of the given shape: a byte w, then w byte planes of the
// zigzag-coded differences (see the format). It decodes them into
// dc.ints, reused if large enough, and returns them. Every value takes a
// byte at least: when the reader tells its size it must hold them all
// before p is allocated; otherwise p grows as they arrive.
func (dc *decoder) intPlane(nodes int, shape []int, what string) (p []int64) {
	return dc.intPlaneOf(dc.width(), nodes, shape, what)
}

// width reads the byte width of a plane's integers (1 to 8; 0 after an
// error).
func (dc *decoder) width() int {
	var wb [1]byte
	if dc.read(wb[:]); dc.err == nil && (wb[0] < 1 || wb[0] > 8) {
		dc.fail("integer values of %d bytes", wb[0])
	}
	if dc.err != nil {
		return 0
	}
	return int(wb[0])
}

// intPlaneOf is intPlane after the width w was read.
func (dc *decoder) intPlaneOf(w, nodes int, shape []int, what string) (p []int64) {
	return dc.intPlaneAxes(w, nodes, shape, 0, what)
}

// intPlaneAxes is intPlaneOf with the differences along the axes before
// lo left in p for the caller, which undoes them as it stores the values
// (snapped: one pass over the nodes fewer). When the reader tells its
// length, the planes are read at once into dc.planes and joined in one
// pass with Unzigzag and the running sums along the last axis
// (gridcode.JoinPlanes): 8×8 Kodak codec model load 3.6-4.2 -> 3.3-3.7 ms
// CPU with the axis-0 pass of snapped.
func (dc *decoder) intPlaneAxes(w, nodes int, shape []int, lo int, what string) (p []int64) {
	p = dc.ints[:cap(dc.ints)]
	defer func() { dc.ints = p }()
	wb := [1]byte{byte(w)}
	if dc.err != nil {
		return p
	}
	r, ok := dc.r.(interface{ Len() int })
	if ok && r.Len() < nodes*int(wb[0]) {
		dc.fail("truncated")
		return p
	} else if ok && len(p) < nodes {
		if !dc.charge(8*nodes, what) {
			return p
		}
		p = make([]int64, nodes)
	}
	if nx, isBuf := dc.r.(interface{ Next(n int) []byte }); ok && isBuf && len(shape) > 0 && shape[len(shape)-1] > 0 {
		// The planes read in place from a reader over bytes in memory
		// (a codec model's section): no copy into fresh scratch (2.5 %
		// of a colour encode's CPU cleared its pages).
		planes := nx.Next(w * nodes) // the length was checked above
		dc.n += int64(len(planes))
		if dc.h != nil {
			dc.h.Write(planes)
		}
		p = p[:nodes]
		gridcode.JoinPlanes(p, planes, shape[len(shape)-1])
		gridcode.UndiffAxes(p, shape, lo, len(shape)-1)
		return p
	}
	if ok && len(shape) > 0 && shape[len(shape)-1] > 0 {
		if len(dc.planes) < w*nodes {
			if !dc.charge(w*nodes, what) {
				return p
			}
			dc.planes = make([]byte, w*nodes)
		}
		planes := dc.planes[:w*nodes]
		if dc.read(planes); dc.err != nil {
			return p
		}
		p = p[:nodes]
		gridcode.JoinPlanes(p, planes, shape[len(shape)-1])
		gridcode.UndiffAxes(p, shape, lo, len(shape)-1)
		return p
	}
	if len(p) == 0 {
		if !dc.charge(8*min(nodes, chunkValues), what) {
			return p
		}
		p = make([]int64, min(nodes, chunkValues))
	}
	var buf [8 * 1024]byte
	for b := 0; b < int(wb[0]) && dc.err == nil; b++ {
		for i := 0; i < nodes && dc.err == nil; {
			k := min(nodes-i, len(buf))
			dc.read(buf[:k])
			if dc.err != nil {
				break
			}
			if i+k > len(p) {
				if !dc.charge(8*min(nodes, max(i+k, 2*len(p))), what) {
					break
				}
				np := make([]int64, min(nodes, max(i+k, 2*len(p))))
				copy(np, p[:i])
				p = np
			}
			gridcode.AddPlane(p[i:i+k], buf[:k], b)
			i += k
		}
	}
	if dc.err != nil {
		return p
	}
	p = p[:nodes]
	gridcode.Unzigzag(p)
	gridcode.UndiffAxes(p, shape, lo, len(shape))
	return p
}

// intTable reads a metric table of version 6 stored as integers: its
// resolution, then its n values on the grid shape.
func (dc *decoder) intTable(n int, shape []int, what string) ([]float64, float64) {
	res := dc.f64()
	if dc.err == nil && (n > maxSnappedValues || !validRes(res)) {
		dc.fail("integer table of %d values at resolution %g", n, res)
	}
	if dc.err != nil {
		return nil, 0
	}
	p := dc.intPlane(n, shape, what)
	if !dc.charge(8*n, what) {
		return nil, 0
	}
	t := make([]float64, n)
	for i, v := range p {
		t[i] = float64(v) * res
	}
	return t, res
}

// validRes reports whether res is a power of two SnapLattice may use.
func validRes(res float64) bool {
	return res >= minLatticeRes && res <= maxLatticeRes && res == math.Ldexp(1, math.Ilogb(res))
}

// snapped reads the lattice positions of version 6 (n values): where
// they are integers, as float32 (x32) while every one is exact in it,
// else as float64 (x).
func (dc *decoder) snapped(l *lattice, n int, stored bool) (x []float64, x32 []float32, res float64) {
	var flag [1]byte
	if dc.read(flag[:]); dc.err == nil && (flag[0] > 2 || flag[0] == 2 && !stored) {
		dc.fail("lattice flag %d", flag[0])
	}
	if dc.err != nil {
		return nil, nil, 0
	}
	if flag[0] == 2 {
		x32, res = dc.stored(l, n)
		return nil, x32, res
	}
	if flag[0] == 0 {
		return dc.f64n(n, "the lattice"), nil, 0
	}
	res = dc.f64()
	if dc.err == nil && (n > maxSnappedValues || !validRes(res)) {
		dc.fail("integer lattice of %d values at resolution %g", n, res)
	}
	if dc.err != nil {
		return nil, nil, 0
	}
	nodes := n / l.d
	for q := 0; q < l.d && dc.err == nil; q++ {
		w := dc.width()
		// float32 for d > 1 (floatPlane below decodes into float64).
		if x == nil && x32 == nil && dc.err == nil && l.d > 1 && dc.charge(4*n, "the lattice") {
			x32 = make([]float32, n)
		}
		if x == nil && x32 == nil && dc.err == nil && dc.charge(8*n, "the lattice") {
			x = make([]float64, n)
		}
		if dc.err != nil {
			break
		}
		// floatPlane skips the int64 scratch but sums in float64 with x's
		// stride, a chain of dependent float adds per grid axis: for d > 1
		// the scratch is faster (8×8 Kodak codec model, d = 4: load 10.0-10.6
		// -> 7.3-8.2 ms, BenchmarkModelLoad/file-compact), and the heap of a
		// coding process has 2 MB pages now, so it costs few page faults.
		if l.d == 1 && dc.floatPlane(x, q, l.d, l.g, w) {
			for i := q; i < len(x); i += l.d {
				x[i] *= res // exact: integers times a power of two (see floatPlane)
			}
			continue
		}
		if done, ok := dc.snappedSlabs(l, q, w, res, &x, &x32); ok {
			if !done {
				break
			}
			continue
		}
		// Every axis undone in the int64 scratch (gridcode's AVX2 row
		// additions), then stored (AVX-512): the pass over axis 0 that
		// also stored the values took 14 instructions a value, these ~5.
		p := dc.intPlaneAxes(w, nodes, l.g, 0, "the lattice")
		if dc.err != nil {
			break
		}
		if x32 != nil {
			// Integers below 2^24 are exact in float32, and so are
			// their products by res (a power of two from 2^-60 to
			// 2^10: within float32's normal exponents).
			if gridcode.Scale32(x32[q:], l.d, p[:nodes], res) < 1<<24 {
				continue
			}
			// Not exact (no model trained so far: 2^18 at most): the
			// coordinates so far widened into float64, the rest read
			// into it.
			if x = dc.widen(x32); x == nil {
				break
			}
			x32 = nil
		}
		gridcode.Scale(x[q:], l.d, p[:nodes], res)
	}
	if dc.err != nil {
		return nil, nil, 0
	}
	return x, x32, res
}

// stored reads the lattice positions of version 7 (n values) after
// their flag: in place when dc.share allows it and the reader holds them
// in memory, aligned, on a little-endian machine (dc.shared then set),
// else into a slice of their own.
func (dc *decoder) stored(l *lattice, n int) (x32 []float32, res float64) {
	res = dc.f64()
	if dc.err == nil && (n > maxSnappedValues || !validRes(res) || l.d < 2) {
		dc.fail("float32 lattice of %d values at resolution %g, %d-D", n, res, l.d)
	}
	var pad [storedAlign]byte
	if dc.read(pad[:1]); dc.err == nil && pad[0] >= storedAlign {
		dc.fail("lattice padding of %d bytes", pad[0])
	}
	if dc.err != nil {
		return nil, 0
	}
	if dc.read(pad[:pad[0]]); dc.err != nil {
		return nil, 0
	}
	r, isLen := dc.r.(interface{ Len() int })
	if isLen && r.Len() < 4*n {
		dc.fail("truncated")
		return nil, 0
	}
	if nx, isBuf := dc.r.(interface{ Next(n int) []byte }); dc.share && isLen && isBuf && littleEndian {
		b := nx.Next(4 * n) // the length was checked above
		dc.n += int64(len(b))
		if dc.h != nil {
			dc.h.Write(b)
		}
		if !finite32(b) {
			dc.fail("lattice position not finite")
			return nil, 0
		}
		if p := unsafe.SliceData(b); n == 0 || uintptr(unsafe.Pointer(p))%4 == 0 {
			dc.shared = n > 0
			return unsafe.Slice((*float32)(unsafe.Pointer(p)), n), res
		}
		if !dc.charge(4*n, "the lattice") {
			return nil, 0
		}
		x32 = make([]float32, n)
		for i := range x32 {
			x32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return x32, res
	}
	if !dc.charge(4*n, "the lattice") {
		return nil, 0
	}
	x32 = make([]float32, n)
	var buf [8 * 1024]byte
	for i := 0; i < n && dc.err == nil; {
		k := min(n-i, len(buf)/4)
		b := buf[:4*k]
		if dc.read(b); dc.err != nil || !finite32(b) {
			dc.fail("lattice position not finite")
			break
		}
		for a := range x32[i : i+k] {
			x32[i+a] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*a:]))
		}
		i += k
	}
	if dc.err != nil {
		return nil, 0
	}
	return x32, res
}

// littleEndian reports whether the machine stores a float32 as its
// little-endian bytes (version 7's lattice used in place).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// finite32 reports whether every float32 of b (little-endian, len(b) a
// multiple of 4) is finite: no exponent of all ones, tested two values
// at a time (the exponent plus one carries into the sign bit).
func finite32(b []byte) bool {
	const exp, one, sign = 0x7f800000_7f800000, 0x00800000_00800000, 0x80000000_80000000
	var acc0, acc1 uint64
	for len(b) >= 16 {
		acc0 |= binary.LittleEndian.Uint64(b)&exp + one
		acc1 |= binary.LittleEndian.Uint64(b[8:])&exp + one
		b = b[16:]
	}
	for len(b) >= 4 {
		acc0 |= uint64(binary.LittleEndian.Uint32(b))&exp + one
		b = b[4:]
	}
	return (acc0|acc1)&sign == 0
}

// widen returns the lattice positions x32 as float64 (snapped's
// coordinates so far, once a value is not exact in float32), or nil if
// the budget does not allow them (dc.err set).
func (dc *decoder) widen(x32 []float32) []float64 {
	if !dc.charge(8*len(x32), "the lattice") {
		return nil
	}
	x := make([]float64, len(x32))
	for i, v := range x32 {
		x[i] = float64(v)
	}
	return x
}

// snappedSlabs is the loop body of snapped for coordinate q (w bytes a
// node) from a reader over bytes in memory (a codec model's section): the
// planes read in place and decoded a slab of axis 0 at a time
// (gridcode.UndiffSlabs) through a scratch of two slabs, each slab's
// values stored as decoded. The whole lattice through an int64 scratch
// of every node took 0.9 MB of fresh memory a lattice (its pages faulted
// in and cleared by the kernel), and four passes over it in the L2
// cache. The integers, hence the values, are those of intPlaneAxes; a
// slab holding an integer float32 does not hold exactly widens the
// coordinates so far into x (exact: every value before was exact in
// float32) and goes on in float64, as snapped does for a whole
// coordinate. ok reports whether it applied (else nothing was read); done
// whether it decoded the coordinate (else dc.err is set).
func (dc *decoder) snappedSlabs(l *lattice, q, w int, res float64, x *[]float64, x32 *[]float32) (done, ok bool) {
	g := l.g
	if len(g) < 2 || g[0] < 1 {
		return false, false
	}
	slab := gridcode.Slab(g)
	nodes := g[0] * slab
	r, isLen := dc.r.(interface{ Len() int })
	nx, isBuf := dc.r.(interface{ Next(n int) []byte })
	if !isLen || !isBuf || slab < 1 || g[len(g)-1] < 1 || nodes*l.d != max(len(*x), len(*x32)) {
		return false, false
	}
	if r.Len() < nodes*w {
		dc.fail("truncated")
		return false, true
	}
	buf := dc.ints[:cap(dc.ints)]
	if len(buf) < 2*slab {
		if !dc.charge(16*slab, "the lattice") {
			return false, true
		}
		buf = make([]int64, 2*slab)
		dc.ints = buf
	}
	planes := nx.Next(w * nodes) // the length was checked above
	dc.n += int64(len(planes))
	if dc.h != nil {
		dc.h.Write(planes)
	}
	d := l.d
	done = true
	gridcode.UndiffSlabs(buf, planes, w, g, func(i int, v []int64) bool {
		off := q + i*slab*d
		if *x32 != nil {
			if gridcode.Scale32((*x32)[off:], d, v, res) < 1<<24 {
				return true
			}
			wide := dc.widen(*x32)
			if wide == nil {
				done = false
				return false
			}
			*x, *x32 = wide, nil
		}
		gridcode.Scale((*x)[off:], d, v, res)
		return true
	})
	return done, true
}

// floatPlane decodes coordinate q of the lattice's integer positions (w
// bytes each) straight into x (nodes×d, the integers, not yet scaled by
// the resolution), as intPlane does into its int64 scratch, when that
// gives the same integers: when every sum the Lorenzo inversion forms (a
// sum of at most nodes differences below 2^(8w)) is below 2^53, so that
// float64 arithmetic is exact. It returns false, having read nothing,
// when it cannot, or when the reader does not tell its length. Skipping
// the scratch (8 bytes per node, 2 MB for the 4×4 Kodak codec model) saves
// a fresh process as many page faults.
func (dc *decoder) floatPlane(x []float64, q, d int, shape []int, w int) bool {
	nodes := len(x) / d
	r, ok := dc.r.(interface{ Len() int })
	if !ok || 8*w+bits.Len(uint(nodes)) > 53 {
		return false
	}
	if r.Len() < nodes*w {
		dc.fail("truncated")
		return true
	}
	var buf [8 * 1024]byte
	for b := 0; b < w && dc.err == nil; b++ {
		scale := float64(uint64(1) << (8 * b))
		for i := 0; i < nodes && dc.err == nil; {
			k := min(nodes-i, len(buf))
			dc.read(buf[:k])
			if dc.err != nil {
				break
			}
			xs := x[i*d+q:]
			if b == 0 {
				for a, c := range buf[:k] {
					xs[a*d] = float64(c)
				}
			} else {
				for a, c := range buf[:k] {
					xs[a*d] += float64(float64(c) * scale) // rounded: no FMA, the same tables on every GOARCH
				}
			}
			i += k
		}
	}
	if dc.err != nil {
		return true
	}
	for i := q; i < len(x); i += d { // gridcode.Unzigzag
		z := uint64(x[i])
		x[i] = float64(int64(z>>1) ^ -int64(z&1))
	}
	s := 1 // gridcode.Undiff, over the nodes' coordinate q
	for j := len(shape) - 1; j >= 0; j-- {
		n := shape[j]
		for b := 0; b < nodes; b += s * n {
			for i := b + s; i < b+s*n; i++ {
				x[i*d+q] += x[(i-s)*d+q]
			}
		}
		s *= n
	}
	return true
}

// Read reads a model written by WriteTo. A file that is not a model, of
// another version, truncated, inconsistent or failing its checksum gives a
// *FormatError.
func Read(r io.Reader) (*Model, error) { return ReadLimited(r, nil) }

// ReadLimited is Read holding the memory bound of another file: the
// arrays of the model (lattice, metric tables, first curve, and the
// scratch they are decoded through) may take at most *limit bytes, and
// what they take is subtracted from it. A model needing more gives a
// *FormatError naming the array. The readers of files that embed SPCA
// models (codec, adapt) use it so that the whole file keeps one bound.
// With a nil limit it is Read, whose bound is 64 MB + 10 × the bytes of
// the file (the arrays take less, by boundReserve, for the rest).
func ReadLimited(r io.Reader, limit *int64) (*Model, error) {
	return readModel(&decoder{r: r, h: crc32.New(checksum.Table), limit: limit})
}

// ReadEmbedded is ReadLimited for a model embedded in a file whose own
// checksum the caller has already checked over the model's bytes (codec
// model files: their CRC-32C covers each section, or the whole content):
// the model's checksum is read but neither computed nor compared. The
// second CRC-32C pass over the embedded models' bytes was 1.5 % of the
// CPU of a one-image colour encode process (perf, three 8×8 models).
func ReadEmbedded(r io.Reader, limit *int64) (*Model, error) {
	return readModel(&decoder{r: r, limit: limit})
}

// ReadEmbeddedShared is ReadEmbedded of the bytes b, whose version 7
// lattice (WriteStoredTo) the model may use in place: shared reports
// that it does, and b must then stay as it is while the model is used.
func ReadEmbeddedShared(b []byte, limit *int64) (m *Model, shared bool, err error) {
	dc := &decoder{r: bytes.NewBuffer(b), limit: limit, share: true}
	m, err = readModel(dc)
	return m, err == nil && dc.shared, err
}

// readModel is ReadLimited through dc: its reader, memory bound, the
// hash computing the model's checksum (none if nil: ReadEmbedded) and
// whether the lattice may be shared (ReadEmbeddedShared).
func readModel(dc *decoder) (*Model, error) {
	r := dc.r
	// The integer scratch of the model read before (a colour codec
	// model reads three alike): 3.6 MB of fresh pages a lattice.
	if sp, ok := intScratch.Get().(*[]int64); ok {
		dc.ints = *sp
		defer func() { *sp = dc.ints; intScratch.Put(sp) }()
	}
	if l, ok := r.(interface{ Len() int }); ok {
		dc.known = int64(l.Len())
	}
	var magic [8]byte
	dc.read(magic[:])
	if dc.err != nil {
		return nil, &FormatError{"too short to be a model file"}
	}
	if string(magic[:]) != ModelMagic {
		return nil, &FormatError{"not an SPCA model (bad magic number)"}
	}
	version := dc.u32()
	extended := version&ExtendedOptions != 0
	version &^= ExtendedOptions
	if dc.err == nil && (version < 1 || version > modelVersion) {
		return nil, &FormatError{fmt.Sprintf("unsupported version %d (this build reads 1 to %d, with or without flag %d)", version, modelVersion, ExtendedOptions)}
	}
	m := &Model{}
	d := dc.count()
	if dc.err == nil && (d < 1 || d > 16) {
		dc.fail("dimension %d out of range", d)
	}
	if dc.err != nil {
		return nil, dc.err
	}
	m.d = d
	o := &m.opt
	o.Gamma = dc.f64()
	o.K = dc.f64()
	o.Tau = dc.f64()
	o.Q = dc.f64() // +Inf allowed
	o.Origin = OriginKind(dc.count())
	if n := dc.u64(); dc.err == nil {
		if n != 0 && n != uint64(d) {
			dc.fail("origin point of %d values", n)
		} else if n > 0 {
			o.OriginPoint = dc.vec(d)
		}
	}
	o.Tol = dc.f64()
	o.MaxIter = dc.count()
	o.Seed = dc.u64()
	o.Resolution = int(dc.u64() & (1<<40 - 1))
	o.MaxReference = int(dc.u64() & (1<<40 - 1))
	o.Bandwidth = dc.f64()
	o.Conditioning = DefaultConditioning
	if version >= 2 {
		o.Conditioning = dc.f64()
	}
	if version >= 3 {
		o.Neighbours = dc.f64()
	}
	if extended {
		o.DensityFloor = dc.f64()
		var bits [1]byte
		if dc.read(bits[:]); dc.err == nil && bits[0] > 3 {
			dc.fail("option bits %#x", bits[0])
		}
		o.ReflectDensity = bits[0]&1 != 0
		o.FloorOfMean = bits[0]&2 != 0
	}
	m.mean = dc.vec(d)
	m.origin = dc.vec(d)
	m.frame0 = dc.vec(d * d)
	m.entropies = make([]float64, d)
	for i := range m.entropies {
		m.entropies[i] = dc.f64() // -Inf possible for degenerate axes
	}
	m.c = dc.vec(d)
	m.scale = dc.f64()
	m.dmax = dc.f64()
	m.tolN = dc.f64()
	if dc.err != nil {
		return nil, dc.err
	}
	// A fit gives finite values. A scale of +Inf was read and mapped
	// every sample to the origin: Unfold and Inverse gave ±Inf, and a
	// codec channel coded every patch as the same one (a 40×33 texture
	// in 169 bytes instead of 471, no error).
	for _, f := range []struct {
		name string
		v    float64
	}{{"scale", m.scale}, {"largest distance", m.dmax}, {"Newton tolerance", m.tolN}} {
		if math.IsInf(f.v, 0) {
			return nil, &FormatError{fmt.Sprintf("the model's %s is %g", f.name, f.v)}
		}
	}
	if err := o.validate(d); err != nil || !(m.scale > 0) || !(m.dmax > 0) || !(m.tolN > 0) || o.MaxIter > 10000 {
		return nil, &FormatError{"invalid options or normalisation"}
	}
	for _, c := range m.c {
		if !(c > 0) || math.IsInf(c, 0) {
			return nil, &FormatError{"invalid scale"}
		}
	}
	l := &m.lat
	l.d = d
	l.g = make([]int, d)
	l.zero = make([]int, d)
	nodes := 1
	for j := range l.g {
		l.g[j] = dc.count()
		if dc.err == nil && (l.g[j] < 2 || l.g[j] > 1<<20) {
			dc.fail("lattice axis %d has %d nodes", j+1, l.g[j])
		}
		// In int64: up to 2^26 times up to 2^20 wrapped a 32-bit int
		// (two axes of 2^20 nodes made 0), which passed the bound.
		if n := int64(nodes) * int64(max(1, min(l.g[j], 1<<20))); n > maxNodes {
			dc.fail("lattice of more than %d nodes", maxNodes)
			nodes = 1
		} else {
			nodes = int(n)
		}
	}
	for j := range l.zero {
		l.zero[j] = dc.count()
		if dc.err == nil && l.zero[j] >= l.g[j] {
			dc.fail("zero node out of range")
		}
	}
	l.lo = make([]float64, d)
	l.step = make([]float64, d)
	for j := 0; j < d; j++ {
		l.lo[j] = dc.f64()
		l.step[j] = dc.f64()
		if dc.err == nil && !(l.step[j] > 0) {
			dc.fail("lattice step must be > 0")
		}
		// The lattice spans the normalised data (of the order of 1): a
		// step of 1.6e307 (FuzzRead) took its nodes to +Inf and every
		// response to NaN. Far below overflow, squares included.
		if hi := l.lo[j] + l.step[j]*float64(l.g[j]-1); dc.err == nil && !(math.Abs(l.lo[j]) <= maxLatticeExtent && math.Abs(hi) <= maxLatticeExtent) {
			dc.fail("lattice axis %d spans [%g, %g], beyond ±%g", j+1, l.lo[j], hi, maxLatticeExtent)
		}
	}
	if dc.err != nil {
		return nil, dc.err
	}
	l.setStrides()
	if version >= versionSnapped {
		l.x, l.x32, m.latRes = dc.snapped(l, nodes*d, version == versionStored)
	} else {
		l.x = dc.f64n(nodes*d, "the lattice")
	}
	m.setTableAxes()
	m.tables = make([][]float64, d)
	fibers := 1
	for j := 0; j < d && dc.err == nil; j++ {
		want := fibers * m.tnodes[j]
		shape := append(append([]int(nil), l.g[:j]...), m.tnodes[j])
		var flag [1]byte
		if version >= versionCompact {
			maxFlag := byte(1)
			if version >= versionSnapped {
				maxFlag = 3 // 2, 3: 0, 1 with integers
			}
			if dc.read(flag[:]); dc.err == nil && flag[0] > maxFlag {
				dc.fail("metric table %d: flag %d", j+1, flag[0])
			}
			if flag[0]&1 == 1 { // one fiber, repeated
				want, shape = m.tnodes[j], shape[j:]
			}
		}
		if flag[0] >= 2 {
			if m.tabRes == nil {
				m.tabRes = make([]float64, d)
			}
			m.tables[j], m.tabRes[j] = dc.intTable(want, shape, fmt.Sprintf("metric table %d", j+1))
		} else {
			m.tables[j] = dc.f64n(want, fmt.Sprintf("metric table %d", j+1))
		}
		fibers *= l.g[j]
		for i, t := range m.tables[j] {
			if i%m.tnodes[j] > 0 && !(t >= m.tables[j][i-1]) {
				dc.fail("metric table %d is not monotone", j+1)
				break
			}
		}
	}
	if dc.err == nil {
		m.setSameFibers() // true for a table of one fiber
	}
	m.fiber0Lo = dc.count()
	m.fiber0Hi = dc.count()
	if dc.err == nil && !(m.fiber0Lo < m.fiber0Hi && m.fiber0Hi < l.g[0]) {
		dc.fail("first curve range out of the lattice")
	}
	nv := dc.count()
	if dc.err == nil && (nv < 1 || nv > 1<<20) {
		dc.fail("first curve of %d vertices", nv)
	}
	if dc.err != nil {
		return nil, dc.err
	}
	m.curve1.pts = dc.vecOf(nv*d, "the first curve")
	m.curve1.s = dc.vecOf(nv, "the first curve")
	hasTypical := version == versionTypical
	if version >= versionSnapped {
		var flag [1]byte
		if dc.read(flag[:]); dc.err == nil && flag[0] > 1 {
			dc.fail("typical responses flag %d", flag[0])
		}
		hasTypical = flag[0] == 1
	}
	if hasTypical {
		m.typical = dc.vec(d)
	}
	if dc.err != nil {
		return nil, dc.err
	}
	var sum [4]byte
	if _, err := io.ReadFull(r, sum[:]); err != nil {
		return nil, &FormatError{"truncated (no checksum)"}
	}
	if dc.h != nil && binary.LittleEndian.Uint32(sum[:]) != dc.h.Sum32() {
		return nil, &FormatError{"checksum mismatch (corrupt file)"}
	}
	m.setFiber0()
	m.setRestartNodes()
	return m, nil
}

// setFiber0 samples the drawn part of the first curve at the lattice nodes.
func (m *Model) setFiber0() {
	d := m.d
	l := &m.lat
	full := make([]float64, l.g[0]*d)
	l.fiber(0, make([]float64, d), full, make([]int, d), make([]float64, d))
	m.fiber0 = full[m.fiber0Lo*d : (m.fiber0Hi+1)*d]
	m.fiber0S = l.axisCoords(0)[m.fiber0Lo : m.fiber0Hi+1]
}

// Save writes the model to path atomically (temporary file and rename):
// on failure the previous file, if any, is untouched.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	return fileio.Read(path, Read)
}
