package testimages

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Labelled holds generated samples of two or more classes: X is N×d and
// Label[i] in [0, len(Classes)) the class of row i.
type Labelled struct {
	X       *mat.Dense
	Label   []int
	Classes []string
}

// Stream constants of the labelled generators.
const (
	streamSpirals = 101 + iota
	streamArcs
	streamMoons
	streamGaussian
	streamArcsThin
	streamSpiralsThin
	streamArcsScales
	streamMoons5D
)

// ClassSets lists the labelled data sets of GenerateClasses: four on curved
// manifolds with isotropic noise, a linear Gaussian one, and four curved
// sets meant for few training samples (ClassTrainSize), where the shape of
// the metric matters: noise thin along the curve's normal, density that
// varies along the curve, classes at different scales, and a manifold
// embedded in 5-D among irrelevant noisy axes.
func ClassSets() []string {
	return []string{"spirals", "arcs", "moons", "moons3d", "gaussian",
		"arcs-thin", "spirals-thin", "arcs-scales", "moons5d"}
}

// ClassTrainSize returns the number of training samples the labelled data
// set name is meant to be learnt from: 600 for the first five sets of
// ClassSets, fewer for the sparse ones (few samples per class is part of
// what makes them hard), 0 for an unknown name.
func ClassTrainSize(name string) int {
	switch name {
	case "spirals", "arcs", "moons", "moons3d", "gaussian":
		return 600
	case "arcs-thin", "arcs-scales":
		return 60
	case "spirals-thin":
		return 120
	case "moons5d":
		return 200
	}
	return 0
}

// classDim returns the dimension of the samples of the labelled set name.
func classDim(name string) int {
	switch name {
	case "moons3d":
		return 3
	case "moons5d":
		return 5
	}
	return 2
}

// moons5DNoise are the standard deviations of the three irrelevant axes of
// the moons5d set.
var moons5DNoise = [3]float64{0.1, 0.3, 0.6}

// GenerateClasses returns n samples (n/2 per class, n even) of the
// labelled data set name (see ClassSets) with the given seed. The classes
// overlap: the noise is of the order of the gap between them.
//
//	spirals   two interleaved 2-D spirals (1.5 turns), noise 0.35 (gap ≈ 1.6)
//	arcs      two concentric 2-D half-rings, radii 2 and 3, noise 0.3
//	moons     two interleaved 2-D half-moons, radius 1, noise 0.2
//	moons3d   the moons bent into 3-D (z = sin of x), noise 0.2 on every axis
//	gaussian  two 2-D Gaussians with the same anisotropic covariance
//	          (axes 2 and 0.5, rotated by 30°), means 1.5 apart
//
// The sparse sets (ClassTrainSize gives their training size):
//
//	arcs-thin     concentric 2-D half-rings, radii 2 and 2.4, radial
//	              noise 0.07 only (thin along the normal; the samples of a
//	              class lie about 0.3 apart along the arc, the rings 0.4)
//	spirals-thin  the spirals with radial noise 0.2 only and the arc
//	              parameter t = u² (u uniform): dense near the centre,
//	              sparse outside
//	arcs-scales   concentric half-rings of radii 1.5 and 2 at different
//	              scales (radial noise 0.05 and 0.2), angle π·u² (density
//	              falling along the arc)
//	moons5d       the moons with noise 0.15 in the first two axes and three
//	              irrelevant axes of noise 0.1, 0.3 and 0.6
func GenerateClasses(name string, n int, seed uint64) (Labelled, error) {
	if n < 2 || n%2 != 0 || n > MaxSamples {
		return Labelled{}, fmt.Errorf("testimages: number of samples %d: want an even number (two classes of equal size) from 2 to %d", n, MaxSamples)
	}
	var stream uint64
	switch name {
	case "spirals":
		stream = streamSpirals
	case "arcs":
		stream = streamArcs
	case "moons", "moons3d":
		stream = streamMoons
	case "gaussian":
		stream = streamGaussian
	case "arcs-thin":
		stream = streamArcsThin
	case "spirals-thin":
		stream = streamSpiralsThin
	case "arcs-scales":
		stream = streamArcsScales
	case "moons5d":
		stream = streamMoons5D
	default:
		return Labelled{}, fmt.Errorf("testimages: unknown labelled data set %q (known: %v)", name, ClassSets())
	}
	rng := newRand(seed, stream)
	d := classDim(name)
	l := Labelled{X: mat.NewDense(n, d, nil), Label: make([]int, n), Classes: []string{"a", "b"}}
	for i := range n {
		c := i % 2
		l.Label[i] = c
		row := l.X.RawRowView(i)
		switch name {
		case "spirals":
			// r = 1 + t, angle t·3π + c·π: the two arms interleave.
			t := rng.Float64()
			a := t*3*math.Pi + float64(c)*math.Pi
			r := 1 + 3*t
			row[0] = r*math.Cos(a) + 0.35*rng.NormFloat64()
			row[1] = r*math.Sin(a) + 0.35*rng.NormFloat64()
		case "arcs":
			a := math.Pi * rng.Float64()
			r := 2 + float64(c)
			row[0] = r*math.Cos(a) + 0.3*rng.NormFloat64()
			row[1] = r*math.Sin(a) + 0.3*rng.NormFloat64()
		case "moons", "moons3d":
			a := math.Pi * rng.Float64()
			x, y := math.Cos(a), math.Sin(a)
			if c == 1 {
				x, y = 1-x, 0.5-y
			}
			row[0] = x + 0.2*rng.NormFloat64()
			row[1] = y + 0.2*rng.NormFloat64()
			if d == 3 {
				row[2] = math.Sin(2*x) + 0.2*rng.NormFloat64()
			}
		case "arcs-thin", "arcs-scales":
			a := math.Pi * rng.Float64()
			r, sigma := arcsRadius(name, c)
			if name == "arcs-scales" {
				a *= a / math.Pi
			}
			r += sigma * rng.NormFloat64()
			row[0], row[1] = r*math.Cos(a), r*math.Sin(a)
		case "spirals-thin":
			t := rng.Float64()
			t *= t
			a := t*3*math.Pi + float64(c)*math.Pi
			r := 1 + 3*t + 0.2*rng.NormFloat64()
			row[0], row[1] = r*math.Cos(a), r*math.Sin(a)
		case "moons5d":
			a := math.Pi * rng.Float64()
			x, y := math.Cos(a), math.Sin(a)
			if c == 1 {
				x, y = 1-x, 0.5-y
			}
			row[0] = x + 0.15*rng.NormFloat64()
			row[1] = y + 0.15*rng.NormFloat64()
			for j, s := range moons5DNoise {
				row[2+j] = s * rng.NormFloat64()
			}
		case "gaussian":
			u, v := 2*rng.NormFloat64(), 0.5*rng.NormFloat64()
			cs, sn := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
			row[0] = cs*u - sn*v + 1.5*float64(c)*sn
			row[1] = sn*u + cs*v - 1.5*float64(c)*cs
		}
	}
	return l, nil
}

// arcsRadius returns the radius and radial noise of class c of the set
// arcs-thin or arcs-scales.
func arcsRadius(name string, c int) (r, sigma float64) {
	if name == "arcs-thin" {
		return 2 + 0.4*float64(c), 0.07
	}
	if c == 0 {
		return 1.5, 0.05
	}
	return 2, 0.2
}

// bayesNodes is the number of points of the midpoint rule that integrates
// a class density along its curve in BayesPosterior.
const bayesNodes = 4000

// BayesPosterior returns the posterior probability of every class of the
// labelled data set name (see ClassSets) at x, computed from the
// generator's own model (equal priors; for the curved sets the density of
// a class is its isotropic Gaussian noise integrated along its curve by
// the midpoint rule). The Bayes rule, the class of the largest posterior,
// has the best accuracy any classifier can reach on the set; the mean of
// the largest posterior over samples of the set estimates that accuracy.
func BayesPosterior(name string, x []float64) ([]float64, error) {
	d := classDim(name)
	if len(x) != d {
		return nil, fmt.Errorf("testimages: %s samples have %d coordinates, not %d", name, d, len(x))
	}
	// logDensity returns the log of the (unnormalised, same constant for
	// both classes) density of class c at x.
	var logDensity func(c int) float64
	curve := func(sigma float64, mean func(c int, s float64, m []float64)) func(c int) float64 {
		return func(c int) float64 {
			m := make([]float64, d)
			e := make([]float64, bayesNodes)
			top := math.Inf(-1)
			for i := range e {
				mean(c, (float64(i)+0.5)/bayesNodes, m)
				s := 0.0
				for j := range d {
					s += (x[j] - m[j]) * (x[j] - m[j])
				}
				e[i] = -s / (2 * sigma * sigma)
				top = math.Max(top, e[i])
			}
			sum := 0.0
			for _, v := range e {
				sum += math.Exp(v - top)
			}
			return top + math.Log(sum/bayesNodes)
		}
	}
	switch name {
	case "spirals":
		logDensity = curve(0.35, func(c int, t float64, m []float64) {
			a := t*3*math.Pi + float64(c)*math.Pi
			r := 1 + 3*t
			m[0], m[1] = r*math.Cos(a), r*math.Sin(a)
		})
	case "arcs":
		logDensity = curve(0.3, func(c int, s float64, m []float64) {
			a := math.Pi * s
			r := 2 + float64(c)
			m[0], m[1] = r*math.Cos(a), r*math.Sin(a)
		})
	case "arcs-thin", "arcs-scales":
		// Radial noise only: in polar coordinates (ρ, a) the density of
		// class c is p(a)·φ((ρ−r_c)/σ_c)/σ_c, and the Jacobian 1/ρ of
		// the change to Cartesian coordinates and p(a) (the same for
		// both classes) cancel in the posterior.
		rho, a := math.Hypot(x[0], x[1]), math.Atan2(x[1], x[0])
		logDensity = func(c int) float64 {
			if a < 0 {
				return math.Inf(-1)
			}
			r, sigma := arcsRadius(name, c)
			e := (rho - r) / sigma
			return -e*e/2 - math.Log(sigma)
		}
	case "spirals-thin":
		// Radial noise only: the arm of class c passes the angle a at
		// t = (a − cπ + 2πw)/(3π) for every winding w with t in [0, 1],
		// with density p(t) = 1/(2√t) (t = u²); the Jacobian of (t, z)
		// -> (ρ, a) is 3πσ, the same everywhere.
		rho, a := math.Hypot(x[0], x[1]), math.Atan2(x[1], x[0])
		logDensity = func(c int) float64 {
			sum := 0.0
			for w := -2; w <= 3; w++ {
				t := (a - float64(c)*math.Pi + 2*math.Pi*float64(w)) / (3 * math.Pi)
				if t < 0 || t > 1 {
					continue
				}
				e := (rho - 1 - 3*t) / 0.2
				sum += math.Exp(-e*e/2) / (2 * math.Sqrt(max(t, 1e-12)))
			}
			return math.Log(sum)
		}
	case "moons5d":
		// The irrelevant axes have the same density in both classes.
		logDensity = curve(0.15, func(c int, s float64, m []float64) {
			a := math.Pi * s
			u, v := math.Cos(a), math.Sin(a)
			if c == 1 {
				u, v = 1-u, 0.5-v
			}
			m[0], m[1] = u, v
			for j := 2; j < d; j++ {
				m[j] = x[j]
			}
		})
	case "moons", "moons3d":
		logDensity = curve(0.2, func(c int, s float64, m []float64) {
			a := math.Pi * s
			u, v := math.Cos(a), math.Sin(a)
			if c == 1 {
				u, v = 1-u, 0.5-v
			}
			m[0], m[1] = u, v
			if d == 3 {
				m[2] = math.Sin(2 * u)
			}
		})
	case "gaussian":
		// Both classes share the covariance: the coordinate along the
		// minor axis (-sin, cos)(π/6), standard deviation 0.5, has mean
		// 0 for class 0 and -1.5 for class 1.
		v := -math.Sin(math.Pi/6)*x[0] + math.Cos(math.Pi/6)*x[1]
		logDensity = func(c int) float64 {
			e := v + 1.5*float64(c)
			return -e * e / (2 * 0.25)
		}
	default:
		return nil, fmt.Errorf("testimages: unknown labelled data set %q (known: %v)", name, ClassSets())
	}
	l0, l1 := logDensity(0), logDensity(1)
	top := math.Max(l0, l1)
	if math.IsInf(top, -1) {
		return []float64{0.5, 0.5}, nil
	}
	p0, p1 := math.Exp(l0-top), math.Exp(l1-top)
	return []float64{p0 / (p0 + p1), p1 / (p0 + p1)}, nil
}
