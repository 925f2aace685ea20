package adapt

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

func TestParseMethod(t *testing.T) {
	for _, m := range Methods() {
		got, err := ParseMethod(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m.String(), got, err)
		}
	}
	if m, err := ParseMethod(" PCA-Whitening "); err != nil || m != PCAWhitening {
		t.Errorf("case and blanks: %v, %v", m, err)
	}
	// colour-science's names of the transforms.
	for name, want := range map[string]Method{"Von Kries": VonKries, "CAT16": CAT16, "Bradford": Bradford, "CAT02": CAT02, "vonkries": VonKries} {
		if m, err := ParseMethod(name); err != nil || m != want {
			t.Errorf("ParseMethod(%q) = %v, %v; want %v", name, m, err, want)
		}
	}
	for _, name := range []string{"pca", "", "von", "Method(1)"} {
		if m, err := ParseMethod(name); err == nil || m != 0 {
			t.Errorf("ParseMethod(%q) = %v, %v; want the zero Method and an error", name, m, err)
		}
	}
	if s := Method(0).String(); s != "Method(0)" {
		t.Errorf("the zero Method is called %q", s)
	}
	if s := Method(42).String(); s != "Method(42)" {
		t.Errorf("String of an unknown method: %q", s)
	}
}

// cloud returns n LMS samples of a skewed, correlated distribution.
func cloud(n int, seed uint64, gain [3]float64, shift [3]float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		l := math.Exp(rng.NormFloat64() * 0.5)
		c := [3]float64{l + 0.1*rng.NormFloat64(), 0.8*l + 0.05*rng.NormFloat64(), 0.5*l + 0.2*rng.NormFloat64()}
		for k := range 3 {
			x.Set(i, k, gain[k]*c[k]+shift[k])
		}
	}
	return x
}

func TestPCAWhiteningMatchesMoments(t *testing.T) {
	a := cloud(5000, 1, [3]float64{1, 1, 1}, [3]float64{0, 0, 0})
	b := cloud(5000, 2, [3]float64{1.6, 0.9, 0.3}, [3]float64{0.1, 0, -0.02})
	sa, sb := pcaOf(a), pcaOf(b)
	// The first axis of both clouds is luminance-like: all components
	// positive.
	for _, s := range []PCAStats{sa, sb} {
		v := s.axis(0)
		if v[0] <= 0 || v[1] <= 0 || v[2] <= 0 {
			t.Errorf("first axis %v is not luminance-like", v)
		}
	}
	m := NewPCAWhitening(sa, sb)
	n, _ := b.Dims()
	src := make([]colorspace.LMS, n)
	for i := range src {
		copy(src[i][:], b.RawRowView(i))
	}
	dst := make([]colorspace.LMS, n)
	if err := m.MapLMS(dst, src); err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(n, 3, nil)
	for i, c := range dst {
		y.SetRow(i, c[:])
	}
	got := pcaOf(y)
	for k := range 3 {
		if math.Abs(got.Mean[k]-sa.Mean[k]) > 1e-9 {
			t.Errorf("mapped mean %v, want A's %v", got.Mean, sa.Mean)
		}
		if math.Abs(got.Var[k]-sa.Var[k]) > 1e-9*sa.Var[0] {
			t.Errorf("mapped variances %v, want A's %v", got.Var, sa.Var)
		}
		ga, gv := got.axis(k), sa.axis(k)
		if c := math.Abs(ga[0]*gv[0] + ga[1]*gv[1] + ga[2]*gv[2]); c < 1-1e-6 {
			t.Errorf("mapped axis %d %v, A's %v", k, ga, gv)
		}
	}
	// Mapping A's statistics onto themselves is the identity.
	id := NewPCAWhitening(sa, sa)
	for k, v := range id.M {
		if math.Abs(v-colorspace.Identity3[k]) > 1e-9 {
			t.Fatalf("PCA whitening of A onto A: %v", id.M)
		}
	}
}

func TestLinearBaselines(t *testing.T) {
	g := NewGrayWorld([3]float64{0.5, 0.4, 0.3}, [3]float64{0.25, 0.4, 0.6})
	dst := make([]colorspace.LMS, 1)
	if err := g.MapLMS(dst, []colorspace.LMS{{0.25, 0.4, 0.6}}); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(dst[0], [3]float64{0.5, 0.4, 0.3}); d > 1e-12 {
		t.Errorf("gray world maps mean B to %v", dst[0])
	}
	wa := colorspace.WhitePoint(colorspace.IlluminantD65())
	wb := colorspace.WhitePoint(colorspace.IlluminantA())
	mapped := map[Method]colorspace.LMS{}
	for _, kind := range []Method{Bradford, CAT02, VonKries, CAT16} {
		// A saturated colour tells the cone matrices apart.
		if err := NewVonKriesOracle(kind, wa, wb).MapLMS(dst, []colorspace.LMS{{0.2, 0.5, 0.9}}); err != nil {
			t.Fatal(err)
		}
		for other, c := range mapped {
			if d := maxDiff(dst[0], c); d < 1e-3 {
				t.Errorf("%v and %v map (0.2, 0.5, 0.9) within %.2g of each other", kind, other, d)
			}
		}
		mapped[kind] = dst[0]
		vk := NewVonKriesOracle(kind, wa, wb)
		if err := vk.MapLMS(dst, []colorspace.LMS{wb.LMS()}); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(dst[0], wa.LMS()); d > 1e-9 {
			t.Errorf("%v maps B's white to %v, want %v", kind, dst[0], wa.LMS())
		}
		if vk.Method() != kind {
			t.Errorf("method %v, want %v", vk.Method(), kind)
		}
	}
	c := []colorspace.LMS{{0.1, 0.2, 0.3}}
	if err := Identity().MapLMS(dst, c); err != nil || dst[0] != c[0] {
		t.Errorf("identity: %v, %v", dst[0], err)
	}
	if err := Identity().MapLMS(dst, []colorspace.LMS{{math.NaN(), 0, 0}}); err == nil {
		t.Error("NaN accepted")
	}
	if err := Identity().MapLMS(dst, make([]colorspace.LMS, 2)); err == nil {
		t.Error("length mismatch accepted")
	}
}

func TestColourConversions(t *testing.T) {
	// sRGB white is LMS (1, 1, 1); the round trip is exact in gamut.
	w := SRGBToLMS(colorspace.SRGB{1, 1, 1})
	if d := maxDiff(w, [3]float64{1, 1, 1}); d > 1e-6 {
		t.Errorf("white: %v", w)
	}
	for _, c := range []colorspace.SRGB{{0.2, 0.5, 0.9}, {0, 0, 0}, {1, 0.3, 0}} {
		if d := maxDiff(LMSToSRGB(SRGBToLMS(c)), c); d > 1e-9 {
			t.Errorf("round trip of %v: off by %g", c, d)
		}
	}
	// Out of gamut: clipped per channel.
	s := LMSToSRGB(colorspace.LMS{5, -1, 0.3})
	for _, v := range s {
		if v < 0 || v > 1 {
			t.Errorf("not clipped: %v", s)
		}
	}
}

// TestMapInPlace: every mapper gives the same colours mapped in place
// (dst and src the same slice, as Mapper allows) as into another slice.
// The SPCA map read its inputs again after writing dst, for the lightness
// rule: in place, B's scene white came out at luminance 0.79 instead of
// 0.63.
func TestMapInPlace(t *testing.T) {
	m := testModel(t)
	_, wb := testimages.SceneWhites()
	src := []colorspace.LMS{wb.LMS(), SRGBToLMS(colorspace.SRGB{0.5, 0.4, 0.3}), SRGBToLMS(colorspace.SRGB{1, 1, 1}),
		SRGBToLMS(colorspace.SRGB{0.9, 0.2, 0.1}), SRGBToLMS(colorspace.SRGB{0.01, 0.02, 0.01}), {}}
	for _, method := range Methods() {
		mp, err := m.Mapper(method)
		if err != nil {
			continue // aligned: the test model has gains
		}
		want := make([]colorspace.LMS, len(src))
		if err := mp.MapLMS(want, src); err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(src)
		if err := mp.MapLMS(got, got); err != nil {
			t.Fatal(err)
		}
		for i := range src {
			if got[i] != want[i] {
				t.Errorf("%v: %v mapped in place to %v, into another slice to %v", method, src[i], got[i], want[i])
			}
		}
	}
}
