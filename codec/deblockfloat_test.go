package codec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFloatRowsKernel checks deblockFloat's pass over a horizontal edge,
// floatEdgeRows (on amd64 CPUs with AVX: 4 columns at a time by a kernel) against
// floatEdge column by column, to the last bit: rows of 0 to 21 columns,
// samples near each other (tests passed, moves clipped or not) and far,
// NaN, infinities and zeros of both signs among them, thresholds from 0
// (the kernel declines) to wide.
func TestFloatRowsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 44))
	filtered := 0
	for trial := range 3000 {
		w := trial % 22
		var rows [4][]float64
		base := 255 * rng.Float64()
		for r := range rows {
			rows[r] = make([]float64, w)
			edgeSamples(rng, rows[r], base)
		}
		alpha, beta, tc := edgeThresholds(rng, trial)
		var want [4][]float64
		for r := range rows {
			want[r] = slices.Clone(rows[r])
		}
		for x := range w {
			want[0][x], want[1][x], want[2][x], want[3][x] = floatEdge(want[0][x], want[1][x], want[2][x], want[3][x], alpha, beta, tc)
		}
		r1, r0, s0, s1 := slices.Clone(rows[0]), slices.Clone(rows[1]), slices.Clone(rows[2]), slices.Clone(rows[3])
		floatEdgeRows(r1, r0, s0, s1, alpha, beta, tc)
		for r, got := range [4][]float64{r1, r0, s0, s1} {
			for x := range got {
				if math.Float64bits(got[x]) != math.Float64bits(want[r][x]) {
					t.Fatalf("trial %d (w %d, alpha %g beta %g tc %g): row %d column %d: %v, want %v",
						trial, w, alpha, beta, tc, r, x, got[x], want[r][x])
				}
				if got[x] != rows[r][x] {
					filtered++
				}
			}
		}
	}
	if filtered < 1000 {
		t.Fatalf("only %d samples moved: the test exercises little", filtered)
	}
}

// TestFloatColsKernel checks deblockFloat (on amd64 CPUs with AVX: the
// vertical edges of 4 rows at a time by a kernel) against floatEdge edge
// by edge, row by row, then floatEdgeRows (TestFloatRowsKernel) over the
// horizontal edges, to the last bit, samples between the rows' ends
// included: planes of 0 to 25 columns and 1 to 9 rows (none to two groups
// of 4 and the rows after), strides of the width and more, patches of 2
// to 8 (overlapping edges under 4), samples near each other and far, NaN,
// infinities and zeros of both signs among them, thresholds from 0 (the
// kernel declines) to wide.
func TestFloatColsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 45))
	filtered := 0
	for trial := range 4000 {
		w, h, n := trial%26, 1+trial%9, []int{2, 3, 4, 5, 8}[trial%5]
		stride := w + trial%3
		pix := make([]float64, max(0, (h-1)*stride+w))
		edgeSamples(rng, pix, 255*rng.Float64())
		alpha, beta, tc := edgeThresholds(rng, trial)
		want, got := slices.Clone(pix), slices.Clone(pix)
		for y := range h {
			row := want[y*stride:][:w]
			for x := n; x+1 < w; x += n {
				row[x-2], row[x-1], row[x], row[x+1] = floatEdge(row[x-2], row[x-1], row[x], row[x+1], alpha, beta, tc)
			}
		}
		for y := n; y+1 < h; y += n {
			floatEdgeRows(want[(y-2)*stride:][:w], want[(y-1)*stride:][:w], want[y*stride:][:w], want[(y+1)*stride:][:w], alpha, beta, tc)
		}
		deblockFloat(got, stride, w, h, n, alpha, beta, tc)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d (%d×%d, stride %d, n %d, alpha %g beta %g tc %g): sample %d: %v, want %v",
					trial, w, h, stride, n, alpha, beta, tc, i, got[i], want[i])
			}
			if got[i] != pix[i] {
				filtered++
			}
		}
	}
	if filtered < 3000 {
		t.Fatalf("only %d samples moved: the test exercises little", filtered)
	}
}

// edgeSamples fills p with samples near base (tests passed, moves clipped
// or not) and far, NaN, infinities and zeros of both signs among them.
func edgeSamples(rng *rand.Rand, p []float64, base float64) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e308, -1e308}
	for i := range p {
		p[i] = base + 6*rng.NormFloat64()
		if rng.IntN(25) == 0 {
			p[i] = special[rng.IntN(len(special))]
		}
	}
}

// edgeThresholds returns random thresholds of the filter, tc 0 (the
// kernels decline) and subnormal in some trials.
func edgeThresholds(rng *rand.Rand, trial int) (alpha, beta, tc float64) {
	alpha, beta, tc = 20*rng.Float64(), 8*rng.Float64(), 3*rng.Float64()
	switch trial % 7 {
	case 0:
		tc = 0
	case 1:
		tc = math.SmallestNonzeroFloat64
	}
	return alpha, beta, tc
}
