package codec

import (
	"bytes"
	"encoding/binary"
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
	// modelVersionZstd marks the compressed container.
	modelVersionZstd = 16
)

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
	modelDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(maxModelBytes), zstd.WithDecoderMaxWindow(maxModelWindow),
			zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			panic(err) // constant, valid options
		}
		return d
	})
)

type modelWriter struct {
	w   io.Writer
	err error
	b   [8]byte
}

func (e *modelWriter) put(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}
func (e *modelWriter) u8(v uint8)   { e.put([]byte{v}) }
func (e *modelWriter) u16(v uint16) { binary.LittleEndian.PutUint16(e.b[:2], v); e.put(e.b[:2]) }
func (e *modelWriter) u32(v uint32) { binary.LittleEndian.PutUint32(e.b[:4], v); e.put(e.b[:4]) }
func (e *modelWriter) u64(v uint64) { binary.LittleEndian.PutUint64(e.b[:8], v); e.put(e.b[:8]) }
func (e *modelWriter) f64(v float64) {
	e.u64(math.Float64bits(v))
}

// write serialises the model (without checksum) to w: in version 1 or
// 2 (the bytes the ID hashes), or if compact in version 3.
func (m *Model) write(w io.Writer, compact bool) error {
	e := &modelWriter{w: w}
	e.put([]byte(ModelMagic))
	step := m.Step > 0
	base := uint32(modelVersion)
	if step {
		base = modelVersionStep
	}
	if compact {
		e.u32(modelVersionInts)
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
		rows, _ := c.TrainingSample().Dims()
		e.u32(uint32(rows))
		if compact {
			e.train(c.TrainingSample())
		} else {
			for _, v := range c.TrainingSample().RawMatrix().Data {
				e.u32(math.Float32bits(float32(v)))
			}
		}
		var sb bytes.Buffer
		if c.SPCA != nil && compact {
			if _, err := c.SPCA.WriteCompactTo(&sb); err != nil {
				return err
			}
		} else if c.SPCA != nil { // nil for the PCA + Lloyd–Max baseline
			if _, err := c.SPCA.WriteTo(&sb); err != nil {
				return err
			}
		}
		e.u64(uint64(sb.Len()))
		e.put(sb.Bytes())
		if compact && c.SPCA != nil {
			e.fastPath(c)
		} else if compact {
			e.u8(0)
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

// WriteTo writes the model file, compressed.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if err := m.write(&b, true); err != nil {
		return 0, err
	}
	out := binary.LittleEndian.AppendUint32([]byte(ModelMagic), modelVersionZstd)
	out = modelEncoder().EncodeAll(checksum.Append(b.Bytes()), out)
	n, err := w.Write(out)
	return int64(n), err
}

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// LoadModel reads a codec model file.
func LoadModel(path string) (*Model, error) {
	return fileio.Read(path, ReadModel)
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
func (r *modelReader) charge(size int, what string) error {
	if r.err != nil {
		return r.err
	}
	if r.budget -= int64(size); r.budget < 0 {
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
func (r *modelReader) u32() int {
	if p := r.take(4); p != nil {
		return int(binary.LittleEndian.Uint32(p))
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

// declaredSize returns the uncompressed size the zstd frame packed
// declares, checked against the limits above.
func declaredSize(packed []byte) (int, error) {
	var h zstd.Header
	if err := h.Decode(packed); err != nil {
		return 0, &ModelError{"compressed data: " + err.Error()}
	}
	if h.Skippable || !h.HasFCS {
		return 0, &ModelError{"compressed data: the frame does not declare its size"}
	}
	limit := min(uint64(maxModelBytes), maxInflationSlack+maxInflation*uint64(len(packed)))
	if h.FrameContentSize > limit {
		return 0, &ModelError{fmt.Sprintf("compressed data: declares %d bytes from %d, more than the limit of %d (8 MiB + 16 times the compressed size)",
			h.FrameContentSize, len(packed), limit)}
	}
	return int(h.FrameContentSize), nil
}

// ReadModel reads a model written by WriteTo. A file of another kind, of
// another version, truncated or corrupt gives a *ModelError.
func ReadModel(rd io.Reader) (*Model, error) {
	data, err := readAllSized(rd, maxModelBytes+1)
	if err != nil {
		return nil, err
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
	if binary.LittleEndian.Uint32(data[len(ModelMagic):]) == modelVersionZstd {
		packed := data[len(ModelMagic)+4:]
		size, err := declaredSize(packed)
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
	if !checksum.Valid(data) {
		return nil, &ModelError{"checksum mismatch (corrupt or truncated file)"}
	}
	r := &modelReader{b: data[len(ModelMagic) : len(data)-4], budget: budget}
	return r.model()
}

// model reads a model's content after its magic number, without its
// checksum.
func (r *modelReader) model() (*Model, error) {
	version := r.u32()
	var id ModelID
	compact := version == modelVersionCompact || version == modelVersionInts
	ints := version == modelVersionInts
	if compact {
		version = r.u32()
		copy(id[:], r.take(len(id)))
	}
	if version != modelVersion && version != modelVersionStep {
		return nil, &ModelError{fmt.Sprintf("unsupported version %d (this build reads 1 to 4 and the compressed 16)", version)}
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
		c, err := readChannel(r, m.Patch, version == modelVersionStep, ints)
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

func readChannel(r *modelReader, patch int, thresholds, ints bool) (*Channel, error) {
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
	kind := 0
	if ints {
		kind = r.u8()
		if r.err == nil && kind > 1 {
			return nil, &ModelError{fmt.Sprintf("training sample kind %d", kind)}
		}
	}
	// Every value takes a byte (integers) or 4 (float32) at least.
	if per := 4 - 3*kind; r.err == nil && (rows < 2 || rows*dims*per > len(r.b) || kind == 1 && rows*dims > maxIntSample) {
		return nil, &ModelError{"training sample size"}
	}
	if r.charge(8*rows*dims+8*rows*kind, "the training sample") != nil {
		return nil, r.err
	}
	if kind == 0 {
		train := make([]float64, rows*dims)
		for i := range train {
			train[i] = float64(math.Float32frombits(uint32(r.u32())))
		}
		c.train = mat.NewDense(rows, dims, train)
	} else {
		var err error
		if c.sampleInts, err = r.intSample(rows, dims); err != nil {
			return nil, err
		}
	}
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)) {
		return nil, &ModelError{"truncated SPCA model"}
	}
	sm, err := spca.ReadLimited(bytes.NewReader(r.take(int(n))), &r.budget)
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
	if ints { // version 4: the fast path's tables
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

// decode returns the sample's values (rows×dims, row-major).
func (s *intSample) decode() *mat.Dense {
	train := make([]float64, s.rows*s.dims)
	col := make([]int64, s.rows)
	for j, planes := range s.cols {
		for b := 0; b*s.rows < len(planes); b++ {
			gridcode.AddPlane(col, planes[b*s.rows:(b+1)*s.rows], b)
		}
		gridcode.Unzigzag(col)
		for i, v := range col {
			train[i*s.dims+j] = float64(v) * trainRes
		}
	}
	return mat.NewDense(s.rows, s.dims, train)
}

// TrainingSample returns the PCA-domain training sample the channel was
// trained on, so that comparison models (other gammas, PCA + Lloyd–Max)
// and derived rates (Model.Stepped) are fitted on exactly the same data.
// A model read from a file decodes it on first use.
func (c *Channel) TrainingSample() *mat.Dense {
	c.trainOnce.Do(func() {
		if c.sampleInts != nil {
			c.train, c.sampleInts = c.sampleInts.decode(), nil
		}
	})
	return c.train
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

// readAllSized is io.ReadAll of at most limit bytes, into a buffer of the
// reader's size when it tells it (a file, a bytes.Reader): growing the
// buffer of a 6 MB model by doubling cleared and copied twice its size.
func readAllSized(rd io.Reader, limit int64) ([]byte, error) {
	size := int64(-1)
	switch r := rd.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	case interface{ Len() int }:
		size = int64(r.Len())
	}
	if size < 0 || size >= limit {
		return io.ReadAll(io.LimitReader(rd, limit))
	}
	// One byte more than the size, so that a file that grew is read whole
	// (and a ReadFull of the size alone would miss it).
	b := make([]byte, 0, size+1)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			rest, err := io.ReadAll(io.LimitReader(rd, limit-int64(len(b))))
			if err != nil {
				return nil, err
			}
			return append(b, rest...), nil
		}
	}
}
