package spca

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"
)

// OriginKind selects how Fit places the origin x^o of the first principal
// curve, the point whose response is zero before scaling.
type OriginKind int

const (
	// OriginMean starts at the sample mean and moves it onto the manifold
	// by mean-shift with the local neighbourhood, so that curved data whose
	// mean falls in an empty region (spirals, rolls) still get an origin on
	// the data.
	OriginMean OriginKind = iota
	// OriginDensest uses the reference sample with the smallest distance to
	// its k-th neighbour.
	OriginDensest
	// OriginGiven uses Options.OriginPoint as is.
	OriginGiven
)

// String returns the name used by the command line.
func (o OriginKind) String() string {
	switch o {
	case OriginMean:
		return "mean"
	case OriginDensest:
		return "densest"
	case OriginGiven:
		return "given"
	}
	return "unknown"
}

// Options control Fit. The zero value is not useful: start from
// DefaultOptions and change what you need.
type Options struct {
	// Gamma is the exponent of the PDF in the metric, D_ii ∝ p_i(u_i)^Gamma.
	// 0 gives pure unfolding (arc length), 1/3 the MSE-optimal quantiser
	// density and 1 infomax (uniform marginals). Any value >= 0 is allowed.
	Gamma float64
	// K is the neighbourhood size of the local PCA, as a fraction of the
	// samples (of the reference subsample when N > MaxReference).
	K float64
	// Tau is the step of the curve drawing algorithm, as a fraction of the
	// RMS distance of the samples to their mean (data are normalised
	// internally, so Tau is dimensionless).
	Tau float64
	// Q is the stiffness: the local mean ahead bends the direction by
	// mu/(Q*Tau). +Inf ignores the mean ahead.
	Q float64
	// Origin selects the origin of the first curve; OriginPoint gives it
	// (input units) when Origin is OriginGiven.
	Origin      OriginKind
	OriginPoint []float64
	// Tol is the convergence tolerance of the forward transform as a
	// fraction of the largest pairwise distance of the training data.
	Tol float64
	// MaxIter caps the correction iterations of the forward transform.
	MaxIter int
	// Seed fixes every random choice (reference subsample).
	Seed uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Scale gives C_ii in ranked order (dimension 1 = highest marginal
	// entropy at the origin). Nil means 1 for every dimension, so every
	// response lies in [0, 1] on the training support.
	Scale []float64
	// Resolution is the budget of lattice nodes over which the secondary
	// curves are drawn; 0 means DefaultResolution.
	Resolution int
	// MaxReference caps the number of samples used for the local PCA
	// neighbourhoods; 0 means DefaultMaxReference.
	MaxReference int
	// Bandwidth is the kernel bandwidth of the density along each curve,
	// as a fraction of Silverman's rule; 0 means DefaultBandwidth. Narrow
	// kernels keep hard edges sharp (uniform marginals with gamma = 1);
	// wider ones give a smoother transform (e.g. for a colour LUT).
	Bandwidth float64
	// Conditioning is the share of the samples from which the density
	// along a secondary curve is estimated: the window over the earlier
	// coordinates that holds that share (the seed's "k neighbours" in the
	// conditioning space); 0 means DefaultConditioning. Small windows
	// follow changes of the conditional spread closely; 1 uses every
	// sample, so the metric of a secondary curve no longer depends on
	// where it leaves the earlier ones.
	Conditioning float64
	// Neighbours, if > 0, estimates the density along each curve by the
	// seed's k-neighbours rule, p(u) = k / (2 N h_k(u)) with k a share
	// Neighbours of the curve's samples, instead of a kernel of width
	// Bandwidth. The estimate falls off only like 1/distance in the
	// tails, so gamma > 0 gives the sparse tails more cells than the true
	// density would: at high resolutions this keeps gamma = 1 ahead of
	// gamma = 0 (the seed's coding figure), at some cost to gamma = 1/3
	// at low ones. It has no effect with gamma = 0.
	Neighbours float64
	// DensityFloor, if > 0, is added to the metric integrand (p/peak)^Gamma
	// of every curve, p/peak being the density relative to the curve's
	// peak: where the density vanishes (beyond the training samples, in
	// the gaps of spiky densities) the response then keeps growing with
	// arc length at a rate DensityFloor instead of stalling (the default
	// floor is 1e-9, so with Gamma > 0 every point beyond the support of a
	// curve gets the same response, and the inverse jumps across the
	// empty ends of the lattice). A floor trades exact equalisation for a
	// transform whose slope, and whose inverse's slope, is bounded: a
	// colour mapping needs that (package adapt). 0 means 1e-9. Model
	// files record it (flag ExtendedOptions of the version, see
	// persist.go), so a model read back refits its metric (RefitMetric)
	// with the same floor; older files read back as 0. See FloorOfMean.
	DensityFloor float64
	// ReflectDensity reflects the density estimate along each curve at
	// the lowest and highest training coordinates of its axis: the mass
	// the kernel (Bandwidth) spreads beyond the samples is folded back
	// inside, so the response grows beyond them by the floor alone. Without
	// it a wide kernel leaks mass past a hard end of the data (black, for
	// colours), and two models whose data crowd that end differently give
	// it different responses. No effect with Gamma 0.
	ReflectDensity bool
	// FloorOfMean makes DensityFloor a share of each curve's mean metric
	// integrand over the lattice instead of its peak: the floor then takes
	// the same share, DensityFloor/(1+DensityFloor), of every curve's
	// response, whatever the shape of its density, so two models on one
	// geometry (RefitMetric) give equal responses wherever neither has
	// samples, and the corresponding-pair map R_a⁻¹(R_b(x)) is the
	// identity there. With the peak rule a peaked density gives the
	// floor a larger share. No effect with Gamma 0.
	//
	// Measured (package adapt, shared test model): with neither, B's
	// black got response 0.041 and A's 0.031 along the first curve, and
	// the bare map sent black to L* 9.3; with both, black maps to black
	// (L* 0.3; 25.7 -> 3.7 with separate geometries).
	FloorOfMean bool
	// Directions, if not nil, fixes the order and orientation of the
	// dimensions instead of the entropy ranking: a d×d matrix whose
	// columns are reference directions (input space), matched in order to
	// the local principal directions at the origin (largest |cos|, signs
	// agreeing). Fitting a second model with the first one's Directions()
	// makes the responses of the two mean the same thing, which
	// corresponding-pair adaptation needs.
	Directions *mat.Dense
	// Progress, if set, is called from Fit with the stage name and its
	// progress. It must be safe for concurrent use.
	Progress func(stage string, done, total int)
}

// Defaults of Options.
const (
	DefaultK            = 0.1
	DefaultTau          = 0.1
	DefaultQ            = 10
	DefaultTol          = 1e-3
	DefaultMaxIter      = 50
	DefaultResolution   = 1 << 18
	DefaultMaxReference = 3000
	DefaultBandwidth    = 0.25
	DefaultConditioning = 0.1
)

// MinTau is the smallest Tau Fit takes: a curve takes at most 5000 steps
// (5 RMS radii at MinTau: shorter curves do not cross the data). Every
// step is checked against the steps before it, skipping those too far to
// matter (BenchmarkFitSmallTau, spiral of 300 samples: Tau 0.001 1.0 s,
// 0.01 0.08 s, 0.1 0.025 s).
const MinTau = 1e-3

// DefaultOptions returns the options used by the seed's examples:
// gamma 1/3, k = 10 %, stiffness 10.
func DefaultOptions() Options {
	return Options{
		Gamma:   1.0 / 3,
		K:       DefaultK,
		Tau:     DefaultTau,
		Q:       DefaultQ,
		Origin:  OriginMean,
		Tol:     DefaultTol,
		MaxIter: DefaultMaxIter,
	}
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) validate(d int) error {
	switch {
	case math.IsNaN(o.Gamma) || math.IsInf(o.Gamma, 0) || o.Gamma < 0:
		return optionError("Gamma must be a finite value >= 0")
	case !(o.K > 0 && o.K <= 1):
		return optionError("K must be a fraction in (0, 1]")
	case !(o.Tau > 0 && o.Tau <= 10):
		return optionError("Tau must be in (0, 10]")
	case math.IsNaN(o.Q) || o.Q <= 0:
		return optionError("Q must be > 0 (+Inf allowed)")
	case !(o.Tol > 0 && o.Tol < 1):
		return optionError("Tol must be in (0, 1)")
	case o.MaxIter < 0 || o.MaxIter > 10000:
		return optionError("MaxIter must be in [0, 10000]")
	case o.Origin == OriginGiven && len(o.OriginPoint) != d:
		return optionError("OriginPoint must have one value per dimension")
	case o.Scale != nil && len(o.Scale) != d:
		return optionError("Scale must have one value per dimension")
	case !(o.Bandwidth >= 0 && o.Bandwidth <= 10):
		return optionError("Bandwidth must be in [0, 10]")
	case !(o.Conditioning >= 0 && o.Conditioning <= 1):
		return optionError("Conditioning must be a fraction in [0, 1]")
	case !(o.Neighbours >= 0 && o.Neighbours <= 1):
		return optionError("Neighbours must be a fraction in [0, 1]")
	case !(o.DensityFloor >= 0 && o.DensityFloor <= 1):
		return optionError("DensityFloor must be in [0, 1]")
	case o.Resolution < 0 || o.MaxReference < 0:
		return optionError("Resolution and MaxReference must be >= 0")
	}
	if o.Directions != nil {
		r, c := o.Directions.Dims()
		if r != d || c != d {
			return optionError("Directions must be a d×d matrix")
		}
		for j := 0; j < d; j++ {
			n := 0.0
			for i := 0; i < d; i++ {
				v := o.Directions.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return optionError("Directions must be finite")
				}
				n += v * v
			}
			if n == 0 {
				return optionError("Directions has a zero column")
			}
		}
	}
	for _, c := range o.Scale {
		if !(c > 0) || math.IsInf(c, 0) {
			return optionError("Scale values must be finite and > 0")
		}
	}
	for _, v := range o.OriginPoint {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return optionError("OriginPoint must be finite")
		}
	}
	return nil
}

func optionError(s string) error { return &OptionError{Msg: s} }

// OptionError reports an invalid option.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return "spca: invalid option: " + e.Msg }

// DataError reports training or input data that SPCA cannot use: NaN or
// Inf values, too few samples, degenerate (constant or collinear) data.
type DataError struct{ Msg string }

func (e *DataError) Error() string { return "spca: bad data: " + e.Msg }

// FormatError reports a model file that is not a valid SPCA model:
// wrong magic number, unknown version, truncated, or failing its checksum.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "spca: invalid model file: " + e.Msg }

// PointStats describes one forward transform: the number of correction
// iterations after the orthogonal-projection start (0 when the start was
// already within tolerance), the final residual |x - R^{-1}(r)| in input
// units, whether it met the tolerance, and whether the point lay outside
// the model's lattice and was clamped to it.
type PointStats struct {
	Iterations int
	Residual   float64
	Converged  bool
	Clamped    bool
}

// BatchStats summarises a batch forward transform.
type BatchStats struct {
	N            int
	NoCorrection int   // points within tolerance after orthogonal projections
	Unconverged  int   // points that did not meet the tolerance
	Clamped      int   // points outside the lattice, clamped
	Histogram    []int // Histogram[i] = points that needed i iterations
	MaxIter      int   // largest iteration count seen
	MaxResidual  float64

	// UnconvergedInside counts the unconverged points that were not
	// clamped: their responses are an approximate solution inside the
	// lattice. (A clamped point's residual is mostly its distance to the
	// lattice: it is unconverged too, and reported by Clamped.)
	UnconvergedInside int
}
