package spca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// TuneGrid lists the candidate values of Tune.
type TuneGrid struct{ K, Tau, Q []float64 }

// TunePoint is the projection error of one grid point (RMS distance of the
// samples to the first curve, input units; +Inf if no curve was drawn).
type TunePoint struct{ K, Tau, Q, Error float64 }

// TuneResult is the outcome of Tune: Best holds the base options with the
// best (K, Tau, Q); Table every grid point in grid order (K slowest).
type TuneResult struct {
	Best  Options
	Error float64
	Table []TunePoint
}

// DefaultTuneGrid is the grid used when Tune gets an empty one: the ranges
// of the Appendix's figures.
func DefaultTuneGrid() TuneGrid {
	return TuneGrid{
		K:   []float64{0.02, 0.05, 0.1, 0.2},
		Tau: []float64{0.05, 0.1, 0.2},
		Q:   []float64{2, 10, math.Inf(1)},
	}
}

// Tune picks (K, Tau, Q) on a grid by minimising the RMS projection error
// of the samples onto the first principal curve, the criterion of the
// seed's Appendix (a principal curve passes through the middle of the
// data, like the first principal component minimises the residual
// variance). Only the first curve is drawn per grid point, so Tune costs
// a small fraction of a Fit.
func Tune(data mat.Matrix, base Options, grid TuneGrid) (TuneResult, error) {
	if len(grid.K) == 0 && len(grid.Tau) == 0 && len(grid.Q) == 0 {
		grid = DefaultTuneGrid()
	}
	grid = grid.orBase(base)
	t := newTuneTable()
	for _, k := range grid.K {
		for _, tau := range grid.Tau {
			for _, q := range grid.Q {
				o := base
				o.K, o.Tau, o.Q = k, tau, q
				e, err := projectionError(data, o)
				if err := t.add(TunePoint{k, tau, q, e}, o, err); err != nil {
					return TuneResult{}, err
				}
			}
		}
	}
	return t.result("no grid point drew a first curve")
}

// orBase returns g with each empty axis set to base's value.
func (g TuneGrid) orBase(base Options) TuneGrid {
	if len(g.K) == 0 {
		g.K = []float64{base.K}
	}
	if len(g.Tau) == 0 {
		g.Tau = []float64{base.Tau}
	}
	if len(g.Q) == 0 {
		g.Q = []float64{base.Q}
	}
	return g
}

// tuneTable collects the grid points of a tuning run. A point whose fit
// fails scores +Inf and the search goes on (the first such failure is
// reported if no point succeeds); invalid options end it.
type tuneTable struct {
	res      TuneResult
	firstErr error
}

func newTuneTable() *tuneTable {
	return &tuneTable{res: TuneResult{Error: math.Inf(1)}}
}

// add records point p, measured with options o; err is its fit's error.
func (t *tuneTable) add(p TunePoint, o Options, err error) error {
	if err != nil {
		if _, bad := err.(*OptionError); bad {
			return err
		}
		if t.firstErr == nil {
			t.firstErr = err
		}
		p.Error = math.Inf(1)
	}
	t.res.Table = append(t.res.Table, p)
	if p.Error < t.res.Error {
		t.res.Error, t.res.Best = p.Error, o
	}
	return nil
}

// result returns the table and its best point, or an error (the first
// fit's failure, else a DataError of msg) if no point scored.
func (t *tuneTable) result(msg string) (TuneResult, error) {
	if math.IsInf(t.res.Error, 1) {
		if t.firstErr == nil {
			t.firstErr = &DataError{msg}
		}
		return t.res, t.firstErr
	}
	return t.res, nil
}

// projectionError draws the first curve with o and returns the RMS
// distance of the reference samples to it, in input units.
func projectionError(data mat.Matrix, o Options) (float64, error) {
	f, err := newFitter(data, o)
	if err != nil {
		return 0, err
	}
	origin, err := f.origin()
	if err != nil {
		return 0, err
	}
	frame, _ := f.rankAtOrigin(origin)
	d := f.d
	c := f.dr.draw(origin, frame, 0, 0, nil, false, newScratch(d, f.nb.m))
	if c.len() < 3 {
		return math.Inf(1), nil
	}
	ss := 0.0
	for i := 0; i < f.nb.m; i++ {
		_, d2 := project(f.nb.ref[i*d:(i+1)*d], c.pts, c.s, d, false)
		ss += d2
	}
	return math.Sqrt(ss/float64(f.nb.m)) * f.scale, nil
}

// TuneReducedSamples and TuneReducedResolution bound the cost of
// TuneReduced's fits: at most this many samples and this many lattice
// nodes (unless base asks for fewer).
const (
	TuneReducedSamples    = 1000
	TuneReducedResolution = 1 << 15
)

// TuneReduced picks (K, Tau, Q) on a grid by the held-out reconstruction
// error after reduction to k responses: for each grid point it fits a
// model to half the samples (every other row, with twice the share K so
// that a neighbourhood counts as many samples as K on all of them), maps
// the other half to their first k responses and back (the other responses
// at the medians over the fitted half, see InverseReduced), and measures
// the RMS distance to those samples in input units (TunePoint.Error). The
// error on the fitted samples themselves cannot tell tau 0.1 from 0.05 on
// a swiss roll of noise 1.0 (0.98 and 1.02), of which only the second
// unfolds it; held out, they score 5.7 and 2.1. Unlike Tune's projection
// error, which on a 2-D sheet prefers bendy first curves that do not
// unfold it, this is the seed's criterion applied to what dimensionality
// reduction keeps: a model whose first k responses follow the sheet
// reconstructs it to the noise level.
//
// Each grid point costs a Fit, on at most TuneReducedSamples samples (a
// seeded subsample of 2·TuneReducedSamples is split for larger data) with
// at most TuneReducedResolution lattice nodes; an empty grid means
// DefaultTuneGrid with Q fixed at base.Q (12 fits). k must be in [1, d).
func TuneReduced(data mat.Matrix, base Options, grid TuneGrid, k int) (TuneResult, error) {
	n, d := data.Dims()
	if k < 1 || k >= d {
		return TuneResult{}, &OptionError{Msg: fmt.Sprintf("components must be in [1, %d) for %d-D data, got %d", d, d, k)}
	}
	if len(grid.K) == 0 && len(grid.Tau) == 0 && len(grid.Q) == 0 {
		grid = DefaultTuneGrid()
		grid.Q = nil
	}
	grid = grid.orBase(base)
	x := data
	if n > 2*TuneReducedSamples {
		x = subsampleRows(data, 2*TuneReducedSamples, base.Seed)
		n = 2 * TuneReducedSamples
	}
	// Fit on the even rows, measure on the odd ones.
	fitX := mat.NewDense((n+1)/2, d, nil)
	testX := mat.NewDense(n/2, d, nil)
	for i := range n {
		row := mat.Row(nil, i, x)
		if i%2 == 0 {
			fitX.SetRow(i/2, row)
		} else {
			testX.SetRow(i/2, row)
		}
	}
	fitOpt := base
	if fitOpt.Resolution == 0 || fitOpt.Resolution > TuneReducedResolution {
		fitOpt.Resolution = TuneReducedResolution
	}
	progress := base.Progress
	fitOpt.Progress = nil
	total := len(grid.K) * len(grid.Tau) * len(grid.Q)
	t := newTuneTable()
	for _, kk := range grid.K {
		for _, tau := range grid.Tau {
			for _, q := range grid.Q {
				if progress != nil {
					progress("tune", len(t.res.Table), total)
				}
				o := fitOpt
				// The half has half the samples: twice the share keeps
				// the number of neighbours of k on the whole.
				o.K, o.Tau, o.Q = math.Min(1, 2*kk), tau, q
				e := math.Inf(1)
				m, err := Fit(fitX, o)
				if err == nil {
					e, err = m.reducedError(fitX, testX, k)
				}
				best := base
				best.K, best.Tau, best.Q = kk, tau, q
				if err := t.add(TunePoint{kk, tau, q, e}, best, err); err != nil {
					return TuneResult{}, err
				}
			}
		}
	}
	if progress != nil {
		progress("tune", total, total)
	}
	return t.result("no grid point could be fitted")
}

// subsampleRows returns m rows of x chosen without replacement with the
// given seed, in their original order.
func subsampleRows(x mat.Matrix, m int, seed uint64) *mat.Dense {
	n, d := x.Dims()
	rng := rand.New(rand.NewPCG(seed, 0x7e1ced))
	idx := rng.Perm(n)[:m]
	sort.Ints(idx)
	out := mat.NewDense(m, d, nil)
	for i, r := range idx {
		for j := range d {
			out.Set(i, j, x.At(r, j))
		}
	}
	return out
}
