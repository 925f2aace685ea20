package spca

import "fmt"

// MinNeighbourhood is the number of samples below which SampleWarning
// finds a neighbourhood too small: the local PCA's neighbours (K of the
// reference samples) and the samples a secondary curve's density is
// estimated from (Conditioning of the samples).
//
// Measured on the spiral (testimages.Spiral, gamma 1, defaults K 0.1 and
// Conditioning 0.1, three training seeds, 2000 held-out samples): 100
// samples (10 in each neighbourhood) gave response marginals 0.13-0.49
// from uniform (largest Kolmogorov-Smirnov distance) and an inverse error
// of 0.07-0.25; 200 samples (20) gave one fit in three 0.25 and 0.13; from
// 300 samples (30) every fit stays within 0.07 and 0.007, as with 2000
// (0.035 and 0.0016).
const MinNeighbourhood = 30

// SampleWarning returns a one-line warning if n samples of dimension d
// are too few for the options o: if the local PCA neighbourhood (K of the
// reference samples, at most MaxReference) or, from d = 2, the window a
// secondary curve's density is estimated from (Conditioning of the
// samples) would hold fewer than MinNeighbourhood samples. It returns ""
// otherwise. Zero options mean their defaults, as in Fit.
func (o Options) SampleWarning(n, d int) string {
	k, cond, maxRef := o.K, o.Conditioning, o.MaxReference
	if k == 0 {
		k = DefaultK
	}
	if cond == 0 {
		cond = DefaultConditioning
	}
	if maxRef == 0 {
		maxRef = DefaultMaxReference
	}
	neighbours := int(k * float64(min(n, maxRef)))
	window := int(cond * float64(n))
	have := fmt.Sprintf("%d samples give the local PCA %d neighbours (k %g)", n, neighbours, k)
	switch {
	case d >= 2 && (neighbours < MinNeighbourhood || window < MinNeighbourhood):
		have += fmt.Sprintf(" and each secondary curve's density %d samples (conditioning %g)", window, cond)
	case neighbours < MinNeighbourhood:
	default:
		return ""
	}
	return fmt.Sprintf("%s; below %d the curves and responses are unreliable (on the spiral, 200 samples gave one fit in three "+
		"marginals 0.25 from uniform, against at most 0.07 from 300 on): give more samples, or a larger k and conditioning",
		have, MinNeighbourhood)
}
