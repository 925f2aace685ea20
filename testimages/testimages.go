package testimages

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Samples holds generated data: X is N×d, Latent is N×m with the true
// coordinates, LatentNames names the columns of Latent.
type Samples struct {
	X           *mat.Dense
	Latent      *mat.Dense
	LatentNames []string
}

// Stream constants combined with the seed of each generator, so that the
// generators draw from different streams for the same seed.
const (
	streamSpiral    = 0x5350_4341_0001
	streamSwissRoll = 0x5350_4341_0002
	streamDelicado  = 0x5350_4341_0003
	streamTwisted   = 0x5350_4341_0004
	streamCurve3D   = 0x5350_4341_0005
)

// MaxSamples is the largest number of samples Generate accepts.
const MaxSamples = 10_000_000

func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

func checkN(n int) {
	if n <= 0 {
		panic("testimages: number of samples must be positive")
	}
}

func checkNoise(noise float64) {
	if !(noise >= 0) || math.IsInf(noise, 1) {
		panic("testimages: noise must be finite and non-negative")
	}
}

// Parameters of the spiral. The centre line is the Archimedean spiral
// c(t) = (a + b t)(cos t, sin t) for t in [t0, t1], so consecutive arms are
// 2πb = 1 apart along a ray.
const (
	spiralA  = 0.5
	spiralB  = 1 / (2 * math.Pi)
	spiralT0 = 0.5 * math.Pi
	spiralT1 = 3 * math.Pi

	// spiralGap is the radial spacing of the arms, 2πb.
	spiralGap = 2 * math.Pi * spiralB
	// spiralTrunc is where the Laplacian offset is truncated, as a
	// fraction of spiralGap.
	spiralTrunc = 0.35
)

// spiralPrimitive is an antiderivative of sqrt(r²+b²)/b in r, so that the
// arc length of the centre line between t0 and t is
// spiralPrimitive(a+b t) - spiralPrimitive(a+b t0).
func spiralPrimitive(r float64) float64 {
	const b = spiralB
	return (r*math.Hypot(r, b) + b*b*math.Asinh(r/b)) / (2 * b)
}

// spiralArc returns the arc length of the centre line from t0 to t.
func spiralArc(t float64) float64 {
	return spiralPrimitive(spiralA+spiralB*t) - spiralPrimitive(spiralA+spiralB*spiralT0)
}

// spiralLength is the total arc length of the centre line.
var spiralLength = spiralArc(spiralT1)

// spiralT inverts spiralArc by Newton's method. The arc length is convex
// and increasing in t, so iterating from the right end converges
// monotonically.
func spiralT(s float64) float64 {
	t := spiralT1
	for range 100 {
		r := spiralA + spiralB*t
		step := (spiralArc(t) - s) / math.Hypot(r, spiralB)
		t -= step
		if math.Abs(step) <= 1e-14*spiralT1 {
			break
		}
	}
	return math.Max(spiralT0, math.Min(spiralT1, t))
}

// spiralCentre returns the centre line point and its unit outward normal
// at t.
func spiralCentre(t float64) (cx, cy, nx, ny float64) {
	r := spiralA + spiralB*t
	sin, cos := math.Sincos(t)
	cx, cy = r*cos, r*sin
	tx := spiralB*cos - r*sin
	ty := spiralB*sin + r*cos
	norm := math.Hypot(tx, ty)
	return cx, cy, ty / norm, -tx / norm
}

// spiralSpread returns the offset distribution at the fraction u of the
// arc length: a Laplacian with the returned scale when laplace is true, a
// uniform distribution with the returned half-width otherwise. Both grow
// linearly with u: the Laplacian scale is gap·(0.02 + 0.08u), used for
// u < 1/2 (so from 0.02 to 0.06 of the gap), and the uniform half-width is
// gap·(0.1 + 0.2u), used for u >= 1/2 (from 0.2 to 0.3 of the gap). The
// standard deviation of the offset therefore increases monotonically
// along the whole curve, from 0.028 to 0.173 of the gap.
func spiralSpread(u float64) (laplace bool, scale float64) {
	if u < 0.5 {
		return true, spiralGap * (0.02 + 0.08*u)
	}
	return false, spiralGap * (0.1 + 0.2*u)
}

// Spiral returns n samples of a 2-D spiral with marginal PDFs of increasing
// variance along the curve. The centre line is the Archimedean spiral
// c(t) = (0.5 + t/(2π))(cos t, sin t), t in [π/2, 3π] (1.25 turns, arms
// 1 apart), and samples are uniform in arc length along it. Each sample is
// displaced along the unit normal of the centre line: on the first half of
// the arc length the offset is Laplacian (a sharp ridge) with scale growing
// from 0.02 to 0.06, truncated at ±0.35; on the second half it is uniform
// with half-width growing from 0.2 to 0.3. Offsets thus never exceed 0.35
// of the arm spacing and the arms do not overlap.
//
// The latent columns are "arc", the arc length of the centre line from its
// start (in [0, about 10.88]), and "offset", the signed normal offset
// (positive outwards).
//
// Spiral panics if n <= 0.
func Spiral(n int, seed uint64) Samples {
	checkN(n)
	rng := newRand(seed, streamSpiral)
	x := mat.NewDense(n, 2, nil)
	lat := mat.NewDense(n, 2, nil)
	for i := range n {
		s := spiralLength * rng.Float64()
		t := spiralT(s)
		laplace, scale := spiralSpread(s / spiralLength)
		var off float64
		if laplace {
			// Inverse CDF of |offset| truncated at spiralTrunc·gap.
			m := -math.Expm1(-spiralTrunc * spiralGap / scale)
			off = -scale * math.Log1p(-m*rng.Float64())
			if rng.Float64() < 0.5 {
				off = -off
			}
		} else {
			off = scale * (2*rng.Float64() - 1)
		}
		cx, cy, nx, ny := spiralCentre(t)
		x.Set(i, 0, cx+off*nx)
		x.Set(i, 1, cy+off*ny)
		lat.Set(i, 0, s)
		lat.Set(i, 1, off)
	}
	return Samples{X: x, Latent: lat, LatentNames: []string{"arc", "offset"}}
}

// SwissRoll returns n samples of the classic 3-D swiss roll: with s and
// h uniform in [0, 1) and [0, 21), t = 1.5π(1+2s) and
// X = (t cos t, h, t sin t) plus independent Gaussian noise of standard
// deviation noise on each coordinate.
//
// The latent columns are "angle" (t, in [1.5π, 4.5π)) and "height" (h).
//
// SwissRoll panics if n <= 0 or noise is negative or not finite.
func SwissRoll(n int, noise float64, seed uint64) Samples {
	checkN(n)
	checkNoise(noise)
	rng := newRand(seed, streamSwissRoll)
	x := mat.NewDense(n, 3, nil)
	lat := mat.NewDense(n, 2, nil)
	for i := range n {
		t := 1.5 * math.Pi * (1 + 2*rng.Float64())
		h := 21 * rng.Float64()
		sin, cos := math.Sincos(t)
		x.Set(i, 0, t*cos+noise*rng.NormFloat64())
		x.Set(i, 1, h+noise*rng.NormFloat64())
		x.Set(i, 2, t*sin+noise*rng.NormFloat64())
		lat.Set(i, 0, t)
		lat.Set(i, 1, h)
	}
	return Samples{X: x, Latent: lat, LatentNames: []string{"angle", "height"}}
}

// Parameters of the Delicado data sets.
const (
	delicadoRadius   = 3.0 // radius of the first curve
	delicadoAlong    = 1.0 // half-width of the uniform spread along w
	delicadoAcross   = 0.1 // standard deviation across w
	delicadoParabola = 0.3 // curvature of the cross-section data
)

// DelicadoFixed returns n samples of a 3-D data set with curved secondary
// principal curves, after Delicado (2001). The first principal curve is
// the half circle c(t) = 3(cos t, sin t, 0), t uniform in [0, π]. Its
// normal plane at t is spanned by the in-plane outward normal
// n(t) = (cos t, sin t, 0) and the z axis. In each normal plane the data
// are elongated along w = z, a ~ U(-1, 1), and narrow across it,
// e ~ N(0, 0.1²), and they lie on a parabola bending along v = n(t):
//
//	X = c(t) + a w + (0.3 a² + e) v.
//
// The latent columns are "arc" (3t, the arc length of the first curve),
// "along" (a) and "across" (e).
//
// DelicadoFixed panics if n <= 0.
func DelicadoFixed(n int, seed uint64) Samples {
	return delicado(n, newRand(seed, streamDelicado), 0)
}

// DelicadoTwisted is DelicadoFixed with the elongation direction rotating
// within the normal plane along the first curve: at t the cross-section
// frame is turned by θ(t) = t/2 (a quarter turn over the arc), so that
// w(t) = cos θ z + sin θ n(t) and v(t) = cos θ n(t) - sin θ z. The
// latent columns are those of DelicadoFixed.
//
// DelicadoTwisted panics if n <= 0.
func DelicadoTwisted(n int, seed uint64) Samples {
	return delicado(n, newRand(seed, streamTwisted), 0.5)
}

// delicado generates the Delicado data with the twist θ(t) = twist·t.
func delicado(n int, rng *rand.Rand, twist float64) Samples {
	checkN(n)
	x := mat.NewDense(n, 3, nil)
	lat := mat.NewDense(n, 3, nil)
	for i := range n {
		t := math.Pi * rng.Float64()
		a := delicadoAlong * (2*rng.Float64() - 1)
		e := delicadoAcross * rng.NormFloat64()

		sin, cos := math.Sincos(t)
		sinTh, cosTh := math.Sincos(twist * t)
		// n(t) = (cos, sin, 0), z = (0, 0, 1).
		// w = cosθ z + sinθ n, v = cosθ n - sinθ z.
		wn, wz := sinTh, cosTh
		vn, vz := cosTh, -sinTh
		b := delicadoParabola*a*a + e
		alongN := a*wn + b*vn
		x.Set(i, 0, delicadoRadius*cos+alongN*cos)
		x.Set(i, 1, delicadoRadius*sin+alongN*sin)
		x.Set(i, 2, a*wz+b*vz)
		lat.Set(i, 0, delicadoRadius*t)
		lat.Set(i, 1, a)
		lat.Set(i, 2, e)
	}
	return Samples{X: x, Latent: lat, LatentNames: []string{"arc", "along", "across"}}
}

// Curve3D returns n samples of a noisy 1-D curve in 3-D shaped like a horn:
// t uniform in [0, 1), centre line c(t) = (3 cos 1.5πt, 3 sin 1.5πt, 4t)
// (three quarters of a helix turn) and isotropic Gaussian noise with
// standard deviation noise·(0.3 + 0.7t), growing along the curve.
//
// The latent column is "t".
//
// Curve3D panics if n <= 0 or noise is negative or not finite.
func Curve3D(n int, noise float64, seed uint64) Samples {
	checkN(n)
	checkNoise(noise)
	rng := newRand(seed, streamCurve3D)
	x := mat.NewDense(n, 3, nil)
	lat := mat.NewDense(n, 1, nil)
	for i := range n {
		t := rng.Float64()
		sd := noise * (0.3 + 0.7*t)
		sin, cos := math.Sincos(1.5 * math.Pi * t)
		x.Set(i, 0, 3*cos+sd*rng.NormFloat64())
		x.Set(i, 1, 3*sin+sd*rng.NormFloat64())
		x.Set(i, 2, 4*t+sd*rng.NormFloat64())
		lat.Set(i, 0, t)
	}
	return Samples{X: x, Latent: lat, LatentNames: []string{"t"}}
}

// Default noise levels used by Generate.
const (
	DefaultSwissRollNoise = 0.5
	DefaultCurve3DNoise   = 0.1
)

// Names lists the generator names accepted by Generate, for the command
// line: "spiral", "swissroll", "delicado-fixed", "delicado-twisted" and
// "curve3d".
func Names() []string {
	return []string{"spiral", "swissroll", "delicado-fixed", "delicado-twisted", "curve3d"}
}

// Generate runs the generator called name (see Names) with n samples and
// the given seed, using the default noise levels DefaultSwissRollNoise and
// DefaultCurve3DNoise. It returns an error for an unknown name or when n is
// not in [1, MaxSamples].
func Generate(name string, n int, seed uint64) (Samples, error) {
	return GenerateNoisy(name, n, -1, seed)
}

// GenerateNoisy is Generate with the noise level of the swissroll and
// curve3d generators set to noise (a standard deviation in the units of
// the data) instead of their defaults; a negative noise keeps the
// default. The other generators have no noise parameter: for them noise
// must be negative.
func GenerateNoisy(name string, n int, noise float64, seed uint64) (Samples, error) {
	if !(noise < 0) && name != "swissroll" && name != "curve3d" {
		return Samples{}, fmt.Errorf("testimages: data set %q has no noise level (only swissroll and curve3d)", name)
	}
	if math.IsNaN(noise) || math.IsInf(noise, 0) || noise > 100 {
		return Samples{}, fmt.Errorf("testimages: noise %g not in [0, 100]", noise)
	}
	if n < 1 || n > MaxSamples {
		return Samples{}, fmt.Errorf("testimages: number of samples %d not in [1, %d]", n, MaxSamples)
	}
	switch name {
	case "spiral":
		return Spiral(n, seed), nil
	case "swissroll":
		if noise < 0 {
			noise = DefaultSwissRollNoise
		}
		return SwissRoll(n, noise, seed), nil
	case "delicado-fixed":
		return DelicadoFixed(n, seed), nil
	case "delicado-twisted":
		return DelicadoTwisted(n, seed), nil
	case "curve3d":
		if noise < 0 {
			noise = DefaultCurve3DNoise
		}
		return Curve3D(n, noise, seed), nil
	}
	return Samples{}, fmt.Errorf("testimages: unknown data set %q (known: %v)", name, Names())
}
