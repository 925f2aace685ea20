package codec

// encodeScratch holds the arrays the encoder makes per channel and image
// (outliers, end-cell shifts, the adaptive coder's state and the
// channel's stream) between images. Made afresh they took ~0.5 MB of new
// heap per 768×512 image, and a batch process that collects rarely
// (cmd/spca keeps its heap) touched each page of it for the first time:
// ~140 page faults per image at ~16 µs each on a virtual machine. A nil
// *encodeScratch stands for fresh arrays (see or).
type encodeScratch struct {
	at      []int   // patches of interest (endShifts, findOutliers)
	rows    []int32 // their index rows (indexRows)
	shifts  []int32 // endShifts
	flag    []bool  // findOutliers
	cand    []bool
	farInts []int32 // findOutliers' restFar tables
	levels  []float64
	outAt   []int32 // the outliers' at and vals
	vals    []int32
	rest    []uint8 // encodeAdaptive's rest flags, counts and listed dimensions
	counts  []int32
	listed  []int32
	centre  []int32 // encodeAdaptive's centre indices
	model   arModel
	bytes   []byte // appendOutliers' and appendShifts' unpacked streams
	body    []byte // the channel's stream
	file    []byte // the whole file (encodeVersion, first channel's scratch)
}

var encodeScratches = keptPool{New: func() any { return new(encodeScratch) }, keep: func(x any) bool {
	s := x.(*encodeScratch)
	return max(cap(s.at), cap(s.rows), cap(s.shifts), cap(s.flag), cap(s.cand), cap(s.farInts), cap(s.outAt), cap(s.vals),
		cap(s.rest), cap(s.counts), cap(s.bytes), cap(s.body), cap(s.file)) <= maxKeptValues
}}

// or returns sc, or a fresh scratch for sc nil.
func (sc *encodeScratch) or() *encodeScratch {
	if sc == nil {
		return new(encodeScratch)
	}
	return sc
}

// zeroed returns s resized to n values, all zero, reusing its array if
// large enough.
func zeroed[T any](s []T, n int) []T {
	s = resize(s, n)
	clear(s)
	return s
}
