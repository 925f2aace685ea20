package adapt

import (
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// refEvalPixels collects the pixels as Evaluate did before evalPixels:
// every pixel opaque in A and B converted, then the subsample taken.
func refEvalPixels(a, b []image.Image, opt EvalOptions) *pixelSet {
	p := &pixelSet{}
	for i := range a {
		ba, bb := a[i].Bounds(), b[i].Bounds()
		for y := 0; y < ba.Dy(); y++ {
			for x := 0; x < ba.Dx(); x++ {
				la, aa := pixelLinear(a[i], ba.Min.X+x, ba.Min.Y+y)
				lb, ab := pixelLinear(b[i], bb.Min.X+x, bb.Min.Y+y)
				if aa == 0 || ab == 0 {
					continue
				}
				if opt.Truth != nil {
					bt := opt.Truth[i].Bounds()
					lt, _ := pixelLinear(opt.Truth[i], bt.Min.X+x, bt.Min.Y+y)
					p.refT = append(p.refT, linearToSRGB(lt))
				}
				p.srcB = append(p.srcB, linearToLMS(lb))
				p.refA = append(p.refA, linearToSRGB(la))
				yb := colorspace.LinearRGBToXYZ.Apply(colorspace.XYZ(lb))
				p.lightB = append(p.lightB, yb.Lab(colorspace.WhiteD65)[0])
			}
		}
	}
	if opt.MaxPixels > 0 && len(p.srcB) > opt.MaxPixels {
		keep := subsample(len(p.srcB), opt.MaxPixels, opt.Seed)
		q := &pixelSet{}
		for _, k := range keep {
			q.srcB, q.refA, q.lightB = append(q.srcB, p.srcB[k]), append(q.refA, p.refA[k]), append(q.lightB, p.lightB[k])
			if p.refT != nil {
				q.refT = append(q.refT, p.refT[k])
			}
		}
		p = q
	}
	return p
}

// TestEvalPixels checks that Evaluate's pixels, counted first and only the
// subsample converted, are those of converting every pixel and then
// subsampling: pairs of several sizes and types with transparent pixels
// in A or in B, with and without a truth, subsampled or not.
func TestEvalPixels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var a, b, truth []image.Image
	for i, size := range []image.Point{{40, 30}, {25, 17}, {33, 20}} {
		sa, sb := testimages.Scene(size.X, size.Y, uint64(20+i))
		st := testimages.SceneTruth(size.X, size.Y, uint64(20+i))
		na := image.NewNRGBA(sa.Bounds()) // 8-bit A, 16-bit B and truth
		draw.Draw(na, na.Bounds(), sa, sa.Bounds().Min, draw.Src)
		nb := image.NewNRGBA64(sb.Bounds())
		draw.Draw(nb, nb.Bounds(), sb, sb.Bounds().Min, draw.Src)
		for range size.X * size.Y / 5 {
			x, y := rng.IntN(size.X), rng.IntN(size.Y)
			if rng.IntN(2) == 0 {
				na.SetNRGBA(x, y, color.NRGBA{})
			} else {
				nb.SetNRGBA64(x, y, color.NRGBA64{A: 0})
			}
		}
		a, b, truth = append(a, na), append(b, nb), append(truth, st)
	}
	for _, opt := range []EvalOptions{
		{}, {Truth: truth}, {MaxPixels: 500, Seed: 3}, {MaxPixels: 500, Seed: 3, Truth: truth}, {MaxPixels: 1 << 20},
	} {
		got, err := evalPixels(a, b, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := refEvalPixels(a, b, opt)
		if !reflect.DeepEqual(got.srcB, want.srcB) || !reflect.DeepEqual(got.refA, want.refA) ||
			!reflect.DeepEqual(got.refT, want.refT) || !reflect.DeepEqual(got.lightB, want.lightB) {
			t.Errorf("max %d, truth %v: %d pixels, converting all then subsampling gives %d (or other values)",
				opt.MaxPixels, opt.Truth != nil, len(got.srcB), len(want.srcB))
		}
		if opt.MaxPixels == 500 && len(got.srcB) != 500 {
			t.Errorf("max 500: %d pixels", len(got.srcB))
		}
	}
}
