package classify

// Session 19 measurements for issue 25's moons5d set (classify/MEASUREMENTS.md,
// "Session 19"): the headroom (the noise axes dropped), how the per-class
// SPCA frames lie against the input axes, and discriminant-weighted
// variants of the tangent metric. Measurements, not checks: they run only
// with SPCA_VARIANTS=1 (SPCA_SEEDS pairs from SPCA_FIRST, SPCA_SETS).

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// unfoldJacobians returns, for every row of q, the d×d Jacobian of mod's
// unfolded coordinates (row j: the gradient of coordinate j), by central
// differences of step h.
func unfoldJacobians(mod *spca.Model, q *mat.Dense, h float64) []*mat.Dense {
	return batchJacobians(mod.UnfoldBatch, q, h)
}

// batchJacobians returns, for every row of q, the d×d Jacobian of the
// map batch (row j: the gradient of its output j), by central
// differences of step h.
func batchJacobians(batch func(mat.Matrix) (*mat.Dense, spca.BatchStats, error), q *mat.Dense, h float64) []*mat.Dense {
	n, d := q.Dims()
	mv := mat.NewDense(2*d*n, d, nil)
	for i := range n {
		for j := range d {
			for s, sg := range []float64{1, -1} {
				row := mv.RawRowView((i*d+j)*2 + s)
				copy(row, q.RawRowView(i))
				row[j] += sg * h
			}
		}
	}
	u, _, err := batch(mv)
	if err != nil {
		panic(err)
	}
	out := make([]*mat.Dense, n)
	for i := range n {
		J := mat.NewDense(d, d, nil)
		for j := range d { // input axis
			for c := range d { // coordinate
				J.Set(c, j, (u.At((i*d+j)*2, c)-u.At((i*d+j)*2+1, c))/(2*h))
			}
		}
		out[i] = J
	}
	return out
}

// auc returns |2·AUC - 1| of a against b: 0 when the two samples are
// alike, 1 when they do not overlap.
func auc(a, b []float64) float64 {
	type v struct {
		x float64
		o bool
	}
	var all []v
	for _, x := range a {
		all = append(all, v{x, true})
	}
	for _, x := range b {
		all = append(all, v{x, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].x < all[j].x })
	rank := 0.0
	for i, e := range all {
		if e.o {
			rank += float64(i + 1)
		}
	}
	na, nb := float64(len(a)), float64(len(b))
	u := rank - na*(na+1)/2
	return math.Abs(2*u/(na*nb) - 1)
}

// variantPairs is variantSeeds with the data sets to run (SPCA_SETS,
// else moons5d).
func variantPairs(t *testing.T) (int, int, []string) {
	t.Helper()
	seeds, first := variantSeeds(t, 3, 1)
	sets := []string{"moons5d"}
	if v := os.Getenv("SPCA_SETS"); v != "" {
		sets = strings.Split(v, ",")
	}
	return seeds, first, sets
}

// variantSeeds skips t unless SPCA_VARIANTS is set (the variants are
// measurements, minutes each, not checks) and returns how many seed
// pairs to run and the first: SPCA_SEEDS and SPCA_FIRST, else seeds and
// first.
func variantSeeds(t *testing.T, seeds, first int) (int, int) {
	t.Helper()
	if os.Getenv("SPCA_VARIANTS") == "" {
		t.Skip("SPCA_VARIANTS not set")
	}
	if v, err := strconv.Atoi(os.Getenv("SPCA_SEEDS")); err == nil {
		seeds = v
	}
	if v, err := strconv.Atoi(os.Getenv("SPCA_FIRST")); err == nil {
		first = v
	}
	return seeds, first
}

// TestVariantMoonsFrames prints, on moons5d, the mean |cosine| of every
// unfolded coordinate's gradient of each per-class SPCA model with the
// input axes (over held-out samples), and each coordinate's class
// separation |2 AUC - 1| on the training samples.
func TestVariantMoonsFrames(t *testing.T) {
	seeds, first, _ := variantPairs(t)
	for s := first; s < first+seeds; s++ {
		train, _ := testimages.GenerateClasses("moons5d", 200, uint64(2*s-1))
		test, _ := testimages.GenerateClasses("moons5d", 200, uint64(2*s))
		for _, k := range []float64{0.1, 0.2, 0.3, 0.5} {
			opt := spca.DefaultOptions()
			opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, k
			for cl := range 2 {
				var own, oth []int
				for i, l := range train.Label {
					if l == cl {
						own = append(own, i)
					} else {
						oth = append(oth, i)
					}
				}
				m, err := spca.Fit(subRows(train.X, own), opt)
				if err != nil {
					t.Fatal(err)
				}
				uo, _, _ := m.UnfoldBatch(subRows(train.X, own))
				ut, _, _ := m.UnfoldBatch(subRows(train.X, oth))
				Js := unfoldJacobians(m, test.X, 0.005*m.MaxDistance())
				d := 5
				for c := range d {
					line := fmt.Sprintf("pair %d K%g class %d coord %d: sep %.2f axes", s, k, cl, c, auc(mat.Col(nil, c, uo), mat.Col(nil, c, ut)))
					cos := make([]float64, d)
					for _, J := range Js {
						g := mat.Row(nil, c, J)
						nrm := math.Sqrt(sqDist(g, make([]float64, d), nil))
						if nrm == 0 {
							continue
						}
						for j := range d {
							cos[j] += math.Abs(g[j]) / nrm / float64(len(Js))
						}
					}
					for j := range d {
						line += fmt.Sprintf(" %.2f", cos[j])
					}
					fmt.Println(line)
				}
			}
		}
	}
}

// frameField returns the orthonormal frames of per-class SPCA models at
// the rows of q: for coordinate j, the unit gradients of the two class
// models' j-th unfolded coordinates summed with their signs aligned, then
// orthonormalised in coordinate order (Gram-Schmidt). Row 0 is
// SPCATangent's direction.
func frameField(mods []*spca.Model, q *mat.Dense) [][][]float64 {
	n, d := q.Dims()
	var Js [][]*mat.Dense
	for _, m := range mods {
		Js = append(Js, unfoldJacobians(m, q, tangentStep*m.MaxDistance()))
	}
	out := make([][][]float64, n)
	for i := range n {
		E := make([][]float64, 0, d)
		for j := range d {
			e := make([]float64, d)
			for ci := range mods {
				g := mat.Row(nil, j, Js[ci][i])
				nrm := math.Sqrt(sqDist(g, make([]float64, d), nil))
				if !(nrm > 0) || math.IsInf(nrm, 0) {
					continue
				}
				sg := 1 / nrm
				dot := 0.0
				for k := range d {
					dot += e[k] * g[k]
				}
				if dot < 0 {
					sg = -sg
				}
				for k := range d {
					e[k] += sg * g[k]
				}
			}
			for _, f := range E {
				dot := 0.0
				for k := range d {
					dot += f[k] * e[k]
				}
				for k := range d {
					e[k] -= dot * f[k]
				}
			}
			nrm := math.Sqrt(sqDist(e, make([]float64, d), nil))
			if nrm > 1e-9 {
				for k := range d {
					e[k] /= nrm
				}
			} else {
				e = make([]float64, d)
			}
			E = append(E, e)
		}
		out[i] = E
	}
	return out
}

// projections holds, for every query and training sample, |Δ|² and the
// components of Δ = x - q on the query's frame.
type projections struct {
	sq   [][]float64
	proj [][][]float64
}

func project(x, q *mat.Dense, E [][][]float64) projections {
	return projectWith(x, q, func(i, _ int) [][]float64 { return E[i] })
}

// projectWith is project with the frame of query i and training sample l
// given by frame(i, l).
func projectWith(x, q *mat.Dense, frame func(i, l int) [][]float64) projections {
	n, d := q.Dims()
	nt, _ := x.Dims()
	p := projections{make([][]float64, n), make([][][]float64, n)}
	for i := range n {
		a := q.RawRowView(i)
		p.sq[i] = make([]float64, nt)
		p.proj[i] = make([][]float64, nt)
		for l := range nt {
			b := x.RawRowView(l)
			E := frame(i, l)
			pr := make([]float64, d)
			s := 0.0
			for k := range d {
				e := b[k] - a[k]
				s += e * e
				for j := range d {
					pr[j] += E[j][k] * e
				}
			}
			p.sq[i][l], p.proj[i][l] = s, pr
		}
	}
	return p
}

// neighboursW returns the m nearest under d² = |Δ|² - Σ_j (1 - w_j)(e_j·Δ)².
func (p projections) neighboursW(w []float64, m int) [][]neighbour {
	out := make([][]neighbour, len(p.sq))
	for i := range p.sq {
		for l, s := range p.sq[i] {
			for j, wj := range w {
				if wj != 1 {
					s -= (1 - wj) * p.proj[i][l][j] * p.proj[i][l][j]
				}
			}
			out[i] = keepNearest(out[i], neighbour{max(0, s), l}, m)
		}
	}
	return out
}

func perClassModels(x *mat.Dense, label []int, opt spca.Options) ([]*spca.Model, error) {
	var mods []*spca.Model
	for cl := range 2 {
		var ix []int
		for i, l := range label {
			if l == cl {
				ix = append(ix, i)
			}
		}
		m, err := spca.Fit(subRows(x, ix), opt)
		if err != nil {
			return nil, err
		}
		mods = append(mods, m)
	}
	return mods, nil
}

// TestVariantFrameShrink measures the frame metric: the tangent metric's
// shrink along coordinate 0 of the per-class frames (ratio ρ), plus a
// shrink w of further frame coordinates chosen by backward elimination on
// the leave-one-out accuracy (a coordinate is shrunk only for a strict
// gain), K, ρ, w and k by leave-one-out. Also the oracle on moons5d
// (Euclidean k-NN on the moons' two axes) and Mahalanobis.
func TestVariantFrameShrink(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	ratios := []float64{1, 1.5, 2, 3, 5}
	levels := []float64{0.25, 0.04}
	if v := os.Getenv("SPCA_LEVELS"); v != "" {
		levels = nil
		for _, f := range strings.Split(v, ",") {
			x, _ := strconv.ParseFloat(f, 64)
			levels = append(levels, x)
		}
	}
	for _, set := range sets {
		var eu, ma, or, ta, fr []float64
		choices := map[string]int{}
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			ea, _ := e.Accuracy(test.X, test.Label)
			mh, _, _ := TrainSelect(train.X, train.Label, 2, Mahalanobis, ks, nil)
			mha, _ := mh.Accuracy(test.X, test.Label)
			eu, ma = append(eu, ea), append(ma, mha)
			if set == "moons5d" {
				xs, qs := colsOf(train.X, []int{0, 1}), colsOf(test.X, []int{0, 1})
				o, _, _ := TrainSelect(xs, train.Label, 2, Euclidean, ks, nil)
				oa, _ := o.Accuracy(qs, test.Label)
				or = append(or, oa)
			}
			_, d := train.X.Dims()
			base := spca.DefaultOptions()
			base.Seed, base.Resolution, base.DensityFloor = 1, 1<<14, 1
			tBest, fBest := -1.0, -1.0
			var tw, fw []float64
			var tk, fk int
			var tm, fm []*spca.Model
			tKey, fKey := "", ""
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := base
				opt.K = K
				mods, err := perClassModels(train.X, train.Label, opt)
				if err != nil {
					continue
				}
				p := project(train.X, train.X, frameField(mods, train.X))
				for _, r := range ratios {
					w := make([]float64, d)
					for j := range w {
						w[j] = 1
					}
					w[0] = 1 / (r * r)
					acc, k := bestK(e, p.neighboursW(w, looNeighbours(ks)), ks)
					if acc > tBest {
						tBest, tw, tk, tm, tKey = acc, append([]float64(nil), w...), k, mods, fmt.Sprintf("K%g ρ%g", K, r)
					}
					for _, lv := range levels {
						w := append([]float64(nil), w...)
						best, bk := acc, k
						for {
							drop, dacc, dk := -1, best, 0
							for j := d - 1; j >= 1; j-- {
								if w[j] != 1 {
									continue
								}
								w[j] = lv
								a, kk := bestK(e, p.neighboursW(w, looNeighbours(ks)), ks)
								w[j] = 1
								if a > dacc {
									drop, dacc, dk = j, a, kk
								}
							}
							if drop < 0 {
								break
							}
							w[drop], best, bk = lv, dacc, dk
						}
						if best > fBest {
							fBest, fw, fk, fm, fKey = best, append([]float64(nil), w...), bk, mods, fmt.Sprintf("K%g ρ%g w%v", K, r, w)
						}
					}
				}
			}
			held := func(mods []*spca.Model, w []float64, k int) float64 {
				p := project(train.X, test.X, frameField(mods, test.X))
				return heldOut(e, p.neighboursW(w, k), k, test.Label)
			}
			tha, fha := held(tm, tw, tk), held(fm, fw, fk)
			ta, fr = append(ta, tha), append(fr, fha)
			choices[fKey]++
			fmt.Printf("%s pair %d: euclidean %.4f mahalanobis %.4f tangent %.4f (%s k%d loo %.4f) frame %.4f (%s k%d loo %.4f)\n", set, s, ea, mha, tha, tKey, tk, tBest, fha, fKey, fk, fBest)
		}
		printPaired(set, "mahalanobis", eu, ma, nil)
		if or != nil {
			printPaired(set, "oracle-2axes", eu, or, nil)
		}
		printPaired(set, "tangent", eu, ta, nil)
		printPaired(set, "frame", eu, fr, choices)
		dm := make([]float64, len(fr))
		for i := range fr {
			dm[i] = fr[i] - ma[i]
		}
		m, sd := meanSD(dm)
		fmt.Printf("%s: frame - mahalanobis %+.4f±%.4f\n", set, m, sd)
	}
}

// fisherRatios returns, for every frame coordinate j, the mean squared
// component along e_j (the frame at each training sample) of the
// differences to its m nearest training samples of the other class over
// that to its m nearest of its own class: the between-class separation
// along the direction over the class-local spread.
func fisherRatios(p projections, label []int, m int) []float64 {
	n := len(p.sq)
	d := len(p.proj[0][0])
	B, W := make([]float64, d), make([]float64, d)
	for i := range n {
		var own, oth []neighbour
		for l := range n {
			if l == i {
				continue
			}
			if label[l] == label[i] {
				own = keepNearest(own, neighbour{p.sq[i][l], l}, m)
			} else {
				oth = keepNearest(oth, neighbour{p.sq[i][l], l}, m)
			}
		}
		for _, nb := range own {
			for j := range d {
				W[j] += p.proj[i][nb.row][j] * p.proj[i][nb.row][j]
			}
		}
		for _, nb := range oth {
			for j := range d {
				B[j] += p.proj[i][nb.row][j] * p.proj[i][nb.row][j]
			}
		}
	}
	R := make([]float64, d)
	for j := range d {
		R[j] = B[j] / W[j]
	}
	return R
}

// TestVariantFrameFisher measures the Fisher frame metric: d² = Σ_j w_j
// (e_j·Δ)², e the per-class SPCA frame at the query (frameField), w_j =
// (R_j / max R)^α (fisherRatios, m nearest), times 1/ρ² on coordinate 0;
// K, ρ, α and k by leave-one-out (α 0 is SPCATangent).
func TestVariantFrameFisher(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	ratios := []float64{1, 1.5, 2, 3, 5}
	alphas := []float64{0, 1, 2, 4}
	mNear := 10
	if v, err := strconv.Atoi(os.Getenv("SPCA_FISHER_M")); err == nil {
		mNear = v
	}
	for _, set := range sets {
		var eu, ma, fr []float64
		choices := map[string]int{}
		diag := map[string][]float64{}
		var dorder []string
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			ea, _ := e.Accuracy(test.X, test.Label)
			mh, _, _ := TrainSelect(train.X, train.Label, 2, Mahalanobis, ks, nil)
			mha, _ := mh.Accuracy(test.X, test.Label)
			eu, ma = append(eu, ea), append(ma, mha)
			base := spca.DefaultOptions()
			base.Seed, base.Resolution, base.DensityFloor = 1, 1<<14, 1
			fBest := -1.0
			var fw []float64
			var fk int
			var fm []*spca.Model
			fKey := ""
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := base
				opt.K = K
				mods, err := perClassModels(train.X, train.Label, opt)
				if err != nil {
					continue
				}
				p := project(train.X, train.X, frameField(mods, train.X))
				R := fisherRatios(p, train.Label, mNear)
				top := 0.0
				for _, r := range R {
					top = max(top, r)
				}
				var pt projections
				if os.Getenv("SPCA_DIAG") != "" {
					pt = project(train.X, test.X, frameField(mods, test.X))
				}
				for _, a := range alphas {
					for _, r := range ratios {
						w := make([]float64, len(R))
						for j := range w {
							w[j] = math.Pow(R[j]/top, a)
						}
						w[0] /= r * r
						acc, k := bestK(e, p.neighboursW(w, looNeighbours(ks)), ks)
						key := fmt.Sprintf("K%g α%g ρ%g", K, a, r)
						if acc > fBest {
							fBest, fw, fk, fm, fKey = acc, w, k, mods, key
						}
						if pt.sq != nil {
							if diag[key] == nil {
								dorder = append(dorder, key)
							}
							diag[key] = append(diag[key], heldOut(e, pt.neighboursW(w, k), k, test.Label)-ea)
						}
					}
				}
				fmt.Printf("  K%g R %.2f\n", K, R)
			}
			p := project(train.X, test.X, frameField(fm, test.X))
			fha := heldOut(e, p.neighboursW(fw, fk), fk, test.Label)
			fr = append(fr, fha)
			choices[fKey]++
			fmt.Printf("%s pair %d: euclidean %.4f mahalanobis %.4f fisher-frame %.4f (%s w%.3f k%d loo %.4f)\n", set, s, ea, mha, fha, fKey, fw, fk, fBest)
		}
		for _, key := range dorder {
			m, sd := meanSD(diag[key])
			fmt.Printf("  %s: %+.4f±%.4f\n", key, m, sd)
		}
		printPaired(set, "fisher-frame", eu, fr, choices)
		dm := make([]float64, len(fr))
		for i := range fr {
			dm[i] = fr[i] - ma[i]
		}
		m, sd := meanSD(dm)
		fmt.Printf("%s: fisher-frame - mahalanobis %+.4f±%.4f\n", set, m, sd)
	}
}

// TestVariantFrameFixed prints the held-out difference from Euclidean
// k-NN of fixed frame weights (SPCA_FIXED "K:w0,w1,...;..."), k by
// leave-one-out: a diagnostic of what the frames can give, never a choice.
func TestVariantFrameFixed(t *testing.T) { frameFixed(t, false) }

// frameFixed measures fixed frame weights, with the frames at the
// queries or (own) at the training samples.
func frameFixed(t *testing.T, own bool) {
	seeds, first, sets := variantPairs(t)
	type cfg struct {
		K float64
		w []float64
	}
	var cfgs []cfg
	for _, c := range strings.Split(os.Getenv("SPCA_FIXED"), ";") {
		kw := strings.Split(c, ":")
		K, _ := strconv.ParseFloat(kw[0], 64)
		var w []float64
		for _, f := range strings.Split(kw[1], ",") {
			x, _ := strconv.ParseFloat(f, 64)
			w = append(w, x)
		}
		cfgs = append(cfgs, cfg{K, w})
	}
	for _, set := range sets {
		diffs := make([][]float64, len(cfgs))
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			ea, _ := e.Accuracy(test.X, test.Label)
			line := fmt.Sprintf("%s pair %d: euclidean %.4f", set, s, ea)
			for ci, c := range cfgs {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, c.K
				mods, err := perClassModels(train.X, train.Label, opt)
				if err != nil {
					t.Fatal(err)
				}
				var p, pt projections
				if own {
					Ex := ownFrames(mods, train.X, train.Label)
					p, pt = projectAt(train.X, train.X, Ex), projectAt(train.X, test.X, Ex)
				} else {
					p = project(train.X, train.X, frameField(mods, train.X))
					pt = project(train.X, test.X, frameField(mods, test.X))
				}
				_, k := bestK(e, p.neighboursW(c.w, looNeighbours(ks)), ks)
				h := heldOut(e, pt.neighboursW(c.w, k), k, test.Label)
				diffs[ci] = append(diffs[ci], h-ea)
				line += fmt.Sprintf(" | %.4f k%d", h, k)
			}
			fmt.Println(line)
		}
		for ci, c := range cfgs {
			m, sd := meanSD(diffs[ci])
			fmt.Printf("%s K%g w%v: %+.4f±%.4f\n", set, c.K, c.w, m, sd)
		}
	}
}

// ownFrames returns, for every training row, the orthonormalised frame of
// its own class's SPCA model at the sample (inside the class's support,
// where the model does not extrapolate).
func ownFrames(mods []*spca.Model, x *mat.Dense, label []int) [][][]float64 {
	n, _ := x.Dims()
	out := make([][][]float64, n)
	for cl, m := range mods {
		var ix []int
		for i, l := range label {
			if l == cl {
				ix = append(ix, i)
			}
		}
		f := frameField([]*spca.Model{m}, subRows(x, ix))
		for j, i := range ix {
			out[i] = f[j]
		}
	}
	return out
}

// projectAt is project with the frames at the training samples: the
// components of Δ on the frame of the training sample.
func projectAt(x, q *mat.Dense, Ex [][][]float64) projections {
	return projectWith(x, q, func(_, l int) [][]float64 { return Ex[l] })
}

// TestVariantOwnFrameFixed is TestVariantFrameFixed with the frames of the
// training samples' own class models at the training samples.
func TestVariantOwnFrameFixed(t *testing.T) { frameFixed(t, true) }

// originFrame returns the per-class models' ranked directions at their
// origins (Directions), the two classes' j-th summed with signs aligned
// and orthonormalised in rank order: one global frame.
func originFrame(mods []*spca.Model) [][]float64 {
	d := mods[0].Dim()
	var E [][]float64
	for j := range d {
		e := make([]float64, d)
		for _, m := range mods {
			g := mat.Col(nil, j, m.Directions())
			nrm := math.Sqrt(sqDist(g, make([]float64, d), nil))
			sg := 1 / nrm
			dot := 0.0
			for k := range d {
				dot += e[k] * g[k]
			}
			if dot < 0 {
				sg = -sg
			}
			for k := range d {
				e[k] += sg * g[k]
			}
		}
		for _, f := range E {
			dot := 0.0
			for k := range d {
				dot += f[k] * e[k]
			}
			for k := range d {
				e[k] -= dot * f[k]
			}
		}
		nrm := math.Sqrt(sqDist(e, make([]float64, d), nil))
		for k := range d {
			e[k] /= nrm
		}
		E = append(E, e)
	}
	return E
}

// globalFisher returns, along every direction of E, the squared
// difference of the class means over the pooled within-class variance.
func globalFisher(x *mat.Dense, label []int, E [][]float64) []float64 {
	n, _ := x.Dims()
	F := make([]float64, len(E))
	for j, e := range E {
		var sum, sq [2]float64
		var cnt [2]float64
		for i := range n {
			v := 0.0
			for k, ek := range e {
				v += ek * x.At(i, k)
			}
			sum[label[i]] += v
			sq[label[i]] += v * v
			cnt[label[i]]++
		}
		m0, m1 := sum[0]/cnt[0], sum[1]/cnt[1]
		w := (sq[0] - cnt[0]*m0*m0 + sq[1] - cnt[1]*m1*m1) / (cnt[0] + cnt[1] - 2)
		F[j] = (m1 - m0) * (m1 - m0) / w
	}
	return F
}

// TestVariantGlobalFisher measures d² = Σ_j w_j (e_j·Δ)² with e the
// per-class models' origin frame (originFrame) and w_j = (F_j/max F)^α
// (globalFisher); K, α and k by leave-one-out (α 0: Euclidean).
func TestVariantGlobalFisher(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	alphas := []float64{0, 0.25, 0.5, 1, 2}
	for _, set := range sets {
		var eu, fr []float64
		choices := map[string]int{}
		diag := map[string][]float64{}
		var dorder []string
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			ea, _ := e.Accuracy(test.X, test.Label)
			eu = append(eu, ea)
			n, _ := train.X.Dims()
			nq, _ := test.X.Dims()
			best, bk, key := -1.0, 0, ""
			var bE [][]float64
			var bw []float64
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, K
				mods, err := perClassModels(train.X, train.Label, opt)
				if err != nil {
					continue
				}
				E := originFrame(mods)
				F := globalFisher(train.X, train.Label, E)
				top := slicesMax(F)
				fill := func(m int) [][][]float64 {
					out := make([][][]float64, m)
					for i := range out {
						out[i] = E
					}
					return out
				}
				p := project(train.X, train.X, fill(n))
				pt := project(train.X, test.X, fill(nq))
				for _, a := range alphas {
					w := make([]float64, len(F))
					for j := range w {
						w[j] = math.Pow(F[j]/top, a)
					}
					acc, k := bestK(e, p.neighboursW(w, looNeighbours(ks)), ks)
					kk := fmt.Sprintf("K%g α%g", K, a)
					if acc > best {
						best, bk, key, bE, bw = acc, k, kk, E, w
					}
					h := heldOut(e, pt.neighboursW(w, k), k, test.Label)
					if diag[kk] == nil {
						dorder = append(dorder, kk)
					}
					diag[kk] = append(diag[kk], h-ea)
				}
				if s == first {
					fmt.Printf("  K%g F %.3f\n", K, F)
				}
			}
			fill := make([][][]float64, nq)
			for i := range fill {
				fill[i] = bE
			}
			h := heldOut(e, project(train.X, test.X, fill).neighboursW(bw, bk), bk, test.Label)
			fr = append(fr, h)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f global-fisher %.4f (%s w%.3f k%d loo %.4f)\n", set, s, ea, h, key, bw, bk, best)
		}
		if os.Getenv("SPCA_DIAG") != "" {
			for _, key := range dorder {
				m, sd := meanSD(diag[key])
				fmt.Printf("  %s: %+.4f±%.4f\n", key, m, sd)
			}
		}
		printPaired(set, "global-fisher", eu, fr, choices)
	}
}

func slicesMax(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// fisherMap returns A x for every row of x, A = diag(w)^½ E (the frame's
// directions as rows).
func fisherMap(x *mat.Dense, E [][]float64, w []float64) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		a := x.RawRowView(i)
		o := out.RawRowView(i)
		for j, e := range E {
			v := 0.0
			for k := range d {
				v += e[k] * a[k]
			}
			o[j] = math.Sqrt(w[j]) * v
		}
	}
	return out
}

func mapTangents(t [][]float64, E [][]float64, w []float64) [][]float64 {
	out := make([][]float64, len(t))
	for i, ti := range t {
		o := make([]float64, len(E))
		s := 0.0
		for j, e := range E {
			v := 0.0
			for k := range e {
				v += e[k] * ti[k]
			}
			o[j] = math.Sqrt(w[j]) * v
			s += o[j] * o[j]
		}
		if s > 0 {
			for j := range o {
				o[j] /= math.Sqrt(s)
			}
		}
		out[i] = o
	}
	return out
}

// TestVariantFisherTangent measures SPCATangent in the Fisher-weighted
// frame: x -> diag(w)^½ E x with E the per-class models' origin frame and
// w_j = (F_j/max F)^α (globalFisher), the tangents mapped likewise; K, α
// (0: SPCATangent), ρ and k by leave-one-out.
func TestVariantFisherTangent(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	alphas := []float64{0, 0.25, 0.5, 1}
	if os.Getenv("SPCA_FRAME") != "" {
		alphas = []float64{0, 1, 0.3, 0.1, 0.03}
	}
	sat := os.Getenv("SPCA_FW") == "sat"
	if sat {
		alphas = []float64{0, 0.03, 0.1, 0.3, 1}
	}
	soft := os.Getenv("SPCA_SOFT") != ""
	ratios := []float64{1, 1.5, 2, 3, 5}
	for _, set := range sets {
		var eu, ma, ta, fr []float64
		choices := map[string]int{}
		for s := first; s < first+seeds; s++ {
			train, _ := testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
			test, _ := testimages.GenerateClasses(set, 600, uint64(2*s))
			e, _, _ := TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
			ea, _ := e.Accuracy(test.X, test.Label)
			mh, _, _ := TrainSelect(train.X, train.Label, 2, Mahalanobis, ks, nil)
			mha, _ := mh.Accuracy(test.X, test.Label)
			eu, ma = append(eu, ea), append(ma, mha)
			tBest, fBest := -1.0, -1.0
			tSoft, fSoft := -1.0, -1.0
			var tH, fH float64
			key := ""
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.DensityFloor, opt.K = 1, 1<<14, 1, K
				mods, err := perClassModels(train.X, train.Label, opt)
				if err != nil {
					continue
				}
				first0 := func(f [][][]float64) [][]float64 {
					out := make([][]float64, len(f))
					for i := range f {
						out[i] = f[i][0]
					}
					return out
				}
				tt, th := first0(frameField(mods, train.X)), first0(frameField(mods, test.X))
				E := originFrame(mods)
				F := globalFisher(train.X, train.Label, E)
				switch os.Getenv("SPCA_FRAME") {
				case "curve":
					E, F = betweenFrame(curveGaps(mods, train.X, train.Label))
				case "curve5":
					o5 := opt
					o5.K = 0.5
					m5, err := perClassModels(train.X, train.Label, o5)
					if err != nil {
						t.Fatal(err)
					}
					E, F = betweenFrame(curveGaps(m5, train.X, train.Label))
				case "spcalocal":
					E, F = betweenFrame(spcaGaps(mods, train.X, train.Label, 10))
				case "local":
					E, F = betweenFrame(localGaps(train.X, train.Label, 10))
				}
				top := slicesMax(F)
				for _, a := range alphas {
					w := make([]float64, len(F))
					for j := range w {
						w[j] = math.Pow(F[j]/top, a)
						if sat && a > 0 {
							w[j] = F[j] / (F[j] + a*top)
						}
						if os.Getenv("SPCA_FRAME") != "" && a > 0 {
							w[j] = (F[j]/top + a) / (1 + a)
						}
					}
					xs, qs := fisherMap(train.X, E, w), fisherMap(test.X, E, w)
					ts, hs := mapTangents(tt, E, w), mapTangents(th, E, w)
					for _, r := range ratios {
						nb := tangentNeighbours(xs, xs, ts, r, looNeighbours(ks))
						acc, k := bestK(e, nb, ks)
						sh := 0.0
						if soft {
							acc, sh, k = bestKSoft(e, nb, ks)
						}
						better := func(a, s, ba, bs float64) bool { return a > ba || a == ba && s > bs }
						var h float64
						if better(acc, sh, fBest, fSoft) || a == 0 && better(acc, sh, tBest, tSoft) {
							h = heldOut(e, tangentNeighbours(xs, qs, hs, r, k), k, test.Label)
						}
						if a == 0 && better(acc, sh, tBest, tSoft) {
							tBest, tSoft, tH = acc, sh, h
						}
						if better(acc, sh, fBest, fSoft) {
							fBest, fSoft, fH, key = acc, sh, h, fmt.Sprintf("K%g α%g ρ%g", K, a, r)
						}
					}
				}
			}
			ta, fr = append(ta, tH), append(fr, fH)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f mahalanobis %.4f tangent %.4f fisher-tangent %.4f (%s loo %.4f)\n", set, s, ea, mha, tH, fH, key, fBest)
		}
		printPaired(set, "mahalanobis", eu, ma, nil)
		printPaired(set, "tangent", eu, ta, nil)
		printPaired(set, "fisher-tangent", eu, fr, choices)
		dm := make([]float64, len(fr))
		for i := range fr {
			dm[i] = fr[i] - ma[i]
		}
		m, sd := meanSD(dm)
		fmt.Printf("%s: fisher-tangent - mahalanobis %+.4f±%.4f\n", set, m, sd)
	}
}

// bestKSoft is bestK with ties of the leave-one-out accuracy broken by
// the mean share of a sample's k nearest (itself left out) that have its
// label: a smoother score where the accuracy saturates.
func bestKSoft(c *Classifier, nb [][]neighbour, ks []int) (float64, float64, int) {
	best, bs, bk := -1.0, -1.0, 0
	for _, k := range ks {
		right, share := 0, 0.0
		for i := range nb {
			if c.vote(nb[i], k, i) == c.label[i] {
				right++
			}
			same, taken := 0, 0
			for _, x := range nb[i] {
				if x.row == i {
					continue
				}
				if c.label[x.row] == c.label[i] {
					same++
				}
				if taken++; taken == k {
					break
				}
			}
			share += float64(same) / float64(k)
		}
		acc := float64(right) / float64(len(nb))
		share /= float64(len(nb))
		if acc > best || acc == best && share > bs {
			best, bs, bk = acc, share, k
		}
	}
	return best, bs, bk
}

// curveGaps returns, for every training sample, the vector from its
// projection on its own class's first SPCA curve to its projection on the
// other class's: the local between-class gap the class curves give.
func curveGaps(mods []*spca.Model, x *mat.Dense, label []int) [][]float64 {
	n, d := x.Dims()
	curves := []*mat.Dense{mods[0].FirstCurve(), mods[1].FirstCurve()}
	out := make([][]float64, n)
	for i := range n {
		a := x.RawRowView(i)
		po, pt := projectPolyline(curves[label[i]], a), projectPolyline(curves[1-label[i]], a)
		g := make([]float64, d)
		for j := range d {
			g[j] = pt[j] - po[j]
		}
		out[i] = g
	}
	return out
}

// localGaps: the mean of a sample's m nearest of the other class minus
// that of its m nearest of its own class (itself left out).
func localGaps(x *mat.Dense, label []int, m int) [][]float64 {
	n, d := x.Dims()
	out := make([][]float64, n)
	for i := range n {
		var own, oth []neighbour
		a := x.RawRowView(i)
		for l := range n {
			if l == i {
				continue
			}
			nb := neighbour{sqDist(a, x.RawRowView(l), nil), l}
			if label[l] == label[i] {
				own = keepNearest(own, nb, m)
			} else {
				oth = keepNearest(oth, nb, m)
			}
		}
		g := make([]float64, d)
		for _, nb := range oth {
			for j := range d {
				g[j] += x.At(nb.row, j) / float64(len(oth))
			}
		}
		for _, nb := range own {
			for j := range d {
				g[j] -= x.At(nb.row, j) / float64(len(own))
			}
		}
		out[i] = g
	}
	return out
}

// betweenFrame returns the eigenvectors (rows) and eigenvalues of the
// mean outer product of the gaps.
func betweenFrame(gaps [][]float64) ([][]float64, []float64) {
	d := len(gaps[0])
	B := mat.NewSymDense(d, nil)
	for _, g := range gaps {
		for j := range d {
			for k := j; k < d; k++ {
				B.SetSym(j, k, B.At(j, k)+g[j]*g[k]/float64(len(gaps)))
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(B, true) {
		panic("eigen")
	}
	var V mat.Dense
	es.VectorsTo(&V)
	vals := es.Values(nil)
	E := make([][]float64, d)
	for j := range d {
		E[j] = mat.Col(nil, j, &V)
		vals[j] = max(vals[j], 0)
	}
	return E, vals
}

// spcaGaps is localGaps with the nearest samples of class c found in the
// responses of class c's SPCA model.
func spcaGaps(mods []*spca.Model, x *mat.Dense, label []int, m int) [][]float64 {
	n, d := x.Dims()
	var resp []*mat.Dense
	for _, mod := range mods {
		r, _, err := mod.TransformBatch(x)
		if err != nil {
			panic(err)
		}
		resp = append(resp, r)
	}
	out := make([][]float64, n)
	for i := range n {
		var near [2][]neighbour
		for c := range 2 {
			a := resp[c].RawRowView(i)
			for l := range n {
				if l == i || label[l] != c {
					continue
				}
				near[c] = keepNearest(near[c], neighbour{sqDist(a, resp[c].RawRowView(l), nil), l}, m)
			}
		}
		g := make([]float64, d)
		for c := range 2 {
			sg := 1.0
			if c == label[i] {
				sg = -1
			}
			for _, nb := range near[c] {
				for j := range d {
					g[j] += sg * x.At(nb.row, j) / float64(len(near[c]))
				}
			}
		}
		out[i] = g
	}
	return out
}
