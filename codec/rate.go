package codec

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// rateTolerance is the relative distance to the target rate at which
// StepForRate stops searching.
const rateTolerance = 0.01

// maxRateProbes bounds the encodings of one StepForRate search.
const maxRateProbes = 14

// StepForRate returns the quantiser step (Options.Step) at which m, a
// model in the entropy-constrained mode, codes img at bpp bits per pixel,
// and the rate it codes at: the encode-time rate knob. The rate falls as
// the step grows, nearly linearly in the logarithm of the step, so the
// search is a secant on log step safeguarded by bisection, from the
// model's own step, stopping within 1 % of the target (or at the closest
// of at most 14 encodings). o's Step is ignored.
func StepForRate(img image.Image, m *Model, bpp float64, o *Options) (step, rate float64, err error) {
	if m.Step == 0 {
		return 0, 0, errors.New("codec: a rate at encode time needs a model in the entropy-constrained mode (TrainOptions.Step or Uniform; spca codec train --step or --uniform)")
	}
	if !(bpp > 0) || math.IsInf(bpp, 0) {
		return 0, 0, fmt.Errorf("codec: target of %v bits per pixel", bpp)
	}
	var opt Options
	if o != nil {
		opt = *o
	}
	if opt.Deblock == 0 {
		// The deblocking strength is one header byte whatever its
		// value, so the probes fix one instead of searching for it (the
		// search reconstructs the image: a fifth of an encode) and are
		// as long (TestRateProbeDeblock); the caller's encode searches.
		opt.Deblock = 1
	}
	// The loop filter of version 9 takes its header bytes whether fitted
	// or not: the probes do not fit it (which reconstructs the image too)
	// and are as long; the caller's encode fits it.
	opt.NoLoopFilter = true
	b := img.Bounds()
	pixels := float64(b.Dx()) * float64(b.Dy())
	measure := func(s float64) (float64, error) {
		opt.Step = s
		var w countingWriter
		if err := Encode(&w, img, m, &opt); err != nil {
			return 0, err
		}
		return 8 * float64(w.n) / pixels, nil
	}
	// Bracket [lo, hi] in log step: rate(lo) > bpp > rate(hi), when known.
	lo, hi := math.Inf(-1), math.Inf(1)
	var rlo, rhi float64
	x := math.Log(m.Step)
	bestErr := math.Inf(1) // of rate
	var px, pr float64     // the previous probe
	for probe := 0; probe < maxRateProbes; probe++ {
		s := math.Exp(x)
		if s > maxStep {
			s, x = maxStep, math.Log(maxStep)
		}
		r, err := measure(s)
		if err != nil {
			if s >= m.Step || probe == 0 {
				return 0, 0, err
			}
			// A step too fine for the quantisers' bins (a secant
			// from a flat stretch of the curve): treat it as above the
			// target, and bisect.
			lo, rlo = x, math.Inf(1)
			if math.IsInf(hi, 1) {
				x += math.Ln2
			} else {
				x = 0.5 * (lo + hi)
			}
			continue
		}
		if e := math.Abs(r-bpp) / bpp; probe == 0 || closer(r, rate, bpp) {
			bestErr, step, rate = e, s, r
		}
		if bestErr <= rateTolerance {
			break
		}
		if r > bpp {
			lo, rlo = x, r
		} else {
			hi, rhi = x, r
		}
		// Secant through the last two probes (a first slope of -1 bit
		// per pixel for each doubling of the step, the high-rate slope).
		slope := -1 / math.Ln2
		if probe > 0 && x != px && r != pr {
			slope = (r - pr) / (x - px)
		}
		next := x + (bpp-r)/slope
		if !(slope < 0) || math.IsNaN(next) {
			next = x + math.Copysign(math.Ln2, r-bpp)
		}
		// At most a factor of 4 in the step per probe, and inside the
		// bracket: false position when the secant leaves it (bisection
		// where a bound's rate is unknown).
		next = max(x-2*math.Ln2, min(x+2*math.Ln2, next))
		if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
			if !math.IsInf(rlo, 0) {
				next = lo + (hi-lo)*(rlo-bpp)/(rlo-rhi)
			}
		}
		px, pr, x = x, r, next
		if s >= maxStep && r > bpp {
			break // the coarsest step still codes above the target
		}
	}
	return step, rate, nil
}

// closer reports whether rate r is closer to the target bpp than rate
// best. Rates on the same side compare by themselves: a target far
// beyond every rate (1e300 bits per pixel) rounds |r-bpp| to the same
// value for all, which kept the first probe, the model's own step,
// instead of the highest rate found.
func closer(r, best, bpp float64) bool {
	switch {
	case r <= bpp && best <= bpp:
		return r > best
	case r >= bpp && best >= bpp:
		return r < best
	}
	return math.Abs(r-bpp) < math.Abs(best-bpp)
}
