package adapt

import (
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/spcalab/spca/colorspace"
)

// DefaultShadowFraction is the share of the evaluated pixels, the
// darkest in the B rendering, that Evaluate reports as the shadow (low
// luminance) region.
const DefaultShadowFraction = 0.25

// ErrorStats summarise CIEDE2000 differences.
type ErrorStats struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P95  float64 `json:"p95"`
}

// MethodResult is the error of one method, over all pixels and over the
// shadow region.
type MethodResult struct {
	Method string     `json:"method"`
	All    ErrorStats `json:"all"`
	Shadow ErrorStats `json:"shadow"`
	// LightnessW1 compares distributions instead of pixels: the 1-D
	// Wasserstein distance between the L* values of the corrected B
	// pixels and of the A pixels (the mean absolute difference of their
	// sorted values), in L* units.
	LightnessW1 float64 `json:"lightness_w1"`
	// Truth is the CIEDE2000 difference against the colour-only truth
	// (EvalOptions.Truth) over all pixels; nil without a truth.
	Truth *ErrorStats `json:"truth,omitempty"`
}

// Evaluation is the result of Evaluate.
type Evaluation struct {
	Pixels       int `json:"pixels"`
	ShadowPixels int `json:"shadow_pixels"`
	// ShadowL is the B lightness L* below which pixels are in the shadow
	// region.
	ShadowL float64        `json:"shadow_lightness"`
	Methods []MethodResult `json:"methods"`
}

// EvalOptions control Evaluate. The zero value evaluates every method
// (Methods) on every pixel, with the default shadow region.
type EvalOptions struct {
	// Methods to evaluate; nil means Methods(), and Aligned before
	// Uncorrected for a model with an alignment matrix.
	Methods []Method
	// ShadowFraction is the share of the pixels, the darkest in B
	// (lowest L*), that form the shadow region; 0 means
	// DefaultShadowFraction.
	ShadowFraction float64
	// MaxPixels, if positive, evaluates a seeded uniform subsample of at
	// most that many pixels (the exact SPCA path maps about 10⁴–10⁵
	// colours per second).
	MaxPixels int
	// Seed of the subsample.
	Seed uint64
	// Truth, if not nil, holds for each B image its colour-only truth:
	// the same scene with B's geometry and exposure (light direction,
	// shadows, brightness) but A's illuminant (testimages.SceneTruth,
	// testimages.RelightPhoto). Each method is then also scored against
	// it (MethodResult.Truth): a correction of the light's colour alone
	// should move B towards it, whatever it does to the geometry.
	Truth []image.Image
}

// Evaluate maps every pixel of the B images with each method (exact
// models, no LUT) and measures CIEDE2000 against the pixel at the same
// position of the A images: mean and 95th percentile over all pixels and
// over the shadow region, the darkest EvalOptions.ShadowFraction of the
// pixels in the B images (lowest L*, where the seed expects SPCA to win). a[i] and b[i] must be the same scene at the
// same size. Fully transparent pixels are ignored.
func Evaluate(m *Model, a, b []image.Image, opt EvalOptions) (*Evaluation, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("adapt: evaluate: %d A images and %d B images", len(a), len(b))
	}
	if len(a) == 0 {
		return nil, fmt.Errorf("%w: nothing to evaluate", ErrNoPixels)
	}
	if opt.ShadowFraction == 0 {
		opt.ShadowFraction = DefaultShadowFraction
	}
	if !(opt.ShadowFraction > 0 && opt.ShadowFraction < 1) {
		return nil, fmt.Errorf("adapt: evaluate: shadow fraction %v not in (0, 1)", opt.ShadowFraction)
	}
	methods := opt.Methods
	if methods == nil {
		methods = Methods()
		if m.Align != (colorspace.Mat3{}) {
			methods = append(methods[:len(methods)-1], Aligned, Uncorrected)
		}
	}
	if opt.Truth != nil && len(opt.Truth) != len(b) {
		return nil, fmt.Errorf("adapt: evaluate: %d truth images for %d B images", len(opt.Truth), len(b))
	}
	px, err := evalPixels(a, b, opt)
	if err != nil {
		return nil, err
	}
	srcB, refA, refT, lightB := px.srcB, px.refA, px.refT, px.lightB
	if len(srcB) == 0 {
		return nil, fmt.Errorf("%w: every pixel is fully transparent", ErrNoPixels)
	}
	sorted := append([]float64(nil), lightB...)
	sort.Float64s(sorted)
	ev := &Evaluation{Pixels: len(srcB)}
	ns := max(1, int(math.Round(opt.ShadowFraction*float64(len(sorted)))))
	ev.ShadowL = sorted[ns-1]
	shadow := make([]bool, len(lightB))
	for i, l := range lightB {
		if l <= ev.ShadowL {
			shadow[i] = true
			ev.ShadowPixels++
		}
	}
	lightA := make([]float64, len(refA))
	for i, c := range refA {
		lightA[i] = c.Lab()[0]
	}
	sort.Float64s(lightA)
	lightC := make([]float64, len(refA))
	dst := make([]colorspace.LMS, len(srcB))
	var all, sh, tr []float64
	for _, method := range methods {
		mp, err := m.Mapper(method)
		if err != nil {
			return nil, err
		}
		if err := mp.MapLMS(dst, srcB); err != nil {
			return nil, fmt.Errorf("adapt: evaluate %v: %w", method, err)
		}
		all, sh, tr = all[:0], sh[:0], tr[:0]
		for i, c := range dst {
			lab := LMSToSRGB(c).Lab()
			d := colorspace.DeltaE2000(lab, refA[i].Lab())
			all = append(all, d)
			if shadow[i] {
				sh = append(sh, d)
			}
			if refT != nil {
				tr = append(tr, colorspace.DeltaE2000(lab, refT[i].Lab()))
			}
			lightC[i] = lab[0]
		}
		sort.Float64s(lightC)
		w1 := 0.0
		for i, l := range lightC {
			w1 += math.Abs(l - lightA[i])
		}
		r := MethodResult{
			Method: method.String(), All: summarise(all), Shadow: summarise(sh),
			LightnessW1: w1 / float64(len(lightC)),
		}
		if refT != nil {
			t := summarise(tr)
			r.Truth = &t
		}
		ev.Methods = append(ev.Methods, r)
	}
	return ev, nil
}

// pixelSet holds the evaluated pixels: B's colour, A's and the truth's
// (nil without one) in sRGB, and B's lightness L*.
type pixelSet struct {
	srcB   []colorspace.LMS
	refA   []colorspace.SRGB
	refT   []colorspace.SRGB
	lightB []float64
}

// evalPixels returns the pixels Evaluate scores: those opaque in both A
// and B (pair by pair, in raster order), or opt.MaxPixels of them chosen
// by subsample. The pixels are counted first and only the chosen ones
// converted: collecting all of them before subsampling took 80 bytes a
// pixel with the appends' growth (adapt eval of 12 photos of 768×512
// with the truth, the default 200,000 of 4.7 million pixels: 1.3 GB).
func evalPixels(a, b []image.Image, opt EvalOptions) (*pixelSet, error) {
	for i := range a {
		ba, bb := a[i].Bounds(), b[i].Bounds()
		if ba.Dx() != bb.Dx() || ba.Dy() != bb.Dy() {
			return nil, fmt.Errorf("adapt: evaluate: pair %d: A is %d×%d, B is %d×%d",
				i+1, ba.Dx(), ba.Dy(), bb.Dx(), bb.Dy())
		}
		if opt.Truth != nil {
			if bt := opt.Truth[i].Bounds(); bt.Dx() != bb.Dx() || bt.Dy() != bb.Dy() {
				return nil, fmt.Errorf("adapt: evaluate: pair %d: B is %d×%d, its truth %d×%d",
					i+1, bb.Dx(), bb.Dy(), bt.Dx(), bt.Dy())
			}
		}
	}
	// each calls fn for every pixel opaque in A and B, with its rank
	// among them.
	each := func(fn func(j, i, x, y int, la, lb [3]float64)) {
		j := 0
		for i := range a {
			ba, bb := a[i].Bounds(), b[i].Bounds()
			for y := 0; y < ba.Dy(); y++ {
				for x := 0; x < ba.Dx(); x++ {
					la, aa := pixelLinear(a[i], ba.Min.X+x, ba.Min.Y+y)
					lb, ab := pixelLinear(b[i], bb.Min.X+x, bb.Min.Y+y)
					if aa == 0 || ab == 0 {
						continue
					}
					fn(j, i, x, y, la, lb)
					j++
				}
			}
		}
	}
	n := 0
	each(func(int, int, int, int, [3]float64, [3]float64) { n++ })
	var keep []int // nil: every pixel
	if opt.MaxPixels > 0 && n > opt.MaxPixels {
		keep = subsample(n, opt.MaxPixels, opt.Seed)
		n = len(keep)
	}
	p := &pixelSet{srcB: make([]colorspace.LMS, 0, n), refA: make([]colorspace.SRGB, 0, n), lightB: make([]float64, 0, n)}
	if opt.Truth != nil {
		p.refT = make([]colorspace.SRGB, 0, n)
	}
	each(func(j, i, x, y int, la, lb [3]float64) {
		if keep != nil {
			if len(keep) == 0 || keep[0] != j {
				return
			}
			keep = keep[1:]
		}
		if opt.Truth != nil {
			bt := opt.Truth[i].Bounds()
			lt, _ := pixelLinear(opt.Truth[i], bt.Min.X+x, bt.Min.Y+y)
			p.refT = append(p.refT, linearToSRGB(lt))
		}
		p.srcB = append(p.srcB, linearToLMS(lb))
		p.refA = append(p.refA, linearToSRGB(la))
		yb := colorspace.LinearRGBToXYZ.Apply(colorspace.XYZ(lb))
		p.lightB = append(p.lightB, yb.Lab(colorspace.WhiteD65)[0])
	})
	return p, nil
}

// linearToSRGB encodes linear sRGB, clipped to [0, 1].
func linearToSRGB(l [3]float64) colorspace.SRGB {
	var s colorspace.SRGB
	for k, v := range l {
		s[k] = colorspace.LinearToSRGB(min(max(v, 0), 1))
	}
	return s
}

func summarise(x []float64) ErrorStats {
	if len(x) == 0 {
		return ErrorStats{}
	}
	s := ErrorStats{N: len(x)}
	for _, v := range x {
		s.Mean += v
	}
	s.Mean /= float64(len(x))
	c := append([]float64(nil), x...)
	sort.Float64s(c)
	s.P95 = c[min(len(c)-1, int(math.Ceil(0.95*float64(len(c))))-1)]
	return s
}

// Result returns the result of the named method, or nil.
func (e *Evaluation) Result(method Method) *MethodResult {
	for i := range e.Methods {
		if e.Methods[i].Method == method.String() {
			return &e.Methods[i]
		}
	}
	return nil
}
