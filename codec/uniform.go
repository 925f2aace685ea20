package codec

import (
	"fmt"
	"math"
	"sort"
)

// deadZone is the rounding offset of DeadZone's cells: v goes to cell
// k = sign(v)·floor(|v|/step + deadZone). Below 1/2 the zero cell widens
// (to 4/3 of a step at 1/3) and every other cell moves outward by
// 1/2 − deadZone of a step: on the peaked coefficients of image patches
// that buys more bits than it costs error. Measured on 4×4 PCA
// coefficients of kodim07–12 (zeroth-order entropy): plain rounding gives
// 39.2 dB at 1.58 bpp, the dead zone with centroid levels 39.7 dB at 1.58
// (38.5 at 1.40). 1/3 is the offset of H.264's intra quantiser.
const deadZone = 1.0 / 3

// centroidPrior is the weight, in training samples, of the rounding level
// k·step in a cell's reconstruction level: sparse tail cells reconstruct
// near k·step, well-populated ones at their centroid.
const centroidPrior = 2

// DeadZone designs the uniform quantiser with dead zone for entropy-coded
// transform coding: cells of one step (the zero cell 4/3 of a step wide),
// covering the samples' range with a quarter of it to spare on each side,
// reconstruction at the centroid of the training samples in each cell.
// With an entropy coder behind it, a uniform quantiser with the same step
// for every coefficient is the classical high-rate optimum (every
// coefficient then has the same distortion, step²/12, and the same slope
// of distortion against rate); Lloyd–Max is the optimum for fixed-length
// indices instead. At most maxLevels cells.
//
// The zero cell reconstructs at exactly 0, not at its centroid: the
// samples are centred transform coefficients, symmetric about 0, so the
// centroid of the zero cell differs from 0 by sampling noise only (on the
// order of 0.01 of a step), and an exact zero lets the decoder skip the
// coefficient, as JPEG decoders skip zero coefficients.
func DeadZone(samples []float64, step float64) (*ScalarQuantizer, error) {
	q, err := deadZoneQuantizer(samples, step, 0.25)
	if err != nil {
		return nil, err
	}
	return withZeroLevel(q), nil
}

// withZeroLevel sets the level of q's zero cell to 0 (see DeadZone) and
// returns q. Only a zero cell bounded on both sides is the dead zone
// around 0 (samples all of one sign may leave 0 in an end cell).
func withZeroLevel(q *ScalarQuantizer) *ScalarQuantizer {
	if zero := q.Index(0); zero > 0 && zero < len(q.Thresholds) {
		q.Levels[zero] = 0
	}
	return q
}

// deadZoneQuantizer is DeadZone with spare, the share of the samples'
// range covered beyond each end. With no spare the levels are also kept
// within the samples' range: for a bounded quantity (an SPCA response,
// which saturates at the ends of its metric table) a level beyond the
// values that occur would be inverted far outside the data.
func deadZoneQuantizer(samples []float64, step, spare float64) (*ScalarQuantizer, error) {
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("codec: quantiser step %v must be positive and finite", step)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("codec: dead-zone quantiser needs samples")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range samples {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("codec: dead-zone quantiser sample %v", v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	g, err := newDeadZoneGrid(lo, hi, step, spare)
	if err != nil {
		return nil, err
	}
	for _, v := range samples {
		k := deadZoneCell(v, step) - g.kLo
		g.sum[k] += v
		g.cnt[k]++
	}
	return g.quantizer(), nil
}

// deadZoneGrid holds the cells of a dead-zone quantiser of samples in
// [lo, hi] while their sums and counts are gathered.
type deadZoneGrid struct {
	lo, hi, step, spare float64
	kLo                 int       // the signed index of the first cell
	sum, cnt            []float64 // of the samples in each cell
}

func newDeadZoneGrid(lo, hi, step, spare float64) (*deadZoneGrid, error) {
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("codec: quantiser step %v must be positive and finite", step)
	}
	margin := float64(spare * (hi - lo)) // rounded: no FMA into lo - margin
	// Counted in floating point before any index becomes an int: at fine
	// steps the indices exceed an int, where the conversion is not
	// defined. On 32-bit platforms DeadZone of samples 0 and 1e9 at step
	// 1e-3 wrapped the count past the bound and make panicked.
	// Both ends infinite (1e300 at step 1e-300) differ by NaN cells:
	// infinitely many (they were 1 on amd64, and 0 to 1e300 panicked).
	fLo, fHi := deadZoneCellFloat(lo-margin, step), deadZoneCellFloat(hi+margin, step)
	if cells := fHi - fLo + 1; !(cells <= maxLevels) {
		if math.IsNaN(cells) {
			cells = math.Inf(1)
		}
		return nil, &stepError{fmt.Sprintf("codec: a step of %.3g gives %.0f cells (at most %d): choose a larger step", step, cells, maxLevels)}
	}
	kLo := int(fLo)
	n := int(fHi) - kLo + 1
	return &deadZoneGrid{lo: lo, hi: hi, step: step, spare: spare, kLo: kLo, sum: make([]float64, n), cnt: make([]float64, n)}, nil
}

// quantizer returns the quantiser of the gathered cells: levels at the
// centroids (with the prior), thresholds of the dead zone.
func (g *deadZoneGrid) quantizer() *ScalarQuantizer {
	n, step := len(g.sum), g.step
	q := &ScalarQuantizer{Levels: make([]float64, n), Thresholds: make([]float64, n-1)}
	for i := range q.Levels {
		k := float64(i + g.kLo)
		// The prior's product is rounded: fused into the sum (arm64),
		// the levels of a model's derived steps differed from amd64's.
		q.Levels[i] = (g.sum[i] + float64(centroidPrior*k*step)) / (g.cnt[i] + centroidPrior)
		if g.spare == 0 {
			// The end cells hold the extremes, so clamping cannot
			// reorder the levels.
			q.Levels[i] = max(g.lo, min(g.hi, q.Levels[i]))
		}
	}
	// Cell k >= 1 starts at (k - deadZone)·step, cell k <= -1 ends at
	// (k + deadZone)·step; the zero cell lies between.
	for i := range q.Thresholds {
		k := float64(i + g.kLo) // the threshold between cells k and k+1
		if k >= 0 {
			q.Thresholds[i] = (k + 1 - deadZone) * step
		} else {
			q.Thresholds[i] = (k + deadZone) * step
		}
	}
	// A reconstruction level outside its cell can only come from
	// rounding; keep the levels strictly increasing for the file format.
	for i := 1; i < n; i++ {
		if !(q.Levels[i] > q.Levels[i-1]) {
			q.Levels[i] = math.Nextafter(q.Levels[i-1], math.Inf(1))
		}
	}
	if !sort.Float64sAreSorted(q.Thresholds) {
		panic("codec: dead-zone thresholds out of order")
	}
	return q
}

// deadZoneCellFloat is deadZoneCell in floating point, for any v and
// step (no integer overflow at fine steps).
func deadZoneCellFloat(v, step float64) float64 {
	return math.Copysign(math.Floor(math.Abs(v)/step+deadZone), v)
}

// deadZoneCell is the signed cell index of v.
func deadZoneCell(v, step float64) int {
	return int(deadZoneCellFloat(v, step))
}

// maxLevels is the largest number of bins of one coefficient: the file
// formats store bins as 16-bit counts, and the entropy coder escapes the
// zigzag-coded difference of two indices (up to 2·(maxLevels-1)) as 16
// bits beyond 255.
const maxLevels = 1 << 15

// maxPatch is the largest patch size n: an .spc header counts a channel's
// n² coefficients in one byte.
const maxPatch = 15

// Bounds of TrainOptions and of a quantiser step, for callers that check
// or show their ranges (the command line's flags): the largest patch
// size, total resolution (Bins), target rate (BPP, bits per pixel) and
// step (Model.SetStep, EncodeOptions.Step) that codec accepts.
const (
	MaxPatch    = maxPatch
	MaxBins     = maxLevels
	MaxTrainBPP = maxTrainBPP
	MaxStep     = maxStep
)

// maxTrainBPP is the largest target rate of TrainOptions.BPP.
const maxTrainBPP = 24
