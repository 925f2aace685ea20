package measure

import (
	"cmp"
	"math"
	"slices"
)

// ranks returns the ranks (1-based) of x, with tied values given the
// average of the ranks they span.
func ranks(x []float64) []float64 {
	order := sortedOrder(x)
	r := make([]float64, len(x))
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && x[order[j]] == x[order[i]] {
			j++
		}
		// Positions i..j-1 hold equal values: ranks i+1..j, average (i+1+j)/2.
		avg := float64(i+1+j) / 2
		for _, k := range order[i:j] {
			r[k] = avg
		}
		i = j
	}
	return r
}

// sortedOrder returns the indices of x ordered by increasing value, ties by
// increasing index. The result depends only on the order relations between
// the elements of x.
func sortedOrder(x []float64) []int {
	type item struct {
		v float64
		i int
	}
	items := make([]item, len(x))
	for i, v := range x {
		items[i] = item{v, i}
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	order := make([]int, len(x))
	for k, it := range items {
		order[k] = it.i
	}
	return order
}

func hasNaN(x []float64) bool {
	return slices.ContainsFunc(x, math.IsNaN)
}

// Spearman returns the Spearman rank correlation between a and b: the
// Pearson correlation of their ranks, with tied values given the average
// of the ranks they span. It is 1 when b is a strictly increasing function
// of a and -1 when it is a strictly decreasing one.
//
// Spearman returns NaN if the lengths differ, there are fewer than two
// samples, either slice contains NaN or either slice is constant.
func Spearman(a, b []float64) float64 {
	n := len(a)
	if n != len(b) || n < 2 || hasNaN(a) || hasNaN(b) {
		return math.NaN()
	}
	ra, rb := ranks(a), ranks(b)
	mean := float64(n+1) / 2 // the mean of the ranks, with or without ties
	var sab, saa, sbb float64
	for i := range n {
		da, db := ra[i]-mean, rb[i]-mean
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN()
	}
	return max(-1, min(1, sab/math.Sqrt(saa*sbb)))
}

// KSUniform returns the Kolmogorov–Smirnov distance
//
//	sup_v |F_n(v) - F(v)|
//
// between the empirical distribution function F_n of x and the
// distribution function F of the uniform distribution on [lo, hi]. Values
// outside [lo, hi] count as lying at the nearer end.
//
// KSUniform returns NaN if x is empty or contains NaN, or if hi <= lo.
func KSUniform(x []float64, lo, hi float64) float64 {
	if len(x) == 0 || !(hi > lo) || hasNaN(x) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := float64(len(s))
	var d float64
	for i, v := range s {
		f := max(0, min(1, (v-lo)/(hi-lo)))
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// Quantile returns the p-quantile of x by linear interpolation between
// the order statistics of a sorted copy of x: with h = (len(x)-1)·p, the
// value is s[⌊h⌋] + (h-⌊h⌋)(s[⌊h⌋+1]-s[⌊h⌋]) (type 7 of Hyndman and Fan,
// the default of R and NumPy).
//
// Quantile returns NaN if x is empty or p is outside [0, 1].
func Quantile(x []float64, p float64) float64 {
	if len(x) == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileSorted(s, p)
}

func quantileSorted(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(h)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Entropy returns an estimate of the differential entropy of the
// distribution of x in bits, from a histogram of bins equal-width bins
// spanning [min(x), max(x)]:
//
//	H = -Σ p_k log2(p_k / w),
//
// where p_k is the fraction of samples in bin k and w the bin width. If
// bins <= 0 the width is chosen by the Freedman–Diaconis rule,
// w ≈ 2·IQR·n^(-1/3) (by Sturges' rule if the interquartile range is
// zero), with at most len(x) bins.
//
// Entropy returns -Inf if all values are equal (a point mass), and NaN if
// x is empty or contains NaN or ±Inf.
func Entropy(x []float64, bins int) float64 {
	n := len(x)
	if n == 0 || slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
		return math.NaN()
	}
	lo, hi := slices.Min(x), slices.Max(x)
	span := hi - lo
	if span == 0 {
		return math.Inf(-1)
	}
	if bins <= 0 {
		s := slices.Clone(x)
		slices.Sort(s)
		iqr := quantileSorted(s, 0.75) - quantileSorted(s, 0.25)
		if iqr > 0 {
			w := 2 * iqr / math.Cbrt(float64(n))
			bins = int(math.Min(math.Ceil(span/w), float64(n)))
		} else {
			bins = int(math.Ceil(math.Log2(float64(n)))) + 1
		}
		bins = max(1, min(bins, n))
	}
	w := span / float64(bins)
	counts := make([]int, bins)
	for _, v := range x {
		k := min(int((v-lo)/w), bins-1)
		counts[k]++
	}
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	return h + math.Log2(w)
}
