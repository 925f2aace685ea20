package classify

// The variants of the SPCA metric measured for issue 25 in session 18
// (classify/MEASUREMENTS.md, "Session 18"): an atlas of SPCA charts, a
// local SPCA model per query, densified arms, the per-class SPCA tangent
// metric, input-axis selection and curve denoising, beside an oracle
// polar metric. Measurements, not checks: they print and assert nothing,
// and run only with SPCA_VARIANTS=1 (SPCA_SEEDS pairs from SPCA_FIRST,
// SPCA_SETS; SPCA_DIAG=1 also prints every fixed configuration's
// held-out difference from Euclidean k-NN, a diagnostic that is never
// used to choose). Every choice the printed accuracy depends on is made
// by leave-one-out on the training samples.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// atlas is a set of SPCA charts: chart c is an SPCA model fitted on the
// training samples nearest to centre c; a query is measured in the chart
// of its nearest centre.
type atlas struct {
	centres [][]float64
	models  []*spca.Model
	feats   []*mat.Dense // every training sample in every chart
}

// kmeans returns c centres of the rows of x (k-means++ seeding, Lloyd).
func kmeans(x *mat.Dense, c int, seed uint64) [][]float64 {
	n, d := x.Dims()
	rng := rand.New(rand.NewPCG(seed, 77))
	cent := [][]float64{slices.Clone(x.RawRowView(rng.IntN(n)))}
	dist := make([]float64, n)
	for len(cent) < c {
		tot := 0.0
		for i := range n {
			dist[i] = math.Inf(1)
			for _, ce := range cent {
				dist[i] = min(dist[i], sqDist(x.RawRowView(i), ce, nil))
			}
			tot += dist[i]
		}
		u := rng.Float64() * tot
		pick := n - 1
		for i := range n {
			if u -= dist[i]; u <= 0 {
				pick = i
				break
			}
		}
		cent = append(cent, slices.Clone(x.RawRowView(pick)))
	}
	assign := make([]int, n)
	for range 100 {
		changed := false
		for i := range n {
			b := nearestCentre(cent, x.RawRowView(i))
			if b != assign[i] {
				assign[i], changed = b, true
			}
		}
		for ci := range cent {
			s := make([]float64, d)
			cnt := 0
			for i := range n {
				if assign[i] == ci {
					cnt++
					for j := range d {
						s[j] += x.At(i, j)
					}
				}
			}
			if cnt > 0 {
				for j := range d {
					s[j] /= float64(cnt)
				}
				cent[ci] = s
			}
		}
		if !changed {
			break
		}
	}
	return cent
}

func nearestCentre(cent [][]float64, a []float64) int {
	b, bd := 0, math.Inf(1)
	for i, ce := range cent {
		if dd := sqDist(a, ce, nil); dd < bd {
			b, bd = i, dd
		}
	}
	return b
}

// nearestRows returns the m rows of x nearest to a.
func nearestRows(x *mat.Dense, a []float64, m int) []int {
	n, _ := x.Dims()
	var nb []neighbour
	for i := range n {
		nb = keepNearest(nb, neighbour{sqDist(a, x.RawRowView(i), nil), i}, m)
	}
	out := make([]int, len(nb))
	for i, v := range nb {
		out[i] = v.row
	}
	return out
}

func subRows(x *mat.Dense, ix []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(ix), d, nil)
	for j, i := range ix {
		out.SetRow(j, x.RawRowView(i))
	}
	return out
}

// fitAtlas fits c charts on x, each on the overlap·n/c samples nearest
// its centre.
func fitAtlas(x *mat.Dense, c int, overlap float64, opt spca.Options) (*atlas, error) {
	n, d := x.Dims()
	a := &atlas{centres: kmeans(x, c, 1)}
	m := min(n, int(math.Ceil(overlap*float64(n)/float64(c))))
	m = max(m, 2*d+2)
	for _, ce := range a.centres {
		rows := nearestRows(x, ce, m)
		mod, err := spca.Fit(subRows(x, rows), opt)
		if err != nil {
			return nil, err
		}
		f, _, err := mod.TransformBatch(x)
		if err != nil {
			return nil, err
		}
		a.models = append(a.models, mod)
		a.feats = append(a.feats, f)
	}
	return a, nil
}

// neighbours returns the m nearest training samples of every row of q,
// each measured in the chart of its nearest centre.
func (a *atlas) neighbours(q *mat.Dense, m int) ([][]neighbour, error) {
	n, _ := q.Dims()
	out := make([][]neighbour, n)
	chart := make([]int, n)
	for i := range n {
		chart[i] = nearestCentre(a.centres, q.RawRowView(i))
	}
	for ci, mod := range a.models {
		var ix []int
		for i := range n {
			if chart[i] == ci {
				ix = append(ix, i)
			}
		}
		if len(ix) == 0 {
			continue
		}
		fq, _, err := mod.TransformBatch(subRows(q, ix))
		if err != nil {
			return nil, err
		}
		f := a.feats[ci]
		nt, _ := f.Dims()
		for j, i := range ix {
			var nb []neighbour
			for r := range nt {
				nb = keepNearest(nb, neighbour{sqDist(fq.RawRowView(j), f.RawRowView(r), nil), r}, m)
			}
			out[i] = nb
		}
	}
	return out, nil
}

// bestK returns the best leave-one-out accuracy over ks and its k.
func bestK(c *Classifier, nb [][]neighbour, ks []int) (float64, int) {
	best, bk := -1.0, 0
	for _, k := range ks {
		right := 0
		for i := range nb {
			if c.vote(nb[i], k, i) == c.label[i] {
				right++
			}
		}
		if acc := float64(right) / float64(len(nb)); acc > best {
			best, bk = acc, k
		}
	}
	return best, bk
}

func heldOut(c *Classifier, nb [][]neighbour, k int, label []int) float64 {
	right := 0
	for i := range nb {
		if c.vote(nb[i], k, -1) == label[i] {
			right++
		}
	}
	return float64(right) / float64(len(nb))
}

type atlasChoice struct {
	c       int
	overlap float64
	opt     spca.Options
	k       int
}

// TestVariantAtlas measures the atlas metric: C charts (SPCA_CHARTS,
// default 1, 2, 3, 4, 6, 8), each an SPCA model (DensityFloor 1) fitted on
// the overlap·N/C training samples nearest a k-means centre; a query is
// measured in the responses of the chart of its nearest centre. C,
// overlap (1.5, 2.5), K, gamma and k by leave-one-out. SPCA_VARIANTS=1.
func TestVariantAtlas(t *testing.T) {
	seeds, first := variantSeeds(t, 3, 1)
	cfgDiff := map[string][]float64{}
	var cfgOrder []string
	sets := []string{"spirals-thin", "moons5d"}
	if v := os.Getenv("SPCA_SETS"); v != "" {
		sets = strings.Split(v, ",")
	}
	charts := []int{1, 2, 3, 4, 6, 8}
	if v := os.Getenv("SPCA_CHARTS"); v != "" {
		charts = nil
		for _, s := range strings.Split(v, ",") {
			c, _ := strconv.Atoi(s)
			charts = append(charts, c)
		}
	}
	overlaps := []float64{1.5, 2.5}
	for _, set := range sets {
		var eu, at []float64
		choices := map[string]int{}
		for s := first; s < first+seeds; s++ {
			t0 := time.Now()
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution = 1, 1<<14
			base.DensityFloor = 1
			var best *atlas
			var bc atlasChoice
			bacc := -1.0
			for _, c := range charts {
				for _, ov := range overlaps {
					if c == 1 && ov != overlaps[0] {
						continue
					}
					for _, opt := range SelectionGrid(base) {
						a, err := fitAtlas(train.X, c, ov, opt)
						var de *spca.DataError
						var oe *spca.OptionError
						if errors.As(err, &de) || errors.As(err, &oe) {
							continue
						} else if err != nil {
							t.Fatal(err)
						}
						nb, err := a.neighbours(train.X, looNeighbours(ks))
						if err != nil {
							t.Fatal(err)
						}
						acc, k := bestK(e, nb, ks)
						if os.Getenv("SPCA_DIAG") != "" {
							nbt, err := a.neighbours(test.X, k)
							if err != nil {
								t.Fatal(err)
							}
							key := fmt.Sprintf("C%d ov%g K%g γ%g", c, ov, opt.K, opt.Gamma)
							if cfgDiff[key] == nil {
								cfgOrder = append(cfgOrder, key)
							}
							cfgDiff[key] = append(cfgDiff[key], heldOut(e, nbt, k, test.Label)-ea)
						}
						if acc > bacc {
							bacc, best, bc = acc, a, atlasChoice{c, ov, opt, k}
						}
					}
				}
			}
			nb, err := best.neighbours(test.X, bc.k)
			if err != nil {
				t.Fatal(err)
			}
			aa := heldOut(e, nb, bc.k, test.Label)
			eu, at = append(eu, ea), append(at, aa)
			key := fmt.Sprintf("C%d ov%g K%g γ%g", bc.c, bc.overlap, bc.opt.K, bc.opt.Gamma)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f (k %d) atlas %.4f (%s k %d, loo %.4f) %v\n", set, s, ea, e.K, aa, key, bc.k, bacc, time.Since(t0).Round(time.Second))
		}
		for _, key := range cfgOrder {
			m, sd := meanSD(cfgDiff[key])
			fmt.Printf("  %s: %+.4f±%.4f (%d pairs)\n", key, m, sd, len(cfgDiff[key]))
		}
		cfgDiff, cfgOrder = map[string][]float64{}, nil
		printPaired(set, "atlas", eu, at, choices)
	}
}

// densify returns x with, for every sample, the midpoints to its nb
// nearest samples of the same class added (labels are used).
func densify(x *mat.Dense, label []int, nb int) (*mat.Dense, []int) {
	n, d := x.Dims()
	var rows [][]float64
	var lab []int
	for i := range n {
		rows = append(rows, slices.Clone(x.RawRowView(i)))
		lab = append(lab, label[i])
	}
	for i := range n {
		var near []neighbour
		for j := range n {
			if j != i && label[j] == label[i] {
				near = keepNearest(near, neighbour{sqDist(x.RawRowView(i), x.RawRowView(j), nil), j}, nb)
			}
		}
		for _, v := range near {
			m := make([]float64, d)
			for k := range d {
				m[k] = (x.At(i, k) + x.At(v.row, k)) / 2
			}
			rows = append(rows, m)
			lab = append(lab, label[i])
		}
	}
	out := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		out.SetRow(i, r)
	}
	return out, lab
}

// densified trains an SPCA (or per-class SPCA) classifier whose models
// are fitted on the densified training set; k-NN runs over the original
// samples.
func densified(x *mat.Dense, label []int, metric Metric, nb int, opt spca.Options) (*Classifier, error) {
	c, err := newClassifier(x, label, 2, metric, 1)
	if err != nil {
		return nil, err
	}
	ax, al := densify(x, label, nb)
	if metric == SPCAPerClass {
		opt.DensityFloor = perClassFloor
		for cl := range 2 {
			var ix []int
			for i, l := range al {
				if l == cl {
					ix = append(ix, i)
				}
			}
			m, err := spca.Fit(subRows(ax, ix), opt)
			if err != nil {
				return nil, err
			}
			c.Models = append(c.Models, m)
		}
	} else {
		m, err := spca.Fit(ax, opt)
		if err != nil {
			return nil, err
		}
		c.Models = []*spca.Model{m}
	}
	return c, c.build()
}

// TestVariantDensify measures the SPCA metric with its model(s) fitted on
// the training samples plus the midpoints to each sample's 1, 2 or 3
// nearest samples of its class (k-NN over the original samples); one
// model, or one per class with DENSIFY_METRIC=per-class. The number of
// midpoints, K, gamma and k by leave-one-out. SPCA_VARIANTS=1.
func TestVariantDensify(t *testing.T) {
	seeds, first := variantSeeds(t, 3, 1)
	sets := strings.Split(os.Getenv("SPCA_SETS"), ",")
	nbs := []int{1, 2, 3}
	metric := SPCA
	if os.Getenv("DENSIFY_METRIC") == "per-class" {
		metric = SPCAPerClass
	}
	for _, set := range sets {
		var eu, at []float64
		choices := map[string]int{}
		for s := first; s < first+seeds; s++ {
			t0 := time.Now()
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution = 1, 1<<14
			var best *Classifier
			bacc, key := -1.0, ""
			for _, nb := range nbs {
				for _, opt := range SelectionGrid(base) {
					c, err := densified(train.X, train.Label, metric, nb, opt)
					var de *spca.DataError
					var oe *spca.OptionError
					if errors.As(err, &de) || errors.As(err, &oe) {
						continue
					} else if err != nil {
						t.Fatal(err)
					}
					acc, err := c.Select(train.X, ks)
					if err != nil {
						t.Fatal(err)
					}
					if acc > bacc {
						bacc, best, key = acc, c, fmt.Sprintf("nb%d K%g γ%g", nb, opt.K, opt.Gamma)
					}
				}
			}
			aa, err := best.Accuracy(test.X, test.Label)
			if err != nil {
				t.Fatal(err)
			}
			eu, at = append(eu, ea), append(at, aa)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f (k %d) densified %v %.4f (%s k %d, loo %.4f) %v\n", set, s, ea, e.K, metric, aa, key, best.K, bacc, time.Since(t0).Round(time.Second))
		}
		printPaired(set, "densified", eu, at, choices)
	}
}

// localNeighbours returns, for every row of q, its M nearest training
// samples (Euclidean; skipping row skip[i] if >= 0) re-ranked in the
// responses of an SPCA model fitted on those M samples alone.
func localNeighbours(x, q *mat.Dense, skip []int, M int, opt spca.Options) ([][]neighbour, error) {
	n, _ := q.Dims()
	nt, _ := x.Dims()
	out := make([][]neighbour, n)
	for i := range n {
		var cand []neighbour
		for r := range nt {
			if r != skip[i] {
				cand = keepNearest(cand, neighbour{sqDist(q.RawRowView(i), x.RawRowView(r), nil), r}, M)
			}
		}
		rows := make([]int, len(cand))
		for j, v := range cand {
			rows[j] = v.row
		}
		sub := subRows(x, rows)
		mod, err := spca.Fit(sub, opt)
		if err != nil {
			return nil, err
		}
		f, _, err := mod.TransformBatch(sub)
		if err != nil {
			return nil, err
		}
		fq, _, err := mod.TransformBatch(subRows(q, []int{i}))
		if err != nil {
			return nil, err
		}
		var nb []neighbour
		for j, r := range rows {
			nb = keepNearest(nb, neighbour{sqDist(fq.RawRowView(0), f.RawRowView(j), nil), r}, M)
		}
		out[i] = nb
	}
	return out, nil
}

// TestVariantLocalSPCA measures a local SPCA metric: for every query an
// SPCA model fitted on its M (LOCAL_M, default 15, 25, 40) Euclidean
// nearest training samples re-ranks them in its responses; M, K, gamma and
// k by leave-one-out (the left-out sample is not in its own fit). About a
// minute per pair and M. SPCA_VARIANTS=1.
func TestVariantLocalSPCA(t *testing.T) {
	seeds, first := variantSeeds(t, 3, 1)
	sets := strings.Split(os.Getenv("SPCA_SETS"), ",")
	Ms := []int{15, 25, 40}
	if v := os.Getenv("LOCAL_M"); v != "" {
		Ms = nil
		for _, s := range strings.Split(v, ",") {
			c, _ := strconv.Atoi(s)
			Ms = append(Ms, c)
		}
	}
	lks := []int{1, 3, 5, 7, 9}
	for _, set := range sets {
		var eu, at []float64
		choices := map[string]int{}
		for s := first; s < first+seeds; s++ {
			t0 := time.Now()
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution = 1, 1<<12
			base.DensityFloor = 1
			nt := len(train.Label)
			self := make([]int, nt)
			for i := range self {
				self[i] = i
			}
			none := make([]int, 600)
			for i := range none {
				none[i] = -1
			}
			bacc, key := -1.0, ""
			var bopt spca.Options
			bM, bk := 0, 0
			for _, M := range Ms {
				for _, opt := range SelectionGrid(base) {
					if opt.K < 0.2 {
						continue
					}
					nb, err := localNeighbours(train.X, train.X, self, M, opt)
					var de *spca.DataError
					var oe *spca.OptionError
					if errors.As(err, &de) || errors.As(err, &oe) {
						continue
					} else if err != nil {
						t.Fatal(err)
					}
					acc, k := bestK(e, nb, lks)
					if acc > bacc {
						bacc, key, bopt, bM, bk = acc, fmt.Sprintf("M%d K%g γ%g", M, opt.K, opt.Gamma), opt, M, k
					}
				}
			}
			nb, err := localNeighbours(train.X, test.X, none, bM, bopt)
			if err != nil {
				t.Fatal(err)
			}
			aa := heldOut(e, nb, bk, test.Label)
			eu, at = append(eu, ea), append(at, aa)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f (k %d) local %.4f (%s k %d, loo %.4f) %v\n", set, s, ea, e.K, aa, key, bk, bacc, time.Since(t0).Round(time.Second))
		}
		printPaired(set, "local", eu, at, choices)
	}
}

// TestVariantPolarOracle: the generator's geometry as a metric on the 2-D
// spirals (a ceiling for any local metric): d² = Δr² + (r̄Δθ/ratio)².
func TestVariantPolarOracle(t *testing.T) {
	seeds, first := variantSeeds(t, 10, 1)
	set := "spirals-thin"
	ratios := []float64{1, 1.5, 2, 3, 5, 10}
	diffs := make([][]float64, len(ratios))
	cvd := []float64{}
	polar := func(a []float64) (float64, float64) { return math.Hypot(a[0], a[1]), math.Atan2(a[1], a[0]) }
	dist := func(a, b []float64, ratio float64) float64 {
		ra, ta := polar(a)
		rb, tb := polar(b)
		dt := math.Abs(ta - tb)
		if dt > math.Pi {
			dt = 2*math.Pi - dt
		}
		dr := ra - rb
		tg := (ra + rb) / 2 * dt / ratio
		return dr*dr + tg*tg
	}
	for s := first; s < first+seeds; s++ {
		train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
		test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
		e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
		ea, _ := e.Accuracy(test.X, test.Label)
		nt := len(train.Label)
		bl, bh := -1.0, 0.0
		for ri, ratio := range ratios {
			nbs := func(q *mat.Dense, m int) [][]neighbour {
				n, _ := q.Dims()
				out := make([][]neighbour, n)
				for i := range n {
					for r := range nt {
						out[i] = keepNearest(out[i], neighbour{dist(q.RawRowView(i), train.X.RawRowView(r), ratio), r}, m)
					}
				}
				return out
			}
			acc, k := bestK(e, nbs(train.X, 32), ks)
			h := heldOut(e, nbs(test.X, k), k, test.Label)
			diffs[ri] = append(diffs[ri], h-ea)
			if acc > bl {
				bl, bh = acc, h
			}
		}
		cvd = append(cvd, bh-ea)
	}
	for ri, ratio := range ratios {
		m, sd := meanSD(diffs[ri])
		fmt.Printf("polar ratio %g: %+.4f±%.4f\n", ratio, m, sd)
	}
	m, sd := meanSD(cvd)
	fmt.Printf("polar ratio by LOO: %+.4f±%.4f\n", m, sd)
}

// tangentOf returns the unit gradient of the first unfolded coordinate
// of mod at every row of x (zero if it vanishes).
func tangentOf(mod *spca.Model, x *mat.Dense, h float64) [][]float64 {
	n, d := x.Dims()
	out := make([][]float64, n)
	up, un := make([]float64, d), make([]float64, d)
	for i := range n {
		g := make([]float64, d)
		p := slices.Clone(x.RawRowView(i))
		for j := range d {
			p[j] += h
			mod.Unfold(up, p)
			p[j] -= 2 * h
			mod.Unfold(un, p)
			p[j] += h
			g[j] = (up[0] - un[0]) / (2 * h)
		}
		s := math.Sqrt(sqDist(g, make([]float64, d), nil))
		if s > 0 {
			for j := range g {
				g[j] /= s
			}
		}
		out[i] = g
	}
	return out
}

// tangentNeighbours: d² = |Δ|² - (t_q·Δ)²(1 - 1/ρ²).
func tangentNeighbours(x, q *mat.Dense, tq [][]float64, ratio float64, m int) [][]neighbour {
	n, d := q.Dims()
	nt, _ := x.Dims()
	out := make([][]neighbour, n)
	shrink := 1 - 1/(ratio*ratio)
	for i := range n {
		a := q.RawRowView(i)
		for r := range nt {
			b := x.RawRowView(r)
			s, dot := 0.0, 0.0
			for j := range d {
				e := b[j] - a[j]
				s += e * e
				dot += tq[i][j] * e
			}
			out[i] = keepNearest(out[i], neighbour{s - shrink*dot*dot, r}, m)
		}
	}
	return out
}

// tangentSource gives the tangent field of one SPCA model or atlas.
type tangentSource struct {
	name string
	tan  func(x *mat.Dense) [][]float64
}

// TestVariantTangent measures the SPCA tangent metric: d² = |Δ|² -
// (1 - 1/ρ²)(t·Δ)², t the unit gradient at the query of the first
// unfolded coordinate of per-class SPCA models (the two classes' directions
// summed, signs aligned), so distances along the class curves shrink by ρ;
// K, ρ (1 = Euclidean unless SPCA_TANGENT_NO_EUCLIDEAN=1, 1.5, 2, 3, 5)
// and k by leave-one-out. SPCA_TANGENT_DENSIFY=1 also tries models fitted
// on densified classes; SPCA_TANGENT_SRC=atlas takes t from an atlas of
// charts fitted on both classes instead. SPCA_VARIANTS=1.
func TestVariantTangent(t *testing.T) {
	seeds, first := variantSeeds(t, 3, 1)
	sets := strings.Split(os.Getenv("SPCA_SETS"), ",")
	ratios := []float64{1, 1.5, 2, 3, 5}
	charts := []int{1, 2, 3, 4, 6}
	for _, set := range sets {
		var eu, at []float64
		choices := map[string]int{}
		cfgDiff := map[string][]float64{}
		var cfgOrder []string
		for s := first; s < first+seeds; s++ {
			t0 := time.Now()
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution = 1, 1<<14
			base.DensityFloor = 1
			var srcs []tangentSource
			if os.Getenv("SPCA_TANGENT_SRC") != "atlas" {
				charts = nil
				nbs := []int{0}
				if os.Getenv("SPCA_TANGENT_DENSIFY") != "" {
					nbs = []int{0, 2}
				}
				for _, nb := range nbs {
					for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
						opt := base
						opt.K = k
						tf, err := perClassTangent(train.X, train.Label, nb, opt)
						if err != nil {
							continue
						}
						srcs = append(srcs, tangentSource{fmt.Sprintf("pc nb%d K%g", nb, k), tf})
					}
				}
			}
			for _, c := range charts {
				for _, k := range []float64{0.2, 0.3, 0.5} {
					opt := base
					opt.K = k
					a, err := fitAtlas(train.X, c, 2.5, opt)
					if err != nil {
						continue
					}
					h := 0.005 * a.models[0].MaxDistance()
					srcs = append(srcs, tangentSource{fmt.Sprintf("C%d K%g", c, k), func(x *mat.Dense) [][]float64 {
						n, _ := x.Dims()
						out := make([][]float64, n)
						for i := range n {
							ci := nearestCentre(a.centres, x.RawRowView(i))
							out[i] = tangentOf(a.models[ci], subRows(x, []int{i}), h)[0]
						}
						return out
					}})
				}
			}
			bacc, key := -1.0, ""
			var bsrc tangentSource
			var bratio float64
			bk := 0
			for _, src := range srcs {
				tt := src.tan(train.X)
				var th [][]float64
				for _, ratio := range ratios {
					if ratio == 1 && (src.name != srcs[0].name || os.Getenv("SPCA_TANGENT_NO_EUCLIDEAN") != "") {
						continue
					}
					nb := tangentNeighbours(train.X, train.X, tt, ratio, looNeighbours(ks))
					acc, k := bestK(e, nb, ks)
					name := fmt.Sprintf("%s ρ%g", src.name, ratio)
					if ratio == 1 {
						name = "euclidean"
					}
					if acc > bacc {
						bacc, key, bsrc, bratio, bk = acc, name, src, ratio, k
					}
					if os.Getenv("SPCA_DIAG") != "" {
						if th == nil {
							th = src.tan(test.X)
						}
						h := heldOut(e, tangentNeighbours(train.X, test.X, th, ratio, k), k, test.Label)
						if cfgDiff[name] == nil {
							cfgOrder = append(cfgOrder, name)
						}
						cfgDiff[name] = append(cfgDiff[name], h-ea)
					}
				}
			}
			nb := tangentNeighbours(train.X, test.X, bsrc.tan(test.X), bratio, bk)
			aa := heldOut(e, nb, bk, test.Label)
			eu, at = append(eu, ea), append(at, aa)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f (k %d) tangent %.4f (%s k %d, loo %.4f) %v\n", set, s, ea, e.K, aa, key, bk, bacc, time.Since(t0).Round(time.Second))
		}
		for _, key := range cfgOrder {
			m, sd := meanSD(cfgDiff[key])
			fmt.Printf("  %s: %+.4f±%.4f\n", key, m, sd)
		}
		printPaired(set, "tangent", eu, at, choices)
	}
}

// TestVariantTangentAlignment: mean |cos| between SPCA's first direction and
// the arm's tangent on spirals-thin held-out samples, by radius band.
func TestVariantTangentAlignment(t *testing.T) {
	if os.Getenv("SPCA_VARIANTS") == "" {
		t.Skip("SPCA_VARIANTS not set")
	}
	set := "spirals-thin"
	for s := 1; s <= 3; s++ {
		train, _ := testimages.GenerateClasses(set, 120, uint64(2*s-1))
		test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
		for _, c := range []int{1, 3, 4, 6} {
			for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, k
				if tau, err := strconv.ParseFloat(os.Getenv("SPCA_TAU"), 64); err == nil {
					opt.Tau = tau
				}
				a, err := fitAtlas(train.X, c, 2.5, opt)
				if err != nil {
					continue
				}
				h := 0.005 * a.models[0].MaxDistance()
				var band [3][]float64
				for i := range 600 {
					x := test.X.RawRowView(i)
					ci := nearestCentre(a.centres, x)
					g := tangentOf(a.models[ci], subRows(test.X, []int{i}), h)[0]
					r, th := math.Hypot(x[0], x[1]), math.Atan2(x[1], x[0])
					tx := math.Cos(th)/math.Pi - r*math.Sin(th)
					ty := math.Sin(th)/math.Pi + r*math.Cos(th)
					cs := math.Abs(g[0]*tx+g[1]*ty) / math.Hypot(tx, ty)
					b := min(2, int((r-1)/1.2))
					b = max(b, 0)
					band[b] = append(band[b], cs)
				}
				line := fmt.Sprintf("pair %d C%d K%g:", s, c, k)
				for b := range band {
					m, _ := meanSD(band[b])
					line += fmt.Sprintf(" r%d %.2f (%d)", b, m, len(band[b]))
				}
				fmt.Println(line)
			}
		}
	}
}

// perClassTangent returns the tangent field from per-class SPCA models
// (fitted on each class's samples, densified with nb midpoints if nb >
// 0): the sum of the two classes' unit first directions, signs aligned.
func perClassTangent(x *mat.Dense, label []int, nb int, opt spca.Options) (func(q *mat.Dense) [][]float64, error) {
	ax, al := x, label
	if nb > 0 {
		ax, al = densify(x, label, nb)
	}
	var mods []*spca.Model
	for cl := range 2 {
		var ix []int
		for i, l := range al {
			if l == cl {
				ix = append(ix, i)
			}
		}
		m, err := spca.Fit(subRows(ax, ix), opt)
		if err != nil {
			return nil, err
		}
		mods = append(mods, m)
	}
	h := 0.005 * mods[0].MaxDistance()
	return func(q *mat.Dense) [][]float64 {
		t0 := tangentOf(mods[0], q, h)
		t1 := tangentOf(mods[1], q, h)
		for i := range t0 {
			dot := 0.0
			for j := range t0[i] {
				dot += t0[i][j] * t1[i][j]
			}
			sg := 1.0
			if dot < 0 {
				sg = -1
			}
			s := 0.0
			for j := range t0[i] {
				t0[i][j] += sg * t1[i][j]
				s += t0[i][j] * t0[i][j]
			}
			if s > 0 {
				for j := range t0[i] {
					t0[i][j] /= math.Sqrt(s)
				}
			}
		}
		return t0
	}, nil
}

func TestVariantTangentAlignmentPerClass(t *testing.T) {
	if os.Getenv("SPCA_VARIANTS") == "" {
		t.Skip("SPCA_VARIANTS not set")
	}
	set := "spirals-thin"
	for s := 1; s <= 3; s++ {
		train, _ := testimages.GenerateClasses(set, 120, uint64(2*s-1))
		test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
		for _, nb := range []int{0, 2} {
			for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, k
				tf, err := perClassTangent(train.X, train.Label, nb, opt)
				if err != nil {
					continue
				}
				tt := tf(test.X)
				var band [3][]float64
				for i := range 600 {
					x := test.X.RawRowView(i)
					g := tt[i]
					r, th := math.Hypot(x[0], x[1]), math.Atan2(x[1], x[0])
					tx := math.Cos(th)/math.Pi - r*math.Sin(th)
					ty := math.Sin(th)/math.Pi + r*math.Cos(th)
					cs := math.Abs(g[0]*tx+g[1]*ty) / math.Hypot(tx, ty)
					b := max(0, min(2, int((r-1)/1.2)))
					band[b] = append(band[b], cs)
				}
				line := fmt.Sprintf("pair %d per-class nb%d K%g:", s, nb, k)
				for b := range band {
					m, _ := meanSD(band[b])
					line += fmt.Sprintf(" r%d %.2f (%d)", b, m, len(band[b]))
				}
				fmt.Println(line)
			}
		}
	}
}

func colsOf(x *mat.Dense, cols []int) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, len(cols), nil)
	for i := range n {
		for j, c := range cols {
			out.Set(i, j, x.At(i, c))
		}
	}
	return out
}

// tangentLOO returns the best LOO accuracy of the per-class tangent metric
// on x over K, ρ and k, with the choice.
func tangentLOO(e *Classifier, x *mat.Dense, label []int) (float64, func(q *mat.Dense) [][]float64, float64, int) {
	base := spca.DefaultOptions()
	base.Seed, base.Resolution, base.DensityFloor = 1, 1<<14, 1
	best, bk, br := -1.0, 0, 0.0
	var bt func(q *mat.Dense) [][]float64
	for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
		opt := base
		opt.K = k
		tf, err := perClassTangent(x, label, 0, opt)
		if err != nil {
			continue
		}
		tt := tf(x)
		for _, ratio := range []float64{1.5, 2, 3, 5} {
			acc, kk := bestK(e, tangentNeighbours(x, x, tt, ratio, looNeighbours(ks)), ks)
			if acc > best {
				best, bk, br, bt = acc, kk, ratio, tf
			}
		}
	}
	return best, bt, br, bk
}

// TestVariantSelectInputs measures backward elimination of input axes by
// leave-one-out on moons5d, for the tangent metric and for Euclidean k-NN
// (the selection's own gain), against Euclidean k-NN on every axis.
// SPCA_VARIANTS=1.
func TestVariantSelectInputs(t *testing.T) {
	seeds, _ := variantSeeds(t, 3, 1)
	set := "moons5d"
	var de, dt, dts []float64
	for s := 1; s <= seeds; s++ {
		train, _ := testimages.GenerateClasses(set, 200, uint64(2*s-1))
		test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
		e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
		ea, _ := e.Accuracy(test.X, test.Label)
		_, d := train.X.Dims()
		eval := func(cols []int, tangent bool) float64 {
			xs := colsOf(train.X, cols)
			if tangent {
				a, _, _, _ := tangentLOO(e, xs, train.Label)
				return a
			}
			a, _ := bestK(e, tangentNeighbours(xs, xs, zeroField(len(train.Label), len(cols)), 1, looNeighbours(ks)), ks)
			return a
		}
		held := func(cols []int, tangent bool) float64 {
			xs, qs := colsOf(train.X, cols), colsOf(test.X, cols)
			if tangent {
				_, tf, r, k := tangentLOO(e, xs, train.Label)
				return heldOut(e, tangentNeighbours(xs, qs, tf(qs), r, k), k, test.Label)
			}
			_, k := bestK(e, tangentNeighbours(xs, xs, zeroField(len(train.Label), len(cols)), 1, looNeighbours(ks)), ks)
			return heldOut(e, tangentNeighbours(xs, qs, zeroField(600, len(cols)), 1, k), k, test.Label)
		}
		for _, tangent := range []bool{false, true} {
			cols := make([]int, d)
			for j := range cols {
				cols[j] = j
			}
			best := eval(cols, tangent)
			for len(cols) > 2 {
				drop, dacc := -1, best
				for j := len(cols) - 1; j >= 0; j-- {
					c := slices.Delete(slices.Clone(cols), j, j+1)
					if a := eval(c, tangent); a > dacc {
						drop, dacc = j, a
					}
				}
				if drop < 0 {
					break
				}
				cols, best = slices.Delete(cols, drop, drop+1), dacc
			}
			h := held(cols, tangent)
			all := make([]int, d)
			for j := range all {
				all[j] = j
			}
			fmt.Printf("pair %d tangent=%v: keeps %v loo %.4f held %.4f (euclidean all %.4f)\n", s, tangent, cols, best, h, ea)
			if tangent {
				dts = append(dts, h-ea)
				dt = append(dt, held(all, true)-ea)
			} else {
				de = append(de, h-ea)
			}
		}
	}
	m1, s1 := meanSD(de)
	m2, s2 := meanSD(dts)
	m3, s3 := meanSD(dt)
	fmt.Printf("moons5d vs Euclidean: euclidean-select %+.4f±%.4f tangent-select %+.4f±%.4f tangent %+.4f±%.4f\n", m1, s1, m2, s2, m3, s3)
}

func zeroField(n, d int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
	}
	return out
}

// projectPolyline returns the nearest point to a on the polyline of the
// rows of v.
func projectPolyline(v *mat.Dense, a []float64) []float64 {
	nv, d := v.Dims()
	best, bd := slices.Clone(v.RawRowView(0)), math.Inf(1)
	p := make([]float64, d)
	for i := 0; i+1 < nv; i++ {
		s, e := v.RawRowView(i), v.RawRowView(i+1)
		num, den := 0.0, 0.0
		for j := range d {
			num += (a[j] - s[j]) * (e[j] - s[j])
			den += (e[j] - s[j]) * (e[j] - s[j])
		}
		t := 0.0
		if den > 0 {
			t = max(0, min(1, num/den))
		}
		for j := range d {
			p[j] = s[j] + t*(e[j]-s[j])
		}
		if dd := sqDist(a, p, nil); dd < bd {
			bd = dd
			copy(best, p)
		}
	}
	return best
}

// TestVariantCurveDenoise: every training sample moved a share λ
// towards its projection on its class's first SPCA curve (per-class
// models); Euclidean k-NN from the query to the moved samples. K, λ, k
// by LOO. SPCA_VARIANTS=1.
func TestVariantCurveDenoise(t *testing.T) {
	seeds, first := variantSeeds(t, 3, 1)
	sets := strings.Split(os.Getenv("SPCA_SETS"), ",")
	lambdas := []float64{0.5, 0.75, 1}
	for _, set := range sets {
		var eu, at []float64
		choices := map[string]int{}
		cfgDiff := map[string][]float64{}
		var cfgOrder []string
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			n, d := train.X.Dims()
			bx := train.X
			bacc, bk := bestK(e, tangentNeighbours(bx, train.X, zeroField(n, d), 1, looNeighbours(ks)), ks)
			key := "euclidean"
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, K
				var curves []*mat.Dense
				ok := true
				for cl := range 2 {
					m, err := spca.Fit(subRows(train.X, e.idx[cl]), opt)
					if err != nil {
						ok = false
						break
					}
					curves = append(curves, m.FirstCurve())
				}
				if !ok {
					continue
				}
				proj := mat.NewDense(n, d, nil)
				for i := range n {
					proj.SetRow(i, projectPolyline(curves[train.Label[i]], train.X.RawRowView(i)))
				}
				for _, lam := range lambdas {
					moved := mat.NewDense(n, d, nil)
					for i := range n {
						for j := range d {
							moved.Set(i, j, train.X.At(i, j)+lam*(proj.At(i, j)-train.X.At(i, j)))
						}
					}
					// LOO: the query is the original sample, its
					// neighbours the moved others.
					acc, k := bestK(e, tangentNeighbours(moved, train.X, zeroField(n, d), 1, looNeighbours(ks)), ks)
					name := fmt.Sprintf("K%g λ%g", K, lam)
					if acc > bacc {
						bacc, key, bk, bx = acc, name, k, moved
					}
					if os.Getenv("SPCA_DIAG") != "" {
						h := heldOut(e, tangentNeighbours(moved, test.X, zeroField(600, d), 1, k), k, test.Label)
						if cfgDiff[name] == nil {
							cfgOrder = append(cfgOrder, name)
						}
						cfgDiff[name] = append(cfgDiff[name], h-ea)
					}
				}
			}
			aa := heldOut(e, tangentNeighbours(bx, test.X, zeroField(600, d), 1, bk), bk, test.Label)
			eu, at = append(eu, ea), append(at, aa)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f (k %d) denoised %.4f (%s k %d, loo %.4f)\n", set, s, ea, e.K, aa, key, bk, bacc)
		}
		for _, key := range cfgOrder {
			m, sd := meanSD(cfgDiff[key])
			fmt.Printf("  %s: %+.4f±%.4f\n", key, m, sd)
		}
		printPaired(set, "denoised", eu, at, choices)
	}
}

// TestVariantTransductive measures the SPCA metric (one model) fitted on
// the training samples AND the held-out inputs without their labels (the
// semi-supervised setting; Euclidean k-NN cannot use them); K, gamma and k
// by leave-one-out on the training samples. A clearly labelled variant,
// not the acceptance setting. SPCA_VARIANTS=1.
func TestVariantTransductive(t *testing.T) {
	seeds, _ := variantSeeds(t, 3, 1)
	for _, set := range strings.Split(os.Getenv("SPCA_SETS"), ",") {
		var diff []float64
		for s := 1; s <= seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, err := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			if err != nil {
				t.Fatal(err)
			}
			ea, _ := e.Accuracy(test.X, test.Label)
			var all mat.Dense
			all.Stack(train.X, test.X)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution = 1, 1<<14
			bacc := -1.0
			var best *Classifier
			for _, opt := range SelectionGrid(base) {
				c, err := newClassifier(train.X, train.Label, 2, SPCA, 1)
				if err != nil {
					t.Fatal(err)
				}
				m, err := spca.Fit(&all, opt)
				if err != nil {
					continue
				}
				c.Models = []*spca.Model{m}
				if err := c.build(); err != nil {
					t.Fatal(err)
				}
				if acc, err := c.Select(train.X, ks); err == nil && acc > bacc {
					bacc, best = acc, c
				}
			}
			a, err := best.Accuracy(test.X, test.Label)
			if err != nil {
				t.Fatal(err)
			}
			o := best.Models[0].Options()
			fmt.Printf("%s pair %d: euclidean %.4f transductive spca %.4f (K %g γ %g k %d)\n", set, s, ea, a, o.K, o.Gamma, best.K)
			diff = append(diff, a-ea)
		}
		m, sd := meanSD(diff)
		fmt.Printf("%s: transductive spca - euclidean %+.4f±%.4f\n", set, m, sd)
	}
}

// printPaired prints a variant's held-out accuracy beside Euclidean k-NN's
// over the seed pairs (mean ± sd) and their paired difference, with the
// configurations leave-one-out chose.
func printPaired(set, name string, eu, at []float64, choices map[string]int) {
	diff := make([]float64, len(eu))
	for i := range eu {
		diff[i] = at[i] - eu[i]
	}
	me, se := meanSD(eu)
	ma, sa := meanSD(at)
	md, sd := meanSD(diff)
	fmt.Printf("%s: euclidean %.4f±%.4f %s %.4f±%.4f (%+.4f±%.4f) %v\n", set, me, se, name, ma, sa, md, sd, choices)
}
