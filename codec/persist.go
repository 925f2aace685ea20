package codec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/fileio"
	"github.com/spcalab/spca/internal/gridcode"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/spca"
	"gonum.org/v1/gonum/mat"
)

// Codec model file (little-endian):
//
//	magic "SPCAcdec", version uint32 (1, or 2 in the entropy-constrained mode)
//	patch u8, colour u8 (0 grey, 1 colour, 2 colour with 4:2:0 chroma),
//	gamma f64, [version 2: step f64], channels u8
//	per channel: dims u16, leading u16, PCA mean/basis/variances (f64),
//	  bins (u32 each), the scalar quantisers (u32 count + levels, f64;
//	  version 1: of the coefficients after the SPCA ones, thresholds at
//	  the midpoints of the levels, Lloyd–Max's; version 2: of every
//	  coefficient, the SPCA responses first, each followed by its
//	  count-1 thresholds),
//	  centre indices (u32), training sample (u32 rows + float32 values),
//	  embedded SPCA model (u64 length + spca file bytes)
//	CRC-32C of all the above
//
// Fixed-resolution models are written as version 1, so their bytes, and
// the model hash that coded files carry, did not change with version 2.
//
// Version 3 (written since) is the file of version 1 or 2 with, after
// the version, that version (uint32) and the model's ID (32 bytes, the
// hash of the file in that version), and the embedded SPCA models in
// their compact form (spca.Model.WriteCompactTo: a gamma-0 model's
// repeated metric fibers stored once). Loading neither hashes the model
// nor reads the repeated fibers: the 4×4 gamma-0 Kodak model loads in
// 63 ms instead of 614 ms (BenchmarkModelLoad, with its ID). The ID, the hash of the version 1 or 2 bytes, is
// the one the model always had, so files coded before still decode.
//
// Version 4 (written since) is version 3 with, before each training
// sample, a byte: 0 if the float32 values follow, 1 if they are all
// multiples of 2^-6 (Train rounds them so: trainRes) and follow as
// integers, column by column, each column a byte w (1 to 8) then its
// zigzag-coded integers in w bytes each, as w byte planes (low bytes
// first); and the embedded SPCA models of Train in version 6 (their
// lattice snapped to 1/128 of a grey level, stored as integers: see
// spca.Model.SnapLattice); and after each embedded SPCA model, the
// tables of the encoder's fast path (see modelWriter.fastPath), which
// took an encoding process half a second to build. The 4×4 gamma-0 Kodak
// model (--uniform --bpp 1) shrinks from 6.46 MB to 1.39 MB without them.
//
// Files are written compressed: the magic, version uint32 16, then one
// zstd frame holding the whole file above (its own magic, version and
// checksum included). The model's ID stays the hash of the uncompressed
// file, so compression changed no ID; uncompressed files are still read.
// A gamma-0 model repeats one metric fiber per lattice node and compresses
// 4.4× (4×4 Kodak model), a gamma-1/3 one 1.7× (2×2).
//
// Files are written since in sections (version 17), so that a process
// inflates only what it uses: the magic, version uint32 17, the number of
// sections n (u8), n compressed lengths (u32), then n zstd frames, each
// holding its bytes followed by their CRC-32C. Section 0 is the model in
// version 5: version 4 without, in each channel, the training sample after
// its row count (the kind byte and the values) and the fast path; these
// follow, per channel, as sections 1+2i (the training sample: its kind
// byte and values as in version 4) and 2+2i (the fast path, as in
// version 4, its flag first). A decoder never inflates them (the 8×8
// default model inflated 2.6 MB of training sample for nothing), an
// encoder inflates the fast path: Channel.TrainingSample and the encoder
// inflate and check a section on first use and report a corrupt one then.
// The plain bytes of every section are those of version 4, so the model's
// ID and the coded files did not change.
//
// A model file comes in two forms (session 34): the compact one above,
// every section compressed, and the fast-load one (SetFastLoad), the same
// container with the sections a coding process reads stored as zstd raw
// blocks (storedFrame: section 0 and the fast paths), section 0 holding
// its SPCA models in their version 7 (spca.Model.WriteStoredTo: the
// lattice as float32, at 64 bytes of the section's start), which a load
// uses in place (spca.ReadEmbeddedShared): no inflation, no lattice to
// decode. The model, its ID and the coded files are the same; builds
// before it refuse such a file naming the SPCA version 7 they do not
// know.
//
// Adding a field to the model: give it to Model.write (after the fields
// it depends on, in the version-5 layout only, i.e. when compact) and to
// modelReader.model or readChannel behind a new inner version (6, read
// when the inner version says so; older versions get the field's
// default), bump the inner version written, and say so here. A field the
// decoder needs belongs in section 0; one only training or evaluation
// needs may take a section of its own.
const (
	// ModelMagic is the first bytes of a model file.
	ModelMagic = "SPCAcdec"
	// modelVersionStep adds the step and explicit thresholds.
	modelVersion, modelVersionStep = 1, 2
	// modelVersionCompact stores the ID and the compact SPCA models.
	modelVersionCompact = 3
	// modelVersionInts is modelVersionCompact with integer training
	// samples.
	modelVersionInts = 4
	// modelVersionSections is modelVersionInts without the training
	// samples and fast paths, which follow in sections of their own.
	modelVersionSections = 5
	// modelVersionZstd marks the compressed container.
	modelVersionZstd = 16
	// modelVersionSectioned marks the container of compressed sections.
	modelVersionSectioned = 17
	// modelVersionSectionedBasis is modelVersionSectioned with a step
	// basis section per channel. It has a number of its own so that a
	// build from before the step basis names the version it cannot read
	// ('unsupported version 18') instead of blaming the section count.
	modelVersionSectionedBasis = 18
)

// sectionedVersion reports whether a container version is one of the
// sectioned containers, and whether its channels carry a step basis.
func sectionedVersion(v uint32) (sectioned, basis bool) {
	return v == modelVersionSectioned || v == modelVersionSectionedBasis, v == modelVersionSectionedBasis
}

// maxSections bounds the sections of a sectioned container: the model
// and, per channel (at most 3), its training sample, its fast path and
// its step basis.
const maxSections = 10

// maxModelWindow bounds the zstd window a compressed model may ask for
// (the encoder's default is 8 MiB).
const maxModelWindow = 64 << 20

var (
	modelEncoder = sync.OnceValue(func() *zstd.Encoder {
		// EncodeAll on one goroutine: the same model, the same bytes.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // constant, valid options
		}
		return e
	})
	// smallSectionEncoder is modelEncoder writing single-segment frames,
	// which declare their size whatever it is (WriteTo's sections under
	// 256 bytes; the larger ones keep modelEncoder's bytes).
	smallSectionEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
		if err != nil {
			panic(err) // constant, valid options
		}
		return e
	})
	// modelDecoder skips the frames' own checksums (xxhash64 of the
	// inflated bytes): whatever it inflates, a section or a whole model,
	// is checked next by the model's CRC-32C over the same bytes
	// (checksum.Valid), so a corrupt frame is still refused, as a checksum
	// mismatch. The second pass over every byte was 1.2 % of the CPU of a
	// colour encode process (6.5 MB inflated).
	modelDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(maxModelBytes), zstd.WithDecoderMaxWindow(maxModelWindow),
			zstd.WithDecodeAllCapLimit(true), zstd.IgnoreChecksum(true))
		if err != nil {
			panic(err) // constant, valid options
		}
		return d
	})
)

// emptyFrame is a zstd frame of no content: magic, a single-segment
// header declaring 0 bytes, one last raw block of 0 bytes.
var emptyFrame = []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00}

type modelWriter struct {
	w   io.Writer
	err error
	b   [8]byte
	n   int64 // bytes written
	// stored writes the embedded SPCA models with their lattices as
	// float32, ready to use (spca.Model.WriteStoredTo: the fast-load
	// form's section 0).
	stored bool
}

func (e *modelWriter) put(p []byte) {
	if e.err == nil {
		var k int
		k, e.err = e.w.Write(p)
		e.n += int64(k)
	}
}
func (e *modelWriter) u8(v uint8)   { e.put([]byte{v}) }
func (e *modelWriter) u16(v uint16) { binary.LittleEndian.PutUint16(e.b[:2], v); e.put(e.b[:2]) }
func (e *modelWriter) u32(v uint32) { binary.LittleEndian.PutUint32(e.b[:4], v); e.put(e.b[:4]) }
func (e *modelWriter) u64(v uint64) { binary.LittleEndian.PutUint64(e.b[:8], v); e.put(e.b[:8]) }
func (e *modelWriter) f64(v float64) {
	e.u64(math.Float64bits(v))
}

// spca writes the SPCA model s (nil for the PCA + Lloyd–Max baseline)
// after its length in bytes, counted by writing it to nowhere first:
// through a bytes.Buffer grown by doubling, the 17.8 MB SPCA model of
// c8b.model's luma (as ID hashes it) was cleared and copied twice in
// fresh pages.
func (e *modelWriter) spca(s *spca.Model, compact bool) error {
	if s == nil {
		e.u64(0)
		return nil
	}
	write := s.WriteTo
	if compact {
		write = s.WriteCompactTo
	}
	if base := e.n + 8; e.stored { // after the length
		write = func(w io.Writer) (int64, error) { return s.WriteStoredTo(w, base) }
	}
	n, err := write(io.Discard)
	if err != nil {
		return err
	}
	e.u64(uint64(n))
	if e.err != nil {
		return nil
	}
	k, err := write(e.w)
	e.n += k
	switch {
	case err != nil:
		e.err = err
	case k != n:
		e.err = fmt.Errorf("codec: an SPCA model wrote %d bytes, then %d", n, k)
	}
	return nil
}

// write serialises the model (without checksum) to w: in version 1 or
// 2 (the bytes the ID hashes), or if compact in version 4.
func (m *Model) write(w io.Writer, compact bool) error {
	return m.writeSections(w, compact, nil)
}

// writeSections is write, in version 5 if secs is not nil: each
// channel's training sample and fast path are then appended to *secs
// (see the sectioned container) instead of written to w.
func (m *Model) writeSections(w io.Writer, compact bool, secs *[][]byte) error {
	// The fast-load form's section 0 holds the SPCA lattices as float32.
	e := &modelWriter{w: w, stored: compact && secs != nil && m.fastLoad}
	e.put([]byte(ModelMagic))
	step := m.Step > 0
	base := uint32(modelVersion)
	if step {
		base = modelVersionStep
	}
	if compact {
		if secs != nil {
			e.u32(modelVersionSections)
		} else {
			e.u32(modelVersionInts)
		}
		id := m.ID()
		e.u32(base)
		e.put(id[:])
	} else {
		e.u32(base)
	}
	e.u8(uint8(m.Patch))
	switch {
	case m.Color && m.Subsample:
		e.u8(2)
	case m.Color:
		e.u8(1)
	default:
		e.u8(0)
	}
	e.f64(m.Gamma)
	if step {
		e.f64(m.Step)
	}
	e.u8(uint8(len(m.Channels)))
	for _, c := range m.Channels {
		dims := c.Dims()
		e.u16(uint16(dims))
		e.u16(uint16(c.Leading()))
		for _, v := range c.PCA.Mean {
			e.f64(v)
		}
		for _, v := range mat.DenseCopyOf(c.PCA.Basis).RawMatrix().Data {
			e.f64(v)
		}
		for _, v := range c.PCA.Var {
			e.f64(v)
		}
		for _, b := range c.Bins {
			e.u32(uint32(b))
		}
		quantizers := c.Rest
		if step { // version 2 also holds the quantisers of the SPCA responses
			quantizers = append(append([]*ScalarQuantizer(nil), c.Lead...), c.Rest...)
		}
		for _, q := range quantizers {
			e.u32(uint32(len(q.Levels)))
			for _, v := range q.Levels {
				e.f64(v)
			}
			if step {
				for _, v := range q.Thresholds {
					e.f64(v)
				}
			}
		}
		for _, v := range c.Centre {
			e.u32(uint32(v))
		}
		train, err := c.TrainingSample()
		if err != nil {
			return err
		}
		rows, _ := train.Dims()
		e.u32(uint32(rows))
		// se and fe write the training sample and the fast path: to w, or
		// in version 5 to sections of their own.
		se, fe := e, e
		var sample, fast bytes.Buffer
		if secs != nil {
			se, fe = &modelWriter{w: &sample}, &modelWriter{w: &fast}
		}
		if compact {
			se.train(train)
		} else {
			for _, v := range train.RawMatrix().Data {
				e.u32(math.Float32bits(float32(v)))
			}
		}
		if err := e.spca(c.SPCA, compact); err != nil {
			return err
		}
		if compact && c.SPCA != nil {
			fe.fastPath(c)
		} else if compact {
			fe.u8(0)
		}
		if secs != nil {
			if e.err == nil {
				e.err = cmp.Or(se.err, fe.err)
			}
			*secs = append(*secs, sample.Bytes(), fast.Bytes())
		}
	}
	return e.err
}

// trainRes is the resolution Train rounds the training sample to: the
// sample then stores as integers (version 4), 2 to 3 bytes a value
// before compression instead of 4.
const trainRes = 0x1p-6

// maxIntSample bounds the values of an integer training sample (one byte
// each at the least, eight in memory).
const maxIntSample = 1 << 22

// train writes the training sample of version 4 (after its rows).
func (e *modelWriter) train(y *mat.Dense) {
	rows, dims := y.Dims()
	cols := make([][]int64, dims)
	ints := rows*dims <= maxIntSample
	for j := range cols {
		cols[j] = make([]int64, rows)
		for i := range cols[j] {
			v := y.At(i, j) / trainRes
			if v != math.Trunc(v) || math.Abs(v) > 1<<40 || v == 0 && math.Signbit(v) {
				ints = false
				break
			}
			cols[j][i] = int64(v)
		}
	}
	if !ints {
		e.u8(0)
		for _, v := range y.RawMatrix().Data {
			e.u32(math.Float32bits(float32(v)))
		}
		return
	}
	e.u8(1)
	for _, col := range cols {
		w := gridcode.Zigzag(col)
		e.u8(uint8(w))
		gridcode.Planes(col, w, e.put)
	}
}

// WriteTo writes the model file, in compressed sections; a model in the
// entropy-constrained mode with its step basis (see stepBasisVersion).
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	return m.writeTo(w, true)
}

// writeTo is WriteTo, without the step basis unless withBasis: the file
// a build before the step basis wrote.
func (m *Model) writeTo(w io.Writer, withBasis bool) (int64, error) {
	for _, c := range m.Channels {
		if c.SPCA == nil {
			// The file format has an SPCA model in every channel: such a
			// file was written and then refused ("inconsistent channel
			// dimensions").
			return 0, errors.New("codec: a model without SPCA (a PCA baseline) cannot be written: the file format needs an SPCA model in every channel")
		}
	}
	var b bytes.Buffer
	secs := [][]byte{nil}
	if err := m.writeSections(&b, true, &secs); err != nil {
		return 0, err
	}
	secs[0] = b.Bytes()
	if withBasis {
		bases, err := m.fileBases()
		if err != nil {
			return 0, err
		}
		if bases != nil {
			id := m.ID()
			for ci, bs := range bases {
				var sb bytes.Buffer
				e := &modelWriter{w: &sb}
				e.stepBasis(bs, id, m.Channels[ci].Leading())
				secs = append(secs, sb.Bytes())
			}
		}
	}
	version := uint32(modelVersionSectioned)
	if len(secs) > 1+2*len(m.Channels) {
		version = modelVersionSectionedBasis
	}
	out := binary.LittleEndian.AppendUint32([]byte(ModelMagic), version)
	out = append(out, uint8(len(secs)))
	frames := make([][]byte, len(secs))
	for i, p := range secs {
		p = checksum.Append(p)
		if m.fastLoad && codingSection(i, len(m.Channels)) {
			frames[i] = storedFrame(p)
			out = binary.LittleEndian.AppendUint32(out, uint32(len(frames[i])))
			continue
		}
		enc := modelEncoder()
		if len(p) < 256 {
			// Below 256 bytes (and 1 KiB) the encoder writes a frame
			// without its size unless it is a single segment, and the
			// reader requires the size (declaredSize): the PCA baseline's
			// fast-path section of 5 bytes was written and then refused.
			enc = smallSectionEncoder()
		}
		frames[i] = enc.EncodeAll(p, nil)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(frames[i])))
	}
	for _, f := range frames {
		out = append(out, f...)
	}
	n, err := w.Write(out)
	return int64(n), err
}

// codingSection reports whether section i of a sectioned container of nc
// channels is one a coding process reads: the model (section 0), which
// every decoder and encoder inflates, and the channels' fast paths
// (2+2c), which every encoder does. The training samples and step bases
// are read by training, evaluation and coding at another step only.
func codingSection(i, nc int) bool {
	return i == 0 || i <= 2*nc && i%2 == 0
}

// maxStoredBlock is the size of a zstd raw block storedFrame writes: the
// format's largest (Block_Maximum_Size, 128 KiB).
const maxStoredBlock = 128 << 10

// storedFrame returns p as a zstd frame of raw (stored) blocks: a
// single-segment frame declaring its size in 4 bytes, then p in blocks of
// up to 128 KiB, the last one flagged (one empty block if p is), which
// every zstd decoder reads: inflating it is a copy (section 0 of the 8×8
// grey Kodak model 0.58 -> 0.026 ms, session 32's 32load).
func storedFrame(p []byte) []byte {
	out := make([]byte, 0, 4+1+4+len(p)+3*(len(p)/maxStoredBlock+1))
	out = append(out, 0x28, 0xb5, 0x2f, 0xfd) // magic
	// Frame header descriptor: Frame_Content_Size_Flag 2 (4 bytes),
	// Single_Segment_Flag, no checksum, no dictionary.
	out = append(out, 2<<6|1<<5)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
	for {
		n := min(len(p), maxStoredBlock)
		h := uint32(n) << 3 // Block_Type 0 (raw)
		if n == len(p) {
			h |= 1 // Last_Block
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
		out = append(out, p[:n]...)
		p = p[n:]
		if h&1 != 0 {
			return out
		}
	}
}

// unstore returns the content of frame, a zstd frame as storedFrame
// writes them declaring size bytes, in place: its blocks' bytes moved
// down over the frame's and the blocks' headers (frame is changed). It
// returns nil, frame unchanged, if frame is not laid out so.
func unstore(frame []byte, size int) []byte {
	const head = 9 // magic, descriptor, 4-byte size
	if len(frame) < head+3 || binary.LittleEndian.Uint32(frame) != 0xfd2fb528 || frame[4] != 2<<6|1<<5 ||
		int64(binary.LittleEndian.Uint32(frame[5:])) != int64(size) {
		return nil
	}
	// Every block's header first: raw, within the frame, the last one
	// flagged at its end, the sizes summing to size.
	at, total := head, 0
	for last := false; !last; {
		if at+3 > len(frame) {
			return nil
		}
		h := int(frame[at]) | int(frame[at+1])<<8 | int(frame[at+2])<<16
		n := h >> 3
		if h>>1&3 != 0 || n > maxStoredBlock || at+3+n > len(frame) {
			return nil
		}
		at, total, last = at+3+n, total+n, h&1 != 0
	}
	if at != len(frame) || total != size {
		return nil
	}
	at, out := head, 0
	for out < size {
		h := int(frame[at]) | int(frame[at+1])<<8 | int(frame[at+2])<<16
		n := h >> 3
		copy(frame[out:], frame[at+3:at+3+n])
		at, out = at+3+n, out+n
	}
	return frame[:size]
}

// FastLoad reports whether the model is in the fast-load form: read from
// such a file, or set so by SetFastLoad.
func (m *Model) FastLoad() bool { return m.fastLoad }

// SetFastLoad chooses the form WriteTo and Save write the model in. The
// compact form (the default) compresses every section with zstd. The
// fast-load form stores the sections a coding process reads (the model
// and the encoder's fast paths) uncompressed, as zstd raw blocks, and
// the SPCA lattices as float32 that a load uses in place: a larger file
// (the 8×8 grey Kodak model 3.50 -> 5.31 MB) that loads without
// inflating or decoding, with the same model, ID and coded files (builds
// before session 34 refuse it). A model read from a file keeps that
// file's form.
func (m *Model) SetFastLoad(on bool) { m.fastLoad = on }

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// LoadModel reads a codec model file. Of a sectioned file it reads the
// model, and the other sections (training samples, fast paths) on first
// use through the open file, which the model then keeps until Close: a
// decoding process reads 0.23 of the 1.08 MB of the 4×4 Kodak model.
func LoadModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	m, keep, err := loadFile(f)
	if !keep {
		f.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if keep {
		m.file = f
	}
	return m, nil
}

// Close releases the file LoadModel keeps open for the sections it reads
// on first use. Sections not read by then can no longer be: what needs
// them (TrainingSample, encoding) returns an error, so call LoadSections
// first to keep a model whole. Close of any other model does nothing.
func (m *Model) Close() error {
	if m.file == nil {
		return nil
	}
	err := m.file.Close()
	m.file = nil
	return err
}

// loadFile is LoadModel of the open file f; keep reports whether the
// model reads from f later.
func loadFile(f *os.File) (m *Model, keep bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	var head [len(ModelMagic) + 4]byte
	if !fi.Mode().IsRegular() || fi.Size() <= int64(len(head)) || fi.Size() > maxModelBytes {
		m, err = ReadModel(f)
		return m, false, err
	}
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, false, err
	}
	sectioned, basis := sectionedVersion(binary.LittleEndian.Uint32(head[len(ModelMagic):]))
	if string(head[:len(ModelMagic)]) != ModelMagic || !sectioned {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, false, err
		}
		m, err = ReadModel(f)
		return m, false, err
	}
	size := fi.Size()
	budget := int64(boundBase-boundReserve) + boundPerByte*size - size
	m, err = readSectioned(&sectionSource{file: f, base: int64(len(head)), size: size - int64(len(head))}, budget, basis)
	return m, err == nil, err
}

// ModelError reports a file that is not a valid codec model.
type ModelError struct{ Msg string }

func (e *ModelError) Error() string { return "codec: invalid model file: " + e.Msg }

type modelReader struct {
	b   []byte
	err error
	// budget is what the arrays decoded from b may still allocate (see
	// memoryBound).
	budget int64
	// sectioned is set when b is section 0 of the sectioned container.
	sectioned bool
	// shared is set when an embedded SPCA model uses b's bytes in place
	// (spca.ReadEmbeddedShared): they must stay as they are.
	shared bool
}

// Memory bound (issues 23, 24): reading a model allocates at most 64 MB
// plus 10 times its bytes (those of the file, or, compressed, the larger
// of the file and its inflated content, itself at most 8 MiB + 16 times
// the file). The arrays decoded in proportion to what the file declares
// (inflated content, training samples, the embedded SPCA models, the
// fast path's tables, decoded later but charged when read) are charged
// against it, less boundReserve for the rest. Integer-coded values take
// a byte in the file and eight in memory, so that counts checked
// against the bytes alone do not hold the bound. A valid colour model
// of the default options (5.2 MB, 28.7 MB inflated) allocates 147 MB.
const (
	boundBase    = 64 << 20
	boundPerByte = 10
	boundReserve = 8 << 20
)

// charge accounts for size bytes allocated for what (named in the error).
func (r *modelReader) charge(size int64, what string) error {
	if r.err != nil {
		return r.err
	}
	if r.budget -= size; r.budget < 0 {
		r.err = &ModelError{fmt.Sprintf("%s needs more memory than the model's size allows (64 MB + 10 × its bytes)", what)}
	}
	return r.err
}

func (r *modelReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = &ModelError{"truncated"}
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}
func (r *modelReader) u8() int {
	if p := r.take(1); p != nil {
		return int(p[0])
	}
	return 0
}
func (r *modelReader) u16() int {
	if p := r.take(2); p != nil {
		return int(binary.LittleEndian.Uint16(p))
	}
	return 0
}

// u32 reads a count, index or version: 2^31 and more is refused (it
// would be a negative int on a 32-bit platform).
func (r *modelReader) u32() int {
	if p := r.take(4); p != nil {
		v := binary.LittleEndian.Uint32(p)
		if v <= math.MaxInt32 {
			return int(v)
		}
		r.err = &ModelError{fmt.Sprintf("value %d out of range", v)}
	}
	return 0
}

// bits32 reads 32 bits (a float32).
func (r *modelReader) bits32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}
func (r *modelReader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}
func (r *modelReader) f64() float64 {
	v := math.Float64frombits(r.u64())
	if r.err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		r.err = &ModelError{"non-finite value"}
	}
	return v
}
func (r *modelReader) f64s(n int) []float64 {
	if r.err == nil && n*8 > len(r.b) {
		r.err = &ModelError{"truncated"}
	}
	if r.err != nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = r.f64()
	}
	return v
}

// maxModelBytes bounds what ReadModel accepts.
const maxModelBytes = 1 << 30

// A compressed model's zstd frame must declare its uncompressed size, and
// that size may be at most maxInflationSlack plus maxInflation times the
// compressed bytes (and maxModelBytes): a file cannot make the reader
// allocate much more than it holds. Models compress 1.7× to 4.4× (see the
// format comment; 5.5× for a colour model of the default options in
// version 4), far within the limit.
const (
	maxInflation      = 16
	maxInflationSlack = 8 << 20
)

// declaredSize returns the uncompressed size the zstd frame declares,
// checked against the limits above: head holds the frame's first bytes
// (at least its header), compressed its whole size. The limit was taken
// from len(head), which a sectioned container passes as the header alone
// (about 17 bytes): every section inflating to more than 8 MiB was
// refused, so a model trained with --patch 2 --resolution 262144 was
// written and then could not be read.
func declaredSize(head []byte, compressed int) (int, error) {
	packed := head
	var h zstd.Header
	if err := h.Decode(packed); err != nil {
		return 0, &ModelError{"compressed data: " + err.Error()}
	}
	if h.Skippable || !h.HasFCS {
		return 0, &ModelError{"compressed data: the frame does not declare its size"}
	}
	limit := min(uint64(maxModelBytes), maxInflationSlack+maxInflation*uint64(compressed))
	if h.FrameContentSize > limit {
		return 0, &ModelError{fmt.Sprintf("compressed data: declares %d bytes from %d, more than the limit of %d (8 MiB + 16 times the compressed size)",
			h.FrameContentSize, compressed, limit)}
	}
	return int(h.FrameContentSize), nil
}

// storedFirstBlock reports whether the zstd frame whose first bytes are
// head (its header and first block's header) starts with a raw block: a
// section of the fast-load form (storedFrame; the compact form's encoder
// starts the model's section with a compressed block).
func storedFirstBlock(head []byte) bool {
	var h zstd.Header
	return h.Decode(head) == nil && h.FirstBlock.OK && !h.FirstBlock.Compressed
}

// ReadModel reads a model written by WriteTo. A file of another kind, of
// another version, truncated or corrupt gives a *ModelError.
func ReadModel(rd io.Reader) (*Model, error) {
	// The magic number first: a file of another kind is refused before
	// the rest is read (up to 1 GiB; /dev/zero as a model ran out of
	// memory).
	var head [len(ModelMagic)]byte
	n, err := io.ReadFull(rd, head[:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, &ModelError{"too short"}
	}
	if err != nil {
		return nil, err
	}
	if string(head[:n]) != ModelMagic {
		if string(head[:n]) == "SPCAmodl" {
			return nil, &ModelError{"this is an SPCA model, not a codec model (train one with spca codec train)"}
		}
		return nil, &ModelError{"not a codec model (bad magic number)"}
	}
	data, err := fileio.ReadAllSized(rd, maxModelBytes+1, head[:])
	if err != nil {
		return nil, err
	}
	if data == nil { // a stream
		if data, err = readStream(rd, head[:]); err != nil {
			return nil, err
		}
	}
	if len(data) < len(ModelMagic)+8 {
		return nil, &ModelError{"too short"}
	}
	if string(data[:len(ModelMagic)]) != ModelMagic {
		if bytes.HasPrefix(data, []byte("SPCAmodl")) {
			return nil, &ModelError{"this is an SPCA model, not a codec model (train one with spca codec train)"}
		}
		return nil, &ModelError{"not a codec model (bad magic number)"}
	}
	if len(data) > maxModelBytes {
		return nil, &ModelError{"larger than 1 GiB"}
	}
	budget := int64(boundBase-boundReserve) + boundPerByte*int64(len(data)) - int64(len(data))
	if sectioned, basis := sectionedVersion(binary.LittleEndian.Uint32(data[len(ModelMagic):])); sectioned {
		rest := data[len(ModelMagic)+4:]
		return readSectioned(&sectionSource{mem: rest, size: int64(len(rest))}, budget, basis)
	}
	if binary.LittleEndian.Uint32(data[len(ModelMagic):]) == modelVersionZstd {
		packed := data[len(ModelMagic)+4:]
		size, err := declaredSize(packed, len(packed))
		if err != nil {
			return nil, err
		}
		budget += boundPerByte*int64(max(0, size-len(data))) - int64(size)
		// The capacity bounds the decoder (WithDecodeAllCapLimit): a frame
		// holding more than it declares fails instead of growing.
		plain, err := modelDecoder().DecodeAll(packed, make([]byte, 0, size))
		if err == nil && len(plain) != size {
			err = fmt.Errorf("%d bytes where the frame declares %d", len(plain), size)
		}
		if err != nil {
			return nil, &ModelError{"compressed data: " + err.Error()}
		}
		if len(plain) < len(ModelMagic)+8 || string(plain[:len(ModelMagic)]) != ModelMagic ||
			binary.LittleEndian.Uint32(plain[len(ModelMagic):]) == modelVersionZstd {
			return nil, &ModelError{"compressed data: not a model file"}
		}
		data = plain
	}
	// A version this build does not know is named before the checksum,
	// whose place and extent a later format may change: 'checksum
	// mismatch' would send the user looking for a corrupt file.
	if v := binary.LittleEndian.Uint32(data[len(ModelMagic):]); v < modelVersion || v > modelVersionSections {
		return nil, &ModelError{fmt.Sprintf("unsupported version %d (this build reads 1 to 5 and the containers 16 to 18): a file of a later spca?", v)}
	}
	if !checksum.Valid(data) {
		return nil, &ModelError{"checksum mismatch (corrupt or truncated file)"}
	}
	r := &modelReader{b: data[len(ModelMagic) : len(data)-4], budget: budget}
	return r.model()
}

// readSectioned reads the sections of the sectioned container held by
// src (after its version): the model at once, the training samples and
// fast paths left packed, or in the file, for their first use. budget is
// what ReadModel allows the file (see memoryBound) less the file itself.
func readSectioned(src *sectionSource, budget int64, basis bool) (*Model, error) {
	head, err := src.read(0, int(min(src.size, 1+4*maxSections)))
	if err != nil {
		return nil, err
	}
	r := &modelReader{b: head}
	n := r.u8()
	if r.err == nil && (n < 1 || n > maxSections) {
		return nil, &ModelError{fmt.Sprintf("%d sections", n)}
	}
	lengths := make([]int, n)
	for i := range lengths {
		lengths[i] = r.u32()
	}
	if r.err != nil {
		return nil, r.err
	}
	secs := make([]*section, n)
	total, off := 0, int64(1+4*n)
	fastLoad := false
	for i := range secs {
		if int64(lengths[i]) > src.size-off {
			return nil, &ModelError{fmt.Sprintf("section %d of %d truncated", i, n)}
		}
		h, err := src.read(off, min(lengths[i], zstd.HeaderMaxSize))
		if err != nil {
			return nil, err
		}
		size, err := declaredSize(h, lengths[i])
		if err != nil {
			return nil, &ModelError{fmt.Sprintf("section %d: %s", i, err.(*ModelError).Msg)}
		}
		stored := storedFirstBlock(h)
		if i == 0 {
			fastLoad = stored
		}
		total += size
		secs[i] = &section{src: src, off: off, n: lengths[i], size: size, index: i, stored: stored}
		off += int64(lengths[i])
	}
	if off != src.size {
		return nil, &ModelError{"trailing bytes after the sections"}
	}
	// The inflated sections count as compressed content does (ReadModel).
	budget += boundPerByte*max(0, int64(total)-src.size) - int64(total)
	lazy := &sectionBudget{left: budget}
	for _, s := range secs {
		s.budget = lazy
	}
	core, joined, err := secs[0].openJoined("model", true)
	if err != nil {
		return nil, err
	}
	if len(core.b) < len(ModelMagic)+4 || string(core.b[:len(ModelMagic)]) != ModelMagic ||
		binary.LittleEndian.Uint32(core.b[len(ModelMagic):]) != modelVersionSections {
		return nil, &ModelError{"section 0: not a model of version 5"}
	}
	plain := core.b[:0]
	core.b = core.b[len(ModelMagic):]
	core.budget, core.sectioned = lazy.left, true
	m, err := core.model()
	if err != nil {
		return nil, err
	}
	// The section's bytes are garbage now, but modelDecoder still refers
	// to its last output until its next frame: an empty one drops it, and
	// the bytes become the spare for the first planes to be coded, with
	// the packed bytes they were inflated from, which follow them in
	// joined when read from a file (a lazy section's read takes a piece of
	// the spare then), and the SPCA models' integer scratch.
	modelDecoder().DecodeAll(emptyFrame, nil)
	switch {
	case core.shared && joined != nil:
		// The embedded SPCA models use the inflated bytes in place
		// (their float32 lattices): the packed ones only, from the
		// first 8-byte boundary after them.
		donate(joined[(secs[0].size+7)&^7:])
	case core.shared:
	case joined != nil:
		donate(joined)
	default:
		donate(plain)
	}
	donateInts(spca.TakeScratch())
	lazy.left = core.budget
	nc := len(m.Channels)
	switch {
	case !basis && len(secs) != 1+2*nc:
		return nil, &ModelError{fmt.Sprintf("%d sections for %d channels (version %d has %d)", len(secs), nc, modelVersionSectioned, 1+2*nc)}
	case basis && len(secs) != 1+3*nc:
		return nil, &ModelError{fmt.Sprintf("%d sections for %d channels (version %d has %d)", len(secs), nc, modelVersionSectionedBasis, 1+3*nc)}
	case basis && m.Step == 0:
		return nil, &ModelError{fmt.Sprintf("version %d (with step bases) of a model without a step", modelVersionSectionedBasis)}
	}
	m.fastLoad = fastLoad
	for i, c := range m.Channels {
		c.sampleSec, c.fastSec = secs[1+2*i], secs[2+2*i]
		if basis {
			c.basisSec = secs[1+2*nc+i]
		}
	}
	return m, nil
}

// sectionSource holds the bytes of a sectioned container after its
// version: in memory (ReadModel), or in an open file (LoadModel), so that
// a process reads only the sections it uses.
type sectionSource struct {
	mem  []byte      // the bytes, or nil
	file io.ReaderAt // else the file holding them
	base int64       // at this offset
	size int64       // their number
	// spare is a buffer read from the file that nothing refers to any
	// more (see done), for the next read: a colour model's packed
	// section 0 (1.4 MB) holds each of its fast paths' (0.4 MB), which
	// took fresh pages of their own, cleared by the kernel. The sections
	// are read one at a time (readSectioned, then readLazy under the
	// model's lock).
	spare []byte
}

// read returns the n bytes at off, which must be within the source.
func (s *sectionSource) read(off int64, n int) ([]byte, error) {
	if s.mem != nil {
		return s.mem[off : off+int64(n)], nil
	}
	b := s.spare
	s.spare = nil
	if cap(b) >= n {
		b = b[:n]
	} else if b = takeSpareBytes(n); b == nil {
		b = make([]byte, n)
	}
	return s.readInto(b, off)
}

// readInto reads the len(b) bytes at off, which must be within the
// source, into b (from a file) and returns them.
func (s *sectionSource) readInto(b []byte, off int64) ([]byte, error) {
	if s.mem != nil {
		return s.mem[off : off+int64(len(b))], nil
	}
	if _, err := s.file.ReadAt(b, s.base+off); err != nil {
		return nil, &ModelError{fmt.Sprintf("reading the file: %v (did it change since it was opened?)", err)}
	}
	return b, nil
}

// done hands back b, returned by read and no longer used, to the spare
// if it came from there last (giveBack), else for the next read (from a
// file only: from memory, b is the caller's).
func (s *sectionSource) done(b []byte) {
	if s.mem == nil && !giveBack(b) && cap(b) > cap(s.spare) {
		s.spare = b
	}
}

// section is a section of the sectioned container, packed.
type section struct {
	src    *sectionSource
	off    int64 // its zstd frame: n bytes at off in src
	n      int
	size   int // its inflated size, as declared
	index  int
	budget *sectionBudget
	stored bool // its first block is raw (storedFrame's, the fast-load form)
}

// sectionBudget is the memory bound of reading a model file, shared by its
// sections, which may be inflated later and concurrently.
type sectionBudget struct {
	mu   sync.Mutex
	left int64
}

// open inflates the section and checks its checksum. what names it in
// errors.
func (s *section) open(what string) (*modelReader, error) {
	r, _, err := s.openJoined(what, false)
	return r, err
}

// openJoined is open that, when joined and the section is read from a
// file, reads the packed bytes into the tail of the buffer it inflates
// them into, and returns that buffer, buf (nil otherwise): the inflated
// bytes, then the packed ones, one allocation that the caller may donate
// whole once done with the section. A model load donates section 0 so:
// as two regions (1.4 and 0.44 MB for the 8×8 grey Kodak model) neither
// held a 768×512 grey image's indices (1.5 MB), which took fresh pages.
func (s *section) openJoined(what string, joined bool) (r *modelReader, buf []byte, err error) {
	fail := func(msg string) error {
		return &ModelError{fmt.Sprintf("section %d (%s): %s", s.index, what, msg)}
	}
	if s.budget.left -= int64(s.size); s.budget.left < 0 {
		return nil, nil, fail("needs more memory than the model's size allows (64 MB + 10 × its bytes)")
	}
	var packed, plain []byte
	// The capacity bounds the decoder (WithDecodeAllCapLimit): a frame
	// holding more than it declares fails instead of growing.
	dst := []byte(nil)
	switch {
	case joined && s.src.mem == nil && s.stored:
		// Raw blocks (the fast-load form): read into one buffer of the
		// frame's size, the blocks moved down over their headers (no
		// second buffer: a grey 8×8 model's 1.85 MB section 0 took 3.7
		// MB of fresh pages so, which a small image did not use).
		if buf = takeSpareBytes(s.n); buf == nil {
			buf = make([]byte, s.n)
		}
		if packed, err = s.src.readInto(buf, s.off); err == nil {
			if plain = unstore(packed, s.size); plain == nil {
				// Not storedFrame's layout: inflated as any frame.
				dst, buf = make([]byte, 0, s.size), nil
			}
		}
	case joined && s.src.mem == nil:
		if buf = takeSpareBytes(s.size + s.n); buf == nil {
			buf = make([]byte, s.size+s.n)
		}
		dst = buf[:0:s.size] // the decoder cannot write past it, into packed
		packed, err = s.src.readInto(buf[s.size:], s.off)
	default:
		dst = make([]byte, 0, s.size)
		packed, err = s.src.read(s.off, s.n)
	}
	if err != nil {
		return nil, nil, fail(err.(*ModelError).Msg)
	}
	if plain == nil {
		plain, err = modelDecoder().DecodeAll(packed, dst)
		if buf == nil {
			s.src.done(packed) // plain is a copy
		}
	}
	if err == nil && len(plain) != s.size {
		err = fmt.Errorf("%d bytes where the frame declares %d", len(plain), s.size)
	}
	if err != nil {
		return nil, nil, fail("compressed data: " + err.Error())
	}
	if !checksum.Valid(plain) {
		return nil, nil, fail("checksum mismatch (corrupt file)")
	}
	return &modelReader{b: plain[:len(plain)-4], budget: s.budget.left}, buf, nil
}

// readLazy inflates the section and reads it with read, holding the
// model's memory bound; what names it in errors.
func (s *section) readLazy(what string, read func(r *modelReader) error) error {
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	r, err := s.open(what)
	if err != nil {
		return err
	}
	err = read(r)
	if err == nil && r.err != nil {
		err = r.err
	}
	if err == nil && len(r.b) != 0 {
		err = &ModelError{"trailing bytes"}
	}
	s.budget.left = r.budget
	var me *ModelError
	if errors.As(err, &me) {
		return &ModelError{fmt.Sprintf("section %d (%s): %s", s.index, what, me.Msg)}
	}
	return err
}

// model reads a model's content after its magic number, without its
// checksum.
func (r *modelReader) model() (*Model, error) {
	version := r.u32()
	var id ModelID
	sectioned := version == modelVersionSections
	if sectioned != r.sectioned {
		return nil, &ModelError{"version 5 outside the sectioned container"}
	}
	compact := version == modelVersionCompact || version == modelVersionInts || sectioned
	ints := version == modelVersionInts || sectioned
	if compact {
		version = r.u32()
		copy(id[:], r.take(len(id)))
	}
	if version != modelVersion && version != modelVersionStep {
		return nil, &ModelError{fmt.Sprintf("unsupported version %d (this build reads 1 to 5 and the containers 16 to 18)", version)}
	}
	m := &Model{Patch: r.u8()}
	if compact {
		m.idOnce.Do(func() { m.id = id })
	}
	colour := r.u8()
	m.Color, m.Subsample, m.Gamma = colour == 1 || colour == 2, colour == 2, r.f64()
	if r.err == nil && colour > 2 {
		return nil, &ModelError{fmt.Sprintf("colour mode %d", colour)}
	}
	if version == modelVersionStep {
		if m.Step = r.f64(); r.err == nil && !(m.Step > 0) {
			return nil, &ModelError{"quantiser step not positive"}
		}
	}
	nc := r.u8()
	if r.err == nil && (m.Patch < 1 || m.Patch > maxPatch || !(nc == 1 && !m.Color || nc == 3 && m.Color) || m.Gamma < 0) {
		return nil, &ModelError{"inconsistent header"}
	}
	for ci := 0; ci < nc && r.err == nil; ci++ {
		c, err := readChannel(r, m.Patch, version == modelVersionStep, ints, sectioned)
		if err != nil {
			return nil, err
		}
		m.Channels = append(m.Channels, c)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, &ModelError{"trailing bytes"}
	}
	return m, nil
}

// readChannel reads a channel; thresholds in version 2, ints in version
// 4, sectioned (version 5) without its training sample and fast path.
func readChannel(r *modelReader, patch int, thresholds, ints, sectioned bool) (*Channel, error) {
	dims, k := r.u16(), r.u16()
	if r.err == nil && (dims != patch*patch || k < 1 || k > dims || k > maxLeading) {
		return nil, &ModelError{"inconsistent channel dimensions"}
	}
	c := &Channel{PCA: &patches.PCA{}}
	c.PCA.Mean = r.f64s(dims)
	basis := r.f64s(dims * dims)
	c.PCA.Var = r.f64s(dims)
	if r.err != nil {
		return nil, r.err
	}
	c.PCA.Basis = mat.NewDense(dims, dims, basis)
	c.Bins = make([]int, dims)
	for j := range c.Bins {
		c.Bins[j] = r.u32()
		if r.err == nil && (c.Bins[j] < 1 || c.Bins[j] > maxLevels) {
			return nil, &ModelError{"bins out of range"}
		}
	}
	first := k
	if thresholds {
		first = 0 // version 2: the SPCA responses' quantisers come first
	}
	for j := first; j < dims && r.err == nil; j++ {
		n := r.u32()
		if r.err == nil && n != c.Bins[j] {
			return nil, &ModelError{"quantiser levels do not match the bins"}
		}
		lv := r.f64s(n)
		var th []float64
		if thresholds {
			th = r.f64s(max(0, n-1))
		} else if r.err == nil {
			th = make([]float64, max(0, n-1))
			for i := range th {
				th[i] = 0.5 * (lv[i] + lv[i+1])
			}
		}
		if q := (&ScalarQuantizer{Levels: lv, Thresholds: th}); j < k {
			c.Lead = append(c.Lead, q)
		} else {
			c.Rest = append(c.Rest, q)
		}
	}
	c.Centre = make([]int, dims)
	for j := range c.Centre {
		c.Centre[j] = r.u32()
		if r.err == nil && c.Centre[j] >= c.Bins[j] {
			return nil, &ModelError{"centre index out of range"}
		}
	}
	rows := r.u32()
	if sectioned {
		if r.err == nil && (rows < 2 || int64(rows)*int64(dims) > maxModelBytes) {
			return nil, &ModelError{"training sample size"}
		}
		c.sampleRows = rows
	} else if err := r.sample(c, rows, dims, ints); err != nil {
		return nil, err
	}
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)) {
		return nil, &ModelError{"truncated SPCA model"}
	}
	// A bytes.Buffer: spca reads its lattice planes in place (Next). Its
	// bytes were checked by the file's CRC-32C (checksum.Valid of the
	// section or the whole content) before they were parsed.
	// A lattice stored as float32 (the fast-load form) is used in place:
	// the section's bytes are then the model's (r.shared).
	sm, shared, err := spca.ReadEmbeddedShared(r.take(int(n)), &r.budget)
	r.shared = r.shared || shared
	if err == nil && r.err != nil {
		err = r.err
	}
	if err != nil {
		return nil, &ModelError{"embedded SPCA model: " + err.Error()}
	}
	if sm.Dim() != k {
		return nil, &ModelError{"embedded SPCA model has the wrong dimension"}
	}
	c.SPCA = sm
	if ints && !sectioned { // version 4: the fast path's tables
		if c.fastStored, err = r.fastPath(k); err != nil {
			return nil, err
		}
	}
	if c.Lead == nil { // version 1: unit bins, the scale is the bin count
		scale := sm.Scale()
		for j := 0; j < k; j++ {
			if scale[j] != float64(c.Bins[j]) {
				return nil, &ModelError{"SPCA scale does not match the bins"}
			}
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// sample reads the training sample of channel c (rows×dims) after its
// row count: as float32 values, or in version 4 (ints) after a kind byte,
// maybe as integers, kept coded (see Channel.TrainingSample).
func (r *modelReader) sample(c *Channel, rows, dims int, ints bool) error {
	kind := 0
	if ints {
		kind = r.u8()
		if r.err == nil && kind > 1 {
			return &ModelError{fmt.Sprintf("training sample kind %d", kind)}
		}
	}
	// Every value takes a byte (integers) or 4 (float32) at least.
	// In int64: rows × dims × 4 wraps a 32-bit int.
	values := int64(rows) * int64(dims)
	if per := int64(4 - 3*kind); r.err == nil && (rows < 2 || values*per > int64(len(r.b)) || kind == 1 && values > maxIntSample) {
		return &ModelError{"training sample size"}
	}
	if r.charge(8*values+8*int64(rows*kind), "the training sample") != nil {
		return r.err
	}
	if kind == 0 {
		train := make([]float64, rows*dims)
		for i := range train {
			train[i] = float64(math.Float32frombits(r.bits32()))
		}
		c.train = mat.NewDense(rows, dims, train)
	} else {
		var err error
		if c.sampleInts, err = r.intSample(rows, dims); err != nil {
			return err
		}
	}
	return r.err
}

// intSample is the integer training sample of version 4 as read from
// the file, checked but not decoded (see Channel.TrainingSample).
type intSample struct {
	rows, dims int
	cols       [][]byte // per column: its byte planes, rows bytes each
}

// intSample checks and takes the integer training sample of version 4
// (rows×dims).
func (r *modelReader) intSample(rows, dims int) (*intSample, error) {
	s := &intSample{rows: rows, dims: dims, cols: make([][]byte, dims)}
	for j := range s.cols {
		w := r.u8()
		if r.err == nil && (w < 1 || w > 8) {
			return nil, &ModelError{fmt.Sprintf("training values of %d bytes", w)}
		}
		s.cols[j] = r.take(w * rows)
		if r.err != nil {
			return nil, r.err
		}
	}
	return s, nil
}

// column writes the integers of column j into col (rows long).
func (s *intSample) column(j int, col []int64) {
	planes := s.cols[j]
	for b := 0; b*s.rows < len(planes); b++ {
		gridcode.AddPlane(col, planes[b*s.rows:(b+1)*s.rows], b)
	}
	gridcode.Unzigzag(col)
}

// decode returns the sample's values (rows×dims, row-major).
func (s *intSample) decode() *mat.Dense {
	train := make([]float64, s.rows*s.dims)
	col := make([]int64, s.rows)
	for j := range s.cols {
		s.column(j, col)
		for i, v := range col {
			train[i*s.dims+j] = float64(v) * trainRes
		}
	}
	return mat.NewDense(s.rows, s.dims, train)
}

// TrainingSample returns the PCA-domain training sample the channel was
// trained on, so that comparison models (other gammas, PCA + Lloyd–Max)
// and derived rates (Model.Stepped) are fitted on exactly the same data.
// A model read from a file decodes it on first use, and inflates it then
// from a sectioned file: the error is a *ModelError if that section is
// corrupt.
func (c *Channel) TrainingSample() (*mat.Dense, error) {
	if c.fastFrom != nil && c.train == nil { // derived by Stepped
		return c.fastFrom.TrainingSample()
	}
	c.trainOnce.Do(func() {
		ints, train, err := c.packedSample()
		if ints != nil {
			train = ints.decode()
		}
		c.train, c.trainErr = train, err
	})
	return c.train, c.trainErr
}

// packedSample returns the training sample as integers (nil if it is
// not kept so) or, if not, as TrainingSample does, inflating its section
// on first use.
func (c *Channel) packedSample() (*intSample, *mat.Dense, error) {
	c.sampleOnce.Do(func() {
		if c.sampleSec == nil {
			return
		}
		rows, dims := c.sampleRows, c.Dims()
		c.sampleErr = c.sampleSec.readLazy("training sample", func(r *modelReader) error {
			if err := r.sample(c, rows, dims, true); err != nil {
				return err
			}
			if c.train != nil {
				return c.validate()
			}
			return nil
		})
		if c.sampleErr != nil {
			c.train, c.sampleInts = nil, nil
		}
	})
	if c.sampleInts != nil || c.sampleErr != nil {
		return c.sampleInts, nil, c.sampleErr
	}
	return nil, c.train, nil
}

// LoadSections inflates and checks what a sectioned model file leaves
// packed until first use (the training samples, the fast paths, the step
// bases): a corrupt section gives a *ModelError. ReadModel's memory bound
// holds.
func (m *Model) LoadSections() error {
	for _, c := range m.Channels {
		if _, err := c.TrainingSample(); err != nil {
			return err
		}
		if err := c.readFastSection(); err != nil {
			return err
		}
	}
	if m.StepBasisBytes() == 0 {
		return nil
	}
	m.stepMu.Lock()
	defer m.stepMu.Unlock()
	return m.loadBases()
}

// TrainingPatches returns the number of patches of the training sample,
// without decoding it.
func (c *Channel) TrainingPatches() int {
	if c.sampleSec != nil {
		return c.sampleRows
	}
	if c.sampleInts != nil {
		return c.sampleInts.rows
	}
	if c.train == nil {
		return 0
	}
	n, _ := c.train.Dims()
	return n
}

// validate checks what the coder relies on.
func (c *Channel) validate() error {
	if c.train != nil { // (a sample of integers is finite)
		for _, v := range c.train.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &ModelError{"non-finite training sample"}
			}
		}
	}
	for _, q := range append(append([]*ScalarQuantizer(nil), c.Lead...), c.Rest...) {
		for i := 1; i < len(q.Levels); i++ {
			if !(q.Levels[i] > q.Levels[i-1]) {
				return &ModelError{"quantiser levels not increasing"}
			}
		}
		for i := 1; i < len(q.Thresholds); i++ {
			if !(q.Thresholds[i] > q.Thresholds[i-1]) {
				return &ModelError{"quantiser thresholds not increasing"}
			}
		}
	}
	return nil
}

// readStream reads a model from a stream whose first bytes, head, were
// read already: as far as the sectioned container's table says it
// extends, growing as the data arrive, then refuses more data; another
// container is read whole, at most 1 GiB, unless it starts wrong (no
// zstd frame). Magic number, version and section table followed by
// endless data (/dev/zero) were read up to 1 GiB first (30 s, 2.7 GB).
// What it returns is checked by ReadModel as a file's bytes are.
func readStream(rd io.Reader, head []byte) ([]byte, error) {
	b := bytes.Clone(head)
	// more reads k more bytes; false at the end of the stream.
	more := func(k int64) (bool, error) {
		n, err := io.Copy(bytesWriter{&b}, io.LimitReader(rd, k))
		return n == k, err
	}
	if ok, err := more(4); !ok || err != nil {
		return b, err
	}
	switch binary.LittleEndian.Uint32(b[len(b)-4:]) {
	case modelVersionSectioned, modelVersionSectionedBasis:
		if ok, err := more(1); !ok || err != nil {
			return b, err
		}
		n := int64(b[len(b)-1])
		if n < 1 || n > maxSections {
			return nil, &ModelError{fmt.Sprintf("%d sections", n)}
		}
		if ok, err := more(4 * n); !ok || err != nil {
			return b, err
		}
		var total int64
		for i := range n {
			total += int64(binary.LittleEndian.Uint32(b[len(b)-4*int(n-i):]))
		}
		if total > maxModelBytes {
			return nil, &ModelError{"larger than 1 GiB"}
		}
		if ok, err := more(total); !ok || err != nil {
			return b, err
		}
		var extra [1]byte
		if k, _ := io.ReadFull(rd, extra[:]); k > 0 {
			return nil, &ModelError{"trailing bytes after the sections"}
		}
		return b, nil
	case modelVersionZstd:
		if ok, err := more(4); !ok || err != nil {
			return b, err
		}
		if binary.LittleEndian.Uint32(b[len(b)-4:]) != zstdFrameMagic {
			return nil, &ModelError{"compressed data: not a zstd frame"}
		}
	}
	rest, err := io.ReadAll(io.LimitReader(rd, maxModelBytes+1-int64(len(b))))
	return append(b, rest...), err
}

// zstdFrameMagic starts a zstd frame.
const zstdFrameMagic = 0xFD2FB528

// bytesWriter appends to a byte slice.
type bytesWriter struct{ b *[]byte }

func (w bytesWriter) Write(p []byte) (int, error) {
	*w.b = append(*w.b, p...)
	return len(p), nil
}
