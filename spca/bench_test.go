package spca_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/spca/measure"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// benchData returns n samples of a curved d-dimensional manifold: the
// spiral (d = 2), Delicado's twisted manifold (d = 3), and for d = 4 the
// spiral lifted along a sine with a Laplacian fourth coordinate.
func benchData(n, d int) *mat.Dense {
	switch d {
	case 2:
		return testimages.Spiral(n, 1).X
	case 3:
		return testimages.DelicadoTwisted(n, 1).X
	}
	s := testimages.Spiral(n, 1)
	rng := rand.New(rand.NewPCG(1, 4))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		arc := s.Latent.At(i, 0)
		x.Set(i, 0, s.X.At(i, 0))
		x.Set(i, 1, s.X.At(i, 1))
		x.Set(i, 2, 0.6*math.Sin(arc)+0.05*rng.NormFloat64())
		for j := 3; j < d; j++ {
			x.Set(i, j, 0.1*rng.ExpFloat64()*float64(1-2*rng.IntN(2)))
		}
	}
	return x
}

var benchSizes = []int{20000, 200000}

func BenchmarkFit(b *testing.B) {
	for _, d := range []int{2, 3, 4} {
		for _, n := range benchSizes {
			x := benchData(n, d)
			b.Run(fmt.Sprintf("d=%d/N=%d", d, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := spca.Fit(x, withGamma(1.0/3)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

var benchModels = map[int]*spca.Model{}

func benchModel(b *testing.B, d int) *spca.Model {
	if m, ok := benchModels[d]; ok {
		return m
	}
	m, err := spca.Fit(benchData(20000, d), withGamma(1.0/3))
	if err != nil {
		b.Fatal(err)
	}
	benchModels[d] = m
	return m
}

// BenchmarkTransform measures the exact forward transform (geodesic
// projection to tolerance) of fresh samples; samples/s = N / (ns/op·1e-9).
func BenchmarkTransform(b *testing.B) {
	for _, d := range []int{2, 3, 4} {
		for _, n := range benchSizes {
			m := benchModel(b, d)
			x := benchData(n, d)
			b.Run(fmt.Sprintf("d=%d/N=%d", d, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, _, err := m.TransformBatch(x); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

func BenchmarkInverse(b *testing.B) {
	for _, d := range []int{2, 3, 4} {
		for _, n := range benchSizes {
			m := benchModel(b, d)
			r, _, err := m.TransformBatch(benchData(n, d))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("d=%d/N=%d", d, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := m.InverseBatch(r); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

// BenchmarkPCAProject is the baseline: gonum's linear PCA projection of the
// same batches.
func BenchmarkPCAProject(b *testing.B) {
	for _, d := range []int{2, 3, 4} {
		for _, n := range benchSizes {
			x := benchData(n, d)
			p, err := measure.FitPCA(x)
			if err != nil {
				b.Fatal(err)
			}
			dst := mat.NewDense(n, d, nil)
			b.Run(fmt.Sprintf("d=%d/N=%d", d, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					p.Project(dst, x)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

// BenchmarkFitSmallTau measures Fit with curve steps of MinTau and 10
// MinTau against the default (0.1): drawing checks each new vertex
// against the vertices drawn before it (crossing and self-approach).
func BenchmarkFitSmallTau(b *testing.B) {
	x := testimages.Spiral(300, 1).X
	for _, tau := range []float64{spca.MinTau, 10 * spca.MinTau, 0.1} {
		o := withGamma(1.0 / 3)
		o.Tau = tau
		o.Resolution = 1 << 12
		b.Run(fmt.Sprintf("tau=%g", tau), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := spca.Fit(x, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
