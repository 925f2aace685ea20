package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/spca"
)

// Metric names a distance of the classifier.
type Metric int

// The metrics. The zero Metric is none of them.
const (
	Euclidean Metric = iota + 1
	Mahalanobis
	// SPCA fits one SPCA model to all the training samples.
	SPCA
	// SPCAPerClass fits one SPCA model per class, with
	// spca.Options.DensityFloor 1 unless set, so that a class's
	// responses keep growing outside its support instead of saturating.
	SPCAPerClass
	// SPCAUnfolded fits one SPCA model to all the training samples and
	// measures in its unfolded coordinates (spca.Model.UnfoldBatch): the
	// arc lengths along the curves in input units, before the metric
	// scales each dimension to [0, 1]. With Gamma 0 these are the
	// responses with every dimension scaled by its extent (Options.Scale),
	// so the distance is geodesic along the curves but not whitened.
	SPCAUnfolded
	// SPCASelect is the SPCA metric (one model for all the training
	// samples) restricted to the response dimensions that serve the
	// labels: Train drops dimensions by backward elimination on the
	// leave-one-out accuracy (SelectDims). The SPCA model is fitted
	// without the labels, like SPCA's; only the choice of dimensions
	// sees them. The distance is no longer a pure manifold metric but
	// the seed's SPCA metric on a supervised subspace: an unsupervised
	// metric cannot tell an irrelevant noisy axis from a relevant one
	// (moons5d, README "Classification").
	SPCASelect
	// SPCATangent fits one SPCA model per class, like SPCAPerClass, but
	// measures in the input space: the distance from a query q to a
	// sample x is |x - q|² - (1 - 1/Ratio²)(t·(x - q))² under the square
	// root, t the unit direction at q of the first curves of the class
	// models (the gradients of their first unfolded coordinates, summed
	// with their signs aligned). The neighbourhoods are ellipses drawn
	// out along the class curves by Ratio (the seed's rationale for the
	// SPCA metric in classification), but the curves give only the
	// direction: the scales stay those of the input, so an axis of noise
	// keeps the weight Euclidean k-NN gives it. TrainSelect chooses Ratio
	// from TangentRatios (1 is Euclidean k-NN).
	SPCATangent
	// SPCAFisher is SPCATangent in a frame that weighs the input
	// directions by how far the classes lie apart along them, locally:
	// every sample's gap, the mean of its nearest samples of another
	// class minus that of its nearest of its own, and the directions of
	// the mean outer product of the gaps (the between-class scatter of
	// discriminant adaptive nearest neighbours) weighted by its
	// eigenvalues (Classifier.Frame). An axis of noise spread alike in
	// every class leaves the gaps nearly untouched and gets little
	// weight; SPCATangent keeps it at Euclidean's (moons5d,
	// classify/MEASUREMENTS.md, session 19). The class curves still draw
	// the neighbourhoods out along themselves by Ratio. TrainSelect
	// chooses the frame's share with K, Ratio and k (FisherShares; the
	// first frame tried is the identity, SPCATangent).
	SPCAFisher
)

// TangentRatios are the elongations of SPCATangent's neighbourhoods that
// TrainSelect tries; DefaultTangentRatio is Train's.
var TangentRatios = []float64{1, 1.5, 2, 3, 5}

// FisherShares are the floors s of SPCAFisher's frame weights that
// TrainSelect tries after the identity: the eigenvector of the gaps'
// scatter with eigenvalue λ gets the weight (λ/λmax + s)/(1 + s) in the
// squared distance, so a direction without gaps keeps s/(1+s) of its
// Euclidean weight. DefaultFisherShare is Train's.
var FisherShares = []float64{1, 0.3, 0.1, 0.03}

// DefaultFisherShare is the share of SPCAFisher's frame that Train uses.
const DefaultFisherShare = 0.1

// fisherNeighbours is the number of nearest samples of each class whose
// mean SPCAFisher's gaps take.
const fisherNeighbours = 10

// DefaultTangentRatio is the Ratio Train gives an SPCATangent
// classifier: the value leave-one-out chose most often on the sparse
// sets of testimages (classify/MEASUREMENTS.md, session 18).
const DefaultTangentRatio = 2

var metricNames = [...]string{Euclidean: "euclidean", Mahalanobis: "mahalanobis", SPCA: "spca", SPCAPerClass: "spca-per-class", SPCAUnfolded: "spca-unfolded", SPCASelect: "spca-select", SPCATangent: "spca-tangent", SPCAFisher: "spca-fisher"}

// Metrics lists every metric.
func Metrics() []Metric {
	return []Metric{Euclidean, Mahalanobis, SPCA, SPCAPerClass, SPCAUnfolded, SPCASelect, SPCATangent, SPCAFisher}
}

// lastMetric is the largest valid Metric.
const lastMetric = SPCAFisher

// MetricNames returns the names of Metrics, for help texts.
func MetricNames() []string {
	var out []string
	for _, m := range Metrics() {
		out = append(out, m.String())
	}
	return out
}

// String returns the metric's name as used by the command line.
func (m Metric) String() string {
	if m > 0 && int(m) < len(metricNames) {
		return metricNames[m]
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// ParseMetric returns the metric called name, or the zero Metric and an
// error.
func ParseMetric(name string) (Metric, error) {
	for _, m := range Metrics() {
		if m.String() == name {
			return m, nil
		}
	}
	return 0, fmt.Errorf("classify: unknown metric %q (known: %s)", name, strings.Join(MetricNames(), ", "))
}

// perClassFloor is the spca.Options.DensityFloor of the per-class models
// unless the caller sets one.
const perClassFloor = 1

// feature maps samples to the space where the metric is Euclidean.
type feature func(x mat.Matrix) (*mat.Dense, error)

// Classifier is a k-nearest-neighbour classifier. Train builds it.
type Classifier struct {
	K       int
	Metric  Metric
	classes int
	label   []int
	// maps[c] maps samples into the space where distances to the
	// training samples of class c are measured (mapIndex[c] numbers the
	// distinct maps: one for all classes but with SPCAPerClass); feats[c]
	// holds those samples mapped, idx[c] their rows in the training set.
	maps     []feature
	mapIndex []int
	feats    []*mat.Dense
	idx      [][]int
	// Models are the fitted SPCA models (one, or one per class).
	Models []*spca.Model
	// Weights are the weights of the feature dimensions in the squared
	// distance (SPCASelect: 1 for a kept response dimension, 0 for a
	// dropped one); nil means 1 for every dimension.
	Weights []float64
	// Ratio is the elongation of SPCATangent's neighbourhoods along the
	// class curves (>= 1; 1 is Euclidean); 0 for the other metrics.
	Ratio float64
	// Frame is SPCAFisher's map of the samples (d×d, applied as Frame·x)
	// before the tangent distance; nil for the other metrics.
	Frame *mat.Dense
	// Values are the label values of the classes as given by the user
	// (a CSV column), saved with the classifier; nil means 0, 1, ...
	Values []float64
	x      *mat.Dense
}

// Dim returns the dimension of the samples.
func (c *Classifier) Dim() int { _, d := c.x.Dims(); return d }

// Samples returns the number of training samples.
func (c *Classifier) Samples() int { n, _ := c.x.Dims(); return n }

// Classes returns the number of classes.
func (c *Classifier) Classes() int { return c.classes }

// Train builds a classifier of the training samples x (N×d) with labels
// in [0, classes), using metric with k neighbours. opt are the SPCA
// options for the SPCA metrics.
//
// With SPCASelect, the response dimensions are chosen for this k by
// SelectDims.
func Train(x mat.Matrix, label []int, classes int, metric Metric, k int, opt spca.Options) (*Classifier, error) {
	c, err := train(x, label, classes, metric, k, opt)
	if err != nil || metric != SPCASelect {
		return c, err
	}
	if _, err := c.SelectDims(x, []int{k}); err != nil {
		return nil, err
	}
	return c, nil
}

// train is Train without SPCASelect's choice of dimensions.
func train(x mat.Matrix, label []int, classes int, metric Metric, k int, opt spca.Options) (*Classifier, error) {
	c, err := newClassifier(x, label, classes, metric, k)
	if err != nil {
		return nil, err
	}
	_, d := x.Dims()
	switch metric {
	case SPCA, SPCAUnfolded, SPCASelect:
		m, err := spca.Fit(x, opt)
		if err != nil {
			return nil, err
		}
		c.Models = []*spca.Model{m}
	case SPCAPerClass, SPCATangent, SPCAFisher:
		if metric != SPCAPerClass {
			c.Ratio = DefaultTangentRatio
		}
		if metric == SPCAFisher {
			frames := c.fisherFrames([]float64{DefaultFisherShare})
			c.Frame = frames[len(frames)-1]
		}
		if opt.DensityFloor == 0 {
			// A class's responses must keep growing beyond its own
			// support, which is where the classes meet: with the
			// default floor they saturate there and every query
			// outside looks alike (arcs-thin, 3 pairs: held-out
			// accuracy 0.67-0.93 with the default floor, 0.94-0.99
			// with floor 1).
			opt.DensityFloor = perClassFloor
		}
		for cl := range classes {
			if len(c.idx[cl]) < 2*d+2 {
				return nil, &DataError{fmt.Sprintf("class %d has %d samples, too few for an SPCA model", cl, len(c.idx[cl]))}
			}
			m, err := spca.Fit(c.rows(c.idx[cl]), opt)
			if err != nil {
				return nil, fmt.Errorf("classify: class %d: %w", cl, err)
			}
			c.Models = append(c.Models, m)
		}
	}
	if err := c.build(); err != nil {
		return nil, err
	}
	return c, nil
}

// newClassifier checks the training data and returns a classifier without
// its metric. It keeps copies of x and label: the caller may reuse them.
func newClassifier(x mat.Matrix, label []int, classes int, metric Metric, k int) (*Classifier, error) {
	if d, ok := x.(*mat.Dense); x == nil || ok && (d == nil || d.IsEmpty()) {
		return nil, &DataError{"no training samples"}
	}
	n, d := x.Dims()
	switch {
	case n != len(label):
		return nil, &DataError{fmt.Sprintf("%d samples and %d labels", n, len(label))}
	case d > MaxDim:
		return nil, &DataError{fmt.Sprintf("samples of dimension %d, at most %d", d, MaxDim)}
	case k < 1 || k > n:
		return nil, &OptionError{fmt.Sprintf("k = %d not in [1, %d]", k, n)}
	case classes < 2:
		return nil, &OptionError{"fewer than two classes"}
	case metric < Euclidean || metric > lastMetric:
		return nil, &OptionError{fmt.Sprintf("unknown metric %v", metric)}
	}
	if err := finite(x, "training sample"); err != nil {
		return nil, err
	}
	for _, l := range label {
		if l < 0 || l >= classes {
			return nil, &DataError{fmt.Sprintf("label %d not in [0, %d)", l, classes)}
		}
	}
	c := &Classifier{K: k, Metric: metric, classes: classes, label: slices.Clone(label), x: mat.DenseCopyOf(x)}
	c.idx = make([][]int, classes)
	for i, l := range label {
		c.idx[l] = append(c.idx[l], i)
	}
	return c, nil
}

// rows returns the training rows ix.
func (c *Classifier) rows(ix []int) *mat.Dense {
	_, d := c.x.Dims()
	out := mat.NewDense(len(ix), d, nil)
	for j, i := range ix {
		out.SetRow(j, c.x.RawRowView(i))
	}
	return out
}

// build sets the maps and mapped training samples of the metric, from
// c.Models for the SPCA metrics.
func (c *Classifier) build() error {
	var maps []feature
	switch c.Metric {
	case Euclidean, SPCATangent:
		// SPCATangent measures in the input itself (the class models
		// give only the direction along which distances shrink:
		// tangents), scaled as Euclidean's: its distances are
		// Euclidean's shrunk along t, which would underflow or
		// overflow alike (arcs-thin at 1e-300: every distance 0,
		// accuracy 0.5; at 1e300 every query refused).
		s := extremeScale(c.x)
		maps = []feature{func(q mat.Matrix) (*mat.Dense, error) {
			f := mat.DenseCopyOf(q)
			if s != 1 {
				f.Scale(1/s, f)
			}
			return f, nil
		}}
	case Mahalanobis:
		s := extremeScale(c.x)
		x := c.x
		if s != 1 {
			x = mat.NewDense(x.RawMatrix().Rows, x.RawMatrix().Cols, nil)
			x.Scale(1/s, c.x)
		}
		f, err := whitening(x)
		if err != nil {
			return err
		}
		if s != 1 {
			white := f
			f = func(q mat.Matrix) (*mat.Dense, error) {
				qs := mat.DenseCopyOf(q)
				qs.Scale(1/s, qs)
				return white(qs)
			}
		}
		maps = []feature{f}
	case SPCAUnfolded:
		maps = []feature{func(q mat.Matrix) (*mat.Dense, error) {
			u, _, err := c.Models[0].UnfoldBatch(q)
			return u, err
		}}
	case SPCAFisher:
		// SPCATangent's input, scaled alike, then mapped by the frame.
		s, frame := extremeScale(c.x), c.Frame
		maps = []feature{func(q mat.Matrix) (*mat.Dense, error) {
			qs := mat.DenseCopyOf(q)
			if s != 1 {
				qs.Scale(1/s, qs)
			}
			var f mat.Dense
			f.Mul(qs, frame.T())
			return &f, nil
		}}
	default:
		for _, m := range c.Models {
			maps = append(maps, responses(m))
		}
	}
	if msg := tangentSpan(c); msg != "" {
		return &DataError{msg}
	}
	c.maps = make([]feature, c.classes)
	c.mapIndex = make([]int, c.classes)
	c.feats = make([]*mat.Dense, c.classes)
	for cl := range c.classes {
		c.mapIndex[cl] = min(cl, len(maps)-1)
		c.maps[cl] = maps[c.mapIndex[cl]]
		if len(c.idx[cl]) == 0 {
			continue
		}
		f, err := c.maps[cl](c.rows(c.idx[cl]))
		if err != nil {
			return err
		}
		c.feats[cl] = f
	}
	return nil
}

// extremeScale returns the factor the Euclidean and Mahalanobis metrics
// divide the samples by: 1, unless the largest magnitude of the training
// values is beyond [1e-100, 1e100], where their squared distances and
// covariance underflow or overflow (samples at 1e-300: every distance 0,
// every vote a tie; at 1e300: a covariance of +Inf).
func extremeScale(x *mat.Dense) float64 {
	top := 0.0
	r, cols := x.Dims()
	for i := range r {
		for j := range cols {
			top = max(top, math.Abs(x.At(i, j)))
		}
	}
	if top > 1e100 || top > 0 && top < 1e-100 {
		return top
	}
	return 1
}

func responses(m *spca.Model) feature {
	return func(q mat.Matrix) (*mat.Dense, error) {
		r, _, err := m.TransformBatch(q)
		return r, err
	}
}

// whitening returns the map x -> L⁻¹(x - mean), with L the Cholesky
// factor of the covariance of x.
func whitening(x *mat.Dense) (feature, error) {
	n, d := x.Dims()
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil)
	var ch mat.Cholesky
	if !ch.Factorize(&cov) {
		return nil, errors.New("classify: the covariance of the training samples is singular")
	}
	var l mat.TriDense
	ch.LTo(&l)
	mean := make([]float64, d)
	for j := range d {
		mean[j] = stat.Mean(mat.Col(nil, j, x), nil)
	}
	_ = n
	return func(q mat.Matrix) (*mat.Dense, error) {
		r, _ := q.Dims()
		c := mat.NewDense(r, d, nil)
		for i := range r {
			for j := range d {
				c.Set(i, j, q.At(i, j)-mean[j])
			}
		}
		// Solve L y = cᵀ for every row.
		var y mat.Dense
		if err := y.Solve(&l, c.T()); err != nil {
			return nil, err
		}
		return mat.DenseCopyOf(y.T()), nil
	}, nil
}

// neighbour is a training sample and its distance to a query.
type neighbour struct {
	dist float64
	row  int
}

// closer reports whether a comes before b in the order of neighbours: by
// distance, ties to the earlier training row.
func closer(a, b neighbour) bool {
	return a.dist < b.dist || a.dist == b.dist && a.row < b.row
}

// keepNearest adds x to nb, a list in the order of closer holding at most
// m neighbours, and returns the list: the m nearest of all the neighbours
// offered, in order. A query needs only its k nearest (k + 1 when its own
// row is skipped): keeping every training sample cost 16 bytes a pair and
// a sort of all of them per vote (20,000 samples: 13 GB and 134 s of CPU
// to choose k).
func keepNearest(nb []neighbour, x neighbour, m int) []neighbour {
	if len(nb) >= m {
		if !closer(x, nb[len(nb)-1]) {
			return nb
		}
		nb = nb[:len(nb)-1]
	}
	i := len(nb)
	nb = append(nb, x)
	for i > 0 && closer(x, nb[i-1]) {
		nb[i] = nb[i-1]
		i--
	}
	nb[i] = x
	return nb
}

// distances returns, for every query of q (mapped by every class's map),
// its m nearest training samples (all of them if fewer) in the order of
// closer.
func (c *Classifier) distances(q mat.Matrix, m int) ([][]neighbour, error) {
	return c.distancesWith(q, m, nil)
}

// distancesWith is distances with SPCATangent's directions at the
// queries, tangents(q), given (or computed if nil): they do not depend
// on Ratio, so TrainSelect computes them once for every ratio it tries.
func (c *Classifier) distancesWith(q mat.Matrix, m int, tq *mat.Dense) ([][]neighbour, error) {
	if err := c.checkQueries(q); err != nil {
		return nil, err
	}
	n, _ := q.Dims()
	m = max(1, min(m, c.Samples()))
	out := make([][]neighbour, n)
	backing := make([]neighbour, n*m)
	for i := range out {
		out[i] = backing[i*m : i*m : (i+1)*m]
	}
	overflow := make([]bool, n)
	shrink := 0.0
	if c.Metric == SPCATangent || c.Metric == SPCAFisher {
		if tq == nil {
			var err error
			if tq, err = c.tangents(q); err != nil {
				return nil, err
			}
		}
		if c.Frame != nil {
			tq = framed(c.Frame, tq)
		}
		shrink = 1 - 1/(c.Ratio*c.Ratio)
	} else {
		tq = nil
	}
	// The queries mapped once per distinct map: the SPCA metrics'
	// transform of every query ran once per class.
	mapped := map[int]*mat.Dense{}
	for cl := range c.classes {
		if c.feats[cl] == nil {
			continue
		}
		fq, ok := mapped[c.mapIndex[cl]]
		if !ok {
			var err error
			if fq, err = c.maps[cl](q); err != nil {
				return nil, err
			}
			mapped[c.mapIndex[cl]] = fq
		}
		f := c.feats[cl]
		parallel.For(n, func(i int) {
			a := fq.RawRowView(i)
			nb := out[i]
			var t []float64
			if tq != nil {
				t = tq.RawRowView(i)
			}
			for j, row := range c.idx[cl] {
				var d float64
				if t != nil {
					d = math.Sqrt(tangentSqDist(a, f.RawRowView(j), t, shrink))
				} else {
					d = math.Sqrt(sqDist(a, f.RawRowView(j), c.Weights))
				}
				if math.IsInf(d, 0) || math.IsNaN(d) {
					overflow[i] = true
					return
				}
				nb = keepNearest(nb, neighbour{d, row}, m)
			}
			out[i] = nb
		})
		if i := slices.Index(overflow, true); i >= 0 {
			// Every distance +Inf: a tie, decided by row order.
			return nil, fmt.Errorf("classify: sample %d is too far from the training samples: its distance overflows", i+1)
		}
	}
	return out, nil
}

// sqDist returns the squared distance between a and b with the dimension
// weights w (nil: all 1).
func sqDist(a, b, w []float64) float64 {
	s := 0.0
	if w == nil {
		for k := range a {
			e := a[k] - b[k]
			s += e * e
		}
		return s
	}
	for k := range a {
		e := a[k] - b[k]
		s += w[k] * e * e
	}
	return s
}

// tangentSqDist returns |b - a|² - shrink·(t·(b - a))², the squared
// SPCATangent distance (t a unit vector, shrink = 1 - 1/Ratio² in [0, 1)).
func tangentSqDist(a, b, t []float64, shrink float64) float64 {
	s, dot := 0.0, 0.0
	for k := range a {
		e := b[k] - a[k]
		s += e * e
		dot += t[k] * e
	}
	// At least s/Ratio² in exact arithmetic; never below 0 by rounding.
	return max(0, s-shrink*dot*dot)
}

// framed returns the directions of the rows of t (unit or zero vectors)
// mapped by frame and scaled back to unit length (zero stays zero).
func framed(frame, t *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Mul(t, frame.T())
	n, _ := out.Dims()
	for i := range n {
		r := out.RawRowView(i)
		if norm := floats.Norm(r, 2); norm > 0 && !math.IsInf(norm, 0) {
			floats.Scale(1/norm, r)
		} else {
			clear(r)
		}
	}
	return &out
}

// fisherFrames returns SPCAFisher's frames of the training samples: the
// identity, then one per share of shares. Every sample's gaps (to each
// other class: the mean of its fisherNeighbours nearest samples of that
// class minus the mean of its nearest of its own, itself left out)
// give the between-class scatter B = mean of gap·gapᵀ; with B = V Λ Vᵀ,
// the frame for share s is diag(√((λ/λmax + s)/(1 + s))) Vᵀ. Where B
// vanishes (no gap) every frame is the identity.
func (c *Classifier) fisherFrames(shares []float64) []*mat.Dense {
	n, d := c.x.Dims()
	// The samples scaled as the metric's map does: the gaps' outer
	// products of samples at 1e300 overflow (the frame does not depend
	// on the scale).
	x := c.x
	if s := extremeScale(c.x); s != 1 {
		x = mat.NewDense(n, d, nil)
		x.Scale(1/s, c.x)
	}
	ident := mat.NewDense(d, d, nil)
	for j := range d {
		ident.Set(j, j, 1)
	}
	out := []*mat.Dense{ident}
	gaps := make([][]float64, n)
	parallel.For(n, func(i int) {
		a := x.RawRowView(i)
		near := make([][]neighbour, c.classes)
		for l := range n {
			if l != i {
				cl := c.label[l]
				near[cl] = keepNearest(near[cl], neighbour{sqDist(a, x.RawRowView(l), nil), l}, fisherNeighbours)
			}
		}
		own := near[c.label[i]]
		if len(own) == 0 {
			return
		}
		mean := func(nb []neighbour) []float64 {
			m := make([]float64, d)
			for k := range nb {
				floats.AddScaled(m, 1/float64(len(nb)), x.RawRowView(nb[k].row))
			}
			return m
		}
		ownMean := mean(own)
		for cl, nb := range near {
			if cl == c.label[i] || len(nb) == 0 {
				continue
			}
			g := mean(nb)
			floats.Sub(g, ownMean)
			gaps[i] = append(gaps[i], g...)
		}
	})
	b := mat.NewSymDense(d, nil)
	count := 0
	for _, g := range gaps {
		for o := 0; o < len(g); o += d {
			b.SymRankOne(b, 1, mat.NewVecDense(d, g[o:o+d]))
			count++
		}
	}
	var es mat.EigenSym
	if count == 0 || !es.Factorize(b, true) {
		for range shares {
			out = append(out, ident)
		}
		return out
	}
	lambda := es.Values(nil)
	top := floats.Max(lambda)
	var v mat.Dense
	es.VectorsTo(&v)
	for _, s := range shares {
		if !(top > 0) || math.IsInf(top, 0) {
			out = append(out, ident)
			continue
		}
		out = append(out, shareFrame(&v, lambda, top, s))
	}
	return out
}

// shareFrame returns the frame diag(√((λ_j/top + s)/(1 + s))) Vᵀ of the
// directions v (columns) and their scatter lambda (below 0 counts as 0)
// for the share s.
func shareFrame(v *mat.Dense, lambda []float64, top, s float64) *mat.Dense {
	d := len(lambda)
	f := mat.NewDense(d, d, nil)
	for j := range d {
		w := math.Sqrt((max(lambda[j], 0)/top + s) / (1 + s))
		for k := range d {
			f.Set(j, k, w*v.At(k, j))
		}
	}
	return f
}

// tangentStep is the step of the central differences of tangents, as a
// share of the largest distance between the training samples of a class
// model: small beside the curves' bends, large beside the forward
// transform's tolerance.
const tangentStep = 0.005

// tangentSpan returns why the SPCATangent classifier c's class models
// give no finite step for tangents' central differences, or "". A model
// file may hold any positive largest distance: +Inf, or one whose
// product with its scale overflows, made every query fail as 'spca: bad
// data: row 1, column 1 is +Inf'. (A step that underflows to 0 gives no
// direction: the distance is then Euclidean.)
func tangentSpan(c *Classifier) string {
	if c.Metric != SPCATangent && c.Metric != SPCAFisher {
		return ""
	}
	for cl, m := range c.Models {
		if math.IsInf(tangentStep*m.MaxDistance(), 0) {
			return fmt.Sprintf("class %d's SPCA model spans %g: no finite step for its directions", cl, m.MaxDistance())
		}
	}
	return ""
}

// tangentBatchRows bounds the moved queries tangents unfolds at once:
// all at once took two matrices of 16·d²·n bytes (10,000 queries of 50
// dimensions: 800 MB each).
var tangentBatchRows = 1 << 14

// tangents returns, for every row of q, the unit direction along the
// first curves of the SPCATangent class models: the sum of the unit
// gradients of their first unfolded coordinates (central differences),
// each with the sign that agrees with the first's; a zero row where
// they cancel or vanish (the distance is then Euclidean).
func (c *Classifier) tangents(q mat.Matrix) (*mat.Dense, error) {
	n, d := q.Dims()
	out := mat.NewDense(n, d, nil)
	// The queries moved by ±h along every axis, unfolded in batches of
	// at most tangentBatchRows rows (2·d a query).
	per := max(1, tangentBatchRows/(2*d))
	moved := mat.NewDense(2*d*min(n, per), d, nil)
	g := make([]float64, d)
	for ci, m := range c.Models {
		h := tangentStep * m.MaxDistance()
		for i0 := 0; i0 < n; i0 += per {
			nb := min(per, n-i0)
			mv := moved.Slice(0, 2*d*nb, 0, d).(*mat.Dense)
			for i := range nb {
				for j := range d {
					for s, sign := range []float64{1, -1} {
						row := mv.RawRowView((i*d+j)*2 + s)
						for k := range d {
							row[k] = q.At(i0+i, k)
						}
						row[j] += sign * h
					}
				}
			}
			u, _, err := m.UnfoldBatch(mv)
			if err != nil {
				return nil, err
			}
			for i := range nb {
				norm := 0.0
				for j := range d {
					g[j] = (u.At((i*d+j)*2, 0) - u.At((i*d+j)*2+1, 0)) / (2 * h)
					norm += g[j] * g[j]
				}
				if !(norm > 0) || math.IsInf(norm, 0) {
					continue
				}
				t := out.RawRowView(i0 + i)
				sign := 1 / math.Sqrt(norm)
				if ci > 0 && floats.Dot(t, g) < 0 {
					sign = -sign
				}
				floats.AddScaled(t, sign, g)
			}
		}
	}
	for i := range n {
		t := out.RawRowView(i)
		if norm := floats.Norm(t, 2); norm > 0 {
			floats.Scale(1/norm, t)
		}
	}
	return out, nil
}

// vote returns the majority label of the k nearest of nb, a list in the
// order of closer (ties to the class with the nearest member among the
// tied), skipping the row skip.
func (c *Classifier) vote(nb []neighbour, k, skip int) int {
	count := make([]int, c.classes)
	first := make([]int, c.classes)
	for i := range first {
		first[i] = math.MaxInt
	}
	taken := 0
	for i, x := range nb {
		if x.row == skip {
			continue
		}
		l := c.label[x.row]
		count[l]++
		first[l] = min(first[l], i)
		if taken++; taken == k {
			break
		}
	}
	best := 0
	for l := 1; l < c.classes; l++ {
		if count[l] > count[best] || count[l] == count[best] && first[l] < first[best] {
			best = l
		}
	}
	return best
}

// checkQueries refuses query samples of another dimension than the
// training samples' or with a value that is not finite.
func (c *Classifier) checkQueries(q mat.Matrix) error {
	if q == nil {
		return &DataError{"no samples"}
	}
	if _, d := q.Dims(); d != c.Dim() {
		return &DataError{fmt.Sprintf("samples have %d values, the classifier expects %d", d, c.Dim())}
	}
	return finite(q, "sample")
}

// finite returns a *DataError naming the first value of x that is NaN
// or infinite (what, its row from 1 and its column from 1).
func finite(x mat.Matrix, what string) error {
	r, d := x.Dims()
	for i := range r {
		for j := range d {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return &DataError{fmt.Sprintf("%s %d, dimension %d is %v", what, i+1, j+1, v)}
			}
		}
	}
	return nil
}

// Predict returns the class of every row of q, a matrix of samples of
// the training samples' dimension (Dim). Samples of another dimension,
// or with a NaN or infinite value, give a *DataError.
func (c *Classifier) Predict(q mat.Matrix) ([]int, error) {
	nb, err := c.distances(q, c.K)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(nb))
	for i := range nb {
		out[i] = c.vote(nb[i], c.K, -1)
	}
	return out, nil
}

// Select sets c.K to the k of ks with the best leave-one-out accuracy on
// the training samples x (the samples c was trained on; ties to the
// smaller k) and returns that accuracy. The metric is not refitted per
// left-out sample: SPCA's models see all training samples, without their
// labels for SPCA and with them for SPCAPerClass.
func (c *Classifier) Select(x mat.Matrix, ks []int) (float64, error) {
	if x != nil {
		if r, _ := x.Dims(); r != c.Samples() {
			return 0, &DataError{fmt.Sprintf("Select on %d samples, the classifier has %d", r, c.Samples())}
		}
	}
	nb, err := c.distances(x, looNeighbours(ks))
	if err != nil {
		return 0, err
	}
	return c.selectK(nb, ks)
}

// looNeighbours returns how many nearest neighbours a leave-one-out vote
// with any k of ks needs: the largest k, and the left-out sample itself.
func looNeighbours(ks []int) int {
	return slices.Max(append([]int{0}, ks...)) + 1
}

// selectK is Select on the distances nb between the training samples.
func (c *Classifier) selectK(nb [][]neighbour, ks []int) (float64, error) {
	bestAcc := -1.0
	for _, k := range ks {
		if k < 1 || k >= len(c.label) {
			continue
		}
		right := 0
		for i := range nb {
			if c.vote(nb[i], k, i) == c.label[i] {
				right++
			}
		}
		if acc := float64(right) / float64(len(nb)); acc > bestAcc {
			bestAcc, c.K = acc, k
		}
	}
	if bestAcc < 0 {
		return 0, errors.New("classify: no usable k")
	}
	return bestAcc, nil
}

// SelectDims chooses the response dimensions of an SPCASelect classifier
// and k of ks by leave-one-out on its training samples x, and returns the
// leave-one-out accuracy. It starts from every dimension and drops, one
// at a time, the dimension whose removal raises the best leave-one-out
// accuracy over ks the most (ties to the later dimension, SPCA's less
// significant one); it stops when no removal raises it, so a dimension is
// only dropped for a strict gain. This is backward elimination: d(d+1)/2
// leave-one-out runs at most, against 2^d for every subset.
func (c *Classifier) SelectDims(x mat.Matrix, ks []int) (float64, error) {
	if c.Metric != SPCASelect {
		return 0, fmt.Errorf("classify: SelectDims on a %v classifier (want %v)", c.Metric, SPCASelect)
	}
	// The training samples' features, by training row: every class
	// shares the one model's map.
	n := len(c.label)
	if r, _ := x.Dims(); r != n {
		return 0, &DataError{fmt.Sprintf("SelectDims on %d samples, the classifier has %d", r, n)}
	}
	if err := c.checkQueries(x); err != nil {
		return 0, err
	}
	f, err := c.maps[0](x)
	if err != nil {
		return 0, err
	}
	_, d := f.Dims()
	w := make([]float64, d)
	for j := range w {
		w[j] = 1
	}
	m := min(n, looNeighbours(ks))
	nb := make([][]neighbour, n)
	backing := make([]neighbour, n*m)
	for i := range nb {
		nb[i] = backing[i*m : i*m : (i+1)*m]
	}
	loo := func(w []float64) (float64, int, error) {
		parallel.For(n, func(i int) {
			nb[i] = nb[i][:0]
			a := f.RawRowView(i)
			for l := range n {
				nb[i] = keepNearest(nb[i], neighbour{sqDist(a, f.RawRowView(l), w), l}, m)
			}
		})
		acc, err := c.selectK(nb, ks)
		return acc, c.K, err
	}
	best, bestK, err := loo(w)
	if err != nil {
		return 0, err
	}
	for kept := d; kept > 1; kept-- {
		drop, dropAcc, dropK := -1, best, 0
		for j := d - 1; j >= 0; j-- {
			if w[j] == 0 {
				continue
			}
			w[j] = 0
			acc, k, err := loo(w)
			w[j] = 1
			if err != nil {
				return 0, err
			}
			if acc > dropAcc {
				drop, dropAcc, dropK = j, acc, k
			}
		}
		if drop < 0 {
			break
		}
		w[drop], best, bestK = 0, dropAcc, dropK
	}
	c.Weights, c.K = w, bestK
	return best, nil
}

// Accuracy returns the share of the rows of q that Predict labels as
// label (one label per row).
func (c *Classifier) Accuracy(q mat.Matrix, label []int) (float64, error) {
	if q != nil {
		if r, _ := q.Dims(); r != len(label) {
			return 0, &DataError{fmt.Sprintf("%d samples and %d labels", r, len(label))}
		}
	}
	p, err := c.Predict(q)
	if err != nil {
		return 0, err
	}
	right := 0
	for i, l := range p {
		if l == label[i] {
			right++
		}
	}
	return float64(right) / float64(len(p)), nil
}

// SelectionGrid returns the SPCA options that TrainSelect tries by
// default: base with K (the local neighbourhood, a share of the samples)
// in 0.1, 0.2, 0.3 and 0.5 and Gamma 0 and 1. The default K = 0.1 is too
// local for a few dozen samples per class: on the sparse sets of
// testimages the fits at K = 0.1 do not unfold the curves (README,
// "Classification").
func SelectionGrid(base spca.Options) []spca.Options {
	var grid []spca.Options
	for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
		for _, g := range []float64{0, 1} {
			o := base
			o.K, o.Gamma = k, g
			grid = append(grid, o)
		}
	}
	return grid
}

// TrainSelect trains a classifier with metric for every SPCA options of
// grid (once for the metrics without an SPCA model), chooses k of ks for
// each by leave-one-out (Select), and returns the classifier with the
// best leave-one-out accuracy (ties to the earlier options) and that
// accuracy. Options whose fit fails (too few samples for their K) are
// skipped; if every one fails the last error is returned. Only the
// training samples are used: the choice is a cross-validation, like k's.
func TrainSelect(x mat.Matrix, label []int, classes int, metric Metric, ks []int, grid []spca.Options) (*Classifier, float64, error) {
	if metric < SPCA || len(grid) == 0 {
		opt := spca.DefaultOptions()
		if len(grid) > 0 {
			opt = grid[0]
		}
		c, err := Train(x, label, classes, metric, 1, opt)
		if err != nil {
			return nil, 0, err
		}
		acc, err := c.Select(x, ks)
		return c, acc, err
	}
	var best *Classifier
	bestAcc := -1.0
	var last error
	// triedEuclidean[f]: Ratio 1 in frame f was measured (the same
	// distances for every model); fisher: SPCAFisher's frames.
	triedEuclidean := map[int]bool{}
	var fisher []*mat.Dense
	for i, opt := range grid {
		if (metric == SPCAUnfolded || metric == SPCATangent || metric == SPCAFisher) && opt.Gamma != grid[0].Gamma && i > 0 {
			continue // Gamma does not change the unfolded coordinates
		}
		c, err := train(x, label, classes, metric, 1, opt)
		if err != nil {
			var oe *spca.OptionError
			var de *spca.DataError
			if errors.As(err, &oe) || errors.As(err, &de) {
				last = err
				continue
			}
			return nil, 0, err
		}
		if metric == SPCATangent || metric == SPCAFisher {
			if err := c.checkQueries(x); err != nil {
				return nil, 0, err
			}
			tq, err := c.tangents(x)
			if err != nil {
				return nil, 0, err
			}
			frames := []*mat.Dense{nil}
			if metric == SPCAFisher {
				if fisher == nil {
					// They depend on the samples only, not on the model.
					fisher = c.fisherFrames(FisherShares)
				}
				frames = fisher
			}
			for fi, frame := range frames {
				cf := *c
				cf.Frame = frame
				if metric == SPCAFisher {
					if err := cf.build(); err != nil {
						return nil, 0, err
					}
				}
				for _, r := range TangentRatios {
					if r == 1 && triedEuclidean[fi] {
						continue // the same distances for every model
					}
					cr := cf
					cr.Ratio = r
					nb, err := cr.distancesWith(x, looNeighbours(ks), tq)
					if err != nil {
						return nil, 0, err
					}
					acc, err := cr.selectK(nb, ks)
					if err != nil {
						return nil, 0, err
					}
					if acc > bestAcc {
						best, bestAcc = &cr, acc
					}
				}
				triedEuclidean[fi] = true
			}
			continue
		}
		var acc float64
		if metric == SPCASelect {
			acc, err = c.SelectDims(x, ks)
		} else {
			acc, err = c.Select(x, ks)
		}
		if err != nil {
			return nil, 0, err
		}
		if acc > bestAcc {
			best, bestAcc = c, acc
		}
	}
	if best == nil {
		return nil, 0, last
	}
	return best, bestAcc, nil
}
