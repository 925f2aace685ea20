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
)

// ClassSets lists the labelled data sets of GenerateClasses: four on curved
// manifolds and a linear Gaussian one.
func ClassSets() []string {
	return []string{"spirals", "arcs", "moons", "moons3d", "gaussian"}
}

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
func GenerateClasses(name string, n int, seed uint64) (Labelled, error) {
	if n < 2 || n%2 != 0 || n > MaxSamples {
		return Labelled{}, fmt.Errorf("testimages: number of samples %d not even and in [2, %d]", n, MaxSamples)
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
	default:
		return Labelled{}, fmt.Errorf("testimages: unknown labelled data set %q (known: %v)", name, ClassSets())
	}
	rng := newRand(seed, stream)
	d := 2
	if name == "moons3d" {
		d = 3
	}
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
		case "gaussian":
			u, v := 2*rng.NormFloat64(), 0.5*rng.NormFloat64()
			cs, sn := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
			row[0] = cs*u - sn*v + 1.5*float64(c)*sn
			row[1] = sn*u + cs*v - 1.5*float64(c)*cs
		}
	}
	return l, nil
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
	d := 2
	if name == "moons3d" {
		d = 3
	}
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
	p0, p1 := math.Exp(l0-top), math.Exp(l1-top)
	return []float64{p0 / (p0 + p1), p1 / (p0 + p1)}, nil
}
