package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/checksum"
)

// withoutRays returns the model file b of m (version 4 to 6: without
// highlight gains, see withoutHighlight) as version 3: the ray table
// removed, the version and checksum redone.
func withoutRays(t *testing.T, m *Model, b []byte) []byte {
	t.Helper()
	if m.Rays == nil {
		t.Fatal("model has no ray table")
	}
	n := 8 + 8 + 8*len(m.Rays.Q) + 8
	le := binary.LittleEndian
	// The fields after the ray table: the alignment (version 5) and its
	// choice (version 6).
	switch le.Uint32(b[len(ModelMagic):]) {
	case 7:
		t.Fatal("version 7: a version 3 file would map without its highlight gains")
	case 6:
		n += 9*8 + 4 + 2*8
	case 5:
		n += 9 * 8
	}
	v3 := append([]byte(nil), b[:len(b)-4-n]...)
	le.PutUint32(v3[len(ModelMagic):], 3)
	return le.AppendUint32(v3, checksum.Sum(v3))
}

// TestLightnessLUT: the model stores its ray table (format 4) and a
// version-3 file, without it, reads and maps the same (the table built
// on first use); LightnessLUT.Apply agrees with Eval on 8- and 16-bit
// pixels, keeps alpha and maps premultiplied pixels; black stays black;
// bad tables are refused.
func TestLightnessLUT(t *testing.T) {
	m := testModel(t)
	if m.Rays == nil {
		t.Fatal("trained model has no ray table")
	}
	got := readBack(t, m)
	if got.Rays == nil || got.Rays.Top != m.Rays.Top || len(got.Rays.Q) != len(m.Rays.Q) {
		t.Fatal("ray table not read back")
	}
	m0 := withoutHighlight(t, m)
	old, err := Read(bytes.NewReader(withoutRays(t, m0, modelBytes(t, m0))))
	if err != nil {
		t.Fatalf("version-3 file: %v", err)
	}
	if old.Rays != nil || old.LUT == nil {
		t.Fatal("version-3 file: ray table present or LUT missing")
	}
	rng := rand.New(rand.NewPCG(4, 22))
	src := make([]colorspace.LMS, 200)
	for i := range src {
		src[i] = SRGBToLMS(colorspace.SRGB{rng.Float64(), rng.Float64(), rng.Float64()})
	}
	want, have := make([]colorspace.LMS, len(src)), make([]colorspace.LMS, len(src))
	mp, _ := m0.Mapper(SPCA)
	mp.MapLMS(want, src)
	mp, _ = old.Mapper(SPCA)
	mp.MapLMS(have, src)
	for i := range want {
		if maxDiff([3]float64(want[i]), [3]float64(have[i])) > 1e-12 {
			t.Fatalf("version-3 file maps %v to %v, the model to %v", src[i], have[i], want[i])
		}
	}

	im, err := m.ImageMapperFor(SPCA, DefaultLUTSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	ll := im.(*LightnessLUT)
	if c := ll.Eval([3]float64{}); c != ([3]float64{}) {
		t.Errorf("black maps to %v", c)
	}
	if im, _ := m.ImageMapperFor(GrayWorld, 9, nil); im == nil {
		t.Error("no image mapper for gray world")
	} else if _, ok := im.(*LUT); !ok {
		t.Errorf("gray world: %T, want a LUT", im)
	}
	// 8-bit, 16-bit, premultiplied.
	n8 := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	n16 := image.NewNRGBA64(image.Rect(0, 0, 64, 64))
	p8 := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := 0; i < len(n8.Pix); i += 4 {
		for k := range 3 {
			n8.Pix[i+k] = uint8(rng.IntN(256))
		}
		n8.Pix[i+3] = 255
		c := color.NRGBA64{uint16(rng.IntN(65536)), uint16(rng.IntN(65536)), uint16(rng.IntN(65536)), 0xffff}
		n16.SetNRGBA64(i/4%64, i/4/64, c)
		p8.Pix[i], p8.Pix[i+1], p8.Pix[i+2], p8.Pix[i+3] = 100, 50, 0, 200
	}
	out8, err := ll.Apply(n8, 0)
	if err != nil {
		t.Fatal(err)
	}
	out16, _ := ll.Apply(n16, 2)
	worst8, worst16 := 0.0, 0.0
	for y := range 64 {
		for x := range 64 {
			c := n8.NRGBAAt(x, y)
			e := ll.Eval([3]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255})
			o := out8.(*image.NRGBA).NRGBAAt(x, y)
			worst8 = max(worst8, maxDiff(e, [3]float64{float64(o.R) / 255, float64(o.G) / 255, float64(o.B) / 255}))
			c16 := n16.NRGBA64At(x, y)
			e = ll.Eval([3]float64{float64(c16.R) / 65535, float64(c16.G) / 65535, float64(c16.B) / 65535})
			o16 := out16.(*image.NRGBA64).NRGBA64At(x, y)
			worst16 = max(worst16, maxDiff(e, [3]float64{float64(o16.R) / 65535, float64(o16.G) / 65535, float64(o16.B) / 65535}))
		}
	}
	// Rounding: half a step, plus the encoding table's 2^-16 linear steps
	// (8-bit).
	if worst8 > 0.55/255 || worst16 > 0.52/65535 {
		t.Errorf("Apply differs from Eval by %.3f/255 (8-bit), %.3f/65535 (16-bit)", 255*worst8, 65535*worst16)
	}
	outP, _ := ll.Apply(p8, 0)
	e := ll.Eval([3]float64{float64(unpremul8(100, 200)) / 255, float64(unpremul8(50, 200)) / 255, 0})
	o := outP.(*image.RGBA).RGBAAt(3, 5)
	w := [3]uint8{premul8(uint8(math.Round(255*e[0])), 200), premul8(uint8(math.Round(255*e[1])), 200), premul8(uint8(math.Round(255*e[2])), 200)}
	if o.A != 200 || absDiff8(o.R, w[0]) > 1 || absDiff8(o.G, w[1]) > 1 || absDiff8(o.B, w[2]) > 1 {
		t.Errorf("premultiplied pixel maps to %v, want %v alpha 200", o, w)
	}
	// Bad tables.
	if _, err := NewLightnessLUT(m.LUT, &RayTable{N: 2, R: 2, Q: make([]float64, 5)}, m.Ceiling); !errors.Is(err, ErrRayTable) {
		t.Errorf("short ray table: %v", err)
	}
	if _, err := NewLightnessLUT(nil, m.Rays, m.Ceiling); err == nil {
		t.Error("nil LUT accepted")
	}
	if _, err := (&LightnessLUT{LUT: m.LUT, Rays: m.Rays}).Apply(n8, 0); err == nil {
		t.Error("LightnessLUT not made by NewLightnessLUT applied")
	}
}

func absDiff8(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}
