package codec

import (
	"image"
	"sync"

	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/internal/rgbrows"
	"github.com/spcalab/spca/patches"
	"gonum.org/v1/gonum/mat"
)

// encodeInput is an image made ready for the channels' transforms: its
// planes (an 8-bit grey image whose rows follow each other has only its
// size in its plane, and its samples in orig8 and gray8), and, where
// share is set (the probes of a rate search), each channel's step-free
// transform, kept for the next encode of the same image.
type encodeInput struct {
	planes []patches.Plane
	orig8  []uint8
	gray8  *image.Gray
	share  bool
	chans  []*stepFree
	done   func() // hands the planes' buffers back
	// With keep set (EncodeAtRate), each probe leaves its channels as
	// coded in last, and the search moves the chosen probe's to kept
	// (keepLast): the final encode at keptStep takes their streams and
	// indices instead of coding the image again. reused counts the
	// channels it took.
	keep       bool
	keptStep   float64
	last, kept []*codedChannel
	reused     int
	// probes counts the rate search's probes (exact encodes), estimates
	// and coarse its evaluations of the rate estimate and of the coarse
	// one, header the bytes of the last encode's header.
	probes, estimates, coarse, header int
}

// codedChannel is a channel as an encode coded it: its stream (the
// file's body for it), and the indices and outliers the deblocking search
// and the loop filter fit reconstruct from. idx is the stepFree's
// buffer of the probe that coded it (keepLast hands the stepFree another).
type codedChannel struct {
	body []byte
	idx  []int32
	out  *outliers
	grid patches.Grid
	outs outliers // out's arrays when not nil
}

// set records a channel's coding in c, copying what lives in scratch
// buffers the next encode reuses (the stream and the outliers).
func (c *codedChannel) set(body []byte, idx []int32, out *outliers, grid patches.Grid) {
	c.body, c.idx, c.grid, c.out = append(c.body[:0], body...), idx, grid, nil
	if out != nil {
		at, vals, shift := c.outs.at, c.outs.vals, c.outs.shift
		c.outs = *out
		c.outs.at, c.outs.vals = append(at[:0], out.at...), append(vals[:0], out.vals...)
		c.outs.shift = nil
		if out.shift != nil {
			c.outs.shift = append(shift[:0], out.shift...)
		}
		c.out = &c.outs
	}
}

// keepLast makes the last probe, coded at step, the kept one: its
// channels' indices stay as they are, and the next probe quantises into
// the buffers of the one kept before (at most one extra coded image).
func (in *encodeInput) keepLast(step float64) {
	in.last, in.kept, in.keptStep = in.kept, in.last, step
	for ci, t := range in.chans {
		if t == nil {
			continue
		}
		t.idx = nil
		if in.last != nil {
			t.idx, in.last[ci].idx = in.last[ci].idx, nil
		}
	}
}

// keptFor returns channel ci as kept by keepLast if it was coded at
// step, else nil.
func (in *encodeInput) keptFor(ci int, step float64) *codedChannel {
	if !in.keep || in.kept == nil || step == 0 || step != in.keptStep {
		return nil
	}
	return in.kept[ci]
}

// prepare sets in's planes from img for model m (whose channels and
// chroma subsampling decide them), in buffers reused across images, which
// isRGB8 reports whether img is an 8-bit opaque colour image that
// patches.YCbCr420To converts row by row, writing every sample of its
// planes: *image.RGBA, or the packed rows of patches.PackedRGB.
func isRGB8(img image.Image) bool {
	switch img.(type) {
	case *image.RGBA, *rgbrows.Image:
		return true
	}
	return false
}

// release hands back.
func (in *encodeInput) prepare(img image.Image, m *Model) {
	b := img.Bounds()
	// An 8-bit grey image whose rows follow each other: the transform,
	// the deblocking and loop filter fits read its samples (orig8), and
	// the plane has no float64 samples (3 MB of fresh memory per 768×512
	// image in a process that codes one).
	in.orig8 = grayPixels(img)
	gray8, _ := img.(*image.Gray)
	switch {
	case gray8 != nil && !m.Color && in.orig8 != nil:
		in.planes, in.gray8 = []patches.Plane{{W: b.Dx(), H: b.Dy()}}, gray8
	case gray8 != nil && !m.Color:
		// The samples in a buffer reused across images (planeBuffers).
		buf := lumaBuffers.Get().(*[]float64)
		in.planes = []patches.Plane{patches.LuminanceTo(*buf, img)}
		in.done = func() { *buf = in.planes[0].Pix; lumaBuffers.Put(buf) }
	default:
		bufs := colourBuffers.Get().(*[3][]float64)
		if isRGB8(img) && m.Color && m.Subsample {
			// A process's first image: its planes from the spare where
			// it holds them (YCbCr420To writes every sample of an
			// RGBA image's planes into the buffers that fit).
			for c := range bufs {
				w, h := m.planeSize(c, b.Dx(), b.Dy())
				if cap(bufs[c]) < w*h {
					if s := takeSpare(w * h); s != nil {
						bufs[c] = s
					}
				}
			}
		}
		in.planes = m.planesTo(*bufs, img)
		in.done = func() {
			for c := range in.planes {
				bufs[c] = in.planes[c].Pix
			}
			colourBuffers.Put(bufs)
		}
	}
	if in.share {
		in.chans = make([]*stepFree, len(in.planes))
	}
}

// release hands back the planes' buffers and the transforms', and the
// index buffers of the probes kept (a rate search's: a fresh 1.5 MB for
// each 768×512 image in 8×8 otherwise).
func (in *encodeInput) release() {
	for ci, t := range in.chans {
		if t == nil {
			continue
		}
		releasePlane(t.y, t.idx)
		if t.tails != nil {
			restTailsPool.Put(t.tails)
			t.tails = nil
		}
		// The last probe's indices are t's when it was not kept.
		for _, cc := range [][]*codedChannel{in.kept, in.last} {
			if ci < len(cc) && cc[ci] != nil && cap(cc[ci].idx) > 0 && !sameArray(cc[ci].idx, t.idx) {
				putIndices(cc[ci].idx)
			}
		}
	}
	in.chans, in.kept, in.last = nil, nil, nil
	if in.done != nil {
		in.done()
	}
	in.planes, in.done = nil, nil
}

// sameArray reports whether a and b share their first element.
func sameArray(a, b []int32) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// stepFree is the part of a channel's quantisation that does not depend
// on the quantiser step: the patches' PCA coefficients y and the
// responses of their leading coefficients at unit scale, which the
// responses at any step's scale c are the products c_j·r_ij of, bit for
// bit (as the step basis's resp; spca's metric multiplies by c_j last).
// The probes of a rate search (StepForRate) share it, and each only
// quantises: the projection and the unfolding were two fifths of a
// probe's quantisation.
type stepFree struct {
	y    *mat.Dense // n×dims
	grid patches.Grid
	resp []float64 // n×k, the unit-scale responses
	// slow lists the rows that took the exact path (increasing), whose
	// other coefficients are quantised as quantizeExact does; isSlow
	// marks them (nil if none).
	slow   []int
	isSlow []bool
	idx    []int32 // the indices of the current step (quantize)
	// tails are where the rows' rests end, for rateEstimate
	// (restTails).
	tails *restTails
}

// transformSamples is the step-free part of quantizeSamples (exact and
// without nearest; newton as there).
func (c *Channel) transformSamples(p patches.Plane, g *image.Gray, n int, exact, newton bool) *stepFree {
	buf := takePlaneBuffer(p, n)
	t := &stepFree{idx: buf.idx}
	if g != nil {
		t.y, t.grid = c.PCA.ProjectGrayTo(buf.y, g, n)
	} else {
		t.y, t.grid = c.PCA.ProjectTo(buf.y, p, n)
	}
	rows, _ := t.y.Dims()
	k := c.Leading()
	if k == 0 {
		t.slow = allRows(rows) // quantizeExact's rest quantisers
	} else {
		t.resp = make([]float64, rows*k)
		ones := make([]float64, k)
		for j := range ones {
			ones[j] = 1
		}
		unit, err := c.SPCA.WithScale(ones)
		if err != nil {
			panic("codec: " + err.Error()) // ones are a valid scale
		}
		fp := c.fastPath()
		if exact || fp == nil {
			t.slow = allRows(rows)
		} else {
			blocks := (rows + fastBlock - 1) / fastBlock
			misses := make([][]int, blocks)
			if !newton && !c.interpHolds(t.y, fp) {
				newton = true
			}
			scratch := sync.Pool{New: func() any { return newFastScratch(fp, c.SPCA, fp.k) }}
			parallel.For(blocks, func(b int) {
				sc := scratch.Get().(*fastScratch)
				defer scratch.Put(sc)
				sc.interp = !newton
				for i := b * fastBlock; i < min(rows, (b+1)*fastBlock); i++ {
					if c.fastUnfold(sc, t.y.RawRowView(i)) {
						unit.MetricWork(t.resp[i*k:(i+1)*k], sc.u, sc.ms)
					} else {
						misses[b] = append(misses[b], i)
					}
				}
			})
			for _, m := range misses {
				t.slow = append(t.slow, m...)
			}
		}
		if len(t.slow) > 0 {
			// quantizeExact's responses (TransformBatch's), from
			// UnfoldedBatch's coordinates.
			sub := mat.NewDense(len(t.slow), k, nil)
			for a, i := range t.slow {
				copy(sub.RawRowView(a), t.y.RawRowView(i)[:k])
			}
			u, err := c.SPCA.UnfoldedBatch(sub)
			if err != nil {
				panic("codec: " + err.Error()) // rows are finite by construction
			}
			ms := unit.NewMetricScratch()
			for a, i := range t.slow {
				unit.ResponseWork(t.resp[i*k:(i+1)*k], u.RawRowView(a), ms)
			}
		}
	}
	if len(t.slow) > 0 {
		t.isSlow = make([]bool, rows)
		for _, i := range t.slow {
			t.isSlow[i] = true
		}
	}
	return t
}

// quantize writes into t.idx and returns the indices quantizeSamples
// gives t's patches with the quantisers of c, a channel of the model t
// was transformed with or of one Stepped from it.
func (c *Channel) quantize(t *stepFree) []int32 {
	rows, dims := t.y.Dims()
	if n := rows * dims; cap(t.idx) < n {
		// Every index is written below: a pooled buffer serves.
		t.idx = getIndices(n)
	}
	t.idx = t.idx[:rows*dims]
	idx := t.idx
	k := c.Leading()
	lead, rest := c.finders()
	var scale []float64
	if k > 0 {
		scale = c.SPCA.Scale()
	}
	blocks := (rows + fastBlock - 1) / fastBlock
	parallel.For(blocks, func(b int) {
		for i := b * fastBlock; i < min(rows, (b+1)*fastBlock); i++ {
			out, row := idx[i*dims:(i+1)*dims], t.y.RawRowView(i)
			r := t.resp[i*k : (i+1)*k]
			for j, v := range r {
				out[j] = c.leadIndex(lead, j, scale[j]*v)
			}
			if t.isSlow == nil || !t.isSlow[i] {
				restIndices(out[k:], row[k:], rest, c.restTab)
				continue
			}
			for j := k; j < dims; j++ {
				out[j] = int32(rest[j-k].index(row[j]))
			}
		}
	})
	return idx
}
