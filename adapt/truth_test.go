package adapt

import (
	"fmt"
	"image"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestAcceptanceTruth scores the held-out generated scenes of
// TestAcceptance against their colour-only truth (testimages.SceneTruth:
// B's geometry and exposure, D65 colours) as well as against A.
func TestAcceptanceTruth(t *testing.T) {
	m := testModel(t)
	n, w, h := 24, 80, 60
	a, b := testimages.SceneSet(n, w, h, testSeed)
	truth := testimages.SceneTruthSet(n, w, h, testSeed)
	ev, err := Evaluate(m, a, b, EvalOptions{Truth: truth})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d held-out scenes of %d×%d (seed %d), mean CIEDE2000", n, w, h, testSeed)
	t.Logf("%-14s %10s %10s", "method", "against A", "truth")
	for _, r := range ev.Methods {
		if r.Truth == nil {
			t.Fatalf("%s: no truth score", r.Method)
		}
		t.Logf("%-14s %10.2f %10.2f", r.Method, r.All.Mean, r.Truth.Mean)
	}
	// Acceptance (issue 22): SPCA no worse than uncorrected against the
	// colour-only truth (15.41 against 17.58 when written).
	if sp, un := ev.Result(SPCA).Truth.Mean, ev.Result(Uncorrected).Truth.Mean; sp > un {
		t.Errorf("against the truth SPCA %.2f is worse than uncorrected %.2f", sp, un)
	}
	// The truth differs from B only by the light's colour: the oracles
	// with the true whites come close to it.
	if c := ev.Result(CAT02).Truth.Mean; c > ev.Result(Uncorrected).Truth.Mean/3 {
		t.Errorf("CAT02 %.2f is not far below uncorrected %.2f against the truth", c, ev.Result(Uncorrected).Truth.Mean)
	}
	if _, err := Evaluate(m, a, b, EvalOptions{Truth: truth[:1]}); err == nil {
		t.Error("a truth set of the wrong length was accepted")
	}
}

// TestCorrespondingColours maps the ColorChecker and the project's own
// reflectances from illuminant A to D65 with the shared model.
func TestCorrespondingColours(t *testing.T) {
	m := testModel(t)
	var cc []colorspace.Spectrum
	for _, p := range colorspace.ColorChecker() {
		cc = append(cc, p.Reflectance)
	}
	sets := []ReflectanceSet{
		{Name: "ColorChecker", Reflectances: cc},
		{Name: "generated", Reflectances: testimages.Reflectances(500, 7)},
		{Name: "empty"},
	}
	res, err := CorrespondingColours(m, sets)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d sets", len(res))
	}
	for _, s := range res {
		t.Logf("%s (%d): mean / max du'v'", s.Set, s.N)
		for _, r := range s.Methods {
			t.Logf("  %-14s %.4f %.4f %s", r.Method, r.Mean, r.Max, r.Whites)
		}
		un := s.Result(Uncorrected).Mean
		// Acceptance (issue 22): SPCA well below no adaptation (0.021
		// and 0.014 against 0.082 when written).
		if sp := s.Result(SPCA).Mean; !(sp < un/2) {
			t.Errorf("%s: SPCA %.4f is not well below no adaptation %.4f", s.Set, sp, un)
		}
		for _, meth := range []Method{VonKries, Bradford, CAT02, CAT16} {
			if r := s.Result(meth); !(r.Mean < un/3) || r.Whites != "true" {
				t.Errorf("%s %s: %.4f against none %.4f", s.Set, meth, r.Mean, un)
			}
		}
	}
	// Uncorrected is the A-lit chromaticity: for white, that of
	// illuminant A against D65's.
	white, err := CorrespondingColours(m, []ReflectanceSet{{Name: "w", Reflectances: []colorspace.Spectrum{colorspace.Constant(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	ua, va := colorspace.WhitePoint(colorspace.IlluminantA()).UV()
	ud, vd := colorspace.WhitePoint(colorspace.IlluminantD65()).UV()
	if got, want := white[0].Result(Uncorrected).Mean, math.Hypot(ua-ud, va-vd); !(got > want-1e-9 && got < want+1e-9) {
		t.Errorf("white uncorrected du'v' %v, want %v", got, want)
	}
	if r := white[0].Result(CAT02); r.Mean > 1e-9 {
		t.Errorf("CAT02 maps white off by %v", r.Mean)
	}
}

// TestChromaticityWarning: the six generated scenes of 128×96
// (no DataReport warning) spread over too few chromaticities; the
// package's 300 training scenes do not.
func TestChromaticityWarning(t *testing.T) {
	a, b := testimages.SceneSet(6, 128, 96, 1)
	xa, err := SampleLMS(a, 20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	xb, err := SampleLMS(b, 20000, 2)
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := Chromaticities(xa), Chromaticities(xb)
	ra, rb := reportOf(xa), reportOf(xb)
	t.Logf("6 scenes: %.0f and %.0f chromaticities; reports %+v %+v", ca, cb, ra, rb)
	if len(ra.Warnings("A"))+len(rb.Warnings("B")) != 0 {
		t.Logf("DataReport warns now too: %q %q", ra.Warnings("A"), rb.Warnings("B"))
	}
	if w := chromaticityWarnings(ca, cb); len(w) == 0 {
		t.Errorf("6 scenes (%.0f, %.0f chromaticities): no warning", ca, cb)
	}
	m := testModel(t)
	t.Logf("300 scenes: %.0f and %.0f chromaticities", m.ChromaticitiesA, m.ChromaticitiesB)
	if w := m.Warnings(); len(w) != 0 || m.ChromaticitiesB < 1.5*MinChromaticities {
		t.Errorf("300 training scenes (%.0f, %.0f chromaticities): %q", m.ChromaticitiesA, m.ChromaticitiesB, w)
	}
	// One chromaticity counts as one, whatever its shades; colours too
	// dark to have a chromaticity count as none.
	one := mat.NewDense(300, 3, nil)
	dark := mat.NewDense(10, 3, nil)
	for i := range 300 {
		c := SRGBToLMS(colorspace.SRGB{0.8, 0.5, 0.3}.Linear().SRGB())
		k := 0.2 + float64(i)/300
		one.SetRow(i, []float64{c[0] * k, c[1] * k, c[2] * k})
	}
	if n := Chromaticities(one); math.Abs(n-1) > 1e-9 {
		t.Errorf("one chromaticity in 300 shades: %v", n)
	}
	if n := Chromaticities(dark); n != 0 {
		t.Errorf("black: %v", n)
	}
}

// photoWhiteMargin is the least distance, in 1/255, from white's output of
// the LUT nodes (65 and 97 per axis) farther than 2 % from white that
// TestPhotoSet asserts on the relit photos' default models: white, A's
// brightest colour there, sits at the tip of the gamut. Measured (65 / 97
// nodes, 1/255): Mallett-Yuksel 1.61 / 1.07, Smits 1.82 / 1.26,
// Jakob-Hanika 1.44 / 0.97 (exposure 1), Mallett-Yuksel at exposure 0.5
// 1.44 / 0.96 (models trained by spca adapt train); 0.42-0.48 at 65 nodes (1 node
// within 0.5/255) and 3-5 nodes within 0.5/255 at 97 before the
// neighbours of white were adapted to its output (adaptHighlight).
var photoWhiteMargin = [2]float64{1.2, 0.8}

// TestPhotoSet (SPCA_LONG=1, and the Kodak photos in ../shared/testdata;
// skipped otherwise) relights Kodak kodim01-12 (training) and the
// held-out kodim13-24 with illuminant A (testimages.RelightPhoto; the
// three spectral upsamplings at exposure 1, Mallett-Yuksel also at 0.5)
// and scores models trained on the relit training photos with the
// default options (AlignAuto, which must choose the matrix here: B is a
// linear image of A) and with the gray-world gains (AlignGains), and the
// shared model trained on generated scenes, against A and against the
// colour-only truth (at exposure 1 the A photo itself). It asserts issue
// 22's points on the default models: SPCA beats PCA + whitening and gray
// world against A, is no worse than uncorrected against the truth, the
// shape of the map (checkMapShape, with photoWhiteMargin) and the LUT
// within 1/255 of the exact map on 99 % of every held-out photo.
func TestPhotoSet(t *testing.T) {
	if !long() {
		t.Skip("SPCA_LONG=1 runs the real-photo evaluation")
	}
	// load relights kodim<from..to> with the upsampling and returns A, B
	// and the truth (16 bits per sample each).
	load := func(dir string, from, to int, u testimages.Upsampling, exposure float64) (a, b, truth []image.Image) {
		for i := from; i <= to; i++ {
			img, err := patches.Load(fmt.Sprintf("%s/kodim%02d.png", dir, i))
			if err != nil {
				t.Skipf("Kodak photos not available: %v", err)
			}
			ra, rb, rt := testimages.RelightPhotoWith(img, exposure, u)
			a, b, truth = append(a, ra), append(b, rb), append(truth, rt)
		}
		return a, b, truth
	}
	type set struct {
		u        testimages.Upsampling
		exposure float64
	}
	sets := []set{{testimages.MallettYuksel2019, 0.5}}
	for _, u := range testimages.Upsamplings() {
		sets = append(sets, set{u, 1})
	}
	for _, st := range sets {
		u := st.u
		ta, tb, _ := load("../../shared/testdata/kodak", 1, 12, u, st.exposure)
		ha, hb, ht := load("../../shared/testdata/heldout", 13, 24, u, st.exposure)
		o := DefaultOptions()
		o.WhiteB, o.WhiteA = testimages.PhotoWhitesWith(st.exposure, u)
		mk, err := Train(ta, tb, &o)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%v, exposure %g", u, st.exposure)
		t.Logf("%s: default alignment: %v", name, mk.AlignChoice)
		if c := mk.AlignChoice; c == nil || c.Asked != AlignAuto || c.Chosen != AlignMatrix || mk.Align == (colorspace.Mat3{}) || !(c.Residual < AutoAlignThreshold) {
			t.Errorf("%s: the default alignment did not choose the matrix: %+v", name, c)
		}
		o.Alignment = AlignGains
		mg, err := Train(ta, tb, &o)
		if err != nil {
			t.Fatal(err)
		}
		models := []struct {
			name string
			m    *Model
		}{{"Kodak 01-12 relit (default, auto)", mk}, {"Kodak 01-12 relit, --align gains", mg}}
		if u == testimages.MallettYuksel2019 && st.exposure == 1 {
			models = append(models, struct {
				name string
				m    *Model
			}{"generated scenes", testModel(t)})
		}
		for _, c := range models {
			ev, err := Evaluate(c.m, ha, hb, EvalOptions{Truth: ht, MaxPixels: 200000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: model trained on %s, tested on kodim13-24 relit: mean CIEDE2000 against A, against the truth", name, c.name)
			for _, r := range ev.Methods {
				t.Logf("  %-14s %6.2f %6.2f", r.Method, r.All.Mean, r.Truth.Mean)
			}
			sp, pw, gw := ev.Result(SPCA).All.Mean, ev.Result(PCAWhitening).All.Mean, ev.Result(GrayWorld).All.Mean
			if sp >= pw {
				t.Errorf("%s, %s: SPCA %.2f does not beat PCA + whitening %.2f against A", name, c.name, sp, pw)
			}
			switch {
			case c.m == mk:
				// Issue 22's point, with the default options (1.05,
				// 0.94, 1.43 against 1.45, 1.32, 2.13 with --align
				// matrix in session 14), though the matrix alone does
				// better still (0.62, 0.45, 1.10; README).
				if sp >= gw {
					t.Errorf("%s, %s: SPCA %.2f does not beat gray world %.2f against A", name, c.name, sp, gw)
				}
			case sp >= gw:
				// With the gains it does not (README): logged.
				t.Logf("%s, %s: SPCA %.2f does not beat gray world %.2f against A", name, c.name, sp, gw)
			}
			if sp, un := ev.Result(SPCA).Truth.Mean, ev.Result(Uncorrected).Truth.Mean; sp > un {
				t.Errorf("%s, %s: SPCA %.2f is worse than uncorrected %.2f against the truth", name, c.name, sp, un)
			}
		}
		// The shape of the default model's map and its LUT against the
		// exact map on every held-out photo.
		checkMapShape(t, mk, ta, photoWhiteMargin)
		mp, _ := mk.Mapper(SPCA)
		l, err := mk.ImageMapperFor(SPCA, DefaultLUTSize, nil)
		if err != nil {
			t.Fatal(err)
		}
		least := 1.0
		for i, b := range hb {
			within, worst := lutAgreementOf(t, l, mp, b)
			least = min(least, within[0])
			t.Logf("%s: kodim%02d B: LUT within 1/255 of the exact map on %.2f %%, largest difference %.1f/255", name, 13+i, 100*within[0], worst)
			if within[0] < 0.99 {
				t.Errorf("%s: kodim%02d: LUT within 1/255 of the exact map on only %.2f %% of the pixels", name, 13+i, 100*within[0])
			}
		}
		t.Logf("%s: LUT within 1/255 on at least %.2f %% of every held-out photo", name, 100*least)
	}
}
