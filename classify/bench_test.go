package classify

import (
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// BenchmarkSelect chooses k by leave-one-out among ks for a Euclidean
// classifier of 4,000 samples of the spirals (what spca classify train
// does for every metric).
func BenchmarkSelect(b *testing.B) {
	train, _ := testimages.GenerateClasses("spirals", 4000, 1)
	c, err := Train(train.X, train.Label, 2, Euclidean, 1, spca.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Select(train.X, ks); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredict labels 4,000 held-out samples with a Euclidean
// classifier of 4,000 samples, k 15.
func BenchmarkPredict(b *testing.B) {
	train, _ := testimages.GenerateClasses("spirals", 4000, 1)
	test, _ := testimages.GenerateClasses("spirals", 4000, 2)
	c, err := Train(train.X, train.Label, 2, Euclidean, 15, spca.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Predict(test.X); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredictTangent labels 600 held-out moons5d samples with
// spca-tangent and spca-fisher classifiers of the 200 training samples
// (K 0.1, k 3): the cost a query adds over Euclidean k-NN is the
// tangents' SPCA unfolding; spca-fisher's frame adds a d×d product.
func BenchmarkPredictTangent(b *testing.B) {
	train, _ := testimages.GenerateClasses("moons5d", 200, 1)
	test, _ := testimages.GenerateClasses("moons5d", 600, 2)
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution, opt.K = 1, 1<<14, 0.1
	for _, m := range []Metric{SPCATangent, SPCAFisher} {
		c, err := Train(train.X, train.Label, 2, m, 3, opt)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Predict(test.X); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
