package adapt

import (
	"image"
	"math"
	"slices"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// TestAcceptance measures the adaptation of held-out generated scenes:
// the model is trained on trainScenes scenes of trainW×trainH (seed
// trainSeed) and evaluated on other scenes (seed testSeed): mean and 95th
// percentile CIEDE2000 between each method's correction of the B rendering
// and the A rendering, over all pixels and over the darkest quarter of B
// (shadows), and the distance between the lightness distributions.
//
// It asserts acceptance point 1, SPCA < PCA + whitening < uncorrected
// over all pixels (with the default options this holds for every
// training-sample seed tried: 9.47-9.57 against 9.63-9.69 on these
// scenes, seeds 1-4, and on two validation scene sets; see
// DefaultOptions), that every correction beats none, that in the shadow
// region SPCA beats PCA + whitening, and that SPCA matches A's lightness
// distribution best. SPCA_LONG=1 evaluates more and larger scenes, and
// models from three more sample seeds.
func TestAcceptance(t *testing.T) {
	m := testModel(t)
	n, w, h := 24, 80, 60
	if long() {
		n, w, h = 48, 160, 120
	}
	a, b := testimages.SceneSet(n, w, h, testSeed)
	ev, err := Evaluate(m, a, b, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d held-out scenes of %d×%d: %d pixels, shadow region %d pixels (B L* <= %.1f)", n, w, h, ev.Pixels, ev.ShadowPixels, ev.ShadowL)
	t.Logf("%-14s %8s %8s %8s %8s %8s", "method", "mean", "p95", "shadow", "sh.p95", "L* W1")
	for _, r := range ev.Methods {
		t.Logf("%-14s %8.2f %8.2f %8.2f %8.2f %8.2f", r.Method, r.All.Mean, r.All.P95, r.Shadow.Mean, r.Shadow.P95, r.LightnessW1)
	}
	sp, pw, un := ev.Result(SPCA), ev.Result(PCAWhitening), ev.Result(Uncorrected)
	for _, r := range ev.Methods {
		if r.Method != Uncorrected.String() && r.All.Mean >= un.All.Mean {
			t.Errorf("%s: mean %.2f is not below uncorrected %.2f", r.Method, r.All.Mean, un.All.Mean)
		}
	}
	if sp.Shadow.Mean >= pw.Shadow.Mean {
		t.Errorf("shadows: SPCA %.2f is not below PCA + whitening %.2f", sp.Shadow.Mean, pw.Shadow.Mean)
	}
	for _, r := range ev.Methods {
		if r.Method != SPCA.String() && r.LightnessW1 <= sp.LightnessW1 {
			t.Errorf("lightness distribution: %s (%.2f) is closer to A's than SPCA (%.2f)", r.Method, r.LightnessW1, sp.LightnessW1)
		}
	}
	if !(sp.All.Mean < pw.All.Mean && pw.All.Mean < un.All.Mean) {
		t.Errorf("overall: want SPCA %.2f < PCA + whitening %.2f < uncorrected %.2f", sp.All.Mean, pw.All.Mean, un.All.Mean)
	}
	// SPCA's own matching earns its place beside the linear anchor it
	// fades into: the same map with every blend weight 0 (the anchor,
	// then the same lightness rule, highlight and roll-off stages) is
	// farther from A, and its lightness distribution farther from A's
	// (session 28: 8.73 against 8.98, L* W1 3.10 against 4.36; at
	// a61f6f0, before the shared geometry, the anchor alone was ahead,
	// 8.68 against 8.86). About 0.45 s.
	anchorMean, anchorW1 := anchorOnlyScore(t, m, a, b)
	t.Logf("SPCA's anchor alone: mean %.2f, L* W1 %.2f (SPCA %.2f, %.2f)", anchorMean, anchorW1, sp.All.Mean, sp.LightnessW1)
	if sp.All.Mean > anchorMean-0.1 || sp.LightnessW1 >= anchorW1 {
		t.Errorf("SPCA (mean %.2f, L* W1 %.2f) does not improve on its anchor alone (%.2f, %.2f) by 0.1", sp.All.Mean, sp.LightnessW1, anchorMean, anchorW1)
	}
	if !long() {
		return
	}
	for seed := uint64(2); seed <= 4; seed++ {
		ta, tb := trainingSets()
		o := testOptions()
		o.Seed = seed
		ms, err := Train(ta, tb, &o)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluate(ms, a, b, EvalOptions{Methods: []Method{SPCA, PCAWhitening}})
		if err != nil {
			t.Fatal(err)
		}
		sp, pw := ev.Result(SPCA), ev.Result(PCAWhitening)
		t.Logf("sample seed %d: SPCA %.2f (shadows %.2f), PCA + whitening %.2f (%.2f)", seed, sp.All.Mean, sp.Shadow.Mean, pw.All.Mean, pw.Shadow.Mean)
		if sp.All.Mean >= pw.All.Mean || sp.Shadow.Mean >= pw.Shadow.Mean {
			t.Errorf("sample seed %d: SPCA is not below PCA + whitening", seed)
		}
	}
}

// anchorOnlyScore returns the mean CIEDE2000 against A and the L*
// Wasserstein distance to A's lightness of m's SPCA map with every blend
// weight 0 (a support far from every colour), over the pixels Evaluate
// scores: the anchor with the map's later stages, its ray table built
// from the anchor.
func anchorOnlyScore(t *testing.T, m *Model, a, b []image.Image) (mean, w1 float64) {
	t.Helper()
	mp, err := m.Mapper(SPCA)
	if err != nil {
		t.Fatal(err)
	}
	sp := mp.(*SPCAMap)
	far := &Support{Dist: make([]float32, len(m.Support.Dist))}
	for i := range far.Dist {
		far.Dist[i] = 1 // 25 times SupportBand
	}
	anchor := &SPCAMap{A: sp.A, B: sp.B, Gains: sp.Gains, Align: sp.Align, Support: far, Anchor: sp.Anchor,
		Ceiling: sp.Ceiling, HighlightGains: sp.HighlightGains, lazy: &lazyRays{}}
	px, err := evalPixels(a, b, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]colorspace.LMS, len(px.srcB))
	if err := anchor.MapLMS(dst, px.srcB); err != nil {
		t.Fatal(err)
	}
	la, lc := make([]float64, len(dst)), make([]float64, len(dst))
	for i, c := range dst {
		lab := LMSToSRGB(c).Lab()
		mean += colorspace.DeltaE2000(lab, px.refA[i].Lab())
		la[i], lc[i] = px.refA[i].Lab()[0], lab[0]
	}
	slices.Sort(la)
	slices.Sort(lc)
	for i := range la {
		w1 += math.Abs(lc[i] - la[i])
	}
	return mean / float64(len(dst)), w1 / float64(len(dst))
}
