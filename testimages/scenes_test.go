package testimages

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/colorspace"
)

func TestSceneDeterminism(t *testing.T) {
	a1, b1 := Scene(50, 30, 3)
	a2, b2 := Scene(50, 30, 3)
	a3, _ := Scene(50, 30, 4)
	pix := func(img image.Image) []uint8 { return img.(*image.NRGBA64).Pix }
	if !bytes.Equal(pix(a1), pix(a2)) || !bytes.Equal(pix(b1), pix(b2)) {
		t.Error("same seed gave different scenes")
	}
	if bytes.Equal(pix(a1), pix(a3)) {
		t.Error("different seeds gave the same scene")
	}
	if a1.Bounds() != image.Rect(0, 0, 50, 30) || b1.Bounds() != a1.Bounds() {
		t.Errorf("bounds %v %v", a1.Bounds(), b1.Bounds())
	}
	for _, img := range []image.Image{a1, b1} {
		p := pix(img)
		for i := 6; i < len(p); i += 8 {
			if p[i] != 0xff || p[i+1] != 0xff {
				t.Fatal("scene is not opaque")
			}
		}
	}
	// The same seed at another size is the same scene, scaled: the
	// half-size rendering is close to the full one averaged 2×2.
	big := RenderScene(80, 60, 9)
	small := RenderScene(40, 30, 9)
	var diff, norm float64
	for y := range 30 {
		for x := range 40 {
			for c := range 3 {
				v := 0.0
				for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					v += big.A[(2*y+d[1])*80+2*x+d[0]][c] / 4
				}
				diff += math.Abs(v - small.A[y*40+x][c])
				norm += v
			}
		}
	}
	if diff/norm > 0.05 {
		t.Errorf("half-size scene differs by %.1f %% from the full one", 100*diff/norm)
	}
	if a, b := Scene(0, 7, 1); a.Bounds().Dx() != 0 || b.Bounds().Dy() != 7 {
		t.Error("empty scene")
	}
	for _, wh := range [][2]int{{-1, 5}, {5, MaxSceneSize + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("size %v did not panic", wh)
				}
			}()
			Scene(wh[0], wh[1], 1)
		}()
	}
}

// TestSceneEnvironments checks the physics of the two renderings over a
// set of scenes: B has more cast shadow and is darker, its colours are
// those of illuminant A, and the exposure rule puts the brightest diffuse
// white at sRGB 0.9 with almost nothing clipped.
func TestSceneEnvironments(t *testing.T) {
	var shA, shB, yA, yB, clipped, total float64
	var chromaB [2]float64
	n := 0
	for i := range 8 {
		r := RenderScene(64, 48, SceneSeed(11, i))
		for k := range r.A {
			shA += float64(r.ShadowA[k])
			shB += float64(r.ShadowB[k])
			yA += r.A[k][1]
			yB += r.B[k][1]
			x, y := r.B[k].Chromaticity()
			chromaB[0] += x
			chromaB[1] += y
			n++
			for _, c := range []colorspace.XYZ{r.A[k], r.B[k]} {
				for _, v := range c.LinearRGB() {
					total++
					if v < -1e-9 || v > 1+1e-9 {
						clipped++
					}
				}
			}
			if r.LightA[k] < SceneAmbientA-1e-6 || r.LightA[k] > 1+SceneAmbientA+1e-6 {
				t.Fatalf("light factor %v out of range", r.LightA[k])
			}
		}
	}
	shA, shB = shA/float64(n), shB/float64(n)
	t.Logf("cast shadow: A %.1f %%, B %.1f %%; mean Y: A %.3f, B %.3f; clipped channels %.2f %%",
		100*shA, 100*shB, yA/float64(n), yB/float64(n), 100*clipped/total)
	if shB < 1.5*shA || shB < 0.1 {
		t.Errorf("B has %.1f %% cast shadow, A %.1f %%: B should have clearly more", 100*shB, 100*shA)
	}
	if yB >= yA {
		t.Error("B is not darker than A")
	}
	if clipped/total > 0.01 {
		t.Errorf("%.2f %% of the channels clipped", 100*clipped/total)
	}
	// B's mean chromaticity is on the illuminant A side of D65.
	if x := chromaB[0] / float64(n); x < 0.4 {
		t.Errorf("mean chromaticity x of B is %.3f, want near illuminant A (0.448)", x)
	}
	wa, wb := SceneWhites()
	for name, w := range map[string]colorspace.XYZ{"A": wa, "B": wb} {
		rgb := w.LinearRGB()
		if m := max(rgb[0], rgb[1], rgb[2]); math.Abs(colorspace.LinearToSRGB(m)-SceneWhiteLevel) > 1e-9 {
			t.Errorf("white of %s has largest channel %v, want sRGB %v", name, colorspace.LinearToSRGB(m), SceneWhiteLevel)
		}
	}
	xa, ya := wa.Chromaticity()
	xb, yb := wb.Chromaticity()
	if math.Hypot(xa-0.3127, ya-0.3290) > 1e-3 || math.Hypot(xb-0.44758, yb-0.40745) > 1e-3 {
		t.Errorf("white chromaticities (%.4f, %.4f), (%.4f, %.4f)", xa, ya, xb, yb)
	}
}

func TestRandomReflectance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		r := RandomReflectance(rng)
		for i, v := range r {
			if v < SceneMinReflectance || v > SceneMaxReflectance {
				t.Fatalf("reflectance %v at %v nm", v, colorspace.Wavelength(i))
			}
			// Smooth: no jump of more than 0.12 between 5 nm samples.
			if i > 0 && math.Abs(v-r[i-1]) > 0.12 {
				t.Fatalf("jump %v at %v nm", v-r[i-1], colorspace.Wavelength(i))
			}
		}
	}
}

func TestSceneSet(t *testing.T) {
	a, b := SceneSet(3, 20, 10, 5)
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d, %d scenes", len(a), len(b))
	}
	a0, _ := Scene(20, 10, SceneSeed(5, 0))
	if !bytes.Equal(a[0].(*image.NRGBA64).Pix, a0.(*image.NRGBA64).Pix) {
		t.Error("scene 0 is not Scene(SceneSeed(seed, 0))")
	}
	if SceneSeed(5, 0) == SceneSeed(5, 1) || SceneSeed(5, 0) == SceneSeed(6, 0) {
		t.Error("scene seeds collide")
	}
}
