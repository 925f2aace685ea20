package spca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"

	pool "github.com/spcalab/spca/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// Model is a fitted SPCA transform. It is safe for concurrent use.
type Model struct {
	d         int
	opt       Options
	mean      []float64 // normalisation: z = (x - mean) / scale
	scale     float64
	dmax      float64   // largest pairwise distance, normalised units
	origin    []float64 // normalised
	frame0    []float64 // ranked directions at the origin, d×d columns
	entropies []float64 // bits, input units, ranked order
	c         []float64 // C_ii
	lat       lattice
	tables    [][]float64 // metric tables per level (see metric.go)
	tnodes    []int       // table nodes along each axis
	tstep     []float64   // table node spacing along each axis
	// sameFibers[j]: every fiber of tables[j] is the same (gamma 0), so
	// the metric of axis j does not depend on u_<j (see setSameFibers).
	sameFibers []bool
	fiber0     []float64 // drawn part of the first curve at the lattice nodes
	fiber0S    []float64 // their coordinates u_1
	fiber0Lo   int       // lattice nodes of the drawn part
	fiber0Hi   int
	curve1     polyline // the drawn first curve (no frames)
	tolN       float64  // forward tolerance, normalised units
	// restart holds the coarse lattice nodes for restarts, built on the
	// first restart (setRestartNodes): a decoder never restarts.
	restart *restartNodesOnce
	typical []float64 // median training responses (SetTypical), or nil
	// latRes: the lattice positions are multiples of this power of two
	// (SnapLattice, or read from a version-6 file), or 0.
	latRes float64
	tabRes []float64 // the same for each metric table (0: not rounded)
}

// Dim returns the dimension d of samples and responses.
func (m *Model) Dim() int { return m.d }

// Options returns the options the model was fitted with, with Scale set to
// the current C_ii.
func (m *Model) Options() Options {
	o := m.opt
	o.Scale = m.Scale()
	o.OriginPoint = append([]float64(nil), o.OriginPoint...)
	o.Progress = nil
	o.Directions = nil
	return o
}

// Scale returns C_ii in ranked order.
func (m *Model) Scale() []float64 { return append([]float64(nil), m.c...) }

// SetScale replaces C_ii (ranked order) without refitting, e.g. with the
// number of quantisation bins per dimension. It must not be called while
// the model is in use by other goroutines.
func (m *Model) SetScale(c []float64) error {
	if len(c) != m.d {
		return optionError(fmt.Sprintf("Scale needs %d values, got %d", m.d, len(c)))
	}
	for _, v := range c {
		if !(v > 0) || math.IsInf(v, 0) {
			return optionError("Scale values must be finite and > 0")
		}
	}
	m.c = append([]float64(nil), c...)
	return nil
}

// MarginalEntropies returns the differential entropy (bits, input units)
// of each unfolded coordinate u_i (arc length along the curves of the
// sequence) over the training data, in dimension order. It drives bit
// allocation. (The order itself was fixed at the origin by the entropies
// of the samples projected on the d curves drawn there.)
func (m *Model) MarginalEntropies() []float64 { return append([]float64(nil), m.entropies...) }

// MaxDistance returns the largest pairwise distance of the training data
// (input units), the unit of the convergence tolerance.
func (m *Model) MaxDistance() float64 { return m.dmax * m.scale }

// Origin returns the origin x^o in input units.
func (m *Model) Origin() []float64 { return m.denorm(m.origin, nil) }

// Directions returns the ranked directions at the origin as the columns
// of a d×d matrix (input space): pass them as Options.Directions to fit a
// second model whose dimensions mean the same thing.
func (m *Model) Directions() *mat.Dense {
	return mat.NewDense(m.d, m.d, append([]float64(nil), m.frame0...))
}

// LatticeSize returns the number of lattice nodes per dimension.
func (m *Model) LatticeSize() []int { return append([]int(nil), m.lat.g...) }

// FirstCurve returns the vertices of the first principal curve (input
// units), one row per vertex.
func (m *Model) FirstCurve() *mat.Dense {
	n := m.curve1.len()
	out := mat.NewDense(n, m.d, nil)
	for i := 0; i < n; i++ {
		m.denorm(m.curve1.pts[i*m.d:(i+1)*m.d], out.RawRowView(i))
	}
	return out
}

func (m *Model) denorm(z, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, m.d)
	}
	for k := range dst {
		dst[k] = float64(z[k]*m.scale) + m.mean[k] // rounded product: no FMA (same results on every GOARCH)
	}
	return dst
}

// fitter carries the state shared by the stages of Fit.
type fitter struct {
	opt   Options
	d, n  int
	mean  []float64
	scale float64
	z     []float64 // n×d normalised samples
	nb    *neighbourhood
	dr    *drawer
	dmax  float64
}

// Fit learns SPCA from the rows of data (N samples × d dimensions): it
// draws the first principal curve through the origin and the secondary
// curves over a lattice of start points, then estimates the PDF-tuned
// metric along every curve from the samples.
func Fit(data mat.Matrix, opt Options) (*Model, error) {
	f, err := newFitter(data, opt)
	if err != nil {
		return nil, err
	}
	return f.fit()
}

// tooFewSamples is the error for n < 3 samples ("1 samples" before).
func tooFewSamples(n int) error {
	noun := "samples"
	if n == 1 {
		noun = "sample"
	}
	return &DataError{fmt.Sprintf("%d %s: need at least 3", n, noun)}
}

func newFitter(data mat.Matrix, opt Options) (*fitter, error) {
	n, d := data.Dims()
	if err := opt.validate(d); err != nil {
		return nil, err
	}
	if opt.Tau < MinTau {
		// Not in validate: a model file is read whatever its Tau.
		return nil, optionError(fmt.Sprintf("Tau must be in [%g, 10]: a curve of smaller steps cannot cross the data in the 5000 steps it may take", float64(MinTau)))
	}
	if d < 1 || d > 16 {
		return nil, &DataError{fmt.Sprintf("dimension %d not supported (1 to 16)", d)}
	}
	if n < 3 {
		return nil, tooFewSamples(n)
	}
	f := &fitter{opt: opt, d: d, n: n}
	if f.opt.Resolution == 0 {
		f.opt.Resolution = DefaultResolution
	}
	if f.opt.MaxReference == 0 {
		f.opt.MaxReference = DefaultMaxReference
	}
	if f.opt.Bandwidth == 0 {
		f.opt.Bandwidth = DefaultBandwidth
	}
	if f.opt.Conditioning == 0 {
		f.opt.Conditioning = DefaultConditioning
	}
	mean, scale, z, err := normalise(data)
	if err != nil {
		return nil, err
	}
	f.mean, f.scale, f.z = mean, scale, z
	if err := checkRank(z, n, d); err != nil {
		return nil, err
	}
	// Reference subsample for the neighbourhoods.
	m := n
	if m > f.opt.MaxReference {
		m = f.opt.MaxReference
	}
	k := int(math.Round(f.opt.K * float64(m)))
	need := max(d+2, 5)
	if k < need && m < n && int(math.Round(f.opt.K*float64(n))) >= need {
		// The cap, not the data: the data have enough samples (a K too
		// small for all of them, K 1e-9 say, was blamed on the cap too).
		return nil, optionError(fmt.Sprintf("MaxReference %d is too small: the neighbourhood fraction %g of %d reference samples gives %d neighbours, need at least %d",
			f.opt.MaxReference, f.opt.K, m, k, max(d+2, 5)))
	}
	if k < need {
		return nil, &DataError{fmt.Sprintf("fewer samples than k needs: K=%g of %d samples gives %d neighbours, need at least %d",
			f.opt.K, n, int(math.Round(f.opt.K*float64(n))), need)}
	}
	if k > m-1 {
		k = m - 1
	}
	ref := make([]float64, m*d)
	if m == n {
		copy(ref, z)
	} else {
		rng := rand.New(rand.NewPCG(f.opt.Seed, 0x5eed5bca))
		perm := rng.Perm(n)[:m]
		sort.Ints(perm) // keep sample order: deterministic and cache friendly
		for i, p := range perm {
			copy(ref[i*d:(i+1)*d], z[p*d:(p+1)*d])
		}
	}
	f.nb = &neighbourhood{d: d, m: m, k: k, ref: ref}
	f.dmax = maxDistance(z, ref, n, d)
	if !(f.dmax > 0) {
		return nil, &DataError{"all samples are equal"}
	}
	tau := f.opt.Tau
	f.dr = &drawer{
		nb:       f.nb,
		d:        d,
		tau:      tau,
		q:        f.opt.Q,
		dOut:     max(3*typicalSpacing(ref, m, d), tau),
		maxSteps: int(min(5000, math.Ceil(4*f.dmax/tau))),
	}
	return f, nil
}

// normalise centres the data and scales it by the RMS distance to the mean
// (one scalar, so the geometry is preserved and Tau is dimensionless).
func normalise(data mat.Matrix) ([]float64, float64, []float64, error) {
	n, d := data.Dims()
	mean := make([]float64, d)
	z := make([]float64, n*d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := data.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, nil, &DataError{fmt.Sprintf("sample %d, dimension %d is %v", i+1, j+1, v)}
			}
			z[i*d+j] = v
			mean[j] += v
		}
	}
	ss := centre(z, mean, n)
	scale := math.Sqrt(ss / float64(n))
	if !(scale > 0) || math.IsInf(scale, 0) || math.IsInf(mean[0], 0) {
		// The sums overflow or underflow for values near the ends of
		// the float64 range (1e300, 1e-300): start again with the
		// samples divided by their largest magnitude.
		return normaliseScaled(data, z)
	}
	for i := range z {
		z[i] /= scale
	}
	return mean, scale, z, nil
}

// centre turns the column sums in mean into means, subtracts them from
// the n samples of z (row-major) and returns the sum of their squares.
func centre(z, mean []float64, n int) float64 {
	d := len(mean)
	for j := range mean {
		mean[j] /= float64(n)
	}
	ss := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			z[i*d+j] -= mean[j]
			ss += z[i*d+j] * z[i*d+j]
		}
	}
	return ss
}

// normaliseScaled is normalise for data whose sums of squares leave the
// float64 range: it divides the samples by their largest magnitude first.
// z (n×d) is normalise's buffer, reused: constant data (scale 0) come
// here too, and a second buffer made a constant CSV at csvmat's cap of
// 10^8 values take another 0.8 GB before it was refused.
func normaliseScaled(data mat.Matrix, z []float64) ([]float64, float64, []float64, error) {
	n, d := data.Dims()
	top := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			top = max(top, math.Abs(data.At(i, j)))
		}
	}
	mean := make([]float64, d)
	clear(z)
	if top > 0 {
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				z[i*d+j] = data.At(i, j) / top
				mean[j] += z[i*d+j]
			}
		}
	}
	ss := centre(z, mean, n)
	rms := math.Sqrt(ss / float64(n))
	if !(rms > 0) {
		return nil, 0, nil, &DataError{"data are constant (zero variance)"}
	}
	scale := rms * top
	if math.IsInf(scale, 0) || !(scale > 0) {
		return nil, 0, nil, &DataError{fmt.Sprintf("data spread %.3g times their largest magnitude %.3g is outside the float64 range: rescale them", rms, top)}
	}
	for j := range mean {
		mean[j] *= top
	}
	for i := range z {
		z[i] /= rms
	}
	return mean, scale, z, nil
}

// checkRank rejects data that do not span d dimensions: SPCA needs a
// direction for every curve of the sequence.
func checkRank(z []float64, n, d int) error {
	vals, _ := centredPCA(z, n, d)
	if vals[d-1] <= 1e-10*vals[0] {
		rank := 0
		for _, v := range vals {
			if v > 1e-10*vals[0] {
				rank++
			}
		}
		// Columns of very different scales (units) look the same after
		// the common normalisation: say so rather than "constant or
		// collinear" (a column of spread 1e6 beside one of 0.01).
		spread := make([]float64, d)
		for i := 0; i < n; i++ {
			for j, v := range z[i*d : (i+1)*d] {
				spread[j] += v * v
			}
		}
		lo, hi := 0, 0
		for j := range spread {
			if spread[j] < spread[lo] {
				lo = j
			}
			if spread[j] > spread[hi] {
				hi = j
			}
		}
		if spread[lo] > 0 && spread[lo] <= 1e-10*spread[hi] {
			return &DataError{fmt.Sprintf("data are degenerate: they span %d of %d dimensions at one common scale: column %d spreads %.2g times less than column %d (rescale the columns to comparable units)",
				rank, d, lo+1, math.Sqrt(spread[hi]/spread[lo]), hi+1)}
		}
		return &DataError{fmt.Sprintf("data are degenerate: they span %d of %d dimensions (constant or collinear)", rank, d)}
	}
	return nil
}

// centredPCA returns the eigenvalues (decreasing) and eigenvectors
// (columns) of the second-moment matrix of the n×d centred samples z.
func centredPCA(z []float64, n, d int) ([]float64, []float64) {
	cov := make([]float64, d*d)
	for i := 0; i < n; i++ {
		row := z[i*d : (i+1)*d]
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				cov[a*d+b] += row[a] * row[b]
			}
		}
	}
	vals := make([]float64, d)
	vecs := make([]float64, d*d)
	symEigen(cov, d, vals, vecs)
	return vals, vecs
}

// maxDistance returns the largest pairwise distance: exact on the
// reference subsample, then improved by farthest-point sweeps over all
// samples (exact when every sample is a reference).
func maxDistance(z, ref []float64, n, d int) float64 {
	m := len(ref) / d
	best := 0.0
	bi := 0
	for i := 0; i < m; i++ {
		a := ref[i*d : (i+1)*d]
		for j := i + 1; j < m; j++ {
			if v := dist2(a, ref[j*d:(j+1)*d]); v > best {
				best, bi = v, i
			}
		}
	}
	if m < n {
		p := ref[bi*d : (bi+1)*d]
		for sweep := 0; sweep < 4; sweep++ {
			far, fi := 0.0, 0
			for i := 0; i < n; i++ {
				if v := dist2(p, z[i*d:(i+1)*d]); v > far {
					far, fi = v, i
				}
			}
			if far > best {
				best = far
			}
			p = z[fi*d : (fi+1)*d]
		}
	}
	return math.Sqrt(best)
}

// typicalSpacing is the 97th percentile of the distances of (up to 500)
// reference samples to their third nearest neighbour: the scale of
// "leaving the manifold". A high percentile rather than the median, so
// that curves are not stopped in the sparse tails of peaked data (image
// patches), where the median spacing of the dense core is far too small.
func typicalSpacing(ref []float64, m, d int) float64 {
	step := 1
	if m > 500 {
		step = m / 500
	}
	var ds []float64
	var near [3]float64
	for i := 0; i < m; i += step {
		near = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
		a := ref[i*d : (i+1)*d]
		for j := 0; j < m; j++ {
			if j == i {
				continue
			}
			v := dist2(a, ref[j*d:(j+1)*d])
			if v < near[2] {
				near[2] = v
				if near[2] < near[1] {
					near[1], near[2] = near[2], near[1]
				}
				if near[1] < near[0] {
					near[0], near[1] = near[1], near[0]
				}
			}
		}
		if !math.IsInf(near[2], 1) {
			ds = append(ds, math.Sqrt(near[2]))
		}
	}
	if len(ds) == 0 {
		return 0
	}
	sort.Float64s(ds)
	return ds[int(0.97*float64(len(ds)-1))]
}

func (f *fitter) progress(stage string, done, total int) {
	if f.opt.Progress != nil {
		f.opt.Progress(stage, done, total)
	}
}

// parallel runs fn(i, s) for i in [0, n) on the configured workers, each
// with its own state from newS. Results must be written to index-owned
// slots so the outcome does not depend on scheduling.
func parallel[S any](n, workers int, newS func() S, fn func(i int, s S)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		s := newS()
		for i := 0; i < n; i++ {
			fn(i, s)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	const chunk = 16
	for w := 0; w < workers; w++ {
		wg.Add(1)
		pool.Go(func() {
			defer wg.Done()
			s := newS()
			for {
				i0 := int(next.Add(chunk)) - chunk
				if i0 >= n {
					return
				}
				for i := i0; i < min(i0+chunk, n); i++ {
					fn(i, s)
				}
			}
		})
	}
	wg.Wait()
}

// WithScale returns a copy of the model with C_ii (ranked order) replaced,
// sharing the lattice and metric tables with m, which is unchanged: for
// models that differ only in their resolution.
func (m *Model) WithScale(c []float64) (*Model, error) {
	cp := *m
	if err := cp.SetScale(c); err != nil {
		return nil, err
	}
	return &cp, nil
}
