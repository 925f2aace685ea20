package classify

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/fileio"
	"github.com/spcalab/spca/spca"
)

// ModelMagic is the first 8 bytes of a classifier file, in the format
// (little-endian), version 1, 2, 3 or 4:
//
//	magic     [8]byte "SPCAknn\x00"
//	version   uint32
//	metric, k, classes, n, d uint32
//	values    classes float64 (the label values; 0, 1, ... if not set)
//	samples   n·d float64, row by row
//	labels    n uint32
//	models    uint32 count, then each: uint64 length, an SPCA model file
//	weights   version 2 only: d float64, the dimension weights
//	ratio     versions 3 and 4: float64, the tangent Ratio (finite, >= 1)
//	frame     version 4 only: d·d float64, SPCAFisher's Frame row by row (finite)
//	checksum  uint32 CRC-32C of everything before it
//
// A classifier file holds its training samples (k-NN has no other
// model) and, for the SPCA metrics, the SPCA models. Version 2 is
// written only for classifiers with dimension weights (SPCASelect), so
// the files of the other metrics are unchanged and older builds read
// them. Version 3 is written only for SPCATangent, and SPCATangent only
// in version 3; version 4 only for SPCAFisher, and SPCAFisher only in
// version 4.
const ModelMagic = "SPCAknn\x00"

// Magic is ModelMagic.
//
// Deprecated: use ModelMagic, the name the magic numbers of the model
// files of packages spca, codec and adapt have.
const Magic = ModelMagic

const (
	fileMagic   = ModelMagic
	fileVersion = 4
	maxSamples  = 1 << 24
	// maxFileBytes bounds a classifier file, as a codec model's.
	maxFileBytes = 1 << 30
)

// MaxDim is the largest dimension of the samples of a classifier. The
// SPCA metrics take at most 16, the dimension of an SPCA model.
const MaxDim = 1 << 12

// FormatError reports a file that is not a valid classifier.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "classify: invalid classifier file: " + e.Msg }

// DataError reports samples or labels the classifier cannot use: NaN or
// infinite values, samples of the wrong dimension, not one label per
// sample, a label out of range, a class too small for its SPCA model.
type DataError struct{ Msg string }

func (e *DataError) Error() string { return "classify: " + e.Msg }

// OptionError reports an invalid argument of Train or TrainSelect: k out
// of range, fewer than two classes, an unknown metric.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return "classify: " + e.Msg }

// WriteTo writes the classifier in the format of ModelMagic. Equal
// classifiers give identical bytes.
func (c *Classifier) WriteTo(w io.Writer) (int64, error) {
	n, d := c.x.Dims()
	b := []byte(fileMagic)
	u32 := func(v int) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	f64 := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	version := 1
	if c.Weights != nil {
		version = 2
	}
	switch c.Metric {
	case SPCATangent:
		version = 3
	case SPCAFisher:
		version = 4
	}
	u32(version)
	for _, v := range []int{int(c.Metric), c.K, c.classes, n, d} {
		u32(v)
	}
	for cl := range c.classes {
		v := float64(cl)
		if cl < len(c.Values) {
			v = c.Values[cl]
		}
		f64(v)
	}
	for i := range n {
		for _, v := range c.x.RawRowView(i) {
			f64(v)
		}
	}
	for _, l := range c.label {
		u32(l)
	}
	u32(len(c.Models))
	for _, m := range c.Models {
		var mb bytes.Buffer
		if _, err := m.WriteTo(&mb); err != nil {
			return 0, err
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(mb.Len()))
		b = append(b, mb.Bytes()...)
	}
	for _, v := range c.Weights {
		f64(v)
	}
	if version >= 3 {
		f64(c.Ratio)
	}
	if version == 4 {
		for j := range d {
			for k := range d {
				f64(c.Frame.At(j, k))
			}
		}
	}
	b = checksum.Append(b)
	k, err := w.Write(b)
	return int64(k), err
}

// Read reads a classifier written by WriteTo. A file that is not one,
// truncated, inconsistent or failing its checksum gives a *FormatError.
func Read(r io.Reader) (*Classifier, error) {
	// The magic number first: a file of another kind is refused before
	// the rest is read (/dev/zero as a classifier read until killed).
	head := make([]byte, len(fileMagic))
	if n, err := io.ReadFull(r, head); err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	} else if string(head[:n]) != fileMagic {
		return nil, &FormatError{"not a classifier (bad magic number)"}
	}
	data, err := readFile(r, head)
	if err != nil {
		return nil, err
	}
	if len(data) < len(fileMagic)+4+4 || string(data[:len(fileMagic)]) != fileMagic {
		return nil, &FormatError{"not a classifier (bad magic number)"}
	}
	if !checksum.Valid(data) {
		return nil, &FormatError{"checksum mismatch (corrupt or truncated file)"}
	}
	p := data[len(fileMagic) : len(data)-4]
	fail := func(format string, args ...any) (*Classifier, error) {
		return nil, &FormatError{fmt.Sprintf(format, args...)}
	}
	need := func(k int) bool { return k >= 0 && len(p) >= k }
	u32 := func() int { v := binary.LittleEndian.Uint32(p); p = p[4:]; return int(v) }
	f64 := func() float64 { v := binary.LittleEndian.Uint64(p); p = p[8:]; return math.Float64frombits(v) }
	if !need(24) {
		return fail("truncated header")
	}
	version := u32()
	if version < 1 || version > fileVersion {
		return fail("unsupported version %d (this build reads 1 to %d)", version, fileVersion)
	}
	metric, k, classes, n, d := Metric(u32()), u32(), u32(), u32(), u32()
	switch {
	case metric < Euclidean || metric > lastMetric:
		return fail("unknown metric %d", int(metric))
	case (metric == SPCATangent) != (version == 3):
		return fail("metric %v in a version %d file (%v is stored in version 3 only)", metric, version, SPCATangent)
	case (metric == SPCAFisher) != (version == 4):
		return fail("metric %v in a version %d file (%v is stored in version 4 only)", metric, version, SPCAFisher)
	case classes < 2 || classes > 1<<16:
		return fail("%d classes", classes)
	case n < 1 || n > maxSamples || d < 1 || d > MaxDim:
		return fail("%d samples of dimension %d", n, d)
	case k < 1 || k > n:
		return fail("k = %d for %d samples", k, n)
	case int64(len(p)) < fixedBytes(classes, n, d):
		return fail("truncated samples")
	}
	values := make([]float64, classes)
	for i := range values {
		values[i] = f64()
	}
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			v := f64()
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("sample %d is not finite", i+1)
			}
			x.Set(i, j, v)
		}
	}
	label := make([]int, n)
	for i := range label {
		if label[i] = u32(); label[i] >= classes {
			return fail("label %d of sample %d not below %d classes", label[i], i+1, classes)
		}
	}
	c, err := newClassifier(x, label, classes, metric, k)
	if err != nil {
		return fail("%v", err)
	}
	c.Values = values
	models := u32()
	if want := modelCount(metric, classes); models != want {
		return fail("%d SPCA models for metric %v, want %d", models, metric, modelCount(metric, classes))
	}
	for i := range models {
		if !need(8) {
			return fail("truncated model %d", i+1)
		}
		size := binary.LittleEndian.Uint64(p)
		p = p[8:]
		if size > uint64(len(p)) {
			return fail("truncated model %d", i+1)
		}
		m, err := spca.Read(bytes.NewReader(p[:size]))
		if err != nil {
			return fail("model %d: %v", i+1, err)
		}
		if m.Dim() != d {
			return fail("model %d has dimension %d, the samples %d", i+1, m.Dim(), d)
		}
		c.Models = append(c.Models, m)
		p = p[size:]
	}
	if version == 2 {
		if !need(8 * d) {
			return fail("truncated dimension weights")
		}
		c.Weights = make([]float64, d)
		for j := range c.Weights {
			if v := f64(); v >= 0 && v <= 1 {
				c.Weights[j] = v
			} else {
				return fail("dimension weight %d is %g, not in [0, 1]", j+1, v)
			}
		}
	}
	if version >= 3 {
		if !need(8) {
			return fail("truncated ratio")
		}
		if c.Ratio = f64(); !(c.Ratio >= 1) || math.IsInf(c.Ratio, 0) {
			return fail("ratio %g, want a finite value >= 1", c.Ratio)
		}
	}
	if version == 4 {
		if !need(8 * d * d) {
			return fail("truncated frame")
		}
		c.Frame = mat.NewDense(d, d, nil)
		for j := range d {
			for k := range d {
				v := f64()
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fail("frame value %d, %d is %g", j+1, k+1, v)
				}
				c.Frame.Set(j, k, v)
			}
		}
		if msg := frameShape(c.Frame); msg != "" {
			return fail("%s", msg)
		}
	}
	if len(p) != 0 {
		return fail("%d bytes after the models", len(p))
	}
	if msg := tangentSpan(c); msg != "" {
		return fail("%s", msg)
	}
	if err := c.build(); err != nil {
		return fail("%v", err)
	}
	return c, nil
}

// frameTol bounds the rounding of a frame's rows' norms and products:
// Train's eigenvectors are orthonormal to ~1e-15.
const frameTol = 1e-9

// frameShape returns why frame is not one fisherFrames makes, or "": its
// rows are orthogonal with norms at most 1, the largest 1 (the weights
// √((λ/λmax+s)/(1+s)) of orthonormal eigenvectors). Other frames were
// read, and then a frame of values 1e200 or 5e-324 refused every query
// ('its distance overflows'), and a frame of zeros gave every query the
// first class.
func frameShape(frame *mat.Dense) string {
	d, _ := frame.Dims()
	top := 0.0
	for j := range d {
		rj := frame.RawRowView(j)
		for k := range j + 1 {
			g := floats.Dot(rj, frame.RawRowView(k))
			switch {
			case k == j && !(g <= 1+frameTol):
				return fmt.Sprintf("frame row %d has a squared norm of %g, more than 1", j+1, g)
			case k < j && !(math.Abs(g) <= frameTol):
				return fmt.Sprintf("frame rows %d and %d are not orthogonal (product %g)", k+1, j+1, g)
			}
			if k == j {
				top = max(top, g)
			}
		}
	}
	if !(top >= 1-frameTol) {
		return fmt.Sprintf("the frame's largest row has a squared norm of %g, want 1", top)
	}
	return ""
}

// fixedBytes is the size of a classifier's label values, samples, labels
// and model count: int64, as 8·2^24·2^12 overflows a 32-bit int.
func fixedBytes(classes, n, d int) int64 {
	return 8*int64(classes) + 8*int64(n)*int64(d) + 4*int64(n) + 4
}

// readFile returns the bytes of the classifier file that starts with head
// (the magic number, read already) and goes on in r, read as far as its
// own fields say the file extends: header, samples, models, weights and
// checksum. The buffer grows as the data arrive, so that a header
// declaring more than the file holds costs what the file holds, and a
// stream that goes on past the end (/dev/zero after the magic number was
// read until killed) is refused there. A file that ends early is returned
// as read, for Read's checks to name what is missing.
func readFile(r io.Reader, head []byte) ([]byte, error) {
	b := head
	// take reads k more bytes; false if the file ended first.
	take := func(k int64) (bool, error) {
		if k > maxFileBytes-int64(len(b)) {
			return false, &FormatError{fmt.Sprintf("larger than %d MiB", maxFileBytes>>20)}
		}
		for k > 0 {
			step := int(min(k, 1<<20))
			at := len(b)
			b = slices.Grow(b, step)[:at+step]
			n, err := io.ReadFull(r, b[at:])
			b = b[:at+n]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			k -= int64(step)
		}
		return true, nil
	}
	u32 := func(at int) int { return int(binary.LittleEndian.Uint32(b[at:])) }
	if ok, err := take(24); !ok {
		return b, err
	}
	version, metric, classes, n, d := u32(8), Metric(u32(12)), u32(20), u32(24), u32(28)
	switch {
	case version < 1 || version > fileVersion:
		return nil, &FormatError{fmt.Sprintf("unsupported version %d (this build reads 1 to %d)", version, fileVersion)}
	case metric < Euclidean || metric > lastMetric:
		return nil, &FormatError{fmt.Sprintf("unknown metric %d", int(metric))}
	case classes < 2 || classes > 1<<16:
		return nil, &FormatError{fmt.Sprintf("%d classes", classes)}
	case n < 1 || n > maxSamples || d < 1 || d > MaxDim:
		return nil, &FormatError{fmt.Sprintf("%d samples of dimension %d", n, d)}
	}
	if ok, err := take(fixedBytes(classes, n, d)); !ok {
		return b, err
	}
	models := u32(len(b) - 4)
	if want := modelCount(metric, classes); models != want {
		return nil, &FormatError{fmt.Sprintf("%d SPCA models for metric %v, want %d", models, metric, want)}
	}
	for range models {
		if ok, err := take(8); !ok {
			return b, err
		}
		size := binary.LittleEndian.Uint64(b[len(b)-8:])
		if ok, err := take(int64(min(size, maxFileBytes+1))); !ok {
			return b, err
		}
	}
	switch version {
	case 2:
		if ok, err := take(8 * int64(d)); !ok {
			return b, err
		}
	case 3:
		if ok, err := take(8); !ok {
			return b, err
		}
	case 4:
		if ok, err := take(8 + 8*int64(d)*int64(d)); !ok {
			return b, err
		}
	}
	if ok, err := take(4); !ok {
		return b, err
	}
	var more [1]byte
	if n, _ := io.ReadFull(r, more[:]); n > 0 {
		return nil, &FormatError{"data after the end of the classifier"}
	}
	return b, nil
}

// modelCount is the number of SPCA models a classifier of the metric
// holds.
func modelCount(metric Metric, classes int) int {
	switch metric {
	case SPCA, SPCAUnfolded, SPCASelect:
		return 1
	case SPCAPerClass, SPCATangent, SPCAFisher:
		return classes
	}
	return 0
}

// Save writes the classifier to path atomically.
func (c *Classifier) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// Load reads a classifier file.
func Load(path string) (*Classifier, error) {
	return fileio.Read(path, Read)
}
