package codec

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// rateModels are small models of the shapes the rate knob serves: 8×8
// and 4×4 grey (gamma 0, uniform, as the photo models), 3×3 gamma 1/3,
// and colour with and without subsampled chroma.
func rateModels(t *testing.T) []struct {
	name string
	m    *Model
} {
	train := func(set func(*TrainOptions)) *Model {
		o := DefaultTrainOptions()
		o.Samples, o.SPCA.Resolution = 600, 1024
		set(&o)
		imgs := []image.Image{testimages.Texture(128, 128, 7)}
		if o.Color {
			imgs = []image.Image{testimages.ColorTexture(128, 128, 7)}
		}
		m, err := Train(imgs, &o)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return []struct {
		name string
		m    *Model
	}{
		{"8x8 gamma 0 uniform", train(func(o *TrainOptions) { o.Patch, o.Gamma, o.Uniform, o.Step = 8, 0, true, 8 })},
		{"4x4 gamma 0 uniform", train(func(o *TrainOptions) { o.Patch, o.Gamma, o.Uniform, o.Step = 4, 0, true, 8 })},
		{"3x3 gamma 1/3", smallStepModel(t)},
		{"colour 4:2:0", smallColorModel(t, true)},
		{"colour 4:4:4", smallColorModel(t, false)},
	}
}

// rateImages are images of every kind an encoder takes: 8-bit grey
// (contiguous and a strided sub-image), 16-bit grey, RGBA, 16-bit RGBA,
// and sizes that are not multiples of the patch (down to one row or
// column).
func rateImages() []image.Image {
	grey := testimages.Texture(80, 56, 21)
	wide := testimages.Texture(101, 77, 22)
	colour := testimages.ColorTexture(72, 48, 23)
	g16 := image.NewGray16(image.Rect(0, 0, 45, 37))
	c64 := image.NewRGBA64(image.Rect(0, 0, 39, 26))
	src := testimages.ColorTexture(45, 37, 24)
	for y := 0; y < 37; y++ {
		for x := 0; x < 45; x++ {
			r, gg, b, _ := src.At(x, y).RGBA()
			// 16 bits that are not 8 bits repeated.
			g16.SetGray16(x, y, color.Gray16{Y: uint16(r ^ uint32(x*y*37)&0xff)})
			if x < 39 && y < 26 {
				c64.SetRGBA64(x, y, color.RGBA64{R: uint16(r) ^ uint16(x*13), G: uint16(gg) ^ uint16(y*7), B: uint16(b), A: 0xffff})
			}
		}
	}
	col := image.NewGray(image.Rect(0, 0, 1, 40))
	row := image.NewGray(image.Rect(0, 0, 33, 1))
	draw.Draw(col, col.Rect, grey, image.Point{3, 0}, draw.Src)
	draw.Draw(row, row.Rect, grey, image.Point{0, 9}, draw.Src)
	return []image.Image{grey, wide.SubImage(image.Rect(5, 3, 92, 70)), g16, colour, c64, col, row}
}

// TestEncodeAtRateIsEncodeAtStep checks EncodeAtRate's contract whatever
// step its search picks: the file is Encode's at the step it returns
// (the step the file records), with the caller's options (the deblocking
// search and loop-filter fit, Exact, a fixed deblocking strength,
// AssignResponses), and the rate it returns is that file's; on every
// kind of image and model, at targets inside and far outside the rates
// the image reaches (1e-4 and 1e300 bits per pixel). Every model codes
// every image without options at every target; the caller's options go
// to half the pairs of model and image, so that each option meets every
// model and every image (2 or 3 of the models), at three targets.
func TestEncodeAtRateIsEncodeAtStep(t *testing.T) {
	models := rateModels(t)
	imgs := rateImages()
	opts := []*Options{nil, {Exact: true}, {Deblock: 3}, {Deblock: -1, NoLoopFilter: true}, {Assign: AssignResponses}}
	targets := []float64{1e-4, 0.3, 1.5, 40, 1e300}
	checked := 0
	for mi, mc := range models {
		for ii, img := range imgs {
			for oi, o := range opts {
				if oi > 0 && (mi+ii+oi)%2 == 1 {
					continue
				}
				for ti, bpp := range targets {
					if (oi > 0 || ii > 3) && ti%2 == 1 {
						continue // the rarer cases at three targets
					}
					var got, want bytes.Buffer
					step, rate, err := EncodeAtRate(&got, img, mc.m, bpp, o)
					if err != nil {
						if got.Len() != 0 || step != 0 {
							t.Errorf("%s, image %d, options %d, %g bpp: error %v with step %v and %d bytes written", mc.name, ii, oi, bpp, err, step, got.Len())
						}
						// Encode at the model's own step must fail too:
						// the search's first probe is at that step.
						if Encode(&want, img, mc.m, o) == nil {
							t.Errorf("%s, image %d, options %d, %g bpp: EncodeAtRate failed (%v) where Encode codes", mc.name, ii, oi, bpp, err)
						}
						continue
					}
					var opt Options
					if o != nil {
						opt = *o
					}
					opt.Step = step
					if err := Encode(&want, img, mc.m, &opt); err != nil {
						t.Fatalf("%s, image %d, options %d, %g bpp: Encode at step %v: %v", mc.name, ii, oi, bpp, step, err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("%s, image %d (%T %v), options %d, %g bpp: EncodeAtRate wrote %d bytes at step %v, Encode at that step %d (or other bytes)",
							mc.name, ii, img, img.Bounds().Size(), oi, bpp, got.Len(), step, want.Len())
						continue
					}
					checked++
					hd, err := DecodeHeader(bytes.NewReader(got.Bytes()))
					if err != nil {
						t.Fatal(err)
					}
					if hd.Step != 0 && hd.Step != step || hd.Step == 0 && step != mc.m.Step {
						t.Errorf("%s, image %d, %g bpp: the file records step %v, EncodeAtRate returned %v", mc.name, ii, bpp, hd.Step, step)
					}
					// The returned rate is the probe's, whose header
					// differs from the file's in the deblocking strength
					// and the loop filter only (same length).
					b := img.Bounds()
					if r := 8 * float64(got.Len()) / (float64(b.Dx()) * float64(b.Dy())); math.Abs(r-rate) > 1e-9*r {
						t.Errorf("%s, image %d, options %d, %g bpp: rate %v returned, the file's is %v", mc.name, ii, oi, bpp, rate, r)
					}
				}
			}
		}
	}
	t.Logf("%d encodes compared", checked)
	if checked < 100 {
		t.Errorf("only %d encodes compared", checked)
	}
}

// TestEncodeAtRateFiles is TestEncodeAtRateIsEncodeAtStep on model files
// and photographs: SPCA_RATE_MODELS lists model files (separated by
// commas), SPCA_RATE_IMAGES is a glob of PNG or netpbm images (grey
// images go to colour models and colour images to grey ones too, which
// take their luma), SPCA_RATE_TARGETS the targets (default 0.1, 0.5, 1,
// 3, 50). Skipped unless both are set.
func TestEncodeAtRateFiles(t *testing.T) {
	mlist, glob := os.Getenv("SPCA_RATE_MODELS"), os.Getenv("SPCA_RATE_IMAGES")
	if mlist == "" || glob == "" {
		t.Skip("SPCA_RATE_MODELS and SPCA_RATE_IMAGES not set")
	}
	targets := []float64{0.1, 0.5, 1, 3, 50}
	if s := os.Getenv("SPCA_RATE_TARGETS"); s != "" {
		targets = nil
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			targets = append(targets, v)
		}
	}
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no images in %q (%v)", glob, err)
	}
	var imgs []image.Image
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		imgs = append(imgs, img)
	}
	for _, mp := range strings.Split(mlist, ",") {
		m, err := LoadModel(mp)
		if err != nil {
			t.Fatal(err)
		}
		for ii, img := range imgs {
			for _, bpp := range targets {
				var got, want bytes.Buffer
				step, _, err := EncodeAtRate(&got, img, m, bpp, nil)
				if err != nil {
					t.Errorf("%s, %s, %g bpp: %v", mp, paths[ii], bpp, err)
					continue
				}
				if err := Encode(&want, img, m, &Options{Step: step}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s, %s, %g bpp: EncodeAtRate wrote %d bytes at step %v, Encode at that step %d (or other bytes)",
						mp, paths[ii], bpp, got.Len(), step, want.Len())
				}
			}
		}
	}
}
