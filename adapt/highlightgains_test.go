package adapt

import (
	"math"
	"testing"

	"github.com/spcalab/spca/colorspace"
)

// TestHighlightGainsScaleFree checks that the highlight adaptation
// depends on the ratios of the gains alone (adaptHighlight keeps the
// luminance), also for gains so large or small that the scaled cones
// overflow: a file may hold any positive finite gains (Read refuses the
// rest), and with gains near the largest float64 white came out as
// without them (light blue on the test model).
func TestHighlightGainsScaleFree(t *testing.T) {
	m := readBack(t, testModel(t))
	g := m.HighlightGains
	if g == ([3]float64{}) {
		t.Fatal("the test model has no highlight gains")
	}
	var src []colorspace.LMS
	for _, s := range []colorspace.SRGB{{1, 1, 1}, {0.99, 0.98, 1}, {0.96, 1, 1}, {1, 1, 0.9}, {0.97, 0.97, 0.97}, {0.7, 0.8, 0.75}, {0.2, 0.3, 0.1}} {
		src = append(src, SRGBToLMS(s))
	}
	mapWith := func(gains [3]float64) []colorspace.LMS {
		m.HighlightGains = gains
		p, err := m.Mapper(SPCA)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]colorspace.LMS, len(src))
		if err := p.MapLMS(dst, src); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	want := mapWith(g)
	if w := luminance(want[0]); !(w > 0.5) {
		t.Fatalf("white maps to %v (luminance %v)", want[0], w)
	}
	top := max(g[0], g[1], g[2])
	for _, s := range []float64{1e-300, 1e300, math.MaxFloat64 / top, math.MaxFloat64 / top / 2} {
		got := mapWith([3]float64{g[0] * s, g[1] * s, g[2] * s})
		for i := range got {
			for k := range 3 {
				if !(math.Abs(got[i][k]-want[i][k]) <= 1e-9) {
					t.Errorf("gains times %g: colour %d maps to %v, with the gains %v", s, i, got[i], want[i])
					break
				}
			}
		}
	}
}
