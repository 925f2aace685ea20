package codec

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// RDPoint is one rate point of a codec on a set of images: its bits per
// pixel and its quality (PSNR in dB, or SSIM).
type RDPoint struct {
	BPP, Quality float64
}

// BDRate returns the Bjøntegaard delta rate of test against ref (VCEG-M33):
// the average difference of the logarithm of the rate at equal quality,
// each curve fitted by a cubic polynomial of log-rate in the quality,
// integrated over the qualities both curves cover, as a percentage (-25
// means test needs 25 % fewer bits than ref). Each curve needs at least 4
// points of distinct qualities and positive rates, and the curves must
// overlap in quality.
func BDRate(ref, test []RDPoint) (float64, error) {
	r, _, _, err := BDRateIn(ref, test, math.Inf(-1), math.Inf(1))
	return r, err
}

// BDRateIn is BDRate integrated over the qualities in [lo, hi] that both
// curves cover; it also returns that interval. Several codecs' BD-rates
// against one reference compare with each other only over the same
// qualities: over each pair's own overlap, a codec swept to higher
// qualities than the others is judged at qualities they never reach
// (avifenc's curve to 46.5 dB on kodim13-24, the model's to 35.1).
func BDRateIn(ref, test []RDPoint, lo, hi float64) (rate, from, to float64, err error) {
	pr, lo1, hi1, err := fitLogRate(ref)
	if err != nil {
		return 0, 0, 0, err
	}
	pt, lo2, hi2, err := fitLogRate(test)
	if err != nil {
		return 0, 0, 0, err
	}
	lo, hi = math.Max(lo, math.Max(lo1, lo2)), math.Min(hi, math.Min(hi1, hi2))
	if !(hi > lo) {
		return 0, 0, 0, errors.New("codec: BD-rate: the curves do not overlap in quality")
	}
	avg := (integrate(pt, lo, hi) - integrate(pr, lo, hi)) / (hi - lo)
	return (math.Exp(avg) - 1) * 100, lo, hi, nil
}

// fitLogRate fits ln(bpp) = p0 + p1 q + p2 q² + p3 q³ by least squares and
// returns the coefficients and the range of the qualities.
func fitLogRate(pts []RDPoint) (p []float64, lo, hi float64, err error) {
	if len(pts) < 4 {
		return nil, 0, 0, errors.New("codec: BD-rate needs at least 4 rate points per curve")
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	seen := make(map[float64]bool)
	a := mat.NewDense(len(pts), 4, nil)
	b := mat.NewVecDense(len(pts), nil)
	for i, pt := range pts {
		if !(pt.BPP > 0) || math.IsInf(pt.BPP, 0) || math.IsNaN(pt.Quality) || math.IsInf(pt.Quality, 0) {
			return nil, 0, 0, errors.New("codec: BD-rate: rates must be positive and qualities finite")
		}
		seen[pt.Quality] = true
		lo, hi = math.Min(lo, pt.Quality), math.Max(hi, pt.Quality)
		for j, v := 0, 1.0; j < 4; j, v = j+1, v*pt.Quality {
			a.Set(i, j, v)
		}
		b.SetVec(i, math.Log(pt.BPP))
	}
	if len(seen) < 4 {
		return nil, 0, 0, errors.New("codec: BD-rate needs at least 4 distinct qualities per curve")
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		return nil, 0, 0, errors.New("codec: BD-rate: " + err.Error())
	}
	return []float64{x.AtVec(0), x.AtVec(1), x.AtVec(2), x.AtVec(3)}, lo, hi, nil
}

// integrate returns the integral of the cubic p over [lo, hi].
func integrate(p []float64, lo, hi float64) float64 {
	prim := func(q float64) float64 {
		return p[0]*q + p[1]*q*q/2 + p[2]*q*q*q/3 + p[3]*q*q*q*q/4
	}
	return prim(hi) - prim(lo)
}

// RateSweep measures m on the images at each quantiser step (Options.Step,
// the encode-time rate knob; m in the entropy-constrained mode): one
// Result per step, averaged over the images as Evaluate's, for rate–
// distortion curves and BDRate.
func RateSweep(m *Model, images []image.Image, steps []float64, o *Options) ([]Result, error) {
	if m.Step == 0 {
		return nil, errors.New("codec: a rate sweep needs a model in the entropy-constrained mode")
	}
	var opt Options
	if o != nil {
		opt = *o
	}
	out := make([]Result, 0, len(steps))
	for _, s := range steps {
		opt.Step = s
		r, err := measure(m, images, &opt)
		if err != nil {
			return nil, err
		}
		r.Method, r.Step = fmt.Sprintf("%s step %.3g", sweepName(m), s), s
		out = append(out, r)
	}
	return out, nil
}

// sweepName names the rows of a RateSweep of m: "spca", or "pca" for a
// model without SPCA (PCABaseline).
func sweepName(m *Model) string {
	for _, c := range m.Channels {
		if c.SPCA != nil {
			return "spca"
		}
	}
	return "pca"
}

// QualityGap returns, for each point of test, its quality minus ref's at
// the same rate, ref's quality interpolated linearly in the logarithm of
// the rate between its two nearest points (NaN where the rate is outside
// ref's range): the comparison "at every rate point" of two curves
// measured over the same settings.
func QualityGap(ref, test []RDPoint) []float64 {
	r := append([]RDPoint(nil), ref...)
	sort.Slice(r, func(i, j int) bool { return r[i].BPP < r[j].BPP })
	out := make([]float64, len(test))
	for i, t := range test {
		out[i] = math.NaN()
		for k := 1; k < len(r); k++ {
			a, b := r[k-1], r[k]
			if !(t.BPP >= a.BPP && t.BPP <= b.BPP) || !(a.BPP > 0) {
				continue
			}
			f := 0.0
			if b.BPP > a.BPP {
				f = math.Log(t.BPP/a.BPP) / math.Log(b.BPP/a.BPP)
			}
			out[i] = t.Quality - (a.Quality + f*(b.Quality-a.Quality))
			break
		}
	}
	return out
}
