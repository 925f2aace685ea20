package codec

import (
	"image"
	"io"
	"math"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestRateEstimate checks that the estimate the rate search starts from
// (rateEstimate) follows the exact rate of the channels' streams: within
// a factor 1.4 of it at
// every step from half to twice the model's, its ratio to it changing by
// less than 15 % over a factor of 2 in the step, on textures of other
// seeds than the models', grey and colour (4:2:0).
func TestRateEstimate(t *testing.T) {
	for _, c := range rateEstimateCases(t) {
		in, pixels, est := caseRateModel(t, c.img, c.m)
		v := encodeFormat(c.img, c.m)
		var ratios []float64
		for _, f := range []float64{0.5, 0.71, 1, 1.41, 2} {
			s := c.m.Step * f
			var w countingWriter
			if err := encodeInputVersion(&w, c.img, c.m, &Options{Step: s, Deblock: 1, NoLoopFilter: true}, v, in); err != nil {
				t.Fatal(err)
			}
			r := 8 * float64(w.n-in.header) / pixels // the streams
			e := math.Exp(est.at(math.Log(s)))
			t.Logf("%T step %.2f: rate %.4f, estimate %.4f (%.3f)", c.img, s, r, e, r/e)
			if !(r/e > 1/1.4 && r/e < 1.4) {
				t.Errorf("%T step %.2f: rate %.4f, estimate %.4f", c.img, s, r, e)
			}
			ratios = append(ratios, r/e)
		}
		for i := 2; i < len(ratios); i++ {
			if d := ratios[i] / ratios[i-2]; !(d > 0.85 && d < 1/0.85) {
				t.Errorf("%T: the rate over the estimate changes from %.3f to %.3f over a factor of 2 in the step", c.img, ratios[i-2], ratios[i])
			}
		}
		in.release()
	}
}

// TestRateSearchProbes checks that the rate search, guided by the
// estimate, hits every target within rateTolerance in few exact probes
// on these small textures (at most 5 a search, 3 on average; the secant
// from the model's own step alone takes 4.1 on average).
func TestRateSearchProbes(t *testing.T) {
	probes, searches := 0, 0
	for _, c := range rateEstimateCases(t) {
		for _, bpp := range []float64{0.5, 1, 2} {
			in := &encodeInput{share: true, keep: true}
			step, rate, err := encodeAtRate(io.Discard, c.img, c.m, bpp, nil, in)
			in.release()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%T %g bpp: step %.3f, %.4f bpp in %d probes, %d evaluations of the estimate", c.img, bpp, step, rate, in.probes, in.estimates)
			if math.Abs(rate-bpp) > rateTolerance*bpp || in.probes > 5 {
				t.Errorf("%T %g bpp: step %.3f codes at %.4f bpp after %d probes", c.img, bpp, step, rate, in.probes)
			}
			probes += in.probes
			searches++
		}
	}
	if mean := float64(probes) / float64(searches); mean > 3 {
		t.Errorf("%.2f probes a search", mean)
	}
}

// rateEstimateCases are the models and images of the rate estimate's
// tests: textures of other seeds than the models'.
// caseRateModel returns the rate model the search builds for img (the
// input shared as in an encode) and img's number of pixels.
func caseRateModel(t *testing.T, img image.Image, m *Model) (*encodeInput, float64, *rateModel) {
	t.Helper()
	in := &encodeInput{share: true}
	b := img.Bounds()
	pixels := float64(b.Dx() * b.Dy())
	est := newRateModel(img, m, &Options{}, in, pixels)
	if est == nil {
		t.Fatalf("%T: no rate model", img)
	}
	return in, pixels, est
}

func rateEstimateCases(t *testing.T) []struct {
	m   *Model
	img image.Image
} {
	grey := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 })
	colour := smallColorModel(t, true)
	return []struct {
		m   *Model
		img image.Image
	}{
		{grey, testimages.Texture(192, 128, 61)},
		{grey, testimages.Texture(160, 96, 62)},
		{colour, testimages.ColorTexture(192, 128, 63)},
	}
}

// TestRateSearchCoarse checks the coarse estimate's part in the search
// of an image large enough for it: the first proposal starts with coarse
// estimates (a quarter of the rows), and the whole search takes few of
// the estimate proper (at most 4 on average: 3.3 here; 5.3 without the
// coarse ones, 8.3 without taking the estimates near one computed along
// the slope) while hitting its target within rateTolerance.
func TestRateSearchCoarse(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 })
	img := testimages.Texture(384, 256, 64) // 6144 patches
	fine, searches := 0, 0
	for _, bpp := range []float64{0.5, 1, 2} {
		in := &encodeInput{share: true, keep: true}
		step, rate, err := encodeAtRate(io.Discard, img, m, bpp, nil, in)
		in.release()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%g bpp: step %.3f, %.4f bpp in %d probes, %d evaluations of the estimate, %d of the coarse one", bpp, step, rate, in.probes, in.estimates, in.coarse)
		if math.Abs(rate-bpp) > rateTolerance*bpp || in.probes > 5 || in.coarse == 0 {
			t.Errorf("%g bpp: step %.3f codes at %.4f bpp after %d probes, %d coarse estimates", bpp, step, rate, in.probes, in.coarse)
		}
		fine += in.estimates
		searches++
	}
	if mean := float64(fine) / float64(searches); mean > 4 {
		t.Errorf("%.2f evaluations of the estimate a search", mean)
	}
}
