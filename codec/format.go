package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/fse"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/patches"
	"gonum.org/v1/gonum/mat"
)

// hasOutliers reports whether files of version v hold outlier streams.
func hasOutliers(v int) bool {
	return v == formatVersionOutliers || v == formatVersionFlags || v == formatVersionStep || isAdaptive(v)
}

// hasFlags reports whether files of version v code the rest flag of
// every patch.
func hasFlags(v int) bool {
	return v == formatVersionFlags || v == formatVersionStep || isAdaptive(v)
}

// hasStep reports whether the header of files of version v ends with the
// quantiser step.
func hasStep(v int) bool { return v == formatVersionStep || isAdaptive(v) }

// isAdaptive reports whether files of version v code their indices with
// the adaptive arithmetic coder and name a deblocking filter (versions 5
// to 10).
func isAdaptive(v int) bool {
	return v == formatVersionAdaptive || v == formatVersionEdges || v == formatVersionCounts || v == formatVersionShifts ||
		hasLoopFilter(v)
}

// hasEdges reports whether files of version v predict the first index
// from the decoded neighbours (edgePredictor).
func hasEdges(v int) bool { return v >= formatVersionEdges && v <= formatVersionColourFilter }

// isCounted reports whether files of version v code the count of a
// patch's dimensions off their centre (see formatVersionCounts).
func isCounted(v int) bool {
	return v == formatVersionCounts || v == formatVersionShifts || hasLoopFilter(v)
}

// hasShifts reports whether files of version v hold end-cell shifts (see
// formatVersionShifts).
func hasShifts(v int) bool { return v == formatVersionShifts || hasLoopFilter(v) }

// hasLoopFilter reports whether the header of files of version v ends
// with a loop filter (see formatVersionFilter and
// formatVersionColourFilter).
func hasLoopFilter(v int) bool { return v == formatVersionFilter || v == formatVersionColourFilter }

// loopFilterShape reports the channels and bit depth of the images that
// files of version v hold where v has a loop filter: 8-bit grey for
// version 9, 8-bit colour (Y, Cb, Cr) for version 10.
func loopFilterShape(v int) (channels, depth int) {
	if v == formatVersionColourFilter {
		return 3, 8
	}
	return 1, 8
}

// Magic is the first bytes of an encoded image (.spc file).
const Magic = "SPCI"

const (
	formatVersion = 1
	// formatVersionOutliers is the version of files coded with a model
	// in the entropy-constrained mode before rest flags: each channel's
	// streams are followed by its outlier patches (see outliers). Such
	// files still decode.
	formatVersionOutliers = 2
	// formatVersionFlags is the version of files coded with a model in
	// the entropy-constrained mode: version 2 with the rest flag of
	// every patch coded before the symbol streams (see restFlags).
	formatVersionFlags = 3
	// formatVersionStep is version 3 coded at another quantiser step
	// than the model's (Options.Step, the encode-time rate knob): the
	// header ends with the step (float64), and the decoder derives the
	// quantisers of that step from the model (Model.Stepped).
	formatVersionStep = 4
	// maxDeblock is the strongest deblocking filter a file may ask for.
	maxDeblock = 8
	// formatVersionAdaptive is the version of files coded with a model
	// in the entropy-constrained mode since: the header ends with the
	// step as in version 4 (0: the model's own), and each channel's
	// indices are one stream of the adaptive binary arithmetic coder
	// (see encodeAdaptive) instead of FSE streams, followed by the
	// outlier streams. Versions 2–4 still decode.
	formatVersionAdaptive = 5
	// formatVersionEdges is version 5 with the first index of every patch
	// predicted from the decoded edges of its left and upper neighbours
	// (see edgePredictor), written for models whose channels all allow it
	// (edgePredictable: gamma 0 or no SPCA). Version 5 still decodes.
	formatVersionEdges = 6
	// formatVersionCounts is version 6 for the same models with the same
	// indices (so the same pixels), coded in fewer bits: a patch whose
	// rest flag is 1 codes how many of its dimensions from the flag's on
	// are off their centre (by the class of its neighbours' counts), and
	// its zero flags are coded in the context of how many remain instead
	// of how many came before; none are coded after the last
	// (encodeAdaptive). On Kodak kodim02-12 even in grey (8×8, gamma 0):
	// 3-7 % fewer bits than version 6 at steps 15-60. Versions 1–6 still
	// decode.
	formatVersionCounts = 7
	// formatVersionShifts is version 7 for the same models with, after
	// each channel's outlier streams, one more stream: a shift of the
	// first PCA coefficient, in steps, for every patch whose first SPCA
	// index is an end cell (see endShifts). The ends of the first
	// dimension's lattice bound what its cells reconstruct, so patches
	// darker or brighter than the training data missed by up to a step
	// there, or became outliers (a dark 768×512 crop: 1,007 end-cell
	// patches with 12 times the error of the others, 351 outliers).
	// Versions 1–7 still decode.
	formatVersionShifts = 8
	// formatVersionFilter is version 8 of an 8-bit grey image (one
	// channel) whose header ends with a loop filter the decoder runs
	// after the deblocking filter: 12 integer taps of a Wiener filter on
	// the 7×7 diamond the encoder fits to the image, or none (see
	// loopFilterGray). Crops of 8 held-out photographs: BD-rate against
	// cjpeg by PSNR −19.4 → −26 %. 16-bit images stay at version 8,
	// colour ones go to version 10.
	formatVersionFilter = 9
	// formatVersionColourFilter is version 9's loop filter for 8-bit
	// colour images (three channels, Y, Cb, Cr, whichever the chroma's
	// resolution): version 8 whose header ends with the same 13 bytes,
	// a filter of the luma. The decoder runs it after the luma's
	// deblocking filter, before the conversion to RGB, on the luma
	// rounded to 8 bits (patches.Quantize8), and moves each luma
	// sample by its pixel's change (the luma keeps its fraction:
	// loopFilterLuma); the encoder fits it to that error. Options.
	// NoLoopFilter writes version 8, byte for byte the files of earlier
	// encoders. Versions 1–9 still decode.
	formatVersionColourFilter = 10
	// lastFormatVersion is the newest version this build reads.
	lastFormatVersion = formatVersionColourFilter
	// maxPixels bounds the image size a decoder accepts.
	maxPixels = 1 << 28
	// maxFileBytes bounds what Decode reads.
	maxFileBytes = 1 << 31
)

func init() {
	image.RegisterFormat("spc", Magic, decodeRegistered, DecodeConfig)
}

// FormatError reports an encoded file that cannot be decoded: not an .spc
// file, another version, corrupt, truncated, hostile sizes, or encoded
// with another model (then it wraps ErrWrongModel).
type FormatError struct {
	Msg string
	Err error
}

func (e *FormatError) Error() string { return "codec: " + e.Msg }

// Unwrap returns the sentinel error, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// ErrWrongModel is wrapped by the FormatError of a file encoded with
// another model than the one given to Decode.
var ErrWrongModel = errors.New("codec: file encoded with another model")

// ErrNeedModel is returned, wrapped, by image.Decode for an .spc file
// whose model is not registered (RegisterModel): decoding needs the
// codec model the file was coded with.
var ErrNeedModel = errors.New("codec: decoding an .spc file needs its model (codec.Decode)")

// ErrStepTooSmall is matched (errors.Is) by the error of a quantiser
// step so small for the model that a dimension would need more cells
// than a file can code: the step's fault and the model's, not the
// image's.
var ErrStepTooSmall = errors.New("codec: quantiser step too small for the model")

// stepError is the message of a step too small, matching ErrStepTooSmall.
type stepError struct{ msg string }

func (e *stepError) Error() string        { return e.msg }
func (e *stepError) Is(target error) bool { return target == ErrStepTooSmall }

// Options control Encode. Nil means defaults.
type Options struct {
	// Exact computes every SPCA response with the exact forward transform
	// instead of the tabulated fast path.
	Exact bool
	// Assign selects how patches are assigned to cells: in the
	// fixed-resolution mode by default the nearest reconstruction, in the
	// entropy-constrained mode by default the neighbouring cell with the
	// best trade of error against bits (refineNearest);
	// AssignResponses keeps the cells of the SPCA responses. The
	// entropy-constrained refinement needs the inverse of the cells'
	// levels, which only a separable metric has (gamma 0, as the photo
	// models): with gamma > 0 both assignments code the same cells.
	Assign Assignment
	// Step, if > 0, codes at this quantiser step instead of the model's
	// (entropy-constrained models only): the rate knob of a trained
	// model, larger steps for fewer bits (see Model.Stepped and
	// StepForRate, which finds the step of a target rate). The file
	// records the step.
	Step float64
	// Deblock is the strength of the deblocking filter the file asks
	// the decoder to run across the patch edges (format version 5, the
	// entropy-constrained mode): 0 to let the encoder choose it (the
	// strength 0..8 with the smallest squared error on the image, found
	// by filtering its own reconstruction), negative for none, 1 to 8
	// (see deblockParams).
	Deblock int
	// NoLoopFilter asks for no loop filter: by default the encoder fits
	// one to each 8-bit image of a model that codes version 8 (gamma 0
	// or no SPCA) and keeps it where it lowers the squared error. A grey
	// image is then still a version-9 file (with its header's "none"),
	// a colour one a version-8 file as earlier encoders wrote, byte for
	// byte (version 10 adds the filter to colour files).
	NoLoopFilter bool
	// Effort is how much the encoder searches, MinEffort to MaxEffort;
	// 0 means DefaultEffort (MaxEffort), the full search and today's
	// files byte for byte. Level 2 takes the fast path's interpolated
	// SPCA unfolding without its Newton step (where a sample of the
	// image shows it close) and searches the deblocking strength and the
	// grey loop filter's gain on a subset of the rows; level 1 also
	// skips the refinement of the grey or luma cells and stops the rate
	// search (EncodeAtRate) within 5 %. Faster, the same format and
	// decoder, a little larger or worse files (README, "Encoder
	// effort").
	Effort int
}

// Assignment is the way Encode assigns patches to the cells of the
// fixed-resolution mode. Files decode the same way whichever was used.
type Assignment int

const (
	// AssignNearest codes each patch with the cell whose reconstruction
	// (the inverse transform of the cell's centre) is nearest to it,
	// found by a descent from the cell its SPCA responses fall in. It
	// needs the model's codebook (at most 2²⁰ cells of the leading
	// dimensions) and falls back to AssignResponses without one.
	AssignNearest Assignment = iota
	// AssignResponses codes each patch with the cell its SPCA responses
	// fall in: uniform quantisation of the responses, the seed's encoder.
	AssignResponses
)

// String returns "nearest" or "responses".
func (a Assignment) String() string {
	switch a {
	case AssignNearest:
		return "nearest"
	case AssignResponses:
		return "responses"
	}
	return fmt.Sprintf("Assignment(%d)", int(a))
}

// indexBuffers keeps the index buffers of decoded channels for reuse:
// fromSymbols writes every index, so a reused buffer needs no clearing,
// and clearing a fresh one was a third of the memory a decode wrote
// before decoding anything. It is a keptPool taken from by size
// (getFit): as a sync.Pool it handed the luma channel of a colour image
// a chroma channel's buffer, a quarter of the size, which was dropped for
// a fresh one (and the collector emptied it).
var indexBuffers = keptPool{New: func() any { return new([]int32) }, keep: func(x any) bool { return cap(*x.(*[]int32)) <= maxKeptValues }}

func getIndices(n int) []int32 {
	if b := *indexBuffers.getFit(n, func(x any) int { return cap(*x.(*[]int32)) }).(*[]int32); cap(b) >= n {
		return b[:n]
	}
	if s := takeSpareInt32(n); s != nil {
		return s // a process's first image: its callers write every index
	}
	return make([]int32, n)
}

func putIndices(b []int32) { indexBuffers.Put(&b) }

// Header is the header of an .spc file: what it holds and which model
// decodes it, readable without that model (DecodeHeader).
type Header struct {
	// Version is the format version: 1 for files coded with a model in
	// the fixed-resolution mode; in the entropy-constrained mode 9 for
	// 8-bit grey images, 10 for 8-bit colour ones (8 with
	// Options.NoLoopFilter) and 8 for the others (16 bits) of models
	// with gamma 0 or without SPCA, 5 for the other models (2–4, 6 and 7
	// written by earlier encoders; every version decodes).
	Version int
	// Model is the ID of the codec model the file was coded with
	// (Model.ID); Decode needs that model.
	Model         ModelID
	Width, Height int
	Channels      int // 1 (luma) or 3 (YCbCr)
	Depth         int // bits per sample of the decoded image: 8 or 16
	Patch         int // patch size n
	// Bins holds, per channel, the number of quantisation bins of each
	// of the n² coefficients.
	Bins [][]int
	// Step is the quantiser step the file was coded at, if not the
	// model's (versions 4 and 5), else 0.
	Step float64
	// Deblock is the strength of the deblocking filter the decoder runs
	// across the patch edges (version 5; 0: none).
	Deblock int
	// LoopFilter holds the taps, in 1/128, of the loop filter the
	// decoder runs after the deblocking filter (versions 9 and 10, on
	// the luma; nil: none; see loopFilterGray).
	LoopFilter []int
}

// fixedHeaderBytes is the size of the header up to the bins.
const fixedHeaderBytes = len(Magic) + 1 + 32 + 4 + 4 + 3

// Encode writes img coded with the model m to w. Grayscale models code
// the luminance of colour images; colour models code Y, Cb and Cr. The
// bit depth (8 or 16) of img is recorded and restored by Decode.
func Encode(w io.Writer, img image.Image, m *Model, o *Options) error {
	return encodeVersion(w, img, m, o, optionsFormat(img, m, o))
}

// encodeFormat is the format version Encode writes img in with model m
// by default (with the loop filter where there is one).
func encodeFormat(img image.Image, m *Model) int {
	v := formatVersion
	if m.Step > 0 {
		v = adaptiveVersion(m)
	}
	if v == formatVersionShifts && depthOf(img) == 8 {
		v = formatVersionFilter
		if m.Color {
			v = formatVersionColourFilter
		}
	}
	return v
}

// optionsFormat is the format version Encode writes img in with model m
// and options o: encodeFormat's, but version 8 for a colour image
// without a loop filter, the file earlier encoders wrote (a grey one
// stays version 9 with no filter, as it was since version 9).
func optionsFormat(img image.Image, m *Model, o *Options) int {
	v := encodeFormat(img, m)
	if v == formatVersionColourFilter && o != nil && o.NoLoopFilter {
		v = formatVersionShifts
	}
	return v
}

// adaptiveVersion is the format version Encode writes for a model in the
// entropy-constrained mode: 7 if every channel's first indices can be
// predicted from pixels (edgePredictable), else 5.
func adaptiveVersion(m *Model) int {
	for _, c := range m.Channels {
		if !c.edgePredictable() {
			return formatVersionAdaptive
		}
	}
	return formatVersionShifts
}

// encodeVersion is Encode writing the layout of format version v, which
// must suit the model (tests write the layouts older decoders read).
func encodeVersion(w io.Writer, img image.Image, m *Model, o *Options, v int) error {
	return encodeInputVersion(w, img, m, o, v, nil)
}

// encodeInputVersion is encodeVersion coding in, img made ready for m's
// channels (encodeInput.prepare) by an earlier encode of the same image,
// if not nil and prepared: the probes of a rate search share its planes
// and, with in.share, the channels' step-free transforms.
func encodeInputVersion(w io.Writer, img image.Image, m *Model, o *Options, v int, in *encodeInput) error {
	if o == nil {
		o = &Options{}
	}
	if o.Assign != AssignNearest && o.Assign != AssignResponses {
		return fmt.Errorf("codec: unknown %v", o.Assign)
	}
	plan, err := planOf(o.Effort)
	if err != nil {
		return err
	}
	if hasEdges(v) && (m.Step == 0 || adaptiveVersion(m) != formatVersionShifts) {
		return fmt.Errorf("codec: format version %d needs a model in the entropy-constrained mode with gamma 0", v)
	}
	if !o.Exact { // the fast path, inflated here from a sectioned file
		for _, c := range m.Channels {
			if _, err := c.loadFast(); err != nil {
				return err
			}
		}
	}
	id, step := m.ID(), 0.0
	if o.Step != 0 && o.Step != m.Step {
		if m.Step == 0 {
			return fmt.Errorf("codec: a quantiser step needs a model in the entropy-constrained mode (TrainOptions.Step or Uniform; spca codec train --step or --uniform)")
		}
		mm, err := m.Stepped(o.Step)
		if err != nil {
			return err
		}
		m, step = mm, o.Step
		if !isAdaptive(v) {
			v = formatVersionStep
		}
	}
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 || int64(b.Dx())*int64(b.Dy()) > maxPixels {
		return fmt.Errorf("codec: cannot encode a %d×%d image", b.Dx(), b.Dy())
	}
	if in == nil {
		in = new(encodeInput)
		defer in.release()
	}
	if in.planes == nil {
		in.prepare(img, m)
	}
	planes, orig8, gray8 := in.planes, in.orig8, in.gray8
	hd := Header{Version: v, Model: id, Step: step, Width: b.Dx(), Height: b.Dy(), Channels: len(planes), Depth: depthOf(img), Patch: m.Patch}
	if isAdaptive(v) {
		switch {
		case o.Deblock > maxDeblock:
			return fmt.Errorf("codec: deblocking strength %d out of range (at most %d)", o.Deblock, maxDeblock)
		case o.Deblock > 0:
			hd.Deblock = o.Deblock
		}
	}
	// The channels code concurrently (each in parallel inside, but with
	// steps that use one core) and their streams follow in order.
	bodies := make([][]byte, len(planes))
	auto := isAdaptive(v) && o.Deblock == 0
	var sse []deblockSearch // per channel
	if auto {
		sse = make([]deblockSearch, len(planes))
	}
	recBufs := recBuffers.Get().(*[3][]float64)
	defer recBuffers.Put(recBufs)
	// Version 9 fits its loop filter to the 8-bit reconstruction of its
	// one channel, deblocked (loopRec, in the scratch loopScratch);
	// version 10 to the reconstruction of the luma (lumaRec).
	fitLoop := hasLoopFilter(v) && !o.NoLoopFilter
	if hasLoopFilter(v) {
		switch ch, depth := loopFilterShape(v); {
		case ch == 1 && (len(planes) != 1 || hd.Depth != depth):
			return fmt.Errorf("codec: format version %d needs an 8-bit grey image and a grey model", v)
		case len(planes) != ch || hd.Depth != depth:
			return fmt.Errorf("codec: format version %d needs an 8-bit image and a colour model", v)
		}
	}
	var loopRec *image.Gray
	var lumaRec patches.Plane
	var loopScratch *deblockScratch
	// Each channel's arrays, its stream included, until the file is out.
	scs := make([]*encodeScratch, len(planes))
	for ci := range scs {
		scs[ci] = encodeScratches.Get().(*encodeScratch)
	}
	defer func() {
		// Last channel first: the next image's channels then take them
		// back in order (a LIFO pool), each its own, where the luma's
		// arrays went to the last chroma channel and each image regrew
		// some (indexRows: 1.6 MB of a colour batch's later images).
		for _, sc := range slices.Backward(scs) {
			encodeScratches.Put(sc)
		}
	}()
	if in.keep && in.last == nil {
		in.last = make([]*codedChannel, len(planes))
		for ci := range in.last {
			in.last[ci] = new(codedChannel)
		}
	}
	// The channels' responses and indices (quantizeSamples), handed back
	// when the file is out: a colour channel's reconstruction is written
	// over its responses, dead by then (see below), which the strength's
	// choice after the channels may still read (deblockSearch.exact).
	owned := make([]planeBuffer, len(planes))
	defer func() {
		for _, b := range owned {
			if b.y != nil {
				planeBuffers.Put(&b)
			}
		}
	}()
	var reused atomic.Int32
	var wg sync.WaitGroup
	for ci, p := range planes {
		c := m.Channels[ci]
		hd.Bins = append(hd.Bins, c.Bins)
		sc := scs[ci]
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			var idx []int32
			var grid patches.Grid
			var out *outliers
			var edges *edgePredictor
			var recInto []float64 // the responses' buffer, free for the reconstruction
			if kc := in.keptFor(ci, o.Step); kc != nil {
				// EncodeAtRate's final encode at a probe's step: the
				// probe's stream, indices and outliers.
				bodies[ci], idx, grid, out = kc.body, kc.idx, kc.grid, kc.out
				reused.Add(1)
			} else {
				var y *mat.Dense
				var slow []int
				if nearest := o.Assign == AssignNearest && m.Step == 0; in.share && !nearest {
					// The probes of a rate search: the first transforms,
					// each quantises at its step.
					if in.chans[ci] == nil {
						in.chans[ci] = c.transformSamples(p, gray8, m.Patch, o.Exact, plan.newton)
					}
					t := in.chans[ci]
					y, idx, grid, slow = t.y, c.quantize(t), t.grid, t.slow
				} else {
					y, idx, grid, slow = c.quantizeSamples(p, gray8, m.Patch, o.Exact, o.Assign == AssignNearest && m.Step == 0, plan.newton)
					owned[ci] = planeBuffer{y: y.RawMatrix().Data, idx: idx}
					// Nothing reads y after findOutliers below (the
					// outliers hold cells, not responses): the colour
					// reconstruction goes into its buffer, of as many
					// values (a patch's responses for its samples), where
					// a buffer of recBuffers was 4.7 MB more of fresh
					// memory in a process's first 768×512 image.
					recInto = owned[ci].y
				}
				if m.Step > 0 && o.Assign == AssignNearest && (ci == 0 && plan.refine || ci > 0 && plan.refineChroma) {
					c.refineNearest(y, idx, m.Step)
				}
				if m.Step > 0 {
					var shifts []int32
					if hasShifts(v) {
						shifts = c.endShifts(y, idx, m.Step, sc)
					}
					out = c.findOutliers(y, idx, m.Step, slow, shifts, sc)
				}
				if isAdaptive(v) {
					if hasEdges(v) {
						// Reused across images, as a decoder does; its
						// tracked cells serve the reconstruction below.
						edges = c.takeEdgePredictor(grid.Blocks(), grid.Cols())
						defer c.putEdgePredictor(edges)
					}
					bodies[ci] = encodeAdaptive(sc.body[:0], idx, c.Dims(), grid.Cols(), c.Centre, c.Leading(), true, isCounted(v), edges, sc)
				} else {
					bodies[ci] = packStreams(nil, toSymbols(idx, c.Dims(), grid.Cols(), c.Centre, c.Leading(), hasFlags(v)))
				}
				if out != nil && hasOutliers(v) {
					bodies[ci] = appendOutliers(bodies[ci], out, sc)
				}
				if hasShifts(v) {
					bodies[ci] = appendShifts(bodies[ci], c, idx, out, sc)
				}
				sc.body = bodies[ci]
				if in.keep {
					in.last[ci].set(bodies[ci], idx, out, grid)
				}
			}
			if auto || (fitLoop && ci == 0) {
				lead, ok := edges.leadCells()
				if !ok {
					lead = c.leadRows(idx, grid.Blocks())
				}
				if len(planes) == 1 && hd.Depth == 8 {
					// The decoder's 8-bit reconstruction itself (a
					// float64 plane took the process 3 MB more).
					sc := deblockScratches.Get().(*deblockScratch)
					rec := c.reconstructGrayInto(sc.rec, idx, lead, grid, false, out, recInto).(*image.Gray)
					if auto {
						if orig8 != nil {
							sse[ci] = exactDeblock(deblockErrorsGray8(orig8, rec, m.Step, m.Patch, plan.deblockEvery))
						} else {
							sse[ci] = exactDeblock(deblockErrorsGray(p, rec, m.Step, m.Patch))
						}
					}
					sc.rec = rec.Pix
					if fitLoop {
						loopRec, loopScratch = rec, sc
					} else {
						deblockScratches.Put(sc)
					}
				} else {
					// In the responses' buffer, else in one of
					// recBuffers, given back once the strength is chosen
					// (its search may need it).
					buf := recInto
					if buf == nil {
						buf = recBufs[ci]
					}
					rec := c.reconstructPlaneInto(buf, idx, lead, grid, out, nil)
					if recInto == nil {
						recBufs[ci] = rec.Pix
					}
					if auto {
						sse[ci] = searchDeblockFloat(p, rec, m.Step, m.Patch, plan.deblockEvery)
					}
					if fitLoop && ci == 0 {
						lumaRec = rec
					}
				}
			}
		})
	}
	wg.Wait()
	in.reused += int(reused.Load())
	if auto {
		if deblockChoiceHook != nil {
			deblockChoiceHook(sse)
		}
		hd.Deblock, _ = chooseDeblock(sse)
	}
	if loopRec != nil {
		var errs []float64 // the search's, where exact, of orig8 and over every row
		if auto && orig8 != nil && sse[0].bound == nil && plan.deblockEvery == 1 {
			errs = sse[0].errs
		}
		hd.LoopFilter = chooseLoopFilter(planes[0].Pix, orig8, loopRec, hd.Deblock, m.Step, m.Patch, plan.gainEvery, errs)
		deblockScratches.Put(loopScratch)
	}
	if lumaRec.Pix != nil {
		// Its buffer is dead once the strength is chosen (the search's
		// exact errors read it until then): deblocked in place.
		hd.LoopFilter = chooseLumaLoopFilter(planes[0], lumaRec, hd.Deblock, m.Step, m.Patch)
	}
	out := hd.appendTo(scs[0].file[:0])
	in.header = len(out)
	for _, b := range bodies {
		out = append(out, b...)
	}
	out = checksum.Append(out)
	scs[0].file = out
	_, err = w.Write(out)
	return err
}

// deblockChoiceHook, nil outside tests, sees the channels' deblocking
// searches just before the strength is chosen, when the choice may still
// read their reconstructions (TestRecOverResponses: none may be in a
// pool by then).
var deblockChoiceHook func([]deblockSearch)

// grayPixels returns the pixels of img, row after row, where it is an
// *image.Gray whose rows follow each other in memory; else nil.
func grayPixels(img image.Image) []uint8 {
	g, ok := img.(*image.Gray)
	if !ok {
		return nil
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if g.Stride != w || w <= 0 || h <= 0 {
		return nil
	}
	return g.Pix[g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y):][:w*h]
}

// quantizePlane cuts a plane into patches and returns their PCA
// coefficients and indices, and the patches that took the exact SPCA
// transform; with nearest, the indices of the cells with the nearest
// reconstructions where the channel has a codebook (moveToNearest).
func (c *Channel) quantizePlane(p patches.Plane, n int, exact, nearest bool) (y *mat.Dense, idx []int32, grid patches.Grid, slow []int) {
	return c.quantizeSamples(p, nil, n, exact, nearest, true)
}

// quantizeSamples is quantizePlane reading the samples from g where not
// nil (p is then only g's size: Luminance(g), which it stands for, gives
// the same responses), with the fast path's Newton step where newton
// (quantizeFastWith).
func (c *Channel) quantizeSamples(p patches.Plane, g *image.Gray, n int, exact, nearest, newton bool) (y *mat.Dense, idx []int32, grid patches.Grid, slow []int) {
	buf := takePlaneBuffer(p, n)
	if need := patches.NewGrid(p.W, p.H, n).Blocks() * n * n; cap(buf.y) < need {
		// A process's first image: the projection writes every response.
		if s := takeSpare(need); s != nil {
			buf.y = s
		}
	}
	if g != nil {
		y, grid = c.PCA.ProjectGrayTo(buf.y, g, n)
	} else {
		y, grid = c.PCA.ProjectTo(buf.y, p, n)
	}
	rows, dims := y.Dims()
	idx = buf.idx
	if cap(idx) < rows*dims {
		if idx = takeSpareInt32(rows * dims); idx == nil {
			idx = make([]int32, rows*dims)
		}
	}
	// Not cleared: every path writes every index (TestQuantizeEveryIndex);
	// clearing 2.3 MB an image was 0.5 % of a colour batch encode.
	idx = idx[:rows*dims]
	switch {
	case exact:
		c.quantizeExact(y, idx)
		slow = allRows(rows)
		if nearest {
			c.moveToNearest(y, idx)
		}
	case nearest:
		slow = c.quantizeNearest(y, idx)
	default:
		slow = c.quantizeFastWith(y, idx, newton)
	}
	return y, idx, grid, slow
}

// planeBuffer holds a plane's PCA responses and indices (quantizePlane's
// y and idx) between the images an encoder codes: each is megabytes, and
// fresh ones cost the page faults and the zeroing again per image.
type planeBuffer struct {
	y   []float64
	idx []int32
}

// takePlaneBuffer returns the kept planeBuffer whose responses fit the
// n×n patches of p most closely (keptPool.getFit): the channels of a
// colour image take theirs at once, and the last one kept (Get) was often
// a chroma channel's for the luma, which then made new ones (5-15 MB of
// fresh memory in the first images of a colour batch).
func takePlaneBuffer(p patches.Plane, n int) *planeBuffer {
	need := patches.NewGrid(p.W, p.H, n).Blocks() * n * n
	return planeBuffers.getFit(need, func(x any) int { return cap(x.(*planeBuffer).y) }).(*planeBuffer)
}

var planeBuffers = keptPool{New: func() any { return new(planeBuffer) }, keep: func(x any) bool {
	b := x.(*planeBuffer)
	return cap(b.y) <= maxKeptValues && cap(b.idx) <= maxKeptValues
}}

// keptPool is a sync.Pool for an encoder's per-image buffers that the
// collector does not empty: in a batch, sync.Pool lost them at most
// collections, and the next image faulted and zeroed them again (perf of
// a CLI batch encode, 8x8: page zeroing ~9 % of its CPU). It keeps at
// most maxKept values, those keep accepts (not the buffers of huge
// images), for as long as the process lives or until ReleaseBuffers.
type keptPool struct {
	mu   sync.Mutex
	kept []any
	New  func() any
	keep func(any) bool
}

// maxKept covers the channels of one colour encode and a second encode.
const maxKept = 6

// maxKeptValues caps a kept buffer (float64s or int32s): 32 MB of float64,
// patches of images of 4 Mpixels.
const maxKeptValues = 1 << 22

func (p *keptPool) Get() any {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.kept); n > 0 {
		x := p.kept[n-1]
		p.kept[n-1] = nil
		p.kept = p.kept[:n-1]
		return x
	}
	return p.New()
}

func (p *keptPool) Put(x any) {
	if p.keep != nil && !p.keep(x) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.kept) < maxKept {
		p.kept = append(p.kept, x)
	}
}

// colourBuffers holds the Y, Cb and Cr samples of a colour image being
// encoded, and recBuffers the reconstruction of each channel (of colour
// and 16-bit images) that the deblocking search reads, or the decoded
// planes of a colour image, for the next image to reuse: fresh, they
// were 6-14 MB of new memory per 768×512 image of a colour batch (perf:
// clearing them 26 % of its CPU).
var colourBuffers, recBuffers = newPlanesPool(), newPlanesPool()

func newPlanesPool() keptPool {
	return keptPool{New: func() any { return new([3][]float64) }, keep: func(x any) bool {
		for _, b := range x.(*[3][]float64) {
			if cap(b) > maxKeptValues {
				return false
			}
		}
		return true
	}}
}

// lumaBuffers holds the luma samples of a grey image being encoded
// between images (encodeVersion).
var lumaBuffers = keptPool{New: func() any { return new([]float64) }, keep: func(x any) bool { return cap(*x.(*[]float64)) <= maxKeptValues }}

// releasePlane hands quantizePlane's y and idx back for the next image;
// neither may be used after.
func releasePlane(y *mat.Dense, idx []int32) {
	if y == nil {
		return
	}
	planeBuffers.Put(&planeBuffer{y: y.RawMatrix().Data, idx: idx})
}

// reconstructGray writes the decoded luma of the indices straight into an
// 8- or 16-bit grayscale image: leading coefficients from lead (the
// indices' leadRows), inverse PCA and rounding fused, in parallel over
// rows of blocks.
func (c *Channel) reconstructGray(idx []int32, lead leadCells, grid patches.Grid, sixteen bool, out *outliers) image.Image {
	return c.reconstructGrayInto(nil, idx, lead, grid, sixteen, out, nil)
}

// reconstructGrayInto is reconstructGray writing an 8-bit image into
// pix8 where it is large enough (every pixel is set: pix8 need not be
// cleared), as the encoder's search of the deblocking strength does with
// a buffer it keeps between images.
func (c *Channel) reconstructGrayInto(pix8 []uint8, idx []int32, lead leadCells, grid patches.Grid, sixteen bool, out *outliers, lent []float64) image.Image {
	n, dims, k := grid.N, c.Dims(), c.Leading()
	w, h := grid.W, grid.H
	var g8 *image.Gray
	var g16 *image.Gray16
	switch {
	case sixteen:
		g16 = image.NewGray16(image.Rect(0, 0, w, h))
	case cap(pix8) >= w*h:
		g8 = &image.Gray{Pix: pix8[:w*h], Stride: w, Rect: image.Rect(0, 0, w, h)}
	default:
		g8 = image.NewGray(image.Rect(0, 0, w, h))
	}
	cols := grid.Cols()
	if k == dims && lead.fromBook && (out == nil || out.n == 0 && out.shifted == 0) {
		// SPCA codes every coefficient and the codebook holds every
		// cell, so each cell decodes to fixed pixels: look them up
		// instead of multiplying by the basis.
		basis := mat.DenseCopyOf(c.PCA.Basis).RawMatrix().Data // dims×dims, row p = pixel p
		pix8, pix16 := c.pixelBook(lead.rows, basis, sixteen)
		parallel.For(grid.Rows(), func(by int) {
			for r := 0; r < n && by*n+r < h; r++ {
				py := by*n + r
				for bx := 0; bx < cols; bx++ {
					src := int(lead.ref[by*cols+bx])*dims + r*n
					for cx := 0; cx < n && bx*n+cx < w; cx++ {
						px := bx*n + cx
						if sixteen {
							q := pix16[src+cx]
							o := py*g16.Stride + 2*px
							g16.Pix[o], g16.Pix[o+1] = uint8(q>>8), uint8(q)
						} else {
							g8.Pix[py*g8.Stride+px] = pix8[src+cx]
						}
					}
				}
			}
		})
	} else {
		c.eachPatch(idx, lead, grid, out, lent, g8, nil, nil, func(by, bx int, pix []float64) {
			if !sixteen && (bx+1)*n <= w && (by+1)*n <= h &&
				quantize8Kernel(g8.Pix[by*n*g8.Stride+bx*n:], g8.Stride, pix[:n*n], n) {
				return
			}
			for r := 0; r < n && by*n+r < h; r++ {
				py := by*n + r
				x0, x1 := bx*n, min(bx*n+n, w)
				src := pix[r*n : r*n+x1-x0]
				if sixteen {
					dst := g16.Pix[py*g16.Stride+2*x0:]
					for cx, v := range src {
						q := patches.Quantize16(v)
						dst[2*cx], dst[2*cx+1] = uint8(q>>8), uint8(q)
					}
					continue
				}
				dst := g8.Pix[py*g8.Stride+x0:][:len(src)]
				for cx, v := range src {
					dst[cx] = patches.Quantize8(v)
				}
			}
		})
	}
	if sixteen {
		return g16
	}
	return g8
}

// pixel returns pixel p of the patch whose PCA coefficients are y.
func (c *Channel) pixel(p int, y, basis []float64) float64 {
	dims := len(y)
	v := c.PCA.Mean[p]
	row := basis[p*dims : (p+1)*dims]
	for j, yj := range y {
		v += float64(row[j] * yj) // rounded product: no FMA, same pixels on every GOARCH
	}
	return v
}

// pixelWeights returns the PCA basis transposed (dims×dims, row j = the
// weights of coefficient j over the pixels), for pixels: the products of
// one coefficient are then contiguous. It is computed once per channel
// (32 KB for 8×8 patches, which every decode took afresh).
func (c *Channel) pixelWeights() []float64 {
	c.wOnce.Do(func() {
		var t mat.Dense
		t.CloneFrom(c.PCA.Basis.T())
		c.weights = t.RawMatrix().Data
	})
	return c.weights
}

// pixels writes every pixel of the patch whose PCA coefficients are y
// into pix, each summed exactly as pixel sums it (the same products added
// in the same order) but skipping the coefficients that are exactly 0:
// adding a zero product changes no sum, and a dead-zone quantiser
// reconstructs most high coefficients at exactly 0 (DeadZone).
// weights is pixelWeights; nz is scratch of len(y).
func (c *Channel) pixels(pix, y, weights []float64, nz []int) {
	c.pixelsFrom(pix, c.PCA.Mean[:len(pix)], y, 0, weights, nz)
}

// pixelsFrom is pixels continuing the sums start (one per pixel) with
// coefficients from, from+1, ... (y holds them): the sums of pixels with
// the first coefficients taken in start. Eight pixels go at once, each
// sum a chain of its own held in a register. Every product is rounded
// (float64(w*y)) before it is added: the Go spec lets a compiler fuse
// x*y+z into one FMA (arm64, ppc64le, s390x, riscv64, amd64 with
// GOAMD64=v3 do), which would give other pixels than amd64's.
func (c *Channel) pixelsFrom(pix, start, y []float64, from int, weights []float64, nz []int) {
	dims := len(pix)
	if pixels16Kernel(pix, start, weights[from*dims:], y) || pixels64Kernel(pix, start, weights[from*dims:], y) {
		return
	}
	nz = nz[:len(y)]
	n, done := nonzeroKernel(y, nz)
	for j := done; j < len(y); j++ {
		// Stored always, kept if nonzero: counted rather than
		// appended.
		nz[n] = j
		if y[j] != 0 {
			n++
		}
	}
	nz = nz[:n]
	w0 := weights[from*dims:]
	if pixelsKernel(pix, start, w0, y, nz) {
		return
	}
	pixelsFromGo(pix, start, y, w0, nz)
}

// pixelsFromGo is pixelsFrom's sums in Go (pixelsKernel's where it does
// not apply), over the nonzero coefficients nz of y; w0 holds the weights
// of y[0] on.
func pixelsFromGo(pix, start, y, w0 []float64, nz []int) {
	dims := len(pix)
	p := 0
	for ; p+8 <= dims; p += 8 {
		m := start[p : p+8 : p+8]
		a0, a1, a2, a3, a4, a5, a6, a7 := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
		for _, j := range nz {
			yj := y[j]
			w := w0[j*dims+p : j*dims+p+8 : j*dims+p+8]
			a0 += float64(w[0] * yj)
			a1 += float64(w[1] * yj)
			a2 += float64(w[2] * yj)
			a3 += float64(w[3] * yj)
			a4 += float64(w[4] * yj)
			a5 += float64(w[5] * yj)
			a6 += float64(w[6] * yj)
			a7 += float64(w[7] * yj)
		}
		o := pix[p : p+8 : p+8]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for ; p < dims; p++ {
		v := start[p]
		for _, j := range nz {
			v += float64(w0[j*dims+p] * y[j])
		}
		pix[p] = v
	}
}

// leadPixels returns, for each row of leading coefficients (k values),
// the sums of its patch's pixels over those coefficients, dims per row:
// what pixels adds first, for pixelsFrom to continue. A new buffer has
// room for most rows (the most eachPatch takes for images of the size).
//
// Where lent has room for them, the sums go into it instead (the caller's
// buffer, dead for the while: not to be handed to putFloats).
func (c *Channel) leadPixels(rows, weights []float64, most int, lent []float64) []float64 {
	k, dims := c.Leading(), c.Dims()
	count := len(rows) / k
	var out []float64
	if cap(lent) >= count*dims {
		out = lent[:0]
	} else if out = takeFloats(count * dims); cap(out) < count*dims {
		putFloats(out) // the largest kept, too small: for another channel
		// The next images of the size then fit, where each that had
		// more rows than the last took a new buffer (megabytes of page
		// clearing: ~3 % of a batch decode, 8×8, 768×512).
		n := max(count, min(maxKeptValues/dims, most)) * dims
		if out = takeSpare(n); out == nil { // a first image's, where it fits
			out = make([]float64, count*dims, n)
		}
	}
	out = out[:count*dims]
	const block = 1024
	parallel.For((count+block-1)/block, func(b int) {
		nz := make([]int, k)
		for r := b * block; r < min(count, (b+1)*block); r++ {
			c.pixels(out[r*dims:(r+1)*dims], rows[r*k:(r+1)*k], weights, nz)
		}
	})
	return out
}

// floatBuffers holds buffers of leadPixels for the next decode to reuse
// (see takeFloats): in a batch of 768×512 images each took 0.2-1.6 MB of
// fresh memory, page faults included. It is a keptPool: a sync.Pool
// missed the buffer handed back on the other processor (its private
// slot), and a second 1.5 MB one was made and cleared, page by fresh
// page (a batch encode, 8×8: ~2.4 % of its CPU cleared those pages).
var floatBuffers = keptPool{New: func() any { return new([]float64) }, keep: func(x any) bool { return cap(*x.(*[]float64)) <= maxKeptValues }}

// takeFloats returns a buffer of floatBuffers (length 0): the smallest
// kept one of at least n values, else the largest. The channels of a
// colour image take buffers of different sizes at once: the last kept one
// (keptPool.Get) was often a chroma channel's for the luma's, which then
// took a new one (fresh pages: ~1.5 % of a colour batch decode).
func takeFloats(n int) []float64 {
	return (*floatBuffers.getFit(n, func(x any) int { return cap(*x.(*[]float64)) }).(*[]float64))[:0]
}

// getFit is Get of the kept value whose size is the smallest of at
// least n, else the largest.
func (p *keptPool) getFit(n int, size func(any) int) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, x := range p.kept {
		if best < 0 {
			best = i
			continue
		}
		s, b := size(x), size(p.kept[best])
		if s >= n && (b < n || s < b) || s < n && b < n && s > b {
			best = i
		}
	}
	if best < 0 {
		return p.New()
	}
	x, last := p.kept[best], len(p.kept)-1
	p.kept[best], p.kept[last] = p.kept[last], nil
	p.kept = p.kept[:last]
	return x
}

// putFloats hands b back to floatBuffers; nothing may use it after.
func putFloats(b []float64) {
	if cap(b) > 0 {
		floatBuffers.Put(&b)
	}
}

// pixelBook returns the decoded pixels of every codebook cell at 8 or 16
// bits (the other slice is nil), computed once per depth. It is only used
// when every coefficient is leading, so a cell fixes the whole patch.
func (c *Channel) pixelBook(book, basis []float64, sixteen bool) ([]uint8, []uint16) {
	d := 0
	if sixteen {
		d = 1
	}
	c.pixOnce[d].Do(func() {
		dims := c.Dims()
		cells := len(book) / dims
		if sixteen {
			c.pix16 = make([]uint16, len(book))
		} else {
			c.pix8 = make([]uint8, len(book))
		}
		parallel.For(cells, func(cell int) {
			y := book[cell*dims : (cell+1)*dims]
			for p := 0; p < dims; p++ {
				v := c.pixel(p, y, basis)
				if sixteen {
					c.pix16[cell*dims+p] = patches.Quantize16(v)
				} else {
					c.pix8[cell*dims+p] = patches.Quantize8(v)
				}
			}
		})
	})
	return c.pix8, c.pix16
}

// reconstructPlane decodes indices (and outlier patches, if out is not
// nil) back to a plane of unrounded samples, as reconstructGray does
// before rounding.
func (c *Channel) reconstructPlane(idx []int32, lead leadCells, grid patches.Grid, out *outliers) patches.Plane {
	return c.reconstructPlaneInto(nil, idx, lead, grid, out, nil)
}

// reconstructPlaneInto is reconstructPlane in the memory of buf where its
// capacity holds the plane (every sample is written). Where db is not
// nil, the plane is also deblocked by it, each row of patches as soon as
// it is in the plane, while it is in the processor's cache: its vertical
// edges (db.cols), then the horizontal edges above and below it where
// the row there is done too (the rest after). A colour decode's planes
// were read again from memory for each of those passes.
func (c *Channel) reconstructPlaneInto(buf []float64, idx []int32, lead leadCells, grid patches.Grid, out *outliers, db *planeDeblock) patches.Plane {
	n, w, h := grid.N, grid.W, grid.H
	plane := patches.Plane{W: w, H: h, Pix: buf[:0]}
	if cap(buf) >= w*h {
		plane.Pix = buf[:w*h]
	} else if s := takeSpare(w * h); s != nil {
		plane.Pix = s
	} else {
		plane = patches.NewPlane(w, h)
	}
	var band func(by int)
	var edged []atomic.Bool // by: the edge at the top of row by is filtered
	if db != nil && db.on {
		rows := grid.Rows()
		done := make([]atomic.Bool, rows) // by: db.cols of row by has run
		edged = make([]atomic.Bool, rows)
		edge := func(by int) { // once both rows around it are done
			if edged[by].CompareAndSwap(false, true) {
				db.edge(plane, by*n)
			}
		}
		band = func(by int) {
			db.cols(plane, by*n, min(by*n+n, h))
			if n < 4 {
				return // edges that share rows: all after, in order
			}
			done[by].Store(true)
			if by > 0 && done[by-1].Load() {
				edge(by)
			}
			if by+1 < rows && done[by+1].Load() {
				edge(by + 1)
			}
		}
	}
	c.eachPatch(idx, lead, grid, out, nil, nil, &plane, band, func(by, bx int, pix []float64) {
		if n == 8 && by*8+8 <= h && bx*8+8 <= w && copy8x8Kernel(plane.Pix[by*8*w+bx*8:], w, pix) {
			return
		}
		copyPatchRows(plane, n, by, bx, pix)
	})
	for by := 1; by < len(edged); by++ {
		if !edged[by].Load() { // not seen done by either row
			db.edge(plane, by*n)
		}
	}
	return plane
}

// copyPatchRows copies the n×n patch pix at block (by, bx) into plane,
// its rows and columns within the plane (copy8x8Kernel's Go twin).
func copyPatchRows(plane patches.Plane, n, by, bx int, pix []float64) {
	w, h := plane.W, plane.H
	for r := 0; r < n && by*n+r < h; r++ {
		x0, x1 := bx*n, min(bx*n+n, w)
		at := (by*n+r)*w + x0
		if n == 8 && x1-x0 == 8 {
			// A whole row of an 8×8 patch value by value: moves in
			// registers, not a memmove call per 64 bytes (10 % of a
			// 12-Mpixel 16-bit grey encode; Go 1.26 compiles an
			// assignment of the [8]float64 to the call).
			d, s := plane.Pix[at:at+8:at+8], pix[r*8:r*8+8:r*8+8]
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
			continue
		}
		copy(plane.Pix[at:], pix[r*n:r*n+x1-x0])
	}
}

// eachPatch decodes every patch to its n×n unrounded pixels, in parallel
// over rows of blocks, and hands them to emit with the block's position:
// the leading coefficients from lead (the indices' leadRows), the others
// from their quantisers' levels (or the outlier patch of out), then the
// inverse PCA (pixels). emit may reuse nothing of pix after it returns.
//
// Where g8 is not nil (the 8-bit image emit writes into), a 4×4 patch
// of a model with leading dimensions that lies within it, is no outlier
// and is not shifted goes straight to its pixels in g8 (recon16:
// the same pixels), without emit; an 8×8 one (g8 the grid's size) goes
// there by pixels64Gray8: pixels64Into's sums rounded as emit rounds them
// (patches.Quantize8), in the registers that summed them (the 64 values
// stored and read again by quantize8Kernel, and emit's call, were ~1.3 %
// of a grey batch encode).
//
// Where plane is not nil (the plane emit writes into, grid.W×grid.H), an
// 8×8 patch that lies within it, is no outlier and is not shifted goes
// straight into its rows, without emit: its sums by pixels64Into (the
// same sums), or the kept pixels of its cell (cellPixels) copied there.
// A colour batch decode spent 2 % of its CPU copying each patch from its
// buffer into the plane (copy8x8Kernel), more in emit's calls.
//
// band, if not nil, is called with each row of blocks by once every
// patch of it has gone to emit, g8 or plane (on that row's goroutine).
//
// lent, if it has room, holds the leading cells' pixel sums (leadPixels)
// instead of a buffer of floatBuffers: a buffer of the caller's that is
// dead meanwhile.
func (c *Channel) eachPatch(idx []int32, lead leadCells, grid patches.Grid, out *outliers, lent []float64, g8 *image.Gray, plane *patches.Plane, band func(by int), emit func(by, bx int, pix []float64)) {
	dims, k := c.Dims(), c.Leading()
	levels := make([][]float64, dims-k)
	for j, q := range c.Rest {
		levels[j] = q.Levels
	}
	weights := c.pixelWeights()
	var lt *levelTable // the levels' lookup by levelsAVX2
	if hasGather {
		lt = c.restLevels()
	}
	cols := grid.Cols()
	// Where patches share rows (distinct cells, not a codebook), each
	// row's pixel sums over the leading coefficients are computed once:
	// on a 4×4 texture with a quarter as many distinct cells as patches
	// that took 10 % off reconstructing; on kodim08, with two thirds,
	// it gained nothing (the sums, 2 MB, are read out of order).
	var leadPix []float64
	if k > 0 && k < dims && 2*(len(lead.rows)/k) <= grid.Blocks() {
		leadPix = c.leadPixels(lead.rows, weights, grid.Blocks()/2, lent)
		if cap(lent) < len(leadPix) {
			defer putFloats(leadPix)
		}
	}
	// Where the centres' levels are not all 0 (not lead.ends; the colour
	// models' chroma), a patch whose rest indices all lie at their
	// centres has the pixels of its leading cell alone: kept per cell
	// (cellPix) for the next patches of that cell. The chroma of
	// kodim13-24 (c8b) has 1236-1533 such patches of 1536 a channel in
	// 38-315 cells, whose sums ran over ~30 rest levels off 0.
	var cells *cellPixels
	if keepCellPixels && leadPix != nil && lead.ends == nil && lt != nil && lt.ctr != nil {
		cells = newCellPixels(len(lead.rows)/k, dims)
		defer cells.release()
	}
	// recon16's lengths: the image's rows hold the grid's, weights hold
	// dims×dims values, levels and idx's rows dims-k from k on.
	direct := g8 != nil && dims == 16 && k > 0 && g8.Stride >= grid.W && len(g8.Pix) >= grid.H*g8.Stride &&
		len(weights) >= dims*dims && len(levels) == dims-k
	var w0 *float64
	if direct {
		w0 = &weights[k*dims]
	}
	// plane's: 8×8 patches, the plane the grid's size.
	into := plane != nil && grid.N == 8 && dims == 64 && plane.W == grid.W && plane.H == grid.H && len(plane.Pix) >= grid.W*grid.H
	// g8's: 8×8 patches rounded straight into the 8-bit image's rows by
	// pixels64Gray8 (what emit's quantize8Kernel makes of pixels64Into's
	// sums: the same bytes), the image the grid's size.
	into8 := g8 != nil && grid.N == 8 && dims == 64 && g8.Stride >= grid.W && g8.Rect.Dx() == grid.W && g8.Rect.Dy() == grid.H &&
		len(g8.Pix) >= (grid.H-1)*g8.Stride+grid.W
	parallel.For(grid.Rows(), func(by int) {
		sc := takePatchScratch(dims)
		defer patchScratches.Put(sc)
		y, pix, nz := sc.y, sc.pix, sc.nz
		// The blocks of this row within the image: direct's.
		inside := 0
		if direct && (by+1)*4 <= grid.H {
			inside = grid.W / 4
		}
		// The blocks of this row within the plane: into's, which go
		// straight to dst.
		within, stride := 0, grid.W
		var dst []float64
		if into && (by+1)*8 <= grid.H {
			within, dst = grid.W/8, plane.Pix[by*8*stride:]
		}
		within8 := 0
		var dst8 []uint8
		if into8 && (by+1)*8 <= grid.H {
			within8, dst8 = grid.W/8, g8.Pix[by*8*g8.Stride:]
		}
		for bx := 0; bx < cols; bx++ {
			i := by*cols + bx
			switch {
			case out.patch(i, y):
				c.pixels(pix, y, weights, nz)
			default:
				// Past end every index is at its centre, whose level is 0
				// (lead.ends): no term of the sums.
				end := dims
				if lead.ends != nil {
					end = max(k, int(lead.ends[i]))
				}
				// Sliced once: the index arithmetic and checks per
				// dimension were ~110 instructions a 4×4 patch.
				ls := levels[:end-k]
				if bx < inside && !out.moves(i) {
					// The leading cell's pixels: leadPix's, else its
					// sums here (pixels' sums over y[:end] in two calls,
					// the same sums in the same order).
					var start []float64
					if leadPix != nil {
						start = leadPix[int(lead.ref[i])*dims:][:dims]
						if a := i + 2; a < len(lead.ref) {
							// The leading cell's pixels two patches on,
							// read out of order: its two lines come in
							// while this patch is written.
							p := unsafe.Pointer(&leadPix[int(lead.ref[a])*dims])
							prefetchTwo(uintptr(p), uintptr(p)+64)
						}
					} else if pixels16Kernel(pix, c.PCA.Mean[:dims], weights, lead.row(i, k)) {
						start = pix
					}
					at := by*4*g8.Stride + bx*4
					if start != nil && recon16(&g8.Pix[at], g8.Stride, &start[0], w0, unsafe.SliceData(ls), unsafe.SliceData(idx[i*dims+k:i*dims+end]), len(ls)) {
						continue
					}
				}
				ix, yk := idx[i*dims+k:i*dims+end], y[k:end]
				ix, yk = ix[:len(ls)], yk[:len(ls)]
				// The patch's first pixel in dst, where it goes there.
				var at []float64
				if bx < within && !out.moves(i) {
					at = dst[bx*8:]
				}
				var at8 []uint8
				if bx < within8 && !out.moves(i) {
					at8 = dst8[bx*8:]
				}
				if cells != nil && cells.ready(lead.ref[i]) && atCentres(ix, lt.ctr) {
					if at != nil && cells.copyTo(lead.ref[i], at, stride) {
						continue // without the levels, pix or emit
					}
					if cells.load(lead.ref[i], pix) {
						break // without the levels
					}
				}
				j := 0
				centred := cells != nil // every rest index at its centre (so far)
				if lt != nil {
					j = len(ls) &^ 3
					if j > 0 && lt.ctr != nil {
						switch levelsCentreAVX2(yk[:j], ix, lt.ctr[:j], lt.ctrLev[:j], lt.at, lt.lenB, lt.flat) {
						case 0:
							j = 0 // an index past its levels: the loop fails on it
							centred = false
						case 1:
							centred = false
						}
					} else if j > 0 && !levelsAVX2(yk[:j], ix, lt.at, lt.lenB, lt.flat) {
						j = 0 // an index past its levels: the loop fails on it
					}
				}
				for ; j < len(ls); j++ {
					yk[j] = ls[j][ix[j]]
					centred = centred && ix[j] == lt.ctr[j]
				}
				if centred && at != nil && cells.copyTo(lead.ref[i], at, stride) {
					continue
				}
				if centred && cells.load(lead.ref[i], pix) {
					break
				}
				if leadPix != nil {
					start := leadPix[int(lead.ref[i])*dims:][:dims]
					if !centred && at != nil && pixels64Into(at, stride, start, weights[k*dims:], y[k:end]) {
						continue
					}
					if !centred && at8 != nil && pixels64Gray8(at8, g8.Stride, start, weights[k*dims:], y[k:end]) {
						continue
					}
					// 4×4: the kernel called here, not through pixelsFrom.
					if !pixels16Kernel(pix, start, weights[k*dims:], y[k:end]) {
						c.pixelsFrom(pix, start, y[k:end], k, weights, nz)
					}
					if centred {
						cells.store(lead.ref[i], pix)
					}
					break
				}
				if k > 0 {
					copy(y[:k], lead.row(i, k))
				}
				if at != nil && pixels64Into(at, stride, c.PCA.Mean[:dims], weights, y[:end]) {
					continue // pixels' sums, in the plane
				}
				if at8 != nil && pixels64Gray8(at8, g8.Stride, c.PCA.Mean[:dims], weights, y[:end]) {
					continue // rounded, in the image
				}
				c.pixels(pix, y[:end], weights, nz)
			}
			out.shiftPixels(i, pix, weights)
			emit(by, bx, pix)
		}
		if band != nil {
			band(by)
		}
	})
}

// cellPixels keeps, per leading cell, the pixels of a patch of that
// cell whose rest indices all lie at their centres (eachPatch): the same
// sums for every such patch, computed by the first and copied by the
// others. The rows of blocks run in parallel: a cell's state goes from
// 0 (none) to 1 (being stored) by the one patch that stores it, then 2
// (stored), after which its pixels are read; until then patches of the
// cell compute their own.
type cellPixels struct {
	pix   []float64
	state []atomic.Uint32
	dims  int
}

// cellBuffers holds cellPixels' buffers for the next images, apart from
// floatBuffers: taken from there, they pushed leadPixels' buffers out of
// its few kept ones (and took the luma's 1.6 MB one), and a colour batch
// decode's peak memory grew from 33 to 35-49 MB.
var cellBuffers = keptPool{New: func() any { return new([]float64) }, keep: func(x any) bool { return cap(*x.(*[]float64)) <= maxKeptValues }}

// newCellPixels returns a cellPixels for cells cells of dims pixels,
// its pixels from cellBuffers.
func newCellPixels(cells, dims int) *cellPixels {
	n := cells * dims
	pix := *cellBuffers.getFit(n, func(x any) int { return cap(*x.(*[]float64)) }).(*[]float64)
	if cap(pix) < n {
		if small := pix; cap(small) > 0 {
			cellBuffers.Put(&small) // the largest kept, too small: for another channel
		}
		pix = make([]float64, n)
	}
	return &cellPixels{pix: pix[:n], state: make([]atomic.Uint32, cells), dims: dims}
}

// keepCellPixels switches eachPatch's cellPixels (the tests compare
// with it off); cellPixelsKept, if not nil, is told how many cells an
// eachPatch kept.
var (
	keepCellPixels = true
	cellPixelsKept func(cells int)
)

// release hands the pixels back to cellBuffers.
func (c *cellPixels) release() {
	if cellPixelsKept != nil {
		n := 0
		for i := range c.state {
			if c.ready(int32(i)) {
				n++
			}
		}
		cellPixelsKept(n)
	}
	pix := c.pix
	c.pix = nil
	cellBuffers.Put(&pix)
}

// ready reports whether cell ref has its pixels kept.
func (c *cellPixels) ready(ref int32) bool { return c.state[ref].Load() == 2 }

// atCentres reports whether every index of ix is its centre, ctr's (at
// least as long; sameCountAVX2 8 at a time, which requires AVX2).
func atCentres(ix, ctr []int32) bool {
	n := len(ix) &^ 7
	if n > 0 && sameCountAVX2(ix[:n], ctr) != n {
		return false
	}
	for j := n; j < len(ix); j++ {
		if ix[j] != ctr[j] {
			return false
		}
	}
	return true
}

// load copies the kept pixels of cell ref into pix and reports true, or
// false if the cell has none yet.
func (c *cellPixels) load(ref int32, pix []float64) bool {
	if c.state[ref].Load() != 2 {
		return false
	}
	copy(pix, c.pix[int(ref)*c.dims:][:c.dims])
	return true
}

// copyTo copies the kept pixels of cell ref (an 8×8 patch) into the rows
// dst[r·stride:][:8] and reports true, or false, copying nothing, if the
// cell has none yet or the copy does not apply (copy8x8Kernel).
func (c *cellPixels) copyTo(ref int32, dst []float64, stride int) bool {
	return c.state[ref].Load() == 2 && c.dims == 64 && copy8x8Kernel(dst, stride, c.pix[int(ref)*64:][:64])
}

// store keeps pix as the pixels of cell ref if none are kept or being
// kept.
func (c *cellPixels) store(ref int32, pix []float64) {
	if c.state[ref].CompareAndSwap(0, 1) {
		copy(c.pix[int(ref)*c.dims:][:c.dims], pix)
		c.state[ref].Store(2)
	}
}

// patchScratch is eachPatch's work space for a row of blocks: a
// patch's coefficients, pixels and nonzero coefficients.
type patchScratch struct {
	y, pix []float64
	nz     []int
}

// patchScratches keeps eachPatch's scratch between rows and images:
// allocated per row, it was a quarter of the fresh heap a decode of an
// 8×8 model's image took (100 KB for 768×512).
var patchScratches sync.Pool

// takePatchScratch returns a scratch of patchScratches for patches of
// dims coefficients.
func takePatchScratch(dims int) *patchScratch {
	sc, _ := patchScratches.Get().(*patchScratch)
	if sc == nil || len(sc.y) != dims {
		sc = &patchScratch{y: make([]float64, dims), pix: make([]float64, dims), nz: make([]int, dims)}
	}
	return sc
}

func depthOf(img image.Image) int {
	switch img.ColorModel() {
	case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model, color.Alpha16Model:
		return 16
	}
	return 8
}

func (h *Header) appendTo(b []byte) []byte {
	b = append(b, Magic...)
	b = append(b, byte(h.Version))
	b = append(b, h.Model[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Width))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Height))
	b = append(b, byte(h.Channels), byte(h.Depth), byte(h.Patch))
	for _, bins := range h.Bins {
		b = append(b, byte(len(bins)))
		for _, v := range bins {
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		}
	}
	if hasStep(h.Version) {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Step))
	}
	if isAdaptive(h.Version) {
		b = append(b, byte(h.Deblock))
	}
	if hasLoopFilter(h.Version) {
		if h.LoopFilter == nil {
			b = append(b, make([]byte, loopFilterBytes)...)
		} else {
			b = append(b, loopKindDiamond)
			for _, t := range h.LoopFilter {
				b = append(b, byte(int8(t)))
			}
		}
	}
	return b
}

// parseHeader reads the header; it validates sizes but not the model.
func parseHeader(b []byte) (*Header, []byte, error) {
	h, err := parseFixedHeader(b)
	if err != nil {
		return nil, nil, err
	}
	p := b[fixedHeaderBytes:]
	for c := 0; c < h.Channels; c++ {
		if len(p) < 1 {
			return nil, nil, &FormatError{Msg: "truncated header"}
		}
		dims := int(p[0])
		p = p[1:]
		if dims != h.Patch*h.Patch || len(p) < 2*dims {
			return nil, nil, &FormatError{Msg: "bad or truncated bins"}
		}
		bins := make([]int, dims)
		for j := range bins {
			bins[j] = int(binary.LittleEndian.Uint16(p[2*j:]))
		}
		p = p[2*dims:]
		h.Bins = append(h.Bins, bins)
	}
	if hasStep(h.Version) {
		if len(p) < 8 {
			return nil, nil, &FormatError{Msg: "truncated header (no step)"}
		}
		h.Step = math.Float64frombits(binary.LittleEndian.Uint64(p))
		if !(h.Step > 0 && h.Step <= maxStep) && !(isAdaptive(h.Version) && h.Step == 0) {
			return nil, nil, &FormatError{Msg: fmt.Sprintf("quantiser step %v out of range", h.Step)}
		}
		p = p[8:]
	}
	if isAdaptive(h.Version) {
		if len(p) < 1 {
			return nil, nil, &FormatError{Msg: "truncated header (no filter)"}
		}
		h.Deblock = int(p[0])
		if h.Deblock > maxDeblock {
			return nil, nil, &FormatError{Msg: fmt.Sprintf("deblocking strength %d out of range", h.Deblock)}
		}
		p = p[1:]
	}
	if hasLoopFilter(h.Version) {
		if len(p) < loopFilterBytes {
			return nil, nil, &FormatError{Msg: "truncated header (no loop filter)"}
		}
		switch p[0] {
		case loopKindNone:
			for _, t := range p[1:loopFilterBytes] {
				if t != 0 {
					return nil, nil, &FormatError{Msg: "loop filter taps without a loop filter"}
				}
			}
		case loopKindDiamond:
			h.LoopFilter = make([]int, loopTaps)
			for k, t := range p[1:loopFilterBytes] {
				h.LoopFilter[k] = int(int8(t))
			}
		default:
			return nil, nil, &FormatError{Msg: fmt.Sprintf("unknown loop filter %d", p[0])}
		}
		p = p[loopFilterBytes:]
	}
	return h, p, nil
}

// parseFixedHeader reads and validates the header up to the bins.
func parseFixedHeader(b []byte) (*Header, error) {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil, &FormatError{Msg: "not an SPCA-coded image (bad magic number)"}
	}
	if len(b) < fixedHeaderBytes {
		return nil, &FormatError{Msg: "truncated header"}
	}
	v := int(b[len(Magic)])
	if v < formatVersion || v > lastFormatVersion {
		// Named with the versions this build reads, as a model file's
		// is: a file of a later spca is not a corrupt one.
		later := ""
		if v > lastFormatVersion {
			later = ": a file of a later spca?"
		}
		return nil, &FormatError{Msg: fmt.Sprintf("unsupported format version %d (this build reads %d to %d)%s", v, formatVersion, lastFormatVersion, later)}
	}
	h := &Header{Version: v}
	p := b[len(Magic)+1:]
	copy(h.Model[:], p[:32])
	p = p[32:]
	h.Width = int(binary.LittleEndian.Uint32(p))
	h.Height = int(binary.LittleEndian.Uint32(p[4:]))
	h.Channels, h.Depth, h.Patch = int(p[8]), int(p[9]), int(p[10])
	switch {
	case h.Width < 1 || h.Height < 1 || h.Width > maxPixels || h.Height > maxPixels ||
		int64(h.Width)*int64(h.Height) > maxPixels: // each side bounded first: no overflow
		// The sizes as stored: 2^31 and more are negative ints on 32-bit
		// platforms ("-1×-1").
		return nil, &FormatError{Msg: fmt.Sprintf("image size %d×%d out of range", binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:]))}
	case h.Channels != 1 && h.Channels != 3:
		return nil, &FormatError{Msg: fmt.Sprintf("%d channels", h.Channels)}
	case h.Depth != 8 && h.Depth != 16:
		return nil, &FormatError{Msg: fmt.Sprintf("bit depth %d", h.Depth)}
	case h.Patch < 1 || h.Patch > maxPatch:
		return nil, &FormatError{Msg: fmt.Sprintf("patch size %d", h.Patch)}
	case hasLoopFilter(v):
		if ch, depth := loopFilterShape(v); h.Channels != ch || h.Depth != depth {
			kind := "grey"
			if ch == 3 {
				kind = "colour"
			}
			return nil, &FormatError{Msg: fmt.Sprintf("a version-%d file holds an 8-bit %s image, not %d channels of %d bits", v, kind, h.Channels, h.Depth)}
		}
	}
	return h, nil
}

// DecodeHeader reads the header of an .spc file from r, and nothing after
// it: what the file holds and the ID of the model that decodes it. A
// file of another kind, version or a corrupt header gives a
// *FormatError (the checksum, which covers the whole file, is Decode's).
func DecodeHeader(r io.Reader) (*Header, error) {
	buf := make([]byte, fixedHeaderBytes, fixedHeaderBytes+3*(1+2*maxPatch*maxPatch)+9+loopFilterBytes)
	n, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	h, err := parseFixedHeader(buf[:n])
	if err != nil {
		return nil, err
	}
	n = fixedHeaderBytes + h.Channels*(1+2*h.Patch*h.Patch)
	if hasStep(h.Version) {
		n += 8
	}
	if isAdaptive(h.Version) {
		n++
	}
	if hasLoopFilter(h.Version) {
		n += loopFilterBytes
	}
	buf = buf[:n]
	n, err = io.ReadFull(r, buf[fixedHeaderBytes:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	h, _, err = parseHeader(buf[:fixedHeaderBytes+n])
	return h, err
}

// DecodeConfig returns the size and colour model of an .spc file without
// needing its model.
func DecodeConfig(r io.Reader) (image.Config, error) {
	h, err := DecodeHeader(r)
	if err != nil {
		return image.Config{}, err
	}
	cfg := image.Config{Width: h.Width, Height: h.Height}
	switch {
	case h.Channels == 1 && h.Depth == 8:
		cfg.ColorModel = color.GrayModel
	case h.Channels == 1:
		cfg.ColorModel = color.Gray16Model
	case h.Depth == 8:
		cfg.ColorModel = color.RGBAModel
	default:
		cfg.ColorModel = color.RGBA64Model
	}
	return cfg, nil
}

// DefaultMaxPixels is the largest image, in pixels, Decode produces
// (100 megapixels on 64-bit platforms, 2^23 - 1 on 32-bit ones: the same
// budget as patches.DefaultMaxPixels for image inputs, which says why):
// run-length coded streams let a file of a few hundred bytes declare any
// size up to the format's 2^28 pixels, and decoding needs memory in
// proportion to the pixels (see the README for the figure). DecodeWith
// takes another budget.
const DefaultMaxPixels = patches.DefaultMaxPixels

// ErrTooLarge is wrapped by the FormatError of a file whose image has more
// pixels than the decoder's budget (DecodeOptions.MaxPixels). It wraps
// patches.ErrTooLarge, the error of an image file beyond its budget, so
// that errors.Is(err, patches.ErrTooLarge) holds for both.
var ErrTooLarge error = tooLarge{}

// tooLarge is the type of ErrTooLarge.
type tooLarge struct{}

func (tooLarge) Error() string { return "codec: image larger than the pixel budget" }
func (tooLarge) Unwrap() error { return patches.ErrTooLarge }

// DecodeOptions control DecodeWith. Nil means defaults.
type DecodeOptions struct {
	// MaxPixels is the largest image, in pixels, the decoder produces;
	// larger files are refused, wrapping ErrTooLarge, before anything
	// is decoded. 0 means DefaultMaxPixels.
	MaxPixels int64
	// Into, if not nil, is a grey image that the decode of an 8-bit grey
	// file of its size writes into and returns (every pixel is set)
	// instead of a new image; other decodes leave it alone. A batch that
	// hands each image, once written out, to the next decode saves the
	// fresh memory of an image per file: 393 KB for 768×512, ~100 page
	// faults once the heap has grown past its first pages.
	Into *image.Gray
	// IntoRGBA is Into for the decode of an 8-bit colour file with
	// half-resolution chroma (4:2:0 models): 1.5 MB of fresh memory per
	// 768×512 image, whose page clearing was 5 % of the CPU of a colour
	// batch decode. Any whole image (at the origin, contiguous rows, its
	// Pix exactly its pixels) with room for the decoded one serves: it is
	// made the decoded image's size on that buffer
	// (patches.FromYCbCr420Into), so that a batch turning from landscape
	// to portrait takes no new one. A sub-image of a larger image is
	// never written.
	IntoRGBA *image.RGBA
}

// Decode reads an .spc file coded with the model m. Decoding is
// deterministic and bit-exact. Corrupt, truncated or hostile files and
// files coded with another model give a *FormatError, and so do images of
// more than DefaultMaxPixels pixels (see DecodeWith).
func Decode(r io.Reader, m *Model) (image.Image, error) {
	return DecodeWith(r, m, nil)
}

// maxCodedBytes bounds the size of a file whose fixed header is h, past
// that header: 1 MiB plus 64 bytes a sample, where the coded streams
// take at most a few bytes a sample (raw outlier patches 1 or 2, a
// range-coded value under 4 even at the finest steps). It lets DecodeWith
// refuse a header followed by endless data after a bounded read.
func maxCodedBytes(h *Header) int64 {
	return 1<<20 + 64*int64(h.Width)*int64(h.Height)*int64(h.Channels)
}

// overBudget returns the error of an image of more pixels than budget.
func overBudget(h *Header, budget int64) error {
	if n := int64(h.Width) * int64(h.Height); n > budget {
		return &FormatError{Msg: fmt.Sprintf("%d×%d image is %d pixels, more than the budget of %d", h.Width, h.Height, n, budget), Err: ErrTooLarge}
	}
	return nil
}

// inputBuffers keeps the buffers DecodeWith reads files into between
// decodes: read afresh, a 60 KB file took twice that of fresh heap.
var inputBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// into returns o.Into if it is a w×h image at the origin whose rows are
// contiguous, nil otherwise.
func (o *DecodeOptions) into(w, h int) *image.Gray {
	if o == nil || o.Into == nil {
		return nil
	}
	g := o.Into
	if g.Rect != image.Rect(0, 0, w, h) || g.Stride != w || len(g.Pix) < w*h {
		return nil
	}
	return g
}

// DecodeWith is Decode with options.
func DecodeWith(r io.Reader, m *Model, o *DecodeOptions) (image.Image, error) {
	budget := int64(DefaultMaxPixels)
	if o != nil && o.MaxPixels > 0 {
		budget = o.MaxPixels
	}
	in := inputBuffers.Get().(*bytes.Buffer)
	defer inputBuffers.Put(in)
	in.Reset()
	// The fixed header first: a file of another kind, or an image over
	// the budget, is refused before the rest is read (up to 2 GiB;
	// /dev/zero as an .spc file ran for minutes).
	if _, err := in.ReadFrom(io.LimitReader(r, int64(fixedHeaderBytes))); err != nil {
		return nil, err
	}
	// At most a quarter of what an int holds: on 32-bit platforms the
	// buffer doubles its capacity as data arrive and panicked
	// (bytes.ErrTooLarge) when it had to grow past 1 GiB, half of it: a
	// colour header within the default budget, 2896×2896, and endless
	// data there (maxCodedBytes 1.6 GB). A valid file codes a sample in
	// under 4 bytes (maxCodedBytes): 512 MiB hold over 40 megapixels of
	// colour. On 64-bit platforms the bound is maxFileBytes, as before.
	rest := min(int64(maxFileBytes), math.MaxInt/4) - int64(fixedHeaderBytes)
	var fixed *Header // nil for a file shorter than the fixed header
	if in.Len() == fixedHeaderBytes {
		h, err := parseFixedHeader(in.Bytes())
		if err == nil {
			err = overBudget(h, budget)
		}
		if err != nil {
			return nil, err
		}
		fixed = h
		rest = min(rest, maxCodedBytes(h))
	}
	if _, err := in.ReadFrom(io.LimitReader(r, rest)); err != nil {
		return nil, err
	}
	if fixed != nil && int64(in.Len()) == int64(fixedHeaderBytes)+rest {
		// At the bound: one byte more means a file no image of the
		// header's size codes to (a header and endless data on standard
		// input read up to 2 GiB before the checksum failed).
		var one [1]byte
		if n, _ := io.ReadFull(r, one[:]); n > 0 {
			return nil, &FormatError{Msg: fmt.Sprintf("more than %d bytes, far more than a %d×%d image codes to", in.Len(), fixed.Width, fixed.Height)}
		}
	}
	data := in.Bytes() // nothing decoded refers to it
	if len(data) < 4 {
		return nil, &FormatError{Msg: "not an SPCA-coded image (too short)"}
	}
	h, body, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	if err := overBudget(h, budget); err != nil {
		return nil, err
	}
	if !checksum.Valid(data) {
		return nil, &FormatError{Msg: "checksum mismatch (corrupt or truncated file)"}
	}
	if len(body) < 4 {
		// The header ran into the checksum.
		return nil, &FormatError{Msg: "truncated file (no streams)"}
	}
	body = body[:len(body)-4]
	if id := m.ID(); h.Model != id {
		return nil, &FormatError{Msg: fmt.Sprintf("the file was encoded with another model (model %s, not %s)", h.Model.Short(), id.Short()), Err: ErrWrongModel}
	}
	if h.Channels != len(m.Channels) || h.Patch != m.Patch {
		return nil, &FormatError{Msg: "file and model disagree on channels or patch size"}
	}
	if hasOutliers(h.Version) && m.Step == 0 {
		return nil, &FormatError{Msg: fmt.Sprintf("a version-%d file needs a model in the entropy-constrained mode", h.Version)}
	}
	if h.Step > 0 && h.Step != m.Step {
		if m, err = m.Stepped(h.Step); err != nil {
			var me *ModelError
			if errors.As(err, &me) {
				// A model section read on first use is corrupt: the
				// model's fault, not the file's.
				return nil, err
			}
			return nil, &FormatError{Msg: fmt.Sprintf("quantiser step %v: %v", h.Step, err)}
		}
	}
	grids := make([]patches.Grid, h.Channels)
	for ci := range grids {
		w, hh := m.planeSize(ci, h.Width, h.Height)
		grids[ci] = patches.NewGrid(w, hh, h.Patch)
	}
	// The streams of every channel are parsed and counted first, in file
	// order; the channels then decode concurrently (each in parallel
	// inside, but with steps that use one core).
	chans := make([]channelStreams, h.Channels)
	for ci := range chans {
		if chans[ci], body, err = parseChannel(body, h, ci, m.Channels[ci], grids[ci].Blocks()); err != nil {
			return nil, err
		}
	}
	if len(body) != 0 {
		return nil, &FormatError{Msg: "trailing bytes"}
	}
	if h.Channels == 1 {
		var img image.Image
		var into []uint8
		if g := o.into(h.Width, h.Height); g != nil && h.Depth == 8 {
			into = g.Pix
		}
		err := chans[0].decode(m.Channels[0], grids[0], m.Step, func(idx []int32, lead leadCells, odd *outliers) {
			img = m.Channels[0].reconstructGrayInto(into, idx, lead, grids[0], h.Depth == 16, odd, nil)
		})
		if err != nil {
			return nil, err
		}
		deblockImage(img, h.Deblock, m.Step, h.Patch)
		if h.LoopFilter != nil {
			g, ok := img.(*image.Gray)
			if !ok { // parseFixedHeader allows one channel for version 9 only, of 8 bits
				panic("codec: loop filter on an image that is not 8-bit grey")
			}
			loopFilterGray(g.Pix, g.Stride, g.Rect.Dx(), g.Rect.Dy(), loopTapsOf(h.LoopFilter))
		}
		return img, nil
	}
	planes := make([]patches.Plane, h.Channels)
	errs := make([]error, h.Channels)
	bufs := recBuffers.Get().(*[3][]float64)
	defer recBuffers.Put(bufs)
	// A process's first image: its planes from the spare, luma first,
	// before the channels' goroutines start. The spare holds the luma
	// and one chroma plane of a 4:2:0 image; taken as each channel came
	// to its reconstruction, the chroma channels (a quarter of the
	// luma's work) took it first and left the luma plane, 3 MB of a
	// 768×512 image, to fresh memory.
	for ci := range chans {
		if n := grids[ci].W * grids[ci].H; cap(bufs[ci]) < n {
			if s := takeSpare(n); s != nil {
				bufs[ci] = s
			}
		}
	}
	var wg sync.WaitGroup
	for ci := range chans {
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			c := m.Channels[ci]
			errs[ci] = chans[ci].decode(c, grids[ci], m.Step, func(idx []int32, lead leadCells, odd *outliers) {
				db := newPlaneDeblock(h.Deblock, m.Step, h.Patch)
				planes[ci] = c.reconstructPlaneInto(bufs[ci], idx, lead, grids[ci], odd, db)
				bufs[ci] = planes[ci].Pix
				if ci == 0 && h.LoopFilter != nil { // version 10
					loopFilterLuma(planes[0], loopTapsOf(h.LoopFilter))
				}
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if m.Subsample {
		if h.Depth == 8 {
			var into *image.RGBA
			if o != nil {
				into = o.IntoRGBA
			}
			return patches.FromYCbCr420Into(into, planes[0], planes[1], planes[2]), nil
		}
		return patches.FromYCbCr420(planes[0], planes[1], planes[2], true), nil
	}
	return patches.FromYCbCr([3]patches.Plane(planes), h.Depth == 16), nil
}

// channelStreams are the parsed, still entropy-coded streams of one
// channel of an .spc file.
type channelStreams struct {
	raw                          []packedStream // flags, symbols, escapes, outliers
	flagCount, symbolStreamCount int
	outliers                     bool
	// adaptive is the arithmetic-coded stream of a version-5 file (raw
	// then holds the outlier streams only).
	adaptive []byte
	version  int
}

// parseChannel splits the streams of channel ci off body and checks its
// bins against the model's and its symbol counts against the patches before anything is allocated
// for them.
func parseChannel(body []byte, h *Header, ci int, c *Channel, blocks int) (channelStreams, []byte, error) {
	var cs channelStreams
	for j, b := range h.Bins[ci] {
		if b != c.Bins[j] {
			return cs, nil, &FormatError{Msg: "file and model disagree on the bins"}
		}
	}
	dims := c.Dims()
	cs.version = h.Version
	if hasEdges(h.Version) && !c.edgePredictable() {
		return cs, nil, &FormatError{Msg: fmt.Sprintf("a version-%d file needs a model in the entropy-constrained mode with gamma 0", h.Version)}
	}
	if isAdaptive(h.Version) {
		var err error
		if cs.adaptive, body, err = parseAdaptive(body); err != nil {
			return cs, nil, &FormatError{Msg: err.Error()}
		}
		odd, rest, err := parseOutlierStreams(body, blocks, dims)
		if err != nil {
			return cs, nil, &FormatError{Msg: err.Error()}
		}
		// The outlier flags, one per patch, check the image size
		// against the streams before anything is decoded.
		if odd[0].count != blocks {
			return cs, nil, &FormatError{Msg: fmt.Sprintf("%d outlier flags for %d patches", odd[0].count, blocks)}
		}
		cs.raw, cs.outliers = odd[:], true
		if hasShifts(h.Version) {
			var sh packedStream
			if sh, rest, err = parseStream(rest, int64(blocks)); err != nil {
				return cs, nil, &FormatError{Msg: err.Error()}
			}
			cs.raw = append(cs.raw, sh)
		}
		return cs, rest, nil
	}
	// Stream headers in file order: the rest flags' first, the
	// outliers' two streams last.
	if hasFlags(h.Version) {
		cs.flagCount = contexts
	}
	cs.raw = make([]packedStream, cs.flagCount+numStreams(dims)+1)
	var err error
	for k := range cs.raw {
		limit := int64(blocks) * int64(dims)
		if k == len(cs.raw)-1 {
			limit *= 2 // the escape stream holds 2 bytes per value
		}
		cs.raw[k], body, err = parseStream(body, limit)
		if err != nil {
			return cs, nil, &FormatError{Msg: err.Error()}
		}
	}
	cs.symbolStreamCount = len(cs.raw)
	if cs.outliers = hasOutliers(h.Version); cs.outliers {
		var odd [2]packedStream
		if odd, body, err = parseOutlierStreams(body, blocks, dims); err != nil {
			return cs, nil, &FormatError{Msg: err.Error()}
		}
		cs.raw = append(cs.raw, odd[:]...)
	}
	// Every dimension has one symbol per patch, spread over its streams
	// (those the rest flags cover, at most one), and so do the flags.
	from := restFrom(c.Leading())
	if cs.flagCount > 0 {
		n := 0
		for _, p := range cs.raw[:cs.flagCount] {
			n += p.count
		}
		if n != blocks {
			return cs, nil, &FormatError{Msg: fmt.Sprintf("%d rest flags for %d patches", n, blocks)}
		}
	}
	for j := 0; j < dims; j++ {
		n := 0
		for _, k := range dimStreams(j) {
			n += cs.raw[cs.flagCount+k].count
		}
		if n != blocks && !(cs.flagCount > 0 && j >= from && n < blocks) {
			return cs, nil, &FormatError{Msg: fmt.Sprintf("%d symbols for the %d patches in dimension %d", n, blocks, j+1)}
		}
	}
	return cs, body, nil
}

// decode entropy-decodes the streams (in parallel), turns the symbols
// into the indices of the patches and hands them, with their leading
// cells and the outlier patches, to reconstruct.
func (cs *channelStreams) decode(c *Channel, grid patches.Grid, step float64, reconstruct func(idx []int32, lead leadCells, odd *outliers)) error {
	dims, blocks := c.Dims(), grid.Blocks()
	if isAdaptive(cs.version) {
		return cs.decodeAdaptive(c, grid, step, reconstruct)
	}
	out := make([][]byte, len(cs.raw))
	errs := make([]error, len(cs.raw))
	parallel.For(len(cs.raw), func(k int) {
		sc := scratches.Get().(*fse.Scratch)
		out[k], errs[k] = cs.raw[k].decode(sc)
		scratches.Put(sc)
	})
	for _, err := range errs {
		if err != nil {
			return &FormatError{Msg: err.Error()}
		}
	}
	s := &symbolStreams{sub: out[cs.flagCount : cs.symbolStreamCount-1], from: restFrom(c.Leading())}
	if cs.flagCount > 0 {
		s.flags = out[:cs.flagCount]
	}
	esc := out[cs.symbolStreamCount-1]
	if len(esc)%2 != 0 {
		return &FormatError{Msg: "odd escape stream"}
	}
	for i := 0; i < len(esc); i += 2 {
		s.esc = append(s.esc, binary.LittleEndian.Uint16(esc[i:]))
	}
	idx := getIndices(blocks * dims)
	defer putIndices(idx)
	var lead leadCells
	leading := func() { lead = c.leadRows(idx, blocks) }
	if err := fromSymbols(s, idx, dims, grid.Cols(), c.Centre, c.Bins, leading); err != nil {
		return &FormatError{Msg: err.Error()}
	}
	var odd *outliers
	if cs.outliers {
		var err error
		if odd, err = newOutliers(out[cs.symbolStreamCount], out[cs.symbolStreamCount+1], blocks, dims, step); err != nil {
			return &FormatError{Msg: err.Error()}
		}
	}
	reconstruct(idx, lead, odd)
	return nil
}

// decodeAdaptive is decode for a version-5 channel: the arithmetic-coded
// indices beside the outlier streams.
func (cs *channelStreams) decodeAdaptive(c *Channel, grid patches.Grid, step float64, reconstruct func(idx []int32, lead leadCells, odd *outliers)) error {
	dims, blocks := c.Dims(), grid.Blocks()
	var odd [3][]byte // outlier flags and values, shifts
	var oddErr error
	idx := getIndices(blocks * dims)
	defer putIndices(idx)
	var wg sync.WaitGroup
	wg.Add(1)
	parallel.Go(func() {
		defer wg.Done()
		sc := scratches.Get().(*fse.Scratch)
		defer scratches.Put(sc)
		for k := range cs.raw {
			if odd[k], oddErr = cs.raw[k].decode(sc); oddErr != nil {
				return
			}
		}
	})
	var edges *edgePredictor
	if hasEdges(cs.version) {
		edges = c.takeEdgePredictor(blocks, grid.Cols())
	}
	err := decodeAdaptive(cs.adaptive, idx, dims, grid.Cols(), c.Centre, c.Bins, c.Leading(), true, isCounted(cs.version), edges)
	wg.Wait()
	if err = firstError([]error{err, oddErr}); err != nil {
		return &FormatError{Msg: err.Error()}
	}
	out, err := newOutliers(odd[0], odd[1], blocks, dims, step)
	if err != nil {
		return &FormatError{Msg: err.Error()}
	}
	if hasShifts(cs.version) {
		if err := out.setShifts(c, idx, odd[2]); err != nil {
			return &FormatError{Msg: err.Error()}
		}
	}
	lead, ok := edges.leadCells()
	if !ok {
		lead = c.leadRows(idx, blocks)
	}
	reconstruct(idx, lead, out)
	if edges != nil {
		c.putEdgePredictor(edges)
	}
	return nil
}
