package codec

import (
	"image"
	"math"

	"github.com/spcalab/spca/patches"
)

// Unless Options.Deblock says otherwise, Encode chooses the deblocking
// strength of a version-5 file itself: it reconstructs the image as the
// decoder will and keeps the strength 0..maxDeblock with the smallest
// squared error (bestDeblock). The decoder is unchanged: the strength is
// the header's byte, as when it was a fixed default (4, chosen on two
// images that were themselves test images).

// deblockErrors returns the squared error against orig of the
// reconstruction rec deblocked at each strength 0..maxDeblock; with
// gray8 the pixels are rounded to 8 bits before and while filtering, as
// the decoder of a grey 8-bit image does.
func deblockErrors(orig, rec patches.Plane, step float64, n int, gray8 bool) []float64 {
	clamp := func(v float64) float64 { return math.Max(0, math.Min(255, math.Round(v))) }
	errs := make([]float64, maxDeblock+1)
	if gray8 {
		g := image.NewGray(image.Rect(0, 0, rec.W, rec.H))
		for i, v := range rec.Pix {
			g.Pix[i] = uint8(clamp(v))
		}
		return deblockErrorsGray(orig, g, step, n)
	}
	base := rec.Pix
	work := make([]float64, len(base))
	for k := range errs {
		copy(work, base)
		if k > 0 && n >= 2 && step > 0 {
			alpha, beta, tc := deblockParams(k, step, n)
			get := func(i int) float64 { return work[i] }
			set := func(i int, v float64) { work[i] = v }
			deblockEdges(get, set, rec.W, rec.W, rec.H, n, alpha, beta, tc)
		}
		var s float64
		for i, v := range work {
			d := v - orig.Pix[i]
			s += d * d
		}
		errs[k] = s
	}
	return errs
}

// deblockErrorsGray is deblockErrors of an 8-bit grey reconstruction
// (rec, unchanged), filtered as the decoder does (deblockImage): the same
// values and sums as float64 pixels rounded alike, in an eighth of the
// memory (two float64 copies of a 768×512 image cost a fresh encoding
// process ~1300 page faults, ~20 ms).
func deblockErrorsGray(orig patches.Plane, rec *image.Gray, step float64, n int) []float64 {
	errs := make([]float64, maxDeblock+1)
	work := image.NewGray(rec.Rect)
	for k := range errs {
		copy(work.Pix, rec.Pix)
		deblockImage(work, k, step, n)
		var s float64
		for i, v := range work.Pix {
			d := float64(v) - orig.Pix[i]
			s += d * d
		}
		errs[k] = s
	}
	return errs
}

// bestDeblock returns the strength with the smallest squared error summed
// over the channels (the lowest on ties).
func bestDeblock(sse [][]float64) int {
	best, bestErr := 0, math.Inf(1)
	for k := 0; k <= maxDeblock; k++ {
		var s float64
		for _, e := range sse {
			s += e[k]
		}
		if s < bestErr {
			best, bestErr = k, s
		}
	}
	return best
}

// deblockParams returns the thresholds of the deblocking filter of
// strength k for patches of n×n pixels coded at quantiser step: in pixel
// units, u = step/n is the step of a patch's mean (the first PCA
// coefficient of a smooth patch is n times its mean), and an edge is
// smoothed where the jump across it is below alpha = k·u/2 and each side
// varies by less than beta = k·u/4 next to it, by at most tc = k·u/4 —
// a discontinuity the size of the quantisation error, not an edge of
// the image.
func deblockParams(k int, step float64, n int) (alpha, beta, tc float64) {
	u := step / float64(n)
	kf := float64(k)
	return kf * u / 2, kf * u / 4, kf * u / 4
}

// deblockImage runs the filter over a decoded grey image in place.
func deblockImage(img image.Image, k int, step float64, n int) {
	if k <= 0 || n < 2 || !(step > 0) {
		return
	}
	alpha, beta, tc := deblockParams(k, step, n)
	switch g := img.(type) {
	case *image.Gray:
		deblockGray(g.Pix, g.Stride, g.Rect.Dx(), g.Rect.Dy(), n, alpha, beta, tc)
	case *image.Gray16:
		w, h := g.Rect.Dx(), g.Rect.Dy()
		// 16-bit samples: the thresholds, in 8-bit units, scale by 257.
		get := func(i int) float64 { return float64(uint16(g.Pix[2*i])<<8 | uint16(g.Pix[2*i+1])) }
		set := func(i int, v float64) {
			x := uint16(math.Max(0, math.Min(65535, math.Round(v))))
			g.Pix[2*i], g.Pix[2*i+1] = byte(x>>8), byte(x)
		}
		deblockEdges(get, set, g.Stride/2, w, h, n, 257*alpha, 257*beta, 257*tc)
	}
}

// deblockPlane runs the filter over a decoded plane (0..255 scale) in
// place.
func deblockPlane(p patches.Plane, k int, step float64, n int) {
	if k <= 0 || n < 2 || !(step > 0) {
		return
	}
	alpha, beta, tc := deblockParams(k, step, n)
	get := func(i int) float64 { return p.Pix[i] }
	set := func(i int, v float64) { p.Pix[i] = v }
	deblockEdges(get, set, p.W, p.W, p.H, n, alpha, beta, tc)
}

// deblockGray is deblockEdges on 8-bit pixels, rounded and clamped to
// 0..255 as they are set, with the pixel accesses written out rather
// than passed as functions: the same operations in the same order, so
// the same pixels (TestDeblockGray), in a fifth of the time (the
// encoder filters every image at nine strengths to choose one).
func deblockGray(pix []uint8, stride, w, h, n int, alpha, beta, tc float64) {
	for y := 0; y < h; y++ {
		for x := n; x+1 < w; x += n {
			deblockEdge8(pix, y*stride+x, 1, alpha, beta, tc)
		}
	}
	for y := n; y+1 < h; y += n {
		for x := 0; x < w; x++ {
			deblockEdge8(pix, y*stride+x, stride, alpha, beta, tc)
		}
	}
}

// deblockEdge8 is deblockEdges's edge on 8-bit pixels.
func deblockEdge8(pix []uint8, i, step int, alpha, beta, tc float64) {
	p1, p0, q0, q1 := float64(pix[i-2*step]), float64(pix[i-step]), float64(pix[i]), float64(pix[i+step])
	if !(math.Abs(q0-p0) < alpha && math.Abs(p1-p0) < beta && math.Abs(q1-q0) < beta) {
		return
	}
	d := (4*(q0-p0) + p1 - q1) / 8
	d = math.Max(-tc, math.Min(tc, d))
	set := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }
	pix[i-step] = set(p0 + d)
	pix[i] = set(q0 - d)
	pix[i-2*step] = set(p1 + d/2)
	pix[i+step] = set(q1 - d/2)
}

// deblockEdges filters the vertical patch edges (x a multiple of n), then
// the horizontal ones, as H.264's normal filter: across an edge between
// p1 p0 | q0 q1, where |q0 − p0| < alpha, |p1 − p0| < beta and
// |q1 − q0| < beta, p0 and q0 move towards each other by
// (4(q0 − p0) + p1 − q1)/8 clipped to ±tc, and p1 and q1 by half that.
// The products are by powers of two, so the result is the same on every
// platform.
func deblockEdges(get func(int) float64, set func(int, float64), stride, w, h, n int, alpha, beta, tc float64) {
	edge := func(i, step int) {
		p1, p0, q0, q1 := get(i-2*step), get(i-step), get(i), get(i+step)
		if !(math.Abs(q0-p0) < alpha && math.Abs(p1-p0) < beta && math.Abs(q1-q0) < beta) {
			return
		}
		d := (4*(q0-p0) + p1 - q1) / 8
		d = math.Max(-tc, math.Min(tc, d))
		set(i-step, p0+d)
		set(i, q0-d)
		set(i-2*step, p1+d/2)
		set(i+step, q1-d/2)
	}
	for y := 0; y < h; y++ {
		for x := n; x+1 < w; x += n {
			edge(y*stride+x, 1)
		}
	}
	for y := n; y+1 < h; y += n {
		for x := 0; x < w; x++ {
			edge(y*stride+x, stride)
		}
	}
}
