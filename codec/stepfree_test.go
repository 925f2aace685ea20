package codec

import (
	"bytes"
	"image"
	"image/draw"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestStepFreeProbes checks what StepForRate's probes rely on: encodes of
// one image at a sequence of steps (the model's, finer, coarser, again)
// that share its planes and step-free transform (stepFree: PCA
// coefficients and unfolded coordinates computed at the first step) give
// the bytes Encode gives at each step on its own, through the fast path
// and the exact path (Options.Exact), for grey models (gamma 0 and not,
// one with dimensions beyond the SPCA ones) on contiguous, strided and
// colour images, and for a colour model with subsampled chroma.
func TestStepFreeProbes(t *testing.T) {
	tex := testimages.Texture(96, 64, 41)
	g := image.NewGray(tex.Bounds())
	draw.Draw(g, g.Rect, tex, g.Rect.Min, draw.Src)
	wide := image.NewGray(image.Rect(0, 0, 120, 70))
	draw.Draw(wide, wide.Rect, testimages.Texture(120, 70, 42), image.Point{}, draw.Src)
	strided := wide.SubImage(image.Rect(7, 3, 107, 67)) // rows not contiguous
	colour := testimages.ColorTexture(96, 64, 43)
	cases := []struct {
		name string
		m    *Model
		imgs []image.Image
	}{
		{"grey gamma 0", smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step = 0, 10 }), []image.Image{g, strided, colour}},
		{"grey 3x3", smallStepModel(t), []image.Image{g, colour}},
		{"colour 4:2:0", smallColorModel(t, true), []image.Image{colour, g}},
	}
	shared := 0
	for _, c := range cases {
		for ii, img := range c.imgs {
			for _, exact := range []bool{false, true} {
				opt := Options{Exact: exact, Deblock: 1, NoLoopFilter: true}
				in := &encodeInput{share: true}
				v := encodeFormat(img, c.m)
				for _, f := range []float64{1, 1.7, 0.6, 1.7, 3.1, 1} {
					opt.Step = f * c.m.Step
					var want, got bytes.Buffer
					if err := Encode(&want, img, c.m, &opt); err != nil {
						t.Fatal(err)
					}
					if err := encodeInputVersion(&got, img, c.m, &opt, v, in); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("%s, image %d, exact %v, step x%g: %d bytes with the shared transform, %d without (or other bytes)",
							c.name, ii, exact, f, got.Len(), want.Len())
					}
				}
				for _, s := range in.chans {
					if s == nil {
						t.Fatalf("%s, image %d: a channel was not transformed", c.name, ii)
					}
					if !exact && len(s.slow) < s.y.RawMatrix().Rows {
						shared++
					}
				}
				in.release()
			}
		}
	}
	if shared == 0 {
		t.Error("no channel took the fast path: the fast rows' sharing is untested")
	}
}

// TestEncodeAtRate checks that EncodeAtRate, whose search and encode
// share the transform, returns StepForRate's step and rate and writes the
// file Encode writes at that step (with the deblocking search and the
// loop filter fit the probes skip), for grey and colour images and
// models, on targets below and above the model's own rate; and that a
// failed search writes nothing and returns step 0.
func TestEncodeAtRate(t *testing.T) {
	grey := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step = 0, 10 })
	tex := testimages.Texture(96, 64, 44)
	g := image.NewGray(tex.Bounds())
	draw.Draw(g, g.Rect, tex, g.Rect.Min, draw.Src)
	colour := testimages.ColorTexture(96, 64, 45)
	for _, c := range []struct {
		m   *Model
		img image.Image
	}{{grey, g}, {grey, colour}, {smallColorModel(t, true), colour}} {
		for _, bpp := range []float64{0.7, 2.5} {
			wantStep, wantRate, err := StepForRate(c.img, c.m, bpp, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if err := Encode(&want, c.img, c.m, &Options{Step: wantStep}); err != nil {
				t.Fatal(err)
			}
			step, rate, err := EncodeAtRate(&got, c.img, c.m, bpp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if step != wantStep || rate != wantRate || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%T, colour model %v, %g bpp: step %v rate %v, %d bytes; StepForRate and Encode: step %v rate %v, %d bytes",
					c.img, c.m.Color, bpp, step, rate, got.Len(), wantStep, wantRate, want.Len())
			}
		}
	}
	var w bytes.Buffer
	if step, _, err := EncodeAtRate(&w, g, smallModel(t), 1, nil); err == nil || step != 0 || w.Len() != 0 {
		t.Errorf("a fixed-resolution model: step %v, %d bytes, error %v; want step 0, nothing written, an error", step, w.Len(), err)
	}
}
