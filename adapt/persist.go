package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/fileio"
	"github.com/spcalab/spca/spca"
)

// Model file format (little-endian), version 7:
//
//	magic    [8]byte "SPCAadpt"
//	version  uint32
//	samples  uint64 × 2              (A, B)
//	whites   float64 × 6             (WhiteA, WhiteB)
//	stats    float64 × 15 × 2        (A, B: mean 3, axes 9 row-major, variances 3)
//	modelA   uint64 length + bytes   (spca model file, spca.WriteTo)
//	modelB   uint64 length + bytes
//	anchor   float64 × 9             (Anchor, row-major)
//	ceiling  float64                 (Ceiling)
//	gains    float64 × 3             (Gains; version 3)
//	support  uint64 count + float32 × count (Support.Dist; count 0: none)
//	lut      uint64 size + float32 × 3·size³ (LUT table; size 0: none)
//	rays     uint64 N + uint64 R + float64 × 3·(N+1)²·(R+1) + float64
//	         (RayTable Q and Top; N 0: none, R and the rest absent;
//	         version 4)
//	align    float64 × 9             (Align, row-major; zero: the gains;
//	         version 5)
//	choice   uint32 asked + float64 residual + float64 threshold
//	         (AlignChoice: asked 1 matrix, 2 auto; residual NaN: no
//	         pairs; version 6; in version 7 asked 0: no choice)
//	highlight float64 × 3            (HighlightGains; version 7)
//	checksum uint32 CRC-32C of everything before it
//
// The stored LUT has at most MaxStoredLUTSize nodes per axis and the ray
// table at most MaxRayFaceNodes × MaxRayRadii intervals (Read refuses
// larger ones by their declared size, WriteTo does not write them).
// Version 1 files (no anchor, support or LUT: their SPCA mapping is the
// bare map), version 2 files (no gains) and version 3 files (no ray
// table: built on first use) are still read, with Gains (1, 1, 1) for
// versions 1 and 2: they map as before. A model without Align (the
// gray-world gains) is written as version 4, so its bytes are those of
// the programs before version 5, and one without AlignChoice (trained
// with AlignGains or NoGains, or read from an older file) as version 4 or
// 5, so its bytes are those of the programs before version 6, and one
// without HighlightGains (read from an older file, or built by hand) as
// version 4 to 6, so its bytes are those of the programs before version
// 7: older files map as they did (their stored LUT was built without the
// adaptation to white's output).
// The embedded SPCA models carry their own magic number and checksum.
const (
	// ModelMagic is the first bytes of a model file.
	ModelMagic   = "SPCAadpt"
	modelVersion = 7
	// maxModelBytes bounds what Read accepts, before allocating.
	maxModelBytes = 1 << 31
	// MaxStoredLUTSize, MaxRayFaceNodes and MaxRayRadii bound the
	// tables a model file may hold: Train stores a LUT of DefaultLUTSize
	// (65) nodes and a RayTable of RayFaceNodes × RayRadii (32 × 64)
	// intervals, 3.3 MB and 1.6 MB. The bounds leave room for tables
	// twice and four times as fine (26 MB each) and refuse, before
	// reading their data, tables no trainer of ours writes: a stream
	// declaring a 256-node LUT and a 1024 × 30 ray table (986 MB, both
	// within the format's own limits) took 50 s and 3.4 GB to read.
	MaxStoredLUTSize = 2*DefaultLUTSize - 1
	MaxRayFaceNodes  = 2 * RayFaceNodes
	MaxRayRadii      = 4 * RayRadii
)

// alignCodes are the codes of AlignmentChoice.Asked in model files.
var alignCodes = map[Alignment]uint32{AlignMatrix: 1, AlignAuto: 2}

// errTableSize returns the error of a model declaring a stored LUT of
// lut nodes (0: none) or a ray table of n × r intervals (0: none) beyond
// MaxStoredLUTSize, MaxRayFaceNodes or MaxRayRadii, or nil.
func errTableSize(lut, n, r uint64) error {
	switch {
	case lut > MaxStoredLUTSize:
		return &FormatError{fmt.Sprintf("adaptation model declares a stored LUT of %d nodes per axis: more than the %d this program reads (spca adapt train stores %d); a corrupt or foreign file", lut, MaxStoredLUTSize, DefaultLUTSize)}
	case n > MaxRayFaceNodes || r > MaxRayRadii:
		return &FormatError{fmt.Sprintf("adaptation model declares a ray table of %d × %d intervals: more than the %d × %d this program reads (spca adapt train stores %d × %d); a corrupt or foreign file", n, r, MaxRayFaceNodes, MaxRayRadii, RayFaceNodes, RayRadii)}
	}
	return nil
}

// Magic numbers of the codec's files, to say what a wrong file is: codec
// models (spca codec train) and coded images (spca encode). SPCA models
// (spca fit) start with spca.ModelMagic.
const (
	codecMagic = "SPCAcdec"
	codedMagic = "SPCI"
)

// FormatError reports a file that is not a valid adaptation model: another
// kind of file, an unknown version, a truncated file or a checksum
// mismatch.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "adapt: " + e.Msg }

// WriteTo writes the model in the versioned binary format. Equal models
// give identical bytes.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	b, err := m.marshal()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// marshal returns the model's file (WriteTo's bytes), in a buffer of its
// own: the tests take a 30 MB model's file from it without copying it
// out of a writer.
func (m *Model) marshal() ([]byte, error) {
	// The SPCA models' sizes, for their lengths before them, counted by
	// writing them to nowhere: each written into a bytes.Buffer of its
	// own, grown by doubling, then copied, they took twice their size in
	// fresh pages more.
	sms := [2]*spca.Model{m.A, m.B}
	var blobs [2]int64
	for i, sm := range sms {
		n, err := sm.WriteTo(io.Discard)
		if err != nil {
			return nil, fmt.Errorf("adapt: %w", err)
		}
		blobs[i] = n
	}
	// The buffer at its final size (within the small fields): grown by
	// doubling, it cleared and copied twice the 31.6 MB of the Kodak-relit
	// model.
	size := 1024 + int(blobs[0]+blobs[1])
	if m.Support != nil {
		size += 4 * len(m.Support.Dist)
	}
	if m.LUT != nil {
		size += 4 * len(m.LUT.Table)
	}
	if m.Rays != nil {
		size += 8 * len(m.Rays.Q)
	}
	var lut, rn, rr uint64
	if m.LUT != nil {
		lut = uint64(m.LUT.Size)
		if err := m.LUT.check(); err != nil {
			return nil, err
		}
	}
	if m.Rays != nil {
		rn, rr = uint64(m.Rays.N), uint64(m.Rays.R)
		if err := m.Rays.check(); err != nil {
			return nil, err
		}
	}
	if err := errTableSize(lut, rn, rr); err != nil { // Read would refuse the file
		return nil, fmt.Errorf("adapt: cannot write the model: %s", strings.TrimPrefix(strings.Replace(err.Error(), "adaptation model declares", "it holds", 1), "adapt: "))
	}
	if c := m.AlignChoice; c != nil && alignCodes[c.Asked] == 0 {
		return nil, fmt.Errorf("adapt: cannot write the model: alignment choice asked %v (want auto or matrix)", c.Asked)
	}
	var buf bytes.Buffer
	buf.Grow(size)
	buf.WriteString(ModelMagic)
	le := binary.LittleEndian
	put := func(v any) { binary.Write(&buf, le, v) } // bytes.Buffer does not fail
	version := modelVersion
	switch {
	case m.HighlightGains != ([3]float64{}):
	case m.AlignChoice != nil:
		version = 6
	case m.Align == (colorspace.Mat3{}):
		version = 4
	default:
		version = 5
	}
	put(uint32(version))
	put(uint64(m.SamplesA))
	put(uint64(m.SamplesB))
	put([3]float64(m.WhiteA))
	put([3]float64(m.WhiteB))
	for _, s := range []*PCAStats{&m.StatsA, &m.StatsB} {
		put(s.Mean)
		put([9]float64(s.Axes))
		put(s.Var)
	}
	for i, sm := range sms {
		put(uint64(blobs[i]))
		n, err := sm.WriteTo(&buf)
		if err == nil && n != blobs[i] {
			err = fmt.Errorf("SPCA model %c wrote %d bytes, then %d", "AB"[i], blobs[i], n)
		}
		if err != nil {
			return nil, fmt.Errorf("adapt: %w", err)
		}
	}
	put([9]float64(m.Anchor))
	put(m.Ceiling)
	g := m.Gains
	if g == ([3]float64{}) {
		g = [3]float64{1, 1, 1} // a Model built by hand: no gains
	}
	put(g)
	if m.Support != nil {
		put(uint64(len(m.Support.Dist)))
		put(m.Support.Dist)
	} else {
		put(uint64(0))
	}
	if m.LUT != nil {
		put(uint64(m.LUT.Size))
		put(m.LUT.Table)
	} else {
		put(uint64(0))
	}
	if t := m.Rays; t != nil {
		put(uint64(t.N))
		put(uint64(t.R))
		put(t.Q)
		put(t.Top)
	} else {
		put(uint64(0))
	}
	if version >= 5 {
		put([9]float64(m.Align))
	}
	if c := m.AlignChoice; version >= 6 {
		if c == nil { // version 7 only
			put(uint32(0))
			put(0.0)
			put(0.0)
		} else {
			put(alignCodes[c.Asked])
			put(c.Residual)
			put(c.Threshold)
		}
	}
	if version >= 7 {
		put(m.HighlightGains)
	}
	put(checksum.Sum(buf.Bytes()))
	return buf.Bytes(), nil
}

// Read reads a model written by WriteTo. Files of another kind (an SPCA
// model from spca fit, a codec model, an image, ...), unknown versions,
// truncated files and checksum mismatches give a *FormatError.
func Read(r io.Reader) (*Model, error) {
	head := make([]byte, len(ModelMagic)+4)
	if k, err := io.ReadFull(r, head); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if k == 0 {
				return nil, &FormatError{"empty file, not an adaptation model"}
			}
			if bytes.HasPrefix([]byte(ModelMagic), head[:min(k, len(ModelMagic))]) {
				return nil, &FormatError{"truncated adaptation model"}
			}
			return nil, &FormatError{"not an adaptation model (too short)"}
		}
		return nil, fmt.Errorf("adapt: read model: %w", err)
	}
	switch magic := string(head[:len(ModelMagic)]); {
	case magic == spca.ModelMagic:
		return nil, &FormatError{"an SPCA model (spca fit), not an adaptation model (spca adapt train)"}
	case magic == codecMagic:
		return nil, &FormatError{"a codec model (spca codec train), not an adaptation model (spca adapt train)"}
	case strings.HasPrefix(magic, codedMagic):
		return nil, &FormatError{"an SPCA-coded image (spca encode), not an adaptation model (spca adapt train)"}
	case magic != ModelMagic:
		return nil, &FormatError{fmt.Sprintf("not an adaptation model (file starts with %q, want %q)", printable(head[:len(ModelMagic)]), ModelMagic)}
	}
	version := binary.LittleEndian.Uint32(head[len(ModelMagic):])
	if version < 1 || version > modelVersion {
		return nil, &FormatError{fmt.Sprintf("adaptation model version %d, this program reads versions 1 to %d", version, modelVersion)}
	}
	var data []byte
	if knownSize(r) {
		// The layout's small fields first: a table larger than this
		// program reads is refused before its bytes are read (a crafted
		// 986 MB file was read whole, 976 MB, to be refused), and no more
		// is read than the layout allows (a byte beyond it is enough for
		// the parse to see data after the end).
		limit := int64(len(head)) + maxModelBytes
		if size, err := declaredSize(r, version); err != nil {
			return nil, err
		} else if size > 0 {
			limit = min(limit, size+1)
		}
		// Into one buffer of the file's size: io.ReadAll of a 31.6 MB
		// model (Kodak relit) allocated 138 MB, half of a 768×512 adapt
		// apply's CPU in page faults.
		var err error
		data, err = fileio.ReadAllSized(r, limit, head)
		if err != nil {
			return nil, fmt.Errorf("adapt: read model: %w", err)
		}
	}
	if data == nil {
		var err error
		if data, err = readStream(r, head, version); err != nil {
			return nil, err
		}
	}
	if len(data) < len(head)+4 {
		return nil, &FormatError{"truncated adaptation model"}
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	d := &decoder{b: body[len(head):]}
	m := &Model{}
	m.SamplesA = int(d.u64())
	m.SamplesB = int(d.u64())
	m.WhiteA = colorspace.XYZ(d.f3())
	m.WhiteB = colorspace.XYZ(d.f3())
	for _, s := range []*PCAStats{&m.StatsA, &m.StatsB} {
		s.Mean = d.f3()
		for k := range s.Axes {
			s.Axes[k] = d.f64()
		}
		s.Var = d.f3()
	}
	var blobs [2][]byte
	for i := range blobs {
		n := d.u64()
		if d.err == nil && n > uint64(len(d.b)) {
			d.err = errTruncated
		}
		blobs[i] = d.bytes(int(n))
	}
	if version >= 2 {
		for k := range m.Anchor {
			m.Anchor[k] = d.f64()
		}
		m.Ceiling = d.f64()
		if version >= 3 {
			m.Gains = d.f3()
		}
		if n := d.u64(); n != 0 && d.err == nil {
			const nn = SupportGrid + 1
			if n != nn*nn*nn {
				d.err = errTruncated
			} else {
				m.Support = &Support{Dist: d.f32s(int(n))}
			}
		}
		if n := d.u64(); n != 0 && d.err == nil {
			if err := errTableSize(n, 0, 0); err != nil {
				d.err = err
			} else if n < MinLUTSize {
				d.err = errTruncated
			} else {
				m.LUT = &LUT{Size: int(n), DomainMax: [3]float64{1, 1, 1}, Table: d.f32s(3 * int(n*n*n))}
				m.LUT.Title = lutTitle(SPCA)
			}
		}
		if version >= 4 {
			if n := d.u64(); n != 0 && d.err == nil {
				r := d.u64()
				if err := errTableSize(0, n, r); err != nil && d.err == nil {
					d.err = err
				} else if r < 1 {
					d.err = errTruncated
				} else {
					t := &RayTable{N: int(n), R: int(r)}
					// In int64: 3·1024²·1024 is a negative 32-bit int.
					k := 3 * int64(t.N+1) * int64(t.N+1) * int64(t.R+1)
					if k > int64(len(d.b)/8) {
						d.err = errTruncated
					} else {
						t.Q = make([]float64, k)
						for i := range t.Q {
							t.Q[i] = d.f64()
						}
						t.Top = d.f64()
						m.Rays = t
					}
				}
			}
		}
		if version >= 5 {
			for k := range m.Align {
				m.Align[k] = d.f64()
			}
		}
		if version >= 6 {
			c := &AlignmentChoice{Asked: -1}
			code := d.u32()
			for a, v := range alignCodes {
				if v == code {
					c.Asked = a
				}
			}
			c.Residual, c.Threshold = d.f64(), d.f64()
			m.AlignChoice = c
			if code == 0 && version >= 7 && c.Residual == 0 && c.Threshold == 0 {
				m.AlignChoice = nil
			}
		}
		if version >= 7 {
			m.HighlightGains = d.f3()
		}
	}
	switch {
	case d.err != nil || len(d.b) != 0:
		// A checksum mismatch is the likelier cause of an inconsistent
		// layout when the length is right.
		if checksum.Sum(body) != sum {
			return nil, &FormatError{"truncated or corrupt adaptation model (checksum mismatch)"}
		}
		var fe *FormatError
		if errors.As(d.err, &fe) { // a table too large
			return nil, d.err
		}
		return nil, &FormatError{"corrupt adaptation model (inconsistent layout)"}
	case checksum.Sum(body) != sum:
		return nil, &FormatError{"corrupt adaptation model (checksum mismatch)"}
	}
	// Both embedded models share the memory bound of the file (64 MB +
	// 10 times its bytes), less what reading it took: io.ReadAll's
	// growth (at most 3 times its size), the arrays above (at most its
	// size) and 8 MB for the small rest.
	budget := int64(56<<20) + 6*int64(len(data))
	for i, b := range blobs {
		br := bytes.NewReader(b)
		sm, err := spca.ReadLimited(br, &budget)
		if err != nil {
			return nil, &FormatError{fmt.Sprintf("adaptation model: embedded SPCA model %c: %v", "AB"[i], unprefixed{err})}
		}
		if br.Len() != 0 { // as readStream, which cannot skip them
			return nil, errShortBlob(i, int64(br.Len()))
		}
		if sm.Dim() != 3 {
			return nil, &FormatError{fmt.Sprintf("adaptation model: embedded SPCA model %c has dimension %d, want 3", "AB"[i], sm.Dim())}
		}
		if i == 0 {
			m.A = sm
		} else {
			m.B = sm
		}
	}
	for _, v := range [][3]float64{m.WhiteA, m.WhiteB, m.StatsA.Mean, m.StatsB.Mean, m.StatsA.Var, m.StatsB.Var} {
		if !finite3(v) {
			return nil, &FormatError{"corrupt adaptation model (non-finite statistics)"}
		}
	}
	if version < 3 {
		m.Gains = [3]float64{1, 1, 1}
	}
	for _, g := range m.Gains {
		if !(g > 0) || math.IsInf(g, 0) {
			return nil, &FormatError{"corrupt adaptation model (gains not positive and finite)"}
		}
	}
	if g := m.HighlightGains; g != ([3]float64{}) {
		for _, v := range g {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, &FormatError{"corrupt adaptation model (highlight gains not positive and finite)"}
			}
		}
	}
	if !(m.Ceiling >= 0 && m.Ceiling <= 1) {
		return nil, &FormatError{"corrupt adaptation model (ceiling not in [0, 1])"}
	}
	for _, v := range m.Anchor {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &FormatError{"corrupt adaptation model (non-finite anchor)"}
		}
	}
	for _, v := range m.Align {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxLMS {
			return nil, &FormatError{"corrupt adaptation model (non-finite alignment)"}
		}
	}
	if c := m.AlignChoice; c != nil {
		c.Chosen = AlignGains
		if m.Align != (colorspace.Mat3{}) {
			c.Chosen = AlignMatrix
		}
		switch {
		case c.Asked != AlignAuto && c.Asked != AlignMatrix:
			return nil, &FormatError{"corrupt adaptation model (unknown alignment choice)"}
		case !(c.Residual >= 0 && c.Residual <= MaxLMS) && !math.IsNaN(c.Residual),
			!(c.Threshold >= 0 && c.Threshold <= 1):
			return nil, &FormatError{"corrupt adaptation model (alignment residual or threshold out of range)"}
		case c.Asked == AlignMatrix && c.Chosen != AlignMatrix:
			return nil, &FormatError{"corrupt adaptation model (matrix alignment asked, none stored)"}
		case c.Asked == AlignMatrix && math.IsNaN(c.Residual),
			c.Asked == AlignAuto && (c.Chosen == AlignMatrix) != (c.Residual < c.Threshold):
			// chooseAlignment's rule: a matrix needs pairs, and auto
			// takes it exactly when its residual is below the threshold.
			return nil, &FormatError{fmt.Sprintf("corrupt adaptation model (alignment choice %v contradicts its residual %v and threshold %v)", c.Chosen, c.Residual, c.Threshold)}
		}
	}
	if m.Support != nil {
		for _, v := range m.Support.Dist {
			if !(v >= 0) || math.IsInf(float64(v), 0) {
				return nil, &FormatError{"corrupt adaptation model (invalid support distances)"}
			}
		}
	}
	if m.Rays != nil {
		if err := m.Rays.check(); err != nil {
			return nil, &FormatError{"corrupt adaptation model (" + strings.TrimPrefix(err.Error(), "adapt: ") + ")"}
		}
	}
	if m.LUT != nil {
		for _, v := range m.LUT.Table {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, &FormatError{"corrupt adaptation model (non-finite LUT)"}
			}
		}
	}
	return m, nil
}

var errTruncated = errors.New("truncated")

// knownSize reports whether r tells its size (a regular file, a
// bytes.Reader): Read then reads it whole. Of other readers (a pipe,
// standard input) it reads only as far as the layout says: readStream.
func knownSize(r io.Reader) bool {
	switch r := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		fi, err := r.Stat()
		return err == nil && fi.Mode().IsRegular()
	case interface{ Len() int }:
		return true
	}
	return false
}

// layoutCursor moves through a model's fields for walkLayout: over a
// stream it copies what it passes (readStream), over a file it only moves
// an offset (declaredSize).
type layoutCursor interface {
	// u64 returns the next field, a uint64; false if it is not there.
	u64() (uint64, bool)
	// skip moves past the next n bytes; false if they are not all there.
	skip(n uint64) bool
	// model moves past embedded SPCA model i of n bytes; false if it is
	// cut short, an error if it is not a model.
	model(i int, n uint64) (bool, error)
}

// walkLayout moves c through the fields of a model of the version, from
// after its magic number and version up to its checksum: the one
// description of the layout that readStream and declaredSize follow. It
// returns false where a field is not there (Read's parse then names the
// problem), and refuses a table larger than this program reads before the
// table's bytes.
func walkLayout(c layoutCursor, version uint32) (bool, error) {
	if !c.skip(16 + 6*8 + 2*15*8) { // samples, whites, statistics
		return false, nil
	}
	for i := range 2 {
		n, ok := c.u64()
		if !ok || n > maxModelBytes {
			return false, nil
		}
		if ok, err := c.model(i, n); !ok || err != nil {
			return false, err
		}
	}
	if version < 2 {
		return true, nil
	}
	fixed := uint64(9*8 + 8) // anchor, ceiling
	if version >= 3 {
		fixed += 3 * 8 // gains
	}
	if !c.skip(fixed) {
		return false, nil
	}
	const nn = SupportGrid + 1
	if n, ok := c.u64(); !ok || n != 0 && (n != nn*nn*nn || !c.skip(4*n)) {
		return false, nil
	}
	n, ok := c.u64()
	if !ok {
		return false, nil
	}
	if err := errTableSize(n, 0, 0); err != nil {
		return false, err
	}
	if n != 0 && (n < MinLUTSize || !c.skip(12*n*n*n)) {
		return false, nil
	}
	if version >= 4 {
		n, ok := c.u64()
		if !ok {
			return false, nil
		}
		if n != 0 {
			r, ok := c.u64()
			if !ok {
				return false, nil
			}
			if err := errTableSize(0, n, r); err != nil {
				return false, err
			}
			if r < 1 || !c.skip(8*(3*(n+1)*(n+1)*(r+1)+1)) {
				return false, nil
			}
		}
	}
	if version >= 5 && !c.skip(9*8) { // align
		return false, nil
	}
	if version >= 6 && !c.skip(4+2*8) { // alignment choice
		return false, nil
	}
	if version >= 7 && !c.skip(3*8) { // highlight gains
		return false, nil
	}
	return true, nil
}

// declaredSize returns a bound on the size in bytes of the model read by
// r from its layout: the end of its fields plus layoutTail. It reads only
// the small fields at their offsets (r must be an io.ReaderAt and
// io.Seeker placed after the magic number and version, as a file or
// bytes.Reader is); 0 when r is not, or when a field lies beyond r's end
// or the layout is otherwise inconsistent: Read's parse then names the
// problem. A table larger than this program reads is refused here, as
// readStream refuses it, before the checksum at the end can be checked.
func declaredSize(r io.Reader, version uint32) (int64, error) {
	ra, ok := r.(io.ReaderAt)
	sk, ok2 := r.(io.Seeker)
	if !ok || !ok2 {
		return 0, nil
	}
	at, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if _, err2 := sk.Seek(at, io.SeekStart); err != nil || err2 != nil {
		return 0, fmt.Errorf("adapt: read model: cannot seek back: %w", errors.Join(err, err2))
	}
	c := &fileCursor{r: ra, off: at, end: end}
	if ok, err := walkLayout(c, version); !ok || err != nil {
		return 0, err
	}
	return c.off - (at - int64(len(ModelMagic)+4)) + layoutTail, nil
}

// layoutTail bounds the bytes of a model file after the fields
// walkLayout knows: the checksum, and room for fields a later version
// may add.
const layoutTail = 4096

// fileCursor is declaredSize's layoutCursor: an offset in a file of end
// bytes, which reads only the uint64 fields.
type fileCursor struct {
	r        io.ReaderAt
	off, end int64
	b        [8]byte
}

func (c *fileCursor) u64() (uint64, bool) {
	if c.off+8 > c.end {
		return 0, false
	}
	if _, err := c.r.ReadAt(c.b[:], c.off); err != nil {
		return 0, false
	}
	c.off += 8
	return binary.LittleEndian.Uint64(c.b[:]), true
}

func (c *fileCursor) skip(n uint64) bool {
	if n > uint64(c.end-c.off) {
		return false
	}
	c.off += int64(n)
	return true
}

func (c *fileCursor) model(_ int, n uint64) (bool, error) { return c.skip(n), nil }

// readStream returns the bytes of the model whose magic number and
// version are head, read from r no further than its layout says (and one
// byte beyond, so that Read's parse refuses data after the end as it does
// in a file): a valid header followed by endless data on a pipe was read
// up to maxModelBytes (2 GiB) before its checksum failed. The embedded SPCA
// models are read by spca.Read as they arrive, which stops at the first
// byte that cannot be a model's; an error there is returned, naming the
// model. A stream that ends early is returned as read: Read's parse says
// it is truncated.
func readStream(r io.Reader, head []byte, version uint32) ([]byte, error) {
	c := &streamCursor{src: &eofReader{r: r}, buf: bytes.NewBuffer(head), total: int64(len(head))}
	if ok, err := walkLayout(c, version); err != nil {
		return nil, err
	} else if ok {
		c.skip(4 + 1) // the checksum, and a byte after the end if there is one
	}
	if c.src.err != nil {
		return nil, fmt.Errorf("adapt: read model: %w", c.src.err)
	}
	return c.buf.Bytes(), nil
}

// streamCursor is readStream's layoutCursor: it copies what it passes
// from src into buf, as the bytes arrive (a declared size may lie), no
// further than maxModelBytes in all.
type streamCursor struct {
	src   *eofReader
	buf   *bytes.Buffer
	total int64
}

func (c *streamCursor) skip(n uint64) bool {
	if n > uint64(maxModelBytes-c.total) {
		return false
	}
	k, err := io.CopyN(c.buf, c.src, int64(n))
	c.total += k
	return err == nil
}

func (c *streamCursor) u64() (uint64, bool) {
	if !c.skip(8) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(c.buf.Bytes()[c.buf.Len()-8:]), true
}

func (c *streamCursor) model(i int, n uint64) (bool, error) {
	blob := &io.LimitedReader{R: io.TeeReader(c.src, c.buf), N: int64(n)}
	_, err := spca.Read(blob)
	c.total += int64(n) - blob.N
	switch {
	case c.src.eof || c.src.err != nil:
		return false, nil // truncated: Read's parse says so
	case err != nil:
		return false, &FormatError{fmt.Sprintf("adaptation model: embedded SPCA model %c: %v", "AB"[i], unprefixed{err})}
	case blob.N != 0:
		return false, errShortBlob(i, blob.N)
	}
	return true, nil
}

// errShortBlob says that embedded model i ended n bytes before its
// declared length: Read and readStream refuse the bytes between (WriteTo
// writes none), as a stream cannot be read beyond a model's end without
// the risk of reading endless data.
func errShortBlob(i int, n int64) error {
	return &FormatError{fmt.Sprintf("adaptation model: embedded SPCA model %c ends %d bytes before its declared length", "AB"[i], n)}
}

// eofReader is r that records whether it reached the end, and its first
// other error.
type eofReader struct {
	r   io.Reader
	eof bool
	err error
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.eof = true
	} else if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

type decoder struct {
	b   []byte
	err error
}

// bytes returns the next n bytes, or nil after an error (the first one
// is kept: a table too large is named, not called truncated).
func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.err = errTruncated
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) u32() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

// f32s reads n float32 values.
func (d *decoder) f32s(n int) []float32 {
	if d.err != nil {
		return nil
	}
	if n > len(d.b)/4 {
		d.err = errTruncated
		return nil
	}
	b := d.bytes(4 * n)
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func (d *decoder) f3() [3]float64 { return [3]float64{d.f64(), d.f64(), d.f64()} }

// printable returns b with non-printable bytes replaced by '.'.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("adapt: save: %w", err)
	}
	return nil
}

// Load reads a model file written by Save. Errors name the path.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("adapt: load: %w", err)
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, &FormatError{path + ": " + fe.Msg}
		}
		return nil, fmt.Errorf("adapt: load %s: %w", path, err)
	}
	return m, nil
}
