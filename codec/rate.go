package codec

import (
	"errors"
	"fmt"
	"image"
	"io"
	"math"
)

// rateTolerance is the relative distance to the target rate at which
// StepForRate stops searching (at the default effort; effortPlan).
const rateTolerance = 0.02

// maxEstProbes bounds the probes of a StepForRate search at steps the
// rate estimate proposes; the later ones are the secant's (a target the
// image cannot reach, a rate curve with steps in it).
const maxEstProbes = 3

// maxRateProbes bounds the encodings of one StepForRate search.
const maxRateProbes = 14

// StepForRate returns the quantiser step (Options.Step) at which m, a
// model in the entropy-constrained mode, codes img at bpp bits per pixel,
// and the rate it codes at: the encode-time rate knob. It stops at the
// first step whose rate is within 2 % of the target (5 % at MinEffort,
// o's Effort) (or at the closest of
// at most 14 encodings). Each step it tries is an exact encoding; an
// estimate of the rate at any step, from the image's transform without
// coding it (rateEstimate: the entropy of the cells, as the coder's
// contexts see them), chooses them: the first where the estimate meets
// the target, the next ones where it does once scaled by the exact rates
// found (mostly 1 or 2 encodings; without it, a secant on log step from
// the model's own step took about 5). The steps lie on a grid of 2^(1/1024)
// around the model's, so that every architecture chooses the same. o's
// Step is ignored.
func StepForRate(img image.Image, m *Model, bpp float64, o *Options) (step, rate float64, err error) {
	in := &encodeInput{share: true}
	defer in.release()
	return stepForRate(img, m, bpp, o, in)
}

// EncodeAtRate writes img coded with m at bpp bits per pixel: Encode at
// the step StepForRate finds, which it returns with the rate. The search
// and the encode share the image's transform (the PCA coefficients and
// the unfolded SPCA coordinates do not depend on the step), and the
// encode takes the chosen probe's coded streams and indices (keeping one
// probe's at a time), so it costs less than the two calls, for the same
// file. step is 0 where the search failed, before anything was written.
func EncodeAtRate(w io.Writer, img image.Image, m *Model, bpp float64, o *Options) (step, rate float64, err error) {
	in := &encodeInput{share: true, keep: true}
	defer in.release()
	return encodeAtRate(w, img, m, bpp, o, in)
}

// encodeAtRate is EncodeAtRate with in, an encodeInput with share and
// keep set: the final encode takes the chosen probe's streams.
func encodeAtRate(w io.Writer, img image.Image, m *Model, bpp float64, o *Options, in *encodeInput) (step, rate float64, err error) {
	if step, rate, err = stepForRate(img, m, bpp, o, in); err != nil {
		return 0, 0, err
	}
	var opt Options
	if o != nil {
		opt = *o
	}
	opt.Step = step
	return step, rate, encodeInputVersion(w, img, m, &opt, optionsFormat(img, m, &opt), in)
}

// stepForRate is StepForRate with its probes sharing in, an encodeInput
// with share set.
func stepForRate(img image.Image, m *Model, bpp float64, o *Options, in *encodeInput) (step, rate float64, err error) {
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
	plan, err := planOf(opt.Effort)
	if err != nil {
		return 0, 0, err
	}
	if opt.Deblock == 0 {
		// The deblocking strength is one header byte whatever its
		// value, so the probes fix one instead of searching for it (the
		// search reconstructs the image: a fifth of an encode) and are
		// as long (TestRateProbeDeblock); the caller's encode searches.
		opt.Deblock = 1
	}
	// The loop filter of versions 9 and 10 takes its header bytes
	// whether fitted or not: the probes, in the version of the caller's
	// encode, do not fit it (which reconstructs the image too) and are
	// as long; the caller's encode fits it.
	v := optionsFormat(img, m, &opt)
	opt.NoLoopFilter = true
	b := img.Bounds()
	pixels := float64(b.Dx()) * float64(b.Dy())
	// The probes share the projection and the unfolding, which do not
	// depend on the step (stepFree).
	measure := func(s float64) (float64, error) {
		opt.Step = s
		in.probes++
		var w countingWriter
		if err := encodeInputVersion(&w, img, m, &opt, v, in); err != nil {
			return 0, err
		}
		return 8 * float64(w.n) / pixels, nil
	}
	// floor is the log of the finest step the model's quantisers fit
	// (minStep), found when the search first heads below the model's
	// step: the probes stop there, and a target above every rate the
	// image reaches stops at its probe instead of probing finer steps,
	// which fail, and bisecting back (the fine steps' probes are the slow
	// ones: --bpp 20 took 5.5-8.8 s).
	floor, floorStep, floorKnown := math.Inf(-1), 0.0, false
	below := func(x float64) float64 {
		if !floorKnown && x < math.Log(m.Step) {
			floorKnown = true
			if s, err := m.minStep(); err == nil && s > 0 {
				floor, floorStep = math.Log(s), s
			}
		}
		return max(x, floor)
	}
	// Bracket [lo, hi] in log step: rate(lo) > bpp > rate(hi), when known.
	lo, hi := math.Inf(-1), math.Inf(1)
	var rlo, rhi float64
	x := math.Log(m.Step)
	// The estimate (rateModel) proposes each probe's step where it has
	// one; without it the secant below does.
	est := newRateModel(img, m, &opt, in, pixels)
	if est != nil {
		defer est.release()
	}
	bestErr := math.Inf(1)     // of rate
	var px, pr float64         // the previous probe
	x0, lastK := x, math.NaN() // the model's step, and the grid step of the last probe
	if est != nil {
		x = below(est.propose(bpp, x))
	}
	for probe := 0; probe < maxRateProbes; probe++ {
		// The probes' steps lie on a grid (stepAt) that every
		// architecture computes alike, so that a proposal that differs
		// in its last bits (the logarithms) gives the same step.
		k := math.Round((x - x0) / stepGrid)
		if k == lastK {
			k += math.Copysign(1, pr-bpp) // toward the target
		}
		s := stepAt(m.Step, k)
		x, lastK = x0+float64(k*stepGrid), k
		if s < floorStep { // the finest step itself (minStep)
			s, x = floorStep, floor
		}
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
			if in.keep {
				in.keepLast(s)
			}
		}
		if bestErr <= plan.rateTolerance {
			break
		}
		if x <= floor && r < bpp {
			break // the finest step still codes below the target
		}
		if r > bpp {
			lo, rlo = x, r
		} else {
			hi, rhi = x, r
		}
		if hi-lo < 1.5*stepGrid {
			// Neighbours on the grid on either side of the target: the
			// rate jumps over it there (the quantisers' cells change;
			// the 4×4 model coded kodim20 at 0.2614 bpp at step 40.28
			// and 0.2388 at 40.31).
			break
		}
		// Secant through the last two probes (a first slope of -1 bit
		// per pixel for each doubling of the step, the high-rate slope),
		// where the estimate proposes nothing or the step just probed
		// (a rate it cannot reach: the estimate falls to 0 bits).
		slope := -1 / math.Ln2
		if probe > 0 && x != px {
			slope = (r - pr) / (x - px) // 0 on a flat stretch: a factor of 2
		}
		next := x + (bpp-r)/slope
		if !(slope < 0) || math.IsNaN(next) {
			next = x + math.Copysign(math.Ln2, r-bpp)
		}
		if est != nil && probe < maxEstProbes-1 {
			est.observe(x, r, 8*float64(in.header)/pixels)
			if e := est.propose(bpp, x); math.Abs(e-x) > 1e-6 && !math.IsNaN(e) && !math.IsInf(e, 0) {
				next = e
			}
		}
		// At most a factor of 4 in the step per probe, and inside the
		// bracket: false position when the proposal leaves it (bisection
		// where a bound's rate is unknown). (Straight to the finest step
		// when the secant passes it changed the path, and so the bytes,
		// of reachable targets: a flat stretch of the rate curve sent a
		// 1 bpp search of a synthetic crop there.)
		next = max(x-2*math.Ln2, min(x+2*math.Ln2, next))
		if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
			if !math.IsInf(rlo, 0) {
				next = lo + (hi-lo)*(rlo-bpp)/(rlo-rhi)
			}
		}
		px, pr, x = x, r, below(next)
		if s >= maxStep && r > bpp {
			break // the coarsest step still codes above the target
		}
	}
	return step, rate, nil
}

// stepGrid is the spacing of the rate search's steps in their
// logarithm: 2^(1/1024), 0.07 % (stepAt).
const stepGrid = math.Ln2 / 1024

// stepRoot is 2^(1/1024) rounded to float64.
const stepRoot = 1.0006771306930664

// stepAt returns the step k grid spacings from base, base·2^(k/1024), by
// multiplications alone (rounded alike everywhere; math.Exp's assembly
// differs between architectures in the last bit, and the step is in the
// file).
func stepAt(base, k float64) float64 {
	e := math.Floor(k / 1024)
	j := int(k - 1024*e) // 0..1023
	p, r := 1.0, stepRoot
	for ; j > 0; j >>= 1 {
		if j&1 == 1 {
			p *= r
		}
		r *= r
	}
	return math.Ldexp(base*p, int(e))
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

// minStep returns the finest quantiser step (to a factor of 1 + 2^-17)
// at which every quantiser of m fits in maxLevels cells: the checks
// SetStep makes (the SPCA dimensions' scales and dead-zone grids, the
// other coefficients' grids), from the step bases, without building the
// quantisers. It returns 0 when unknown (a training sample whose values
// are not multiples of 2^-6 has no sorted columns). A model finds it
// once (each rate search of a batch asked for it: 0.5 % of the batch's
// instructions).
func (m *Model) minStep() (float64, error) {
	b := m
	if m.base != nil {
		b = m.base
	}
	b.stepMu.Lock()
	err := b.loadBases()
	bases, finest, known := b.stepBasis, b.finest, b.finestKnown
	b.stepMu.Unlock()
	if err != nil || known {
		return finest, err
	}
	finest = b.finestStep(bases)
	b.stepMu.Lock()
	b.finest, b.finestKnown = finest, true
	b.stepMu.Unlock()
	return finest, nil
}

// finestStep is minStep from the step bases of b, a model of its own.
func (b *Model) finestStep(bases []*stepBasis) float64 {
	// cells is the number of cells of newDeadZoneGrid(lo, hi, step,
	// spare), in floating point (no integer overflow at fine steps).
	cells := func(lo, hi, step, spare float64) float64 {
		margin := float64(spare * (hi - lo)) // as newDeadZoneGrid rounds it
		return deadZoneCellFloat(hi+margin, step) - deadZoneCellFloat(lo-margin, step) + 1
	}
	type lead struct {
		ext, lo, hi float64 // range of the unfolded coordinate, of norm
		mid         [2]float64
		n           int
	}
	var leads []lead
	var rest [][2]float64 // each column's range
	for ci, c := range b.Channels {
		bs := bases[ci]
		k := c.Leading()
		if bs.rest == nil && c.Dims() > k {
			return 0
		}
		nlo, nhi := bs.normRange(k)
		for j := 0; j < k; j++ {
			leads = append(leads, lead{ext: bs.ext[j], lo: nlo[j], hi: nhi[j], mid: bs.mid[j], n: bs.n})
		}
		for _, s := range bs.rest {
			rest = append(rest, [2]float64{s.vals[0], s.vals[len(s.vals)-1]})
		}
	}
	fits := func(step float64) bool {
		for _, d := range leads {
			scale := d.ext / step
			if !(scale <= maxLevels) {
				return false
			}
			// setStep's grid: the responses times scale less their
			// median (min and max by monotonicity), unit step, no spare.
			mid := medianScaled(d.mid, d.n, scale)
			if !(cells(float64(d.lo*scale)-mid, float64(d.hi*scale)-mid, 1, 0) <= maxLevels) {
				return false
			}
		}
		for _, r := range rest {
			if !(cells(r[0], r[1], step, 0.25) <= maxLevels) {
				return false
			}
		}
		return true
	}
	hi := b.Step
	if !fits(hi) {
		return 0
	}
	lo := hi
	for fits(lo) {
		if lo /= 2; lo < 0x1p-1000 {
			return 0 // no finest step: every step fits
		}
	}
	for hi/lo > 1+0x1p-20 {
		mid := math.Sqrt(lo * hi)
		if fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	// A margin over the bisection's precision, so that exp(log(step))
	// fits too.
	return hi * (1 + 0x1p-18)
}
