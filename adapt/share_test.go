package adapt

import (
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// refOutsideShare is OutsideShareImage as the subsample's colours through
// OutsideShare, every pixel judged on its own.
func refOutsideShare(s *Support, img image.Image) float64 {
	b := img.Bounds()
	n := b.Dx() * b.Dy()
	if n == 0 {
		return 0
	}
	step := max(1, int(sqrtInt(n)))
	var cols []colorspace.LMS
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bb, a := img.At(x, y).RGBA()
			if a == 0 {
				continue
			}
			cols = append(cols, SRGBToLMS(colorspace.SRGB{float64(r) / float64(a), float64(g) / float64(a), float64(bb) / float64(a)}))
		}
	}
	return s.OutsideShare(cols)
}

func sqrtInt(n int) int {
	k := 0
	for (k+1)*(k+1)*shareSamples <= n {
		k++
	}
	return k
}

// shareSupport is the support of a generated scene under light B, and a
// w×h image tiled from another.
func shareSupport(t testing.TB, w, h int) (*Support, image.Image) {
	_, train := testimages.Scene(96, 64, 11)
	x, err := SampleLMS([]image.Image{train}, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, tile := testimages.Scene(192, 128, 12)
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 128 {
		for x := 0; x < w; x += 192 {
			draw.Draw(img, image.Rect(x, y, x+192, y+128), tile, image.Point{}, draw.Src)
		}
	}
	return NewSupport(x), img
}

// TestOutsideShareImageExact checks that judging 8-bit pixels once per
// distinct colour gives exactly the share of judging every pixel, for
// RGBA and NRGBA images with transparent and translucent pixels, 16-bit
// images, sub-images and images subsampled with a step of 1 and 2.
func TestOutsideShareImageExact(t *testing.T) {
	s, scene := shareSupport(t, 384, 256)
	rng := rand.New(rand.NewPCG(1, 2))
	b := scene.Bounds()
	rgba := image.NewRGBA(b)
	draw.Draw(rgba, b, scene, b.Min, draw.Src)
	nrgba := image.NewNRGBA(b)
	draw.Draw(nrgba, b, scene, b.Min, draw.Src)
	// Saturated colours beyond the scene's, some translucent or clear.
	for range 5000 {
		x, y := rng.IntN(b.Dx()), rng.IntN(b.Dy())
		c := color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 0xff}
		switch rng.IntN(4) {
		case 0:
			c.A = uint8(rng.IntN(256))
		case 1:
			c.A = 0
		}
		nrgba.SetNRGBA(x, y, c)
		rgba.Set(x, y, c)
	}
	n64 := image.NewNRGBA64(b)
	draw.Draw(n64, b, nrgba, b.Min, draw.Src)
	big := image.NewNRGBA(image.Rect(0, 0, 1152, 512)) // 589,824 pixels: every second one
	for y := 0; y < 512; y += 256 {
		for x := 0; x < 1152; x += 384 {
			draw.Draw(big, image.Rect(x, y, x+384, y+256), nrgba, image.Point{}, draw.Src)
		}
	}
	cases := map[string]image.Image{
		"RGBA": rgba, "NRGBA": nrgba, "NRGBA64": n64, "NRGBA 1152x512": big,
		"RGBA sub-image":  rgba.SubImage(image.Rect(100, 50, 300, 200)),
		"NRGBA sub-image": nrgba.SubImage(image.Rect(3, 7, 380, 255)),
		"empty":           nrgba.SubImage(image.Rect(3, 7, 3, 255)),
	}
	some := false
	for name, img := range cases {
		got, want := s.OutsideShareImage(img), refOutsideShare(s, img)
		if got != want {
			t.Errorf("%s: share %v, judging every pixel %v", name, got, want)
		}
		some = some || got > 0.001 && got < 0.999
	}
	if !some {
		t.Error("no image with pixels both inside and outside the support: the comparison shows nothing")
	}
	t16 := lin16Table()
	for v := range 256 {
		if lin8[v] != t16[v*0x101] {
			t.Errorf("8-bit %d decodes to %v, its 16-bit value to %v", v, lin8[v], t16[v*0x101])
		}
	}
}

// BenchmarkOutsideShareImage judges a 768×512 scene (every pixel), as
// adapt apply does for each image, in 8 and in 16 bits.
func BenchmarkOutsideShareImage(b *testing.B) {
	s, scene := shareSupport(b, 768, 512)
	img := image.NewNRGBA(scene.Bounds())
	draw.Draw(img, img.Bounds(), scene, image.Point{}, draw.Src)
	for name, img := range map[string]image.Image{"8": img, "16": scene} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				s.OutsideShareImage(img)
			}
		})
	}
}

// TestCoverageOf checks that the coverage computed from the occupied cells
// alone is the coverage of the support's distances, on colours spread over
// the cube, on a generated scene's, on a shell of cells around an empty one
// (whose corners are all at distance 0 without its being occupied) and on
// too few colours to occupy any cell.
func TestCoverageOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cells := func(pts [][3]float64, copies int) *mat.Dense {
		x := mat.NewDense(len(pts)*copies, 3, nil)
		for i := range len(pts) * copies {
			p := pts[i%len(pts)]
			l := SRGBToLMS(colorspace.SRGB{p[0], p[1], p[2]})
			x.SetRow(i, l[:])
		}
		return x
	}
	var spread, shell [][3]float64
	for range 3000 {
		spread = append(spread, [3]float64{rng.Float64(), rng.Float64(), rng.Float64()})
	}
	for dr := -1; dr <= 1; dr++ {
		for dg := -1; dg <= 1; dg++ {
			for db := -1; db <= 1; db++ {
				if dr != 0 || dg != 0 || db != 0 { // the centre cell stays empty
					shell = append(shell, [3]float64{(10.5 + float64(dr)) / SupportGrid, (12.5 + float64(dg)) / SupportGrid, (20.5 + float64(db)) / SupportGrid})
				}
			}
		}
	}
	_, scene := testimages.Scene(96, 64, 13)
	sx, err := SampleLMS([]image.Image{scene}, 4000, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*mat.Dense{
		"spread": cells(spread, 4), "scene": sx, "shell": cells(shell, SupportMinCount), "few": cells(spread[:5], 1),
	} {
		got, want := coverageOf(x), NewSupport(x).Coverage()
		if got != want {
			t.Errorf("%s: coverage %v, the support's %v", name, got, want)
		}
		t.Logf("%s: coverage %.4f", name, got)
	}
	if c := coverageOf(cells(shell, SupportMinCount)); c != 27.0/(SupportGrid*SupportGrid*SupportGrid) {
		t.Errorf("shell of 26 cells: coverage %v, want the 26 and the empty centre", c*SupportGrid*SupportGrid*SupportGrid)
	}
}

// BenchmarkCoverage measures the gamut coverage adapt train reports for
// 100,000 colours of a generated scene: from the occupied cells
// (coverageOf, what it does) and through a support's distances.
func BenchmarkCoverage(b *testing.B) {
	_, scene := testimages.Scene(400, 300, 13)
	x, err := SampleLMS([]image.Image{scene}, 100000, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("occupied", func(b *testing.B) {
		for b.Loop() {
			coverageOf(x)
		}
	})
	b.Run("support", func(b *testing.B) {
		for b.Loop() {
			NewSupport(x).Coverage()
		}
	})
}
