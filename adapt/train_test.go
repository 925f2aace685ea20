package adapt

import (
	"errors"
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// TestDirectionsAgree: the two SPCA models' dimensions mean the same
// thing. Dimension 1 is luminance-like in both (positive components, close
// to (1, 1, 1)), and each direction of B is closest to the same-numbered
// direction of A, with the same sign. This holds for the default options
// and for narrower neighbourhoods: at K = 0.85, spca's entropy ranking at
// the origin put a chroma direction first, before A's directions were
// taken from the principal axes of its colours.
func TestDirectionsAgree(t *testing.T) {
	t.Run("default", func(t *testing.T) { checkDirections(t, testModel(t)) })
	t.Run("K=0.85", func(t *testing.T) {
		a, b := trainingSets()
		o := testOptions()
		o.SPCA.K = 0.85
		o.Samples = 10000
		// The directions are fixed before the lattice is drawn: a coarse
		// lattice (1/64 of the nodes) and no LUT give the same ones.
		o.SPCA.Resolution, o.NoLUT = 1<<12, true
		m, err := Train(a, b, &o)
		if err != nil {
			t.Fatal(err)
		}
		checkDirections(t, m)
	})
}

func checkDirections(t *testing.T, m *Model) {
	da, db := m.A.Directions(), m.B.Directions()
	one := 1 / math.Sqrt(3)
	for name, d := range map[string]interface{ At(i, j int) float64 }{"A": da, "B": db} {
		c := 0.0
		for i := range 3 {
			if d.At(i, 0) <= 0 {
				t.Errorf("model %s: first direction has a non-positive component: %v", name, []float64{d.At(0, 0), d.At(1, 0), d.At(2, 0)})
			}
			c += d.At(i, 0) * one
		}
		if c < 0.85 {
			t.Errorf("model %s: first direction at cos %.3f from (1,1,1)", name, c)
		}
	}
	for j := range 3 {
		best, bestCos := -1, 0.0
		for k := range 3 {
			c := 0.0
			for i := range 3 {
				c += da.At(i, j) * db.At(i, k)
			}
			if math.Abs(c) > math.Abs(bestCos) {
				best, bestCos = k, c
			}
		}
		t.Logf("direction %d of A: closest is %d of B, cos %.3f", j+1, best+1, bestCos)
		if best != j || bestCos < 0.7 {
			t.Errorf("direction %d of A is closest to direction %d of B (cos %.3f)", j+1, best+1, bestCos)
		}
	}
	// Responses increase together: brighter neutral colours get a larger
	// first response in both models.
	r := make([]float64, 3)
	var prevA, prevB float64
	for i, s := range []float64{0.1, 0.3, 0.6} {
		wa, wb := testimages.SceneWhites()
		xa := wa.LMS()
		xb := wb.LMS()
		for k := range 3 {
			xa[k] *= s
			xb[k] *= s
		}
		m.A.Transform(r, xa[:])
		ra := r[0]
		m.B.Transform(r, xb[:])
		if i > 0 && (ra <= prevA || r[0] <= prevB) {
			t.Errorf("first responses not increasing with luminance: A %.3f after %.3f, B %.3f after %.3f", ra, prevA, r[0], prevB)
		}
		prevA, prevB = ra, r[0]
	}
}

// TestOutsideManifold: colours far from the training colours give finite
// outputs in bounded time, and far from B's support they get the
// documented extrapolation: the anchor (a von Kries scaling) at the
// luminance of the RayTable, adapted near white to white's output (so
// white maps to a grey), gamut mapped below the roll-off's limit
// (A's brightest luminance at the cube's brightest colour), black staying
// black.
func TestOutsideManifold(t *testing.T) {
	m := testModel(t)
	mp, _ := m.Mapper(SPCA)
	src := []colorspace.LMS{
		{0, 0, 0}, {1, 1, 1}, {5, 5, 5}, {-1, 2, 0.5}, {1e3, -1e3, 1e3}, {0, 0, 1}, {1e-9, 0, 0},
	}
	dst := make([]colorspace.LMS, len(src))
	start := time.Now()
	st, err := mp.(*SPCAMap).MapLMSStats(dst, src)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("%d far colours took %v", len(src), el)
	}
	t.Logf("far colours: %d of %d through SPCA, %d clamped, max %d iterations", st.N, len(src), st.Clamped, st.MaxIter)
	for i, c := range dst {
		if !finite3(c) {
			t.Errorf("%v mapped to %v", src[i], c)
			continue
		}
		rays, err := m.rays.get(nil)
		if err != nil {
			t.Fatal(err)
		}
		if y, lim := luminance(c), rollOffLimit(m.Ceiling, rays.Top); y > lim+1e-9 || y < -1e-9 {
			t.Errorf("%v mapped to luminance %v, want within [0, %v]", src[i], y, lim)
		}
		if m.Support.blendWeight(src[i]) > 0 {
			continue
		}
		// The anchor's colour at the RayTable's luminance, adapted to
		// white's output (near white), rolled off and gamut mapped.
		a := withLuminance(colorspace.LMS(mul3(&m.Anchor, src[i])), rays.Luminance(src[i]))
		want := mul3(&lmsToRGB, [3]float64(adaptHighlight(a, src[i], m.HighlightGains, m.Ceiling, rays.Top)))
		gamutMap(&want, m.Ceiling, rays.Top)
		got := mul3(&lmsToRGB, c)
		if maxDiff(got, want) > 1e-9 {
			t.Errorf("%v mapped to linear RGB %v, want the anchor's %v", src[i], got, want)
		}
		// White (D65, LMS (1, 1, 1)) and colours beyond it on its ray
		// map to grey: the anchor's white is blue here, linear RGB
		// (0.73, 0.77, 1.00) before format 7.
		if src[i][0] == src[i][1] && src[i][1] == src[i][2] && src[i][0] >= 1 && maxDiff(got, [3]float64{got[1], got[1], got[1]}) > 1e-9 {
			t.Errorf("%v mapped to linear RGB %v, want a grey", src[i], got)
		}
	}
	if dst[0] != (colorspace.LMS{}) {
		t.Errorf("black mapped to %v", dst[0])
	}
	if err := mp.MapLMS(dst[:1], []colorspace.LMS{{math.Inf(1), 0, 0}}); err == nil {
		t.Error("infinite colour accepted")
	}
}

func TestTrainErrors(t *testing.T) {
	img8 := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	img16 := image.NewNRGBA64(image.Rect(0, 0, 4, 4))
	for _, img := range []interface{ Set(x, y int, c color.Color) }{img8, img16} {
		for i := range 16 {
			img.Set(i%4, i/4, color.Gray{uint8(60 * (i % 4))})
		}
	}
	_, err := Train(nil, []image.Image{img8}, nil)
	if !errors.Is(err, ErrNoPixels) || !contains(err, "environment A has no images") {
		t.Errorf("empty A: %v", err)
	}
	_, err = Train([]image.Image{img8}, nil, nil)
	if !errors.Is(err, ErrNoPixels) || !contains(err, "environment B has no images") {
		t.Errorf("empty B: %v", err)
	}
	_, err = Train([]image.Image{img8}, []image.Image{img8, img16}, nil)
	if !errors.Is(err, ErrBitDepth) || !contains(err, "image 2 of environment B has 16 bits") {
		t.Errorf("bit depths: %v", err)
	}
	transparent := image.NewNRGBA(image.Rect(0, 0, 3, 3))
	_, err = Train([]image.Image{img8}, []image.Image{transparent}, nil)
	if !errors.Is(err, ErrNoPixels) || !contains(err, "environment B") {
		t.Errorf("transparent B: %v", err)
	}
	_, err = Train([]image.Image{image.NewNRGBA(image.Rect(0, 0, 0, 0))}, []image.Image{img8}, nil)
	if !errors.Is(err, ErrNoPixels) {
		t.Errorf("empty image: %v", err)
	}
	// Constant colours cannot be fitted: the SPCA error comes through.
	o := DefaultOptions()
	o.Samples = 100
	_, err = Train([]image.Image{img8}, []image.Image{img8}, &o)
	if err == nil || !contains(err, "both environments") {
		t.Errorf("constant images: %v", err)
	}
	o.SeparateGeometry = true
	_, err = Train([]image.Image{img8}, []image.Image{img8}, &o)
	if err == nil || !contains(err, "environment A") {
		t.Errorf("constant images, separate geometry: %v", err)
	}
}

func contains(err error, s string) bool {
	return err != nil && len(s) > 0 && stringsContains(err.Error(), s)
}

func stringsContains(a, b string) bool {
	for i := 0; i+len(b) <= len(a); i++ {
		if a[i:i+len(b)] == b {
			return true
		}
	}
	return false
}

func TestSampleLMS(t *testing.T) {
	a, _ := testimages.Scene(40, 30, 5)
	x1, err := SampleLMS([]image.Image{a, a}, 500, 7)
	if err != nil {
		t.Fatal(err)
	}
	x2, _ := SampleLMS([]image.Image{a, a}, 500, 7)
	x3, _ := SampleLMS([]image.Image{a, a}, 500, 8)
	if n, d := x1.Dims(); n != 500 || d != 3 {
		t.Fatalf("dims %d×%d", n, d)
	}
	same := func(p, q interface{ At(i, j int) float64 }) bool {
		for i := range 500 {
			for k := range 3 {
				if p.At(i, k) != q.At(i, k) {
					return false
				}
			}
		}
		return true
	}
	if !same(x1, x2) || same(x1, x3) {
		t.Error("samples do not follow the seed")
	}
	// Fewer pixels than asked: all of them.
	all, _ := SampleLMS([]image.Image{a}, 10000, 1)
	if n, _ := all.Dims(); n != 1200 {
		t.Errorf("%d samples, want all 1200 pixels", n)
	}
	// Transparent pixels are skipped, translucent ones un-premultiplied.
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.NRGBA{255, 255, 255, 128})
	x, _ := SampleLMS([]image.Image{img}, 10, 1)
	if n, _ := x.Dims(); n != 1 {
		t.Fatalf("%d samples, want 1", n)
	}
	for k := range 3 {
		if math.Abs(x.At(0, k)-1) > 0.01 {
			t.Errorf("translucent white sampled as %v", x.RawRowView(0))
		}
	}
	if _, err := SampleLMS([]image.Image{a}, 0, 1); err == nil {
		t.Error("zero samples accepted")
	}
}
