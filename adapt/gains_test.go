package adapt

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// TestGains checks that the gray-world gains are estimated from the
// training means, applied by the exact map and by the LUT alike (the LUT
// holds the exact map at its nodes), that they change the map, and that a
// version-2 model file (no gains) reads with gains 1.
func TestGains(t *testing.T) {
	a, b := testimages.SceneSet(40, 32, 24, 5)
	o := testOptions()
	o.Samples = 3000
	m, err := Train(a, b, &o)
	if err != nil {
		t.Fatal(err)
	}
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
	v3 := withoutRays(t, m, modelBytes(t, m))
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
