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
