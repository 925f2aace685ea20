package adapt

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/spca"
)

// Defaults of Options.
const (
	// DefaultSamples is the number of pixels sampled per environment. The
	// mean error of the mapping on held-out scenes varies with the sample
	// seed by about ±0.1 CIEDE2000 at 40000 (enough to swap SPCA and
	// PCA + whitening on one seed in four), by ±0.05 at 100000, for 1.5 s
	// more fitting.
	DefaultSamples = 100000
	// DefaultGamma is the SPCA metric exponent: 1, the seed's infomax
	// (equalising) choice, which matches the two colour distributions
	// quantile by quantile.
	DefaultGamma = 1.0
	// DefaultDensityFloor is spca.Options.DensityFloor of both fits: the
	// metric integrand never falls below this share of a curve's mean
	// integrand (spca.Options.FloorOfMean), so responses keep growing
	// beyond the training colours and the map extends past them at a
	// bounded slope instead of collapsing every brighter colour onto one
	// (see SPCAMap). With the floor a share of the mean, not of the peak,
	// and the density reflected at the ends of the training colours
	// (spca.Options.ReflectDensity), both models give black, and any
	// colour beyond both environments' colours along a curve, the same
	// response: the bare map sends black to black (L* 9.3 before, with the
	// floor a share of the peak and the kernel's tail below the darkest
	// colours, which B's crowded shadows made longer). Measured on the
	// shared test model (held-out mean CIEDE2000 / L* W1 / truth), with
	// the anchor fitted where B's responses stay in [0, 1]: peak floor
	// 8.75/2.96/13.77; mean floor with reflection (default) 8.73/3.10/13.69
	// (Kodak 01-12 relit → 13-24 relit: 2.33 → 2.20, shadows 2.42 → 2.22,
	// L* W1 1.03 → 0.87; gray world 1.45). Before that anchor: peak floor
	// 8.71/3.06/13.59; mean floor 0.05 without reflection 8.61/3.12/13.49,
	// with it 8.65/3.19/13.48; mean floor 0.1 with it 8.68/3.27/13.42.
	DefaultDensityFloor = 0.05
)

// Options control Train and TrainSamples. Nil means DefaultOptions;
// start from it and change what you need. In options built field by
// field, a zero SPCA (K 0) means DefaultOptions' SPCA options, which are
// tuned for colour mapping (not spca.DefaultOptions), and a zero Samples
// means DefaultSamples; a zero Seed is seed 0.
type Options struct {
	// SPCA holds the options of both SPCA fits. Its Directions are
	// ignored: A's fit uses the principal axes of A's colours and B's fit
	// uses A's Directions, so that the dimensions of the two models mean
	// the same thing.
	SPCA spca.Options
	// Samples is the number of pixels drawn from each environment's
	// images (SampleLMS).
	Samples int
	// Seed fixes the pixel samples.
	Seed uint64
	// WhiteA and WhiteB are the tristimulus values, as encoded in the
	// images, of a white surface in environments A and B, for the von
	// Kries oracles (Bradford, CAT02, ...). A zero value means the white
	// estimated from the environment's training colours (EstimateWhite),
	// not a fixed illuminant: a fixed pair of whites also fixes how much
	// darker B is than A (the generated scenes' whites say 1.845 times),
	// which holds for no other data.
	WhiteA, WhiteB colorspace.XYZ
	// LuminanceRatio, if > 0, is the ratio Y_A / Y_B of the luminances of
	// the two whites: WhiteB is scaled to give it (its chromaticity is
	// kept). 0 keeps the ratio the whites give.
	LuminanceRatio float64
	// NoGains fits B's SPCA model on B's colours as they are. By default
	// it is fitted on the gray-world-normalised colours g·x_B, with the
	// diagonal LMS gains g = mean_A / mean_B of the training colours
	// (Model.Gains), and the SPCA map applies g before R_B: B is close to
	// a diagonal LMS scaling of A, and without g B's chromatic principal
	// directions, paired with A's, sit 20-50° away from the gray-world
	// image of A's (hues twist). Measured (mean CIEDE2000 vs A, without →
	// with gains): Kodak 01-12 relit with illuminant A → 13-24 relit
	// 10.74 → 6.38; 24 held-out generated scenes 8.96 → 8.50.
	NoGains bool
	// SeparateGeometry fits A and B independently (B along A's
	// Directions). By default one SPCA geometry (origin, principal curves,
	// lattice) is fitted on the pooled colours of both environments
	// (every other sample of A and of g·x_B) and each environment's metric
	// is estimated on it (spca.Model.RefitMetric): two environments with
	// the same distribution then get the same responses and the map
	// reduces to the gains, while two independent fits move colours by the
	// difference of their curves, lattice extents and twist. Measured
	// (mean CIEDE2000 vs A, shared → separate): Kodak 01-12 relit with
	// illuminant A → 13-24 relit 2.78 → 6.38; 24 held-out generated scenes
	// 8.65 → 8.51. Both kinds of model are stored alike.
	SeparateGeometry bool
	// Alignment is how B's colours are brought towards A's before B's
	// SPCA model is fitted on them and before the map applies R_B:
	// AlignGains (the diagonal gray-world gains; the zero value),
	// AlignMatrix (a 3×3 matrix fitted on corresponding pairs,
	// FitAlignment; it is also the anchor) or AlignAuto (DefaultOptions:
	// the matrix when it explains the pairs, AlignmentResidual below
	// AutoAlignThreshold, else the gains). NoGains overrides it.
	Alignment Alignment
	// PairedA and PairedB are corresponding LMS colours (row i of each is
	// the same surface under A and under B) that TrainSamples fits the
	// matrix of AlignMatrix and AlignAuto on. Train draws them from the
	// images when they are pairs (image i of A and of B of equal sizes).
	PairedA, PairedB mat.Matrix
	// NoLUT skips tabulating the SPCA mapping at training time
	// (Model.LUT), which takes about a second.
	NoLUT bool
}

// withDefaults returns *o (DefaultOptions if o is nil) with the zero
// fields that have a default set to it (see Options).
func (o *Options) withDefaults() Options {
	if o == nil {
		return DefaultOptions()
	}
	t := *o
	if t.SPCA.K == 0 {
		t.SPCA = DefaultOptions().SPCA
	}
	if t.Samples == 0 {
		t.Samples = DefaultSamples
	}
	return t
}

// DefaultOptions returns the options used by the command line: SPCA with
// gamma DefaultGamma and spca's other defaults, DefaultSamples pixels per
// environment, seed 1.
func DefaultOptions() Options {
	o := Options{SPCA: spca.DefaultOptions(), Samples: DefaultSamples, Seed: 1, Alignment: AlignAuto}
	o.SPCA.Gamma = DefaultGamma
	// Corresponding pairs need coordinates that mean the same thing in
	// both environments, and a colour mapping is sampled by a LUT, so it
	// must be smooth. Measured on the generated scenes: stiff curves
	// (neighbourhoods of all the reference samples, K = 1) follow
	// structure the two environments share instead of each one's local
	// detail (mean CIEDE2000 10.6 at K = 0.1, 9.8 at 0.5, 9.5 at 1);
	// densities from a wide kernel over windows of half the samples match
	// the broad shape of each environment's colours rather than the
	// histogram of its particular content (B's larger cast shadows push
	// lit mid-tones down its quantiles): the bandwidth, chosen on
	// validation scenes (scene seeds 3 and 4, sample seeds 1-3; 3, 5, 8
	// and 10 × Silverman: mean ΔE00 9.36, 9.29, 9.28 and 9.29 at 40000
	// samples, PCA + whitening 9.44), is 8 × Silverman. Short steps and a
	// tight forward tolerance (no jump where the solve switches between
	// the projection start and a correction) keep the 65-node LUT within
	// 1/255 of the exact mapping (85 % of the pixels with spca's
	// sharp-edged defaults).
	o.SPCA.K = 1
	o.SPCA.Tau = 0.05
	o.SPCA.Bandwidth = 8
	o.SPCA.Conditioning = 0.5
	o.SPCA.Tol = 1e-6
	o.SPCA.DensityFloor = DefaultDensityFloor
	o.SPCA.FloorOfMean = true
	o.SPCA.ReflectDensity = true
	return o
}

// Model is a trained B → A colour adaptation: the two SPCA models and the
// baselines' parameters. It is safe for concurrent use.
type Model struct {
	// A and B are the SPCA models of the LMS colours of environments A and
	// B (B's scaled by Gains); B was fitted with A.Directions(), or both
	// share one geometry (the default, see Options.SeparateGeometry).
	A, B *spca.Model
	// Gains are the diagonal LMS gains mean_A / mean_B (of the training
	// colours) applied to B's colours before B's model, which was fitted
	// on colours so scaled, unless Align is set; (1, 1, 1) with
	// Options.NoGains and for model files of versions 1 and 2.
	Gains [3]float64
	// Align, if not zero, is the 3×3 matrix (LMS to LMS) applied to B's
	// colours before B's model instead of Gains (AlignMatrix; model
	// format 5).
	Align colorspace.Mat3
	// AlignChoice, if not nil, records how the alignment was chosen
	// (AlignAuto or AlignMatrix: the residual of the matrix on the pairs;
	// model format 6). Nil for AlignGains, NoGains and older files.
	AlignChoice *AlignmentChoice
	// StatsA and StatsB are the means and principal axes of the training
	// colours.
	StatsA, StatsB PCAStats
	// WhiteA and WhiteB are the whites of the von Kries oracles.
	WhiteA, WhiteB colorspace.XYZ
	// SamplesA and SamplesB are the numbers of training colours.
	SamplesA, SamplesB int
	// Support is the support of B's training colours and Anchor the
	// linear map SPCAMap blends to away from it (see Support).
	Support *Support
	Anchor  colorspace.Mat3
	// Ceiling is the largest luminance of A's training colours, towards
	// which SPCAMap rolls highlights off.
	Ceiling float64
	// HighlightGains are SPCAMap.HighlightGains: the cone gains that
	// adapt the map's output near white to the output of white (model
	// format 7; zero in older files, which map as before).
	HighlightGains [3]float64
	// ReportA and ReportB describe the training colours (not stored in
	// model files: zero for a model read back).
	ReportA, ReportB DataReport
	// ChromaticitiesA and ChromaticitiesB are the effective numbers of
	// chromaticities of the training colours (Chromaticities; not stored
	// in model files: zero for a model read back).
	ChromaticitiesA, ChromaticitiesB float64
	// LUT, if not nil, is the SPCA mapping tabulated at training time
	// (DefaultLUTSize nodes), so that applying the model to an image
	// does not rebuild it.
	LUT *LUT
	// Rays, if not nil, is the RayTable of the SPCA mapping, made at
	// training time with the LUT and stored (model format 4); otherwise
	// (NoLUT, older files) it is built on first use (about a second).
	Rays *RayTable
	// rays is the RayTable of the SPCA mapping, built on first use.
	rays lazyRays
}

// ErrBitDepth is returned, wrapped, by Train when the images do not all
// have the same bit depth.
var ErrBitDepth = errors.New("adapt: mismatched bit depths")

// Train samples LMS colours from the images of environment A and of
// environment B (Options.Samples each) and fits the models (see
// TrainSamples). Every image must have the same bit depth (8 or 16 bits
// per sample, see BitDepth); either set empty is an error. A nil opt
// means DefaultOptions().
func Train(a, b []image.Image, opt *Options) (*Model, error) {
	o := opt.withDefaults()
	if len(a) == 0 {
		return nil, fmt.Errorf("%w: environment A has no images", ErrNoPixels)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: environment B has no images", ErrNoPixels)
	}
	depth := BitDepth(a[0])
	for i, set := range [][]image.Image{a, b} {
		for j, img := range set {
			if d := BitDepth(img); d != depth {
				return nil, fmt.Errorf("%w: image %d of environment %c has %d bits per sample, image 1 of A has %d",
					ErrBitDepth, j+1, "AB"[i], d, depth)
			}
		}
	}
	if o.Samples < 1 {
		return nil, fmt.Errorf("adapt: Samples %d: must be positive", o.Samples)
	}
	xa, err := SampleLMS(a, o.Samples, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("adapt: environment A: %w", unprefixed{err})
	}
	xb, err := SampleLMS(b, o.Samples, o.Seed+1)
	if err != nil {
		return nil, fmt.Errorf("adapt: environment B: %w", unprefixed{err})
	}
	if o.Alignment != AlignGains && !o.NoGains && o.PairedA == nil {
		pa, pb, err := pairedSamples(a, b, alignSamples, o.Seed+2)
		switch {
		case err == nil:
			o.PairedA, o.PairedB = pa, pb
		case o.Alignment == AlignMatrix:
			return nil, err
		}
		// AlignAuto on images that are not pairs: the gains.
	}
	return TrainSamples(xa, xb, &o)
}

// TrainSamples fits the adaptation from LMS samples (rows of N×3
// matrices) of environments A and B: SPCA on A, its dimensions along the
// principal axes of A's colours; SPCA on g·x_B (see Options.NoGains) with
// A's Directions, so that response i of both models follows the same kind
// of direction with the same orientation (the first is luminance-like,
// increasing with (1, 1, 1)), with one geometry for both unless
// Options.SeparateGeometry; and the means and principal axes for the
// baselines. A nil opt means DefaultOptions(). The rows of a and b need
// not correspond, nor be as many: each environment's distribution is
// learnt. A value that is NaN, infinite or beyond ±MaxLMS gives a
// *spca.DataError naming the sample.
func TrainSamples(a, b mat.Matrix, opt *Options) (*Model, error) {
	o := opt.withDefaults()
	for i, x := range []mat.Matrix{a, b} {
		if _, d := x.Dims(); d != 3 {
			return nil, fmt.Errorf("adapt: environment %c samples have %d columns, want 3 (L, M, S)", "AB"[i], d)
		}
		if err := finiteLMS(x); err != nil {
			return nil, fmt.Errorf("adapt: environment %c: %w", "AB"[i], unprefixed{err})
		}
	}
	statsA, statsB := pcaOf(mat.DenseCopyOf(a)), pcaOf(mat.DenseCopyOf(b))
	// A's dimensions follow the principal axes of A's colours (luminance
	// first), not spca's entropy ranking at the origin: with wide
	// neighbourhoods that ranking can put a chroma direction first, and
	// then B, fitted on A's directions, pairs unlike dimensions.
	fo := o.SPCA
	fo.Directions = mat.NewDense(3, 3, statsA.Axes[:])
	var ma *spca.Model
	var err error
	if o.SeparateGeometry {
		if ma, err = spca.Fit(a, fo); err != nil {
			return nil, fmt.Errorf("adapt: environment A: %w", unprefixed{err})
		}
		fo.Directions = ma.Directions()
	}
	gains := [3]float64{1, 1, 1}
	var align colorspace.Mat3 // zero: diag(gains)
	var choice *AlignmentChoice
	fb := b
	if !o.NoGains {
		nb, _ := b.Dims()
		for k := range gains {
			if g := statsA.Mean[k] / statsB.Mean[k]; g > 0 && !math.IsInf(g, 0) {
				gains[k] = g
			}
		}
		switch o.Alignment {
		case AlignGains:
		case AlignMatrix, AlignAuto:
			var c AlignmentChoice
			if align, c, err = chooseAlignment(o.Alignment, o.PairedA, o.PairedB); err != nil {
				return nil, err
			}
			choice = &c
		default:
			return nil, fmt.Errorf("adapt: unknown alignment %v", o.Alignment)
		}
		gb := mat.NewDense(nb, 3, nil)
		for i := range nb {
			if align != (colorspace.Mat3{}) {
				gb.SetRow(i, mul3s(&align, [3]float64{b.At(i, 0), b.At(i, 1), b.At(i, 2)}))
				continue
			}
			for k := range 3 {
				gb.Set(i, k, gains[k]*b.At(i, k))
			}
		}
		fb = gb
	}
	var mb *spca.Model
	if o.SeparateGeometry {
		mb, err = spca.Fit(fb, fo)
	} else {
		var geo *spca.Model
		if geo, err = spca.Fit(pooled(a, fb), fo); err != nil {
			return nil, fmt.Errorf("adapt: both environments: %w", unprefixed{err})
		}
		if ma, err = geo.RefitMetric(a); err != nil {
			return nil, fmt.Errorf("adapt: environment A: %w", unprefixed{err})
		}
		mb, err = geo.RefitMetric(fb)
	}
	if err != nil {
		return nil, fmt.Errorf("adapt: environment B: %w", unprefixed{err})
	}
	na, _ := a.Dims()
	nb, _ := b.Dims()
	m := &Model{
		A: ma, B: mb, Gains: gains, Align: align, AlignChoice: choice,
		StatsA: statsA, StatsB: statsB,
		WhiteA: o.WhiteA, WhiteB: o.WhiteB,
		SamplesA: na, SamplesB: nb,
	}
	m.Support = NewSupport(b)
	m.ReportA, m.ReportB = reportOf(a), reportOf(b)
	m.ChromaticitiesA, m.ChromaticitiesB = Chromaticities(a), Chromaticities(b)
	m.Ceiling = maxLuminance(a)
	bare := &SPCAMap{A: ma, B: mb, Gains: gains, Align: align}
	if align != (colorspace.Mat3{}) {
		// The anchor is the alignment: fitted to the SPCA map instead
		// (diagonal), the generated scenes gave 8.31 against 7.89.
		m.Anchor = align
	} else if m.Anchor, err = fitAnchor(b, func(dst []colorspace.LMS, w []float64, src []colorspace.LMS) error {
		_, err := bare.bareResidual(dst, nil, w, src)
		return err
	}); err != nil {
		return nil, err
	}
	if m.WhiteA == (colorspace.XYZ{}) {
		m.WhiteA = EstimateWhite(a)
	}
	if m.WhiteB == (colorspace.XYZ{}) {
		m.WhiteB = EstimateWhite(b)
	}
	if r := o.LuminanceRatio; r > 0 {
		if !(m.WhiteB[1] > 0) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("adapt: luminance ratio %v: white B %v has no luminance", r, m.WhiteB)
		}
		k := m.WhiteA[1] / (r * m.WhiteB[1])
		m.WhiteB = colorspace.XYZ{m.WhiteB[0] * k, m.WhiteB[1] * k, m.WhiteB[2] * k}
	}
	blend := &SPCAMap{A: ma, B: mb, Gains: gains, Align: align, Support: m.Support, Anchor: m.Anchor}
	if m.HighlightGains, err = highlightGains(blend.MapLMS); err != nil {
		return nil, err
	}
	if !o.NoLUT {
		mp, _ := m.Mapper(SPCA)
		if m.LUT, err = BuildLUT(mp, DefaultLUTSize, nil); err != nil {
			return nil, err
		}
		if m.Rays, err = m.RayTable(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// pooled returns every other row of a and of b, in one N×3 matrix: the
// colours the shared geometry of the two SPCA models is fitted on.
func pooled(a, b mat.Matrix) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	p := mat.NewDense((na+1)/2+(nb+1)/2, 3, nil)
	r := 0
	for _, x := range []mat.Matrix{a, b} {
		n, _ := x.Dims()
		for i := 0; i < n; i += 2 {
			p.Set(r, 0, x.At(i, 0))
			p.Set(r, 1, x.At(i, 1))
			p.Set(r, 2, x.At(i, 2))
			r++
		}
	}
	return p
}

// whiteShare is the share of the brightest training colours EstimateWhite
// averages.
const whiteShare = 0.01

// EstimateWhite estimates the white of an environment from its LMS
// colours (rows of x) by the white-patch rule: the mean XYZ of the
// brightest 1 % (by luminance), the surfaces that reflect the most light.
func EstimateWhite(x mat.Matrix) colorspace.XYZ {
	n, _ := x.Dims()
	if n == 0 {
		return colorspace.XYZ{}
	}
	ys := make([]float64, n)
	for i := range n {
		ys[i] = luminance(colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)})
	}
	sorted := append([]float64(nil), ys...)
	sort.Float64s(sorted)
	k := max(1, int(whiteShare*float64(n)))
	cut := sorted[n-k]
	var sum colorspace.LMS
	cnt := 0
	for i := range n {
		if ys[i] >= cut {
			for c := range 3 {
				sum[c] += x.At(i, c)
			}
			cnt++
		}
	}
	for c := range 3 {
		sum[c] /= float64(cnt)
	}
	return sum.XYZ()
}

// LuminanceRatio returns Y_A / Y_B of the model's whites: how much
// brighter the oracles take A's light to be.
func (m *Model) LuminanceRatio() float64 {
	if !(m.WhiteB[1] > 0) {
		return 0
	}
	return m.WhiteA[1] / m.WhiteB[1]
}

// Warnings returns the reasons to distrust the model found at training:
// DataReport.Warnings of both environments, and an environment spread
// over fewer than MinChromaticities chromaticities (Chromaticities).
func (m *Model) Warnings() []string {
	if m.ReportA == (DataReport{}) && m.ReportB == (DataReport{}) {
		return nil
	}
	w := append(m.ReportA.Warnings("A"), m.ReportB.Warnings("B")...)
	return append(w, chromaticityWarnings(m.ChromaticitiesA, m.ChromaticitiesB)...)
}

// RayTable returns the RayTable of the model's SPCA mapping: the stored
// one (Rays), or one built now, once per model (about a second).
func (m *Model) RayTable() (*RayTable, error) {
	if m.Rays != nil {
		return m.Rays, nil
	}
	blend := &SPCAMap{A: m.A, B: m.B, Gains: m.Gains, Align: m.Align, Support: m.Support, Anchor: m.Anchor}
	return m.rays.get(blend.MapLMS)
}

// ImageMapperFor returns what maps images by the method's mapping with a
// LUT of size nodes per axis (LUTFor): for SPCA with a training support
// (model files of version 2 and later), a LightnessLUT, which also keeps
// the exact map's lightness rule; otherwise the LUT.
func (m *Model) ImageMapperFor(method Method, size int, progress func(done, total int)) (ImageMapper, error) {
	l, err := m.LUTFor(method, size, progress)
	if err != nil || method != SPCA || m.Support == nil {
		return l, err
	}
	rays, err := m.RayTable()
	if err != nil {
		return nil, err
	}
	return NewLightnessLUT(l, rays, m.Ceiling)
}

// LUTFor returns the LUT of the method's mapping with size nodes per
// axis: the one stored at training time when it fits (SPCA at its
// size), otherwise built now (BuildLUT, progress as there).
func (m *Model) LUTFor(method Method, size int, progress func(done, total int)) (*LUT, error) {
	if method == SPCA && m.LUT != nil && m.LUT.Size == size {
		return m.LUT, nil
	}
	mp, err := m.Mapper(method)
	if err != nil {
		return nil, err
	}
	return BuildLUT(mp, size, progress)
}

// OutsideShare returns the share of the colours outside B's training
// support (Support.OutsideShare), or 0 if the model has no support (a
// version 1 file).
func (m *Model) OutsideShare(c []colorspace.LMS) float64 {
	if m.Support == nil {
		return 0
	}
	return m.Support.OutsideShare(c)
}

// OutsideShareImage is OutsideShare for the pixels of an image
// (Support.OutsideShareImage).
func (m *Model) OutsideShareImage(img image.Image) float64 {
	if m.Support == nil {
		return 0
	}
	return m.Support.OutsideShareImage(img)
}

// Mapper returns the mapper of the given method.
func (m *Model) Mapper(method Method) (Mapper, error) {
	switch method {
	case SPCA:
		return &SPCAMap{A: m.A, B: m.B, Gains: m.Gains, Align: m.Align, Support: m.Support, Anchor: m.Anchor, Ceiling: m.Ceiling, Rays: m.Rays, HighlightGains: m.HighlightGains, lazy: &m.rays}, nil
	case PCAWhitening:
		return NewPCAWhitening(m.StatsA, m.StatsB), nil
	case GrayWorld:
		return NewGrayWorld(m.StatsA.Mean, m.StatsB.Mean), nil
	case Bradford, CAT02, VonKries, CAT16:
		return NewVonKriesOracle(method, m.WhiteA, m.WhiteB), nil
	case Uncorrected:
		return Identity(), nil
	case Aligned:
		if m.Align == (colorspace.Mat3{}) {
			return nil, fmt.Errorf("adapt: method aligned: the model has no alignment matrix (trained with --align gains)")
		}
		return &Linear{Kind: Aligned, M: m.Align}, nil
	}
	return nil, fmt.Errorf("adapt: unknown method %v", method)
}

// unprefixed wraps an error of this or another package without its
// "adapt: " or "spca: " prefix, for embedding in a message.
// finiteLMS returns a *spca.DataError naming the first value of the LMS
// samples x that is NaN, infinite or beyond ±MaxLMS (the principal axes
// of the baselines cannot be computed from it: TrainSamples panicked in
// the eigendecomposition).
func finiteLMS(x mat.Matrix) error {
	n, d := x.Dims()
	for i := range n {
		for k := range d {
			if v := x.At(i, k); math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxLMS {
				return &spca.DataError{Msg: fmt.Sprintf("sample %d, cone %d is %g (want a finite value within ±%g)", i+1, k+1, v, float64(MaxLMS))}
			}
		}
	}
	return nil
}

type unprefixed struct{ err error }

func (u unprefixed) Error() string {
	s := u.err.Error()
	for _, p := range []string{"adapt: ", "spca: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func (u unprefixed) Unwrap() error { return u.err }
