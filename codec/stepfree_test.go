package codec

import (
	"bytes"
	"image"
	"image/draw"
	"io"
	"slices"
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
// models, on targets below and above the model's own rate (0.2 bpp:
// below every rate, where the closest probe is not the last), with the
// final encode taking the chosen probe's coded channels; and that a
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
		for _, bpp := range []float64{0.2, 0.3, 0.7, 2.5} {
			wantStep, wantRate, err := StepForRate(c.img, c.m, bpp, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if err := Encode(&want, c.img, c.m, &Options{Step: wantStep}); err != nil {
				t.Fatal(err)
			}
			in := &encodeInput{share: true, keep: true}
			step, rate, err := encodeAtRate(&got, c.img, c.m, bpp, nil, in)
			if err != nil {
				t.Fatal(err)
			}
			// The kept channels are those a fresh encode at the step
			// codes: stream, indices (which later probes must not
			// overwrite) and outliers.
			fresh := &encodeInput{share: true, keep: true}
			if err := encodeInputVersion(io.Discard, c.img, c.m, &Options{Step: wantStep}, encodeFormat(c.img, c.m), fresh); err != nil {
				t.Fatal(err)
			}
			for ci, kc := range in.kept {
				if !sameCoded(kc, fresh.last[ci]) {
					t.Errorf("%T, colour model %v, %g bpp: channel %d kept from the chosen probe differs from a fresh encode's", c.img, c.m.Color, bpp, ci)
				}
			}
			in.release()
			fresh.release()
			if step != wantStep || rate != wantRate || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%T, colour model %v, %g bpp: step %v rate %v, %d bytes; StepForRate and Encode: step %v rate %v, %d bytes",
					c.img, c.m.Color, bpp, step, rate, got.Len(), wantStep, wantRate, want.Len())
			}
			// The final encode took the chosen probe's streams, indices
			// and outliers (the bytes above are a fresh Encode's).
			if want := len(c.m.Channels); in.reused != want {
				t.Errorf("%T, colour model %v, %g bpp: the final encode reused %d channels of the chosen probe, want %d",
					c.img, c.m.Color, bpp, in.reused, want)
			}
		}
		// A probe after the kept one (at another step) leaves the kept
		// channels as they were, and an encode at the kept step takes
		// them and writes Encode's file.
		s0, s1 := 0.8*c.m.Step, 1.6*c.m.Step
		in := &encodeInput{share: true, keep: true}
		v := encodeFormat(c.img, c.m)
		probe := &Options{Step: s0, Deblock: 1, NoLoopFilter: true}
		if err := encodeInputVersion(io.Discard, c.img, c.m, probe, v, in); err != nil {
			t.Fatal(err)
		}
		in.keepLast(s0)
		probe.Step = s1
		if err := encodeInputVersion(io.Discard, c.img, c.m, probe, v, in); err != nil {
			t.Fatal(err)
		}
		fresh := &encodeInput{share: true, keep: true}
		if err := encodeInputVersion(io.Discard, c.img, c.m, &Options{Step: s0}, v, fresh); err != nil {
			t.Fatal(err)
		}
		for ci, kc := range in.kept {
			if !sameCoded(kc, fresh.last[ci]) {
				t.Errorf("%T, colour model %v: channel %d kept at step %g, after a probe at %g, differs from a fresh encode's", c.img, c.m.Color, ci, s0, s1)
			}
		}
		var want, got bytes.Buffer
		if err := Encode(&want, c.img, c.m, &Options{Step: s0}); err != nil {
			t.Fatal(err)
		}
		if err := encodeInputVersion(&got, c.img, c.m, &Options{Step: s0}, v, in); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) || in.reused != len(c.m.Channels) {
			t.Errorf("%T, colour model %v: the encode at the kept step wrote %d bytes reusing %d channels; Encode %d bytes",
				c.img, c.m.Color, got.Len(), in.reused, want.Len())
		}
		in.release()
		fresh.release()
	}
	var w bytes.Buffer
	if step, _, err := EncodeAtRate(&w, g, smallModel(t), 1, nil); err == nil || step != 0 || w.Len() != 0 {
		t.Errorf("a fixed-resolution model: step %v, %d bytes, error %v; want step 0, nothing written, an error", step, w.Len(), err)
	}
}

// sameCoded reports whether a and b hold the same stream, grid, indices
// and outliers.
func sameCoded(a, b *codedChannel) bool {
	if !bytes.Equal(a.body, b.body) || a.grid != b.grid || !slices.Equal(a.idx, b.idx) || (a.out == nil) != (b.out == nil) {
		return false
	}
	if a.out == nil {
		return true
	}
	x, y := a.out, b.out
	return x.n == y.n && x.step == y.step && x.shifted == y.shifted && (x.shift == nil) == (y.shift == nil) &&
		slices.Equal(x.at, y.at) && slices.Equal(x.vals, y.vals) && slices.Equal(x.shift, y.shift)
}
