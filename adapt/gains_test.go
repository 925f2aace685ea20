package adapt

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/checksum"
	"gonum.org/v1/gonum/mat"
)

// TestGains checks that the gray-world gains are estimated from the
// training means, applied by the exact map and by the LUT alike (the LUT
// holds the exact map at its nodes), that they change the map, and that a
// version-2 model file (no gains) reads with gains 1.
func TestGains(t *testing.T) {
	m := testModel(t)
	for k := range 3 {
		want := m.StatsA.Mean[k] / m.StatsB.Mean[k]
		if g := m.Gains[k]; g != want || g == 1 {
			t.Fatalf("gain %d = %v, want mean_A/mean_B = %v (not 1)", k, g, want)
		}
	}
	// Exact map at LUT nodes against the stored LUT.
	mp, err := m.Mapper(SPCA)
	if err != nil {
		t.Fatal(err)
	}
	n := m.LUT.Size
	var src []colorspace.LMS
	var at [][3]int
	for _, i := range []int{0, n / 4, n / 2, 3 * n / 4, n - 1} {
		for _, j := range []int{n / 3, n / 2, n - 1} {
			for _, k := range []int{n / 5, n / 2, 2 * n / 3} {
				step := 1 / float64(n-1)
				src = append(src, SRGBToLMS(colorspace.SRGB{float64(i) * step, float64(j) * step, float64(k) * step}))
				at = append(at, [3]int{i, j, k})
			}
		}
	}
	exact := make([]colorspace.LMS, len(src))
	if err := mp.MapLMS(exact, src); err != nil {
		t.Fatal(err)
	}
	for i, c := range exact {
		s := LMSToSRGB(c)
		if d := maxDiff([3]float64(s), m.LUT.node(at[i][0], at[i][1], at[i][2])); d > 1e-5 {
			t.Errorf("node %v: exact map and LUT differ by %g", at[i], d)
		}
	}
	// The gains matter: without them the same models map differently.
	plain := *mp.(*SPCAMap)
	plain.Gains, plain.lazy, plain.Rays = [3]float64{1, 1, 1}, nil, nil
	withG := *mp.(*SPCAMap)
	withG.lazy, withG.Rays = nil, nil
	y0, y1 := make([]colorspace.LMS, len(src)), make([]colorspace.LMS, len(src))
	plain.MapLMS(y0, src)
	withG.MapLMS(y1, src)
	moved := 0.0
	for i := range y0 {
		moved = max(moved, maxDiff([3]float64(y0[i]), [3]float64(y1[i])))
	}
	if moved < 1e-3 {
		t.Errorf("gains %v change the map by only %g", m.Gains, moved)
	}

	// Version 2: the same file without the gains reads with gains 1.
	m0 := withoutHighlight(t, m)
	v3 := withoutRays(t, m0, modelBytes(t, m0))
	le := binary.LittleEndian
	off := len(ModelMagic) + 4 + 16 + 48 + 240
	for range 2 {
		off += 8 + int(le.Uint64(v3[off:]))
	}
	off += 72 + 8 // anchor, ceiling
	v2 := append([]byte(nil), v3[:off]...)
	v2 = append(v2, v3[off+24:len(v3)-4]...)
	le.PutUint32(v2[len(ModelMagic):], 2)
	v2 = le.AppendUint32(v2, checksum.Sum(v2))
	old, err := Read(bytes.NewReader(v2))
	if err != nil {
		t.Fatalf("version-2 file: %v", err)
	}
	if old.Gains != [3]float64{1, 1, 1} {
		t.Errorf("version-2 file: gains %v, want 1", old.Gains)
	}
	if old.Ceiling != m.Ceiling || old.Anchor != m.Anchor {
		t.Error("version-2 file: fields after the gains misread")
	}
	// And it maps without gains.
	om, _ := old.Mapper(SPCA)
	y2 := make([]colorspace.LMS, len(src))
	om.MapLMS(y2, src)
	op := *om.(*SPCAMap)
	if op.Gains != [3]float64{1, 1, 1} {
		t.Errorf("version-2 mapper gains %v", op.Gains)
	}
}

// TestFitAnchorWeights checks that the anchor follows the map only where
// its weight (edgeWeight) is positive: colours the map clamps (weight 0)
// must not pull the von Kries gains down.
func TestFitAnchorWeights(t *testing.T) {
	x := mat.NewDense(200, 3, nil)
	for i := range 200 {
		v := 0.01 + float64(i)/200
		x.SetRow(i, []float64{v, 0.9 * v, 0.5 * v})
	}
	gains := [3]float64{1.5, 2, 4}
	// The brightest fifth is clamped to the top of the lattice, as the
	// SPCA map does where B's first response leaves [0, 1].
	clamped := func(dst []colorspace.LMS, w []float64, src []colorspace.LMS) error {
		for i, c := range src {
			f := 1.0
			w[i] = 1
			if c[0] > 0.8 {
				f, w[i] = 0.8/c[0], 0
			}
			for k := range 3 {
				dst[i][k] = f * gains[k] * c[k]
			}
		}
		return nil
	}
	d, err := fitAnchor(x, clamped)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if got := d[4*k]; math.Abs(got-gains[k]) > 1e-9 {
			t.Errorf("cone %d: anchor gain %.4f, want %.4f (the map's gain where it is not clamped)", k+1, got, gains[k])
		}
	}
	never := func(dst []colorspace.LMS, w []float64, src []colorspace.LMS) error {
		clear(w)
		return nil
	}
	if _, err := fitAnchor(x, never); err == nil {
		t.Error("no colour with a positive weight: want an error")
	}
}
