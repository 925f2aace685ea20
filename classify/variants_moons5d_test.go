package classify

// Session 20 measurements for issue 25's moons5d set (classify/MEASUREMENTS.md,
// "Session 20"): whether SPCA itself can do the work there. The
// class-conditional SPCA density (the log-determinant of the Jacobian of
// a gamma-1 per-class model) alone and in the k-NN vote; per-response
// Fisher weights of one SPCA model of all the samples; SPCA fitted after
// spca-fisher's frame; the density exponent in that frame; frames built
// from SPCA without the labels' gaps (negentropy of the unfolded
// coordinates, the scatter of the projections on the class curves, the
// share of each principal axis's variance they keep);
// what the stretch adds inside spca-fisher; and the bound a metric of
// the moons' plane has (oracle plane, Bayes). Measurements, not checks:
// they run only with SPCA_VARIANTS=1 (SPCA_SEEDS pairs from SPCA_FIRST,
// SPCA_SETS).

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// logDensities returns, for every row of q, log |det ∂R/∂x| of mod's
// transform R (central differences of step h): with gamma 1 the
// responses equalise the density, so this is the model's log density.
func logDensities(mod *spca.Model, q *mat.Dense, h float64) []float64 {
	out := make([]float64, q.RawMatrix().Rows)
	for i, J := range batchJacobians(mod.TransformBatch, q, h) {
		var lu mat.LU
		lu.Factorize(J)
		out[i], _ = lu.LogDet()
	}
	return out
}

// TestVariantLikelihood prints the held-out accuracy of the SPCA
// likelihood classifier (the class whose gamma-1 model gives the larger
// log density) for every option, and the leave-in training accuracy.
func TestVariantLikelihood(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	for _, set := range sets {
		for s := first; s < first+seeds; s++ {
			train, test, _, ea := variantPair(set, s)
			fmt.Printf("%s pair %d: euclidean %.4f\n", set, s, ea)
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				for _, bw := range []float64{0.25, 1} {
					for _, cond := range []float64{0.1, 1} {
						for _, floor := range []float64{0, 0.01} {
							opt := spca.DefaultOptions()
							opt.Seed, opt.Resolution, opt.K, opt.Gamma = 1, 1<<14, K, 1
							opt.Bandwidth, opt.Conditioning, opt.DensityFloor = bw, cond, floor
							mods, err := perClassModels(train.X, train.Label, opt)
							if err != nil {
								continue
							}
							acc := func(x *mat.Dense, label []int) float64 {
								l0 := logDensities(mods[0], x, tangentStep*mods[0].MaxDistance())
								l1 := logDensities(mods[1], x, tangentStep*mods[1].MaxDistance())
								right := 0
								for i := range label {
									if (l1[i] > l0[i]) == (label[i] == 1) {
										right++
									}
								}
								return float64(right) / float64(len(label))
							}
							fmt.Printf("  K%g bw%g cond%g floor%g: train %.4f held-out %.4f\n", K, bw, cond, floor, acc(train.X, train.Label), acc(test.X, test.Label))
						}
					}
				}
			}
		}
	}
}

// oddsVote returns the label of the k nearest of nb (skipping row skip)
// by the log-odds log((n1+½)/(n0+½)) + lambda·llr, llr the query's log
// density ratio of class 1's model to class 0's (ties to the k-NN vote).
func oddsVote(c *Classifier, nb []neighbour, k, skip int, llr, lambda float64) int {
	var n [2]float64
	taken := 0
	for _, x := range nb {
		if x.row == skip {
			continue
		}
		n[c.label[x.row]]++
		if taken++; taken == k {
			break
		}
	}
	s := math.Log((n[1]+0.5)/(n[0]+0.5)) + lambda*llr
	if s == 0 {
		return c.vote(nb, k, skip)
	}
	if s > 0 {
		return 1
	}
	return 0
}

// TestVariantLikelihoodKNN measures the tangent k-NN whose vote is
// shifted by the class-conditional SPCA log density ratio (weight λ),
// K, ρ, k and λ chosen by leave-one-out (λ only for a strict gain).
func TestVariantLikelihoodKNN(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	lambdas := []float64{0, 0.03, 0.1, 0.3, 1, 3}
	bw := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("SPCA_BW"), 64); err == nil {
		bw = v
	}
	for _, set := range sets {
		var eu, ta, li []float64
		choices := map[string]int{}
		on := 0
		for s := first; s < first+seeds; s++ {
			train, test, _, ea := variantPair(set, s)
			tBest, lBest := -1.0, -1.0
			var tH, lH float64
			key := ""
			diag := ""
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				opt := spca.DefaultOptions()
				opt.Seed, opt.Resolution, opt.K, opt.Gamma = 1, 1<<14, K, 1
				opt.Bandwidth, opt.DensityFloor = bw, 1e-9
				c, err := trainMetric(train.X, train.Label, SPCATangent, opt)
				if err != nil {
					continue
				}
				llr := func(x *mat.Dense) []float64 {
					l0 := logDensities(c.Models[0], x, tangentStep*c.Models[0].MaxDistance())
					l1 := logDensities(c.Models[1], x, tangentStep*c.Models[1].MaxDistance())
					for i := range l0 {
						l1[i] -= l0[i]
					}
					return l1
				}
				lx, lq := llr(train.X), llr(test.X)
				tx, _ := c.tangents(train.X)
				tq, _ := c.tangents(test.X)
				for _, r := range TangentRatios {
					cr := *c
					cr.Ratio = r
					nbx, _ := cr.distancesWith(train.X, looNeighbours(ks), tx)
					nbq, _ := cr.distancesWith(test.X, slicesMaxInt(ks), tq)
					for li, lam := range lambdas {
						for _, k := range ks {
							right := 0
							for i := range nbx {
								if oddsVote(&cr, nbx[i], k, i, lx[i], lam) == cr.label[i] {
									right++
								}
							}
							acc := float64(right) / float64(len(nbx))
							better := acc > lBest
							betterT := li == 0 && acc > tBest
							if !better && !betterT && os.Getenv("SPCA_DIAG") == "" {
								continue
							}
							hr := 0
							for i := range nbq {
								if oddsVote(&cr, nbq[i], k, -1, lq[i], lam) == test.Label[i] {
									hr++
								}
							}
							h := float64(hr) / float64(len(nbq))
							if better {
								lBest, lH, key = acc, h, fmt.Sprintf("K%g ρ%g λ%g", K, r, lam)
							}
							if betterT {
								tBest, tH = acc, h
							}
							if os.Getenv("SPCA_DIAG") != "" && k == 7 && r == 1 {
								diag += fmt.Sprintf(" K%gλ%g:%.3f/%.3f", K, lam, acc, h)
							}
						}
					}
				}
			}
			eu, ta, li = append(eu, ea), append(ta, tH), append(li, lH)
			choices[key]++
			if !strings.Contains(key, "λ0 ") && !strings.HasSuffix(key, "λ0") {
				on++
			}
			fmt.Printf("%s pair %d: euclidean %.4f tangent %.4f likelihood-knn %.4f (%s loo %.4f)%s\n", set, s, ea, tH, lH, key, lBest, diag)
		}
		printPaired(set, "tangent", eu, ta, nil)
		printPaired(set, "likelihood-knn", eu, li, choices)
		fmt.Printf("%s: likelihood term on in %d of %d pairs\n", set, on, seeds)
	}
}

func slicesMaxInt(v []int) int {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// weightedNeighbours returns, for every row of fq, its m nearest rows of
// fx under the squared distance with dimension weights w.
func weightedNeighbours(fx, fq *mat.Dense, w []float64, m int) [][]neighbour {
	n, _ := fq.Dims()
	nx, _ := fx.Dims()
	out := make([][]neighbour, n)
	for i := range n {
		a := fq.RawRowView(i)
		for l := range nx {
			out[i] = keepNearest(out[i], neighbour{sqDist(a, fx.RawRowView(l), w), l}, m)
		}
	}
	return out
}

// diagShares returns the per-dimension weights of the mean squared gaps g
// (localGaps in the feature domain) for share s: (g_j/max + s)/(1 + s);
// s < 0 gives nil (every weight 1).
func diagShares(gaps [][]float64, s float64) []float64 {
	if s < 0 {
		return nil
	}
	d := len(gaps[0])
	g := make([]float64, d)
	for _, v := range gaps {
		for j := range d {
			g[j] += v[j] * v[j]
		}
	}
	top := slicesMax(g)
	w := make([]float64, d)
	for j := range d {
		w[j] = (g[j]/top + s) / (1 + s)
	}
	return w
}

// TestVariantResponseFisher measures k-NN in the responses of one SPCA
// model of all the training samples (spca.Distance) with every response
// weighted by how far the classes lie apart along it (the mean squared
// local gap of each response, share s), K, gamma, s and k chosen by
// leave-one-out; beside the same weighting of the input axes and of the
// PCA-whitened (Mahalanobis) axes, the linear controls.
func TestVariantResponseFisher(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	shares := []float64{-1, 1, 0.3, 0.1, 0.03}
	for _, set := range sets {
		var eu, sp, in, wh []float64
		choices := map[string]int{}
		on := 0
		for s := first; s < first+seeds; s++ {
			train, test, e, ea := variantPair(set, s)
			// best returns the held-out accuracy of the best (LOO) share
			// and k in the feature domain fx/fq, and the LOO accuracy.
			best := func(fx, fq *mat.Dense, bestAcc *float64, key *string, tag string) (float64, bool) {
				gaps := localGaps(fx, train.Label, 10)
				var h float64
				got := false
				for _, sh := range shares {
					w := diagShares(gaps, sh)
					nb := weightedNeighbours(fx, fx, w, looNeighbours(ks))
					acc, k := bestK(e, nb, ks)
					if acc > *bestAcc {
						*bestAcc, got = acc, true
						h = heldOut(e, weightedNeighbours(fx, fq, w, k), k, test.Label)
						*key = fmt.Sprintf("%s s%g k%d", tag, sh, k)
					}
				}
				return h, got
			}
			inAcc, inKey := -1.0, ""
			inH, _ := best(train.X, test.X, &inAcc, &inKey, "input")
			white, _ := whitening(train.X)
			wx, _ := white(train.X)
			wq, _ := white(test.X)
			whAcc, whKey := -1.0, ""
			whH, _ := best(wx, wq, &whAcc, &whKey, "white")
			spAcc, spKey := -1.0, ""
			var spH float64
			for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
				for _, g := range []float64{0, 1.0 / 3, 1} {
					opt := spca.DefaultOptions()
					opt.Seed, opt.Resolution, opt.K, opt.Gamma = 1, 1<<14, K, g
					m, err := spca.Fit(train.X, opt)
					if err != nil {
						continue
					}
					rx, _, _ := m.TransformBatch(train.X)
					rq, _, _ := m.TransformBatch(test.X)
					if h, ok := best(rx, rq, &spAcc, &spKey, fmt.Sprintf("K%g γ%.2g", K, g)); ok {
						spH = h
					}
				}
			}
			eu, sp, in, wh = append(eu, ea), append(sp, spH), append(in, inH), append(wh, whH)
			choices[spKey]++
			if !strings.Contains(spKey, "s-1") {
				on++
			}
			fmt.Printf("%s pair %d: euclidean %.4f input-diag %.4f (%s loo %.4f) white-diag %.4f (%s loo %.4f) spca-resp %.4f (%s loo %.4f)\n", set, s, ea, inH, inKey, inAcc, whH, whKey, whAcc, spH, spKey, spAcc)
		}
		printPaired(set, "input-diag", eu, in, nil)
		printPaired(set, "white-diag", eu, wh, nil)
		printPaired(set, "spca-resp-fisher", eu, sp, choices)
		fmt.Printf("%s: response weights on in %d of %d pairs\n", set, on, seeds)
	}
}

// framedRows returns the rows of x mapped by frame (x·frameᵀ).
func framedRows(x mat.Matrix, frame *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Mul(x, frame.T())
	return &out
}

// TestVariantFramedSPCA measures SPCATangent with its class models
// fitted in SPCAFisher's frame (the samples mapped by the frame before
// SPCA, so the curves follow the classes' plane and not the noise axes),
// the frame, K, ρ and k chosen by leave-one-out; and how often
// leave-one-out keeps the stretch (ρ > 1), beside spca-fisher.
func TestVariantFramedSPCA(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	base := spca.DefaultOptions()
	base.Seed, base.Resolution = 1, 1<<14
	for _, set := range sets {
		var eu, fi, fr, fr1 []float64
		choices := map[string]int{}
		on, fon := 0, 0
		for s := first; s < first+seeds; s++ {
			train, test, e, ea := variantPair(set, s)
			f, _, err := TrainSelect(train.X, train.Label, 2, SPCAFisher, ks, SelectionGrid(base))
			if err != nil {
				t.Fatal(err)
			}
			fa, _ := f.Accuracy(test.X, test.Label)
			if f.Ratio > 1 {
				fon++
			}
			frames := e.fisherFrames(FisherShares)
			bestAcc, bestH, best1, key := -1.0, 0.0, 0.0, ""
			for fi, frame := range frames {
				xf, qf := framedRows(train.X, frame), framedRows(test.X, frame)
				c, acc, err := TrainSelect(xf, train.Label, 2, SPCATangent, ks, SelectionGrid(base))
				if err != nil {
					continue
				}
				if acc > bestAcc {
					h, _ := c.Accuracy(qf, test.Label)
					// The same frame without the stretch (ρ 1, its own k).
					c1, _, _ := TrainSelect(xf, train.Label, 2, Euclidean, ks, nil)
					h1, _ := c1.Accuracy(qf, test.Label)
					bestAcc, bestH, best1 = acc, h, h1
					key = fmt.Sprintf("frame%d K%g ρ%g k%d", fi, c.Models[0].Options().K, c.Ratio, c.K)
					if c.Ratio > 1 {
						key += " on"
					}
				}
			}
			if strings.HasSuffix(key, " on") {
				on++
			}
			eu, fi, fr, fr1 = append(eu, ea), append(fi, fa), append(fr, bestH), append(fr1, best1)
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f spca-fisher %.4f (ρ%g) framed-spca %.4f (%s loo %.4f; its frame at ρ1 %.4f)\n", set, s, ea, fa, f.Ratio, bestH, key, bestAcc, best1)
		}
		printPaired(set, "spca-fisher", eu, fi, nil)
		printPaired(set, "framed-spca", eu, fr, choices)
		printPaired(set, "framed-spca's frame at ρ1", eu, fr1, nil)
		fmt.Printf("%s: stretch kept in %d of %d pairs (spca-fisher %d)\n", set, on, seeds, fon)
	}
}

// negentropy returns the Gaussian entropy of v's variance minus v's
// entropy (Vasicek's m-spacing estimate, m = √n): 0 for Gaussian
// samples, larger the more structure (bimodal, uniform) they have.
func negentropy(v []float64) float64 {
	x := append([]float64(nil), v...)
	sort.Float64s(x)
	n := len(x)
	m := max(1, int(math.Round(math.Sqrt(float64(n)))))
	h := 0.0
	for i := range n {
		lo, hi := x[max(0, i-m)], x[min(n-1, i+m)]
		h += math.Log(float64(n) / float64(2*m) * math.Max(hi-lo, 1e-300))
	}
	h /= float64(n)
	_, sd := meanSD(x)
	return 0.5*math.Log(2*math.Pi*math.E*sd*sd) - h
}

// structureFrame returns the frame of the directions E (columns)
// weighted by the negentropies J_j of the samples' coordinates (coords'
// column j) for share s (shareFrame), and J.
func structureFrame(E, coords *mat.Dense, s float64) (*mat.Dense, []float64) {
	d, _ := E.Dims()
	J := make([]float64, d)
	for j := range d {
		J[j] = max(0, negentropy(mat.Col(nil, j, coords)))
	}
	return shareFrame(E, J, slicesMax(J), s), J
}

// selectFramed is TrainSelect of SPCAFisher with the frames that frames
// returns for each classifier (K 0.1-0.5, gamma 0; the first frame the
// identity) instead of the gaps' scatter. perK: the frames depend on the
// classifier's models, so only the identity's ρ 1 is measured once.
func selectFramed(x *mat.Dense, label []int, frames func(c *Classifier, opt spca.Options) []*mat.Dense, perK bool) (*Classifier, float64, int) {
	var best *Classifier
	bestAcc, bestF := -1.0, 0
	tried1 := map[int]bool{}
	for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
		opt := spca.DefaultOptions()
		opt.Seed, opt.Resolution, opt.K, opt.Gamma = 1, 1<<14, K, 0
		c, err := train(x, label, 2, SPCAFisher, 1, opt)
		if err != nil {
			continue
		}
		tq, _ := c.tangents(x)
		for fi, frame := range frames(c, opt) {
			cf := *c
			cf.Frame = frame
			if err := cf.build(); err != nil {
				panic(err)
			}
			for _, r := range TangentRatios {
				if r == 1 && tried1[fi] {
					continue
				}
				cr := cf
				cr.Ratio = r
				nb, _ := cr.distancesWith(x, looNeighbours(ks), tq)
				acc, _ := cr.selectK(nb, ks)
				if acc > bestAcc {
					best, bestAcc, bestF = &cr, acc, fi
				}
			}
			tried1[fi] = fi == 0 || !perK
		}
	}
	return best, bestAcc, bestF
}

// TestVariantStructureFrame measures the tangent metric in a frame
// weighted without the labels: the directions of an SPCA model of all
// the training samples (Directions, gamma 0) weighted by the negentropy
// of its unfolded coordinates (Gaussian noise axes have none, the
// classes' curved plane much); the share s, K, ρ and k chosen by
// leave-one-out. Control: the same with PCA's axes and projections.
func TestVariantStructureFrame(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	shares := []float64{1, 0.3, 0.1, 0.03, 0}
	for _, set := range sets {
		var eu, sf, pf []float64
		choices := map[string]int{}
		on, fon := 0, 0
		for s := first; s < first+seeds; s++ {
			train, test, _, ea := variantPair(set, s)
			_, d := train.X.Dims()
			ident := mat.NewDense(d, d, nil)
			for j := range d {
				ident.Set(j, j, 1)
			}
			run := func(E, coords *mat.Dense, tag string) float64 {
				frames := []*mat.Dense{ident}
				var J []float64
				for _, sh := range shares {
					f, j := structureFrame(E, coords, sh)
					frames, J = append(frames, f), j
				}
				c, acc, fi := selectFramed(train.X, train.Label, func(*Classifier, spca.Options) []*mat.Dense { return frames }, false)
				h, _ := c.Accuracy(test.X, test.Label)
				key := fmt.Sprintf("%s frame%d ρ%g", tag, fi, c.Ratio)
				fmt.Printf("  %s pair %d %s: J %.3f held-out %.4f (%s K%g k%d loo %.4f)\n", set, s, tag, J, h, key, c.Models[0].Options().K, c.K, acc)
				if tag == "spca" {
					choices[key]++
					if fi > 0 {
						fon++
					}
					if c.Ratio > 1 {
						on++
					}
				}
				return h
			}
			opt := spca.DefaultOptions()
			opt.Seed, opt.Resolution, opt.K, opt.Gamma = 1, 1<<14, 0.3, 0
			m, err := spca.Fit(train.X, opt)
			if err != nil {
				t.Fatal(err)
			}
			u, _, _ := m.UnfoldBatch(train.X)
			sh := run(m.Directions(), u, "spca")
			// PCA: eigenvectors of the covariance and the projections.
			var cov mat.SymDense
			stat.CovarianceMatrix(&cov, train.X, nil)
			var es mat.EigenSym
			es.Factorize(&cov, true)
			var V, p mat.Dense
			es.VectorsTo(&V)
			p.Mul(train.X, &V)
			ph := run(&V, &p, "pca")
			eu, sf, pf = append(eu, ea), append(sf, sh), append(pf, ph)
			fmt.Printf("%s pair %d: euclidean %.4f spca-structure %.4f pca-structure %.4f\n", set, s, ea, sh, ph)
		}
		printPaired(set, "spca-structure", eu, sf, choices)
		printPaired(set, "pca-structure", eu, pf, nil)
		fmt.Printf("%s: spca frame chosen in %d of %d pairs, stretch in %d\n", set, fon, seeds, on)
	}
}

// TestVariantMoonsPlaneBound measures how much any metric of the moons'
// plane can add on moons5d: the Bayes rule, Euclidean k-NN and
// spca-tangent on the two moons' axes alone (the noise axes dropped by
// an oracle), and Euclidean k-NN on all five.
func TestVariantMoonsPlaneBound(t *testing.T) {
	seeds, first, _ := variantPairs(t)
	base := spca.DefaultOptions()
	base.Seed, base.Resolution = 1, 1<<14
	var eu, by, pe, pt []float64
	on := 0
	for s := first; s < first+seeds; s++ {
		train, test, _, ea := variantPair("moons5d", s)
		right := 0
		for i := range 600 {
			p, _ := testimages.BayesPosterior("moons5d", test.X.RawRowView(i))
			if (p[1] > p[0]) == (test.Label[i] == 1) {
				right++
			}
		}
		plane := func(x *mat.Dense) *mat.Dense { return mat.DenseCopyOf(x.Slice(0, x.RawMatrix().Rows, 0, 2)) }
		xp, qp := plane(train.X), plane(test.X)
		c, _, _ := TrainSelect(xp, train.Label, 2, Euclidean, ks, nil)
		pa, _ := c.Accuracy(qp, test.Label)
		ct, _, err := TrainSelect(xp, train.Label, 2, SPCATangent, ks, SelectionGrid(base))
		if err != nil {
			t.Fatal(err)
		}
		ta, _ := ct.Accuracy(qp, test.Label)
		if ct.Ratio > 1 {
			on++
		}
		eu, by, pe, pt = append(eu, ea), append(by, float64(right)/600), append(pe, pa), append(pt, ta)
		fmt.Printf("pair %d: bayes %.4f euclidean-5d %.4f plane euclidean %.4f plane spca-tangent %.4f (ρ%g)\n", s, by[len(by)-1], ea, pa, ta, ct.Ratio)
	}
	printPaired("moons5d", "bayes", eu, by, nil)
	printPaired("moons5d", "plane euclidean", eu, pe, nil)
	printPaired("moons5d", "plane spca-tangent", eu, pt, nil)
	printPaired("moons5d plane", "plane spca-tangent vs plane euclidean", pe, pt, nil)
	printPaired("moons5d plane", "bayes vs plane euclidean", pe, by, nil)
	fmt.Printf("plane: stretch kept in %d of %d\n", on, seeds)
}

// curveProjections returns every training sample moved onto the first
// curve of its class's model (mods[label]): its unfolded coordinates
// after the first set to 0, walked back to the input (PositionWork), the
// seed's geodesic projection x⊥¹.
func curveProjections(mods []*spca.Model, x *mat.Dense, label []int) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	u := make([]float64, d)
	for i := range n {
		m := mods[min(label[i], len(mods)-1)]
		if _, err := m.Unfold(u, x.RawRowView(i)); err != nil {
			panic(err)
		}
		for j := 1; j < d; j++ {
			u[j] = 0
		}
		m.PositionWork(out.RawRowView(i), u, nil)
	}
	return out
}

// scatterFrames returns the identity and, for every share s, the frame
// diag(√((λ/λmax + s)/(1+s))) Vᵀ of the covariance of p = V Λ Vᵀ.
func scatterFrames(p *mat.Dense, shares []float64) ([]*mat.Dense, []float64) {
	lambda, v := covEigen(p)
	top := slicesMax(lambda)
	out := []*mat.Dense{identity(len(lambda))}
	for _, s := range shares {
		out = append(out, shareFrame(v, lambda, top, s))
	}
	for j := range lambda {
		lambda[j] /= top
	}
	return out, lambda
}

// TestVariantCurveFrame measures the tangent metric in the frame of the
// class curves' scatter: every training sample projected on its class's
// first SPCA curve (curveProjections; the curve is the local mean, so
// noise spread alike around it drops out), the covariance of the
// projections, and the frame of its eigenvectors weighted by its
// eigenvalues (share s); K, s, ρ and k by leave-one-out. SPCA_CURVE=all
// projects on the first curve of one model of all the samples instead.
func TestVariantCurveFrame(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	shares := []float64{1, 0.3, 0.1, 0.03}
	all := os.Getenv("SPCA_CURVE") == "all"
	for _, set := range sets {
		var eu, cf, c1 []float64
		choices := map[string]int{}
		on, fon := 0, 0
		for s := first; s < first+seeds; s++ {
			train, test, _, ea := variantPair(set, s)
			lams := map[float64][]float64{}
			best, bestAcc, bestF := selectFramed(train.X, train.Label, func(c *Classifier, opt spca.Options) []*mat.Dense {
				mods := c.Models
				if fk, err := strconv.ParseFloat(os.Getenv("SPCA_FRAMEK"), 64); err == nil {
					// The frame's curves from models of their own K.
					opt.K, opt.DensityFloor = fk, perClassFloor
					var err error
					if mods, err = perClassModels(train.X, train.Label, opt); err != nil {
						t.Fatal(err)
					}
				}
				if all {
					m, err := spca.Fit(train.X, opt)
					if err != nil {
						t.Fatal(err)
					}
					mods = []*spca.Model{m}
				}
				proj := curveProjections(mods, train.X, train.Label)
				frames, lam := scatterFrames(proj, shares)
				if os.Getenv("SPCA_CURVE") == "explained" {
					frames, lam = explainedFrames(train.X, proj, shares)
				}
				lams[c.Models[0].Options().K] = lam
				return frames
			}, true)
			bestLam := lams[best.Models[0].Options().K]
			h, _ := best.Accuracy(test.X, test.Label)
			// The same frame without the stretch, k by leave-one-out.
			b1 := *best
			b1.Ratio = 1
			nb, _ := b1.distancesWith(train.X, looNeighbours(ks), nil)
			b1.selectK(nb, ks)
			h1, _ := b1.Accuracy(test.X, test.Label)
			key := fmt.Sprintf("frame%d ρ%g", bestF, best.Ratio)
			choices[key]++
			if bestF > 0 {
				fon++
			}
			if best.Ratio > 1 {
				on++
			}
			eu, cf, c1 = append(eu, ea), append(cf, h), append(c1, h1)
			fmt.Printf("%s pair %d: euclidean %.4f curve-frame %.4f (%s K%g k%d loo %.4f; λ %.3f) at ρ1 %.4f\n", set, s, ea, h, key, best.Models[0].Options().K, best.K, bestAcc, bestLam, h1)
		}
		printPaired(set, "curve-frame", eu, cf, choices)
		printPaired(set, "curve-frame at ρ1", eu, c1, nil)
		fmt.Printf("%s: curve frame chosen in %d of %d pairs, stretch in %d\n", set, fon, seeds, on)
	}
}

// TestVariantFramedDensity measures the seed's SPCA metric with its
// density exponent: one SPCA model per class fitted in spca-fisher's
// frame, distances to class c's samples in c's responses, every response
// scaled to its class's unfolded extent (input units, not whitened, so
// the frame's squashed noise axes stay squashed), gamma 0 (arc length),
// 1/3 or 1 (distances grow where the class is dense); the frame, K,
// gamma and k chosen by leave-one-out.
func TestVariantFramedDensity(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	floor := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("SPCA_FLOOR"), 64); err == nil {
		floor = v
	}
	for _, set := range sets {
		var eu, fd, f0 []float64
		choices := map[string]int{}
		on := 0
		for s := first; s < first+seeds; s++ {
			train, test, e, ea := variantPair(set, s)
			frames := e.fisherFrames(FisherShares)
			bestAcc, best0 := -1.0, map[string]float64{}
			var bestH float64
			key := ""
			held := map[string]float64{}
			for fi, frame := range frames {
				xf, qf := framedRows(train.X, frame), framedRows(test.X, frame)
				for _, K := range []float64{0.1, 0.2, 0.3, 0.5} {
					for _, g := range []float64{0, 1.0 / 3, 1} {
						opt := spca.DefaultOptions()
						opt.Seed, opt.Resolution, opt.K, opt.Gamma, opt.DensityFloor = 1, 1<<14, K, g, floor
						c, err := trainMetric(xf, train.Label, SPCAPerClass, opt)
						if err != nil {
							continue
						}
						for cl, m := range c.Models {
							u, _, _ := m.UnfoldBatch(c.rows(c.idx[cl]))
							_, d := u.Dims()
							ext := make([]float64, d)
							for j := range d {
								col := mat.Col(nil, j, u)
								ext[j] = max(slicesMax(col)-(-slicesMax(negate(col))), 1e-12)
							}
							if c.Models[cl], err = m.WithScale(ext); err != nil {
								t.Fatal(err)
							}
						}
						if err := c.build(); err != nil {
							t.Fatal(err)
						}
						acc, err := c.Select(xf, ks)
						if err != nil {
							t.Fatal(err)
						}
						tag := fmt.Sprintf("frame%d K%g", fi, K)
						if acc > bestAcc {
							h, _ := c.Accuracy(qf, test.Label)
							bestAcc, bestH, key = acc, h, fmt.Sprintf("%s γ%.2g", tag, g)
						}
						if g == 0 {
							best0[tag] = acc
							held[tag], _ = c.Accuracy(qf, test.Label)
						}
					}
				}
			}
			if !strings.HasSuffix(key, "γ0") {
				on++
			}
			// The chosen frame and K at gamma 0 (arc length only).
			tag := key[:strings.LastIndex(key, " ")]
			eu, fd, f0 = append(eu, ea), append(fd, bestH), append(f0, held[tag])
			choices[key]++
			fmt.Printf("%s pair %d: euclidean %.4f framed-density %.4f (%s loo %.4f) at γ0 %.4f\n", set, s, ea, bestH, key, bestAcc, held[tag])
		}
		printPaired(set, "framed-density", eu, fd, choices)
		printPaired(set, "framed-density at γ0", eu, f0, nil)
		fmt.Printf("%s: gamma > 0 chosen in %d of %d pairs\n", set, on, seeds)
	}
}

func negate(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

// TestVariantFisherAblation measures what SPCA adds inside spca-fisher:
// the classifier TrainSelect chooses, and the same frame without the
// stretch along the class curves (ρ 1, k chosen again by leave-one-out):
// the frame alone, Euclidean k-NN after a linear map.
func TestVariantFisherAblation(t *testing.T) {
	seeds, first, sets := variantPairs(t)
	base := spca.DefaultOptions()
	base.Seed, base.Resolution = 1, 1<<14
	for _, set := range sets {
		var eu, fi, f1 []float64
		on := 0
		for s := first; s < first+seeds; s++ {
			train, test, _, ea := variantPair(set, s)
			f, acc, err := TrainSelect(train.X, train.Label, 2, SPCAFisher, ks, SelectionGrid(base))
			if err != nil {
				t.Fatal(err)
			}
			fa, _ := f.Accuracy(test.X, test.Label)
			b := *f
			b.Ratio = 1
			nb, _ := b.distancesWith(train.X, looNeighbours(ks), nil)
			acc1, _ := b.selectK(nb, ks)
			ba, _ := b.Accuracy(test.X, test.Label)
			if f.Ratio > 1 {
				on++
			}
			eu, fi, f1 = append(eu, ea), append(fi, fa), append(f1, ba)
			fmt.Printf("%s pair %d: euclidean %.4f spca-fisher %.4f (ρ%g K%g framed %v k%d loo %.4f) frame alone %.4f (k%d loo %.4f)\n", set, s, ea, fa, f.Ratio, f.Models[0].Options().K, !isIdentity(f.Frame), f.K, acc, ba, b.K, acc1)
		}
		printPaired(set, "spca-fisher", eu, fi, nil)
		printPaired(set, "its frame alone (ρ1)", eu, f1, nil)
		printPaired(set+" frame alone", "spca-fisher vs its frame alone", f1, fi, nil)
		fmt.Printf("%s: stretch kept (ρ > 1) in %d of %d pairs\n", set, on, seeds)
	}
}

// trainMetric is train of a two-class classifier with metric and opt as
// given (train is shadowed by the training sets in the tests).
func trainMetric(x *mat.Dense, label []int, metric Metric, opt spca.Options) (*Classifier, error) {
	return train(x, label, 2, metric, 1, opt)
}

// variantPair returns seed pair s of the labelled set (training seed
// 2s-1 of its ClassTrainSize samples, 600 held-out samples of seed 2s),
// the Euclidean k-NN classifier of the training set (k by leave-one-out)
// and its held-out accuracy.
func variantPair(set string, s int) (train, test testimages.Labelled, e *Classifier, ea float64) {
	train, _ = testimages.GenerateClasses(set, testimages.ClassTrainSize(set), uint64(2*s-1))
	test, _ = testimages.GenerateClasses(set, 600, uint64(2*s))
	e, _, _ = TrainSelect(train.X, train.Label, 2, Euclidean, ks, nil)
	ea, _ = e.Accuracy(test.X, test.Label)
	return train, test, e, ea
}

// explainedFrames returns the identity and, for every share s, the frame
// of the principal axes e_j of the samples x weighted by the share of
// x's variance along e_j that the projections p on the class curves
// keep, r_j = var(p·e_j)/var(x·e_j) (shareFrame), and r/max r: near 1
// along the manifold's plane whatever its spread, near 0 along noise the
// curves average out.
func explainedFrames(x, p *mat.Dense, shares []float64) ([]*mat.Dense, []float64) {
	_, d := x.Dims()
	_, e := covEigen(x)
	var px, pp mat.Dense
	px.Mul(x, e)
	pp.Mul(p, e)
	r := make([]float64, d)
	for j := range d {
		_, sx := meanSD(mat.Col(nil, j, &px))
		_, sp := meanSD(mat.Col(nil, j, &pp))
		r[j] = sp * sp / (sx * sx)
	}
	top := slicesMax(r)
	out := []*mat.Dense{identity(d)}
	for _, s := range shares {
		out = append(out, shareFrame(e, r, top, s))
	}
	for j := range r {
		r[j] /= top
	}
	return out, r
}

// identity returns the d×d identity matrix.
func identity(d int) *mat.Dense {
	f := mat.NewDense(d, d, nil)
	for j := range d {
		f.Set(j, j, 1)
	}
	return f
}

// covEigen returns the eigenvalues (ascending) and eigenvectors (columns)
// of the covariance of the rows of x.
func covEigen(x *mat.Dense) ([]float64, *mat.Dense) {
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil)
	var es mat.EigenSym
	if !es.Factorize(&cov, true) {
		panic("eigen")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	return es.Values(nil), &v
}
