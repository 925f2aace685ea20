package codec

import (
	"fmt"
	"math"
	"sort"
)

// AllocateBins splits a total resolution (the seed's sum of n_i) into
// integer numbers of quantisation bins per dimension, from the marginal
// entropies h (bits) of the dimensions. Classical high-resolution bit
// allocation gives every dimension b_i = b + h_i - mean(h) bits, i.e.
// n_i ∝ 2^{h_i}; the proportions are scaled to the requested total and
// rounded by largest remainder, so the sum is exact. Every dimension gets
// at least one bin; total must be at least len(h).
func AllocateBins(h []float64, total int) ([]int, error) {
	d := len(h)
	if d == 0 {
		return nil, fmt.Errorf("codec: no dimensions to allocate bins to")
	}
	if total < d {
		return nil, fmt.Errorf("codec: a resolution of %d bins cannot cover %d dimensions", total, d)
	}
	for _, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("codec: marginal entropy %v", v)
		}
	}
	hmax := math.Inf(-1)
	for _, v := range h {
		hmax = math.Max(hmax, v)
	}
	w := make([]float64, d)
	sum := 0.0
	for i, v := range h {
		w[i] = math.Exp2(v - hmax) // -Inf entropy (a constant dimension) gets weight 0
		sum += w[i]
	}
	// Every dimension has one bin; the rest is shared in proportion.
	n := make([]int, d)
	rem := make([]float64, d)
	left := total - d
	used := 0
	for i := range n {
		share := float64(left) * w[i] / sum
		n[i] = 1 + int(math.Floor(share))
		rem[i] = share - math.Floor(share)
		used += n[i] - 1
	}
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for k := 0; used < left; k++ {
		n[order[k%d]]++
		used++
	}
	return n, nil
}
