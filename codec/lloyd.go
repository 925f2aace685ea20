package codec

import (
	"fmt"
	"math"
	"sort"
)

// ScalarQuantizer is a 1-D quantiser: Thresholds[i] separates Levels[i]
// and Levels[i+1].
type ScalarQuantizer struct {
	Levels     []float64
	Thresholds []float64
}

// Index returns the cell of v.
func (q *ScalarQuantizer) Index(v float64) int {
	return sort.SearchFloat64s(q.Thresholds, v)
}

// Value returns the reconstruction level of cell i.
func (q *ScalarQuantizer) Value(i int) float64 { return q.Levels[i] }

// LloydMax designs the MSE-optimal scalar quantiser of the samples with k
// levels (Lloyd's algorithm: thresholds at midpoints of the levels, levels
// at the centroids of their cells), starting from the k quantiles. It is
// the honest baseline of transform coding: PCA with a Lloyd–Max quantiser
// per coefficient.
func LloydMax(samples []float64, k int) (*ScalarQuantizer, error) {
	if k < 1 {
		return nil, fmt.Errorf("codec: Lloyd-Max needs at least one level, got %d", k)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("codec: Lloyd-Max needs samples")
	}
	x := append([]float64(nil), samples...)
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("codec: Lloyd-Max sample %v", v)
		}
	}
	sort.Float64s(x)
	n := len(x)
	// Prefix sums make each centroid O(log n).
	pre := make([]float64, n+1)
	for i, v := range x {
		pre[i+1] = pre[i] + v
	}
	levels := make([]float64, k)
	for i := range levels {
		levels[i] = x[min(n-1, (2*i+1)*n/(2*k))]
	}
	th := make([]float64, k-1)
	prevD := math.Inf(1)
	for it := 0; it < 200; it++ {
		for i := range th {
			th[i] = 0.5 * (levels[i] + levels[i+1])
		}
		lo := 0
		for i := 0; i < k; i++ {
			hi := n
			if i < k-1 {
				hi = sort.SearchFloat64s(x, th[i])
			}
			if hi > lo {
				levels[i] = (pre[hi] - pre[lo]) / float64(hi-lo)
			}
			lo = hi
		}
		// Keep levels strictly increasing (empty cells keep their level).
		for i := 1; i < k; i++ {
			if levels[i] <= levels[i-1] {
				levels[i] = math.Nextafter(levels[i-1], math.Inf(1))
			}
		}
		dist := 0.0
		q := &ScalarQuantizer{Levels: levels, Thresholds: th}
		for _, v := range x {
			e := v - q.Value(q.Index(v))
			dist += e * e
		}
		if it > 0 && prevD-dist <= 1e-12*prevD {
			break
		}
		prevD = dist
	}
	for i := range th {
		th[i] = 0.5 * (levels[i] + levels[i+1])
	}
	return &ScalarQuantizer{Levels: levels, Thresholds: th}, nil
}
