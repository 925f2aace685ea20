package codec

import (
	"bytes"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// effortShare bounds what a lower effort may cost against the full
// search on TestEffortLevels' images, by level: its squared error within
// this share above the default file's, and its size within effortBytes
// of it. On kodim13-24 and the grey crops with the photo models
// (README, "Encoder effort") effort 2 costs at most 0.06 dB and effort 1
// 0.05-0.42 dB at steps 0.5-4× the model's (1-10 % of the squared
// error, for 0.1-3 % fewer bytes); the small models here, trained on one
// texture, lose up to 33 % at effort 1.
var effortShare = map[int]float64{1: 0.5, 2: 0.05}

// effortBytes bounds the size of a lower effort's file against the
// default's, relative.
const effortBytes = 0.05

// TestEffortLevels codes images at every effort with the models whose
// searches take the 4×4 and 8×8 paths (grey 8×8 and 4×4, colour 4×4
// 4:2:0, each deblocking search by rows and the loop filters): Effort
// MaxEffort writes the default's bytes; each lower level writes a file
// of the same format version, size and step, the same bytes under every
// set of the encoder's kernels, that decodes to the same pixels under
// every set of the decoder's, and whose squared error and size stay
// within effortShare and effortBytes of the default's; effort 1 writes
// other files than the default (it searches less).
func TestEffortLevels(t *testing.T) {
	ms, err := kernelModels()
	if err != nil {
		t.Fatal(err)
	}
	grey := []image.Image{testimages.Texture(160, 112, 22), testimages.Texture(61, 45, 21)}
	colour := []image.Image{testimages.ColorTexture(160, 112, 22), testimages.ColorTexture(61, 45, 21)}
	differs := 0 // effort 1's files that are not the default's
	for mi, m := range ms {
		imgs := grey
		if m.Color {
			imgs = colour
		}
		for ii, img := range imgs {
			var def bytes.Buffer
			if err := Encode(&def, img, m, nil); err != nil {
				t.Fatal(err)
			}
			hd, err := DecodeHeader(bytes.NewReader(def.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defErr := effortSSE(t, img, def.Bytes(), m)
			for e := MinEffort; e <= MaxEffort; e++ {
				var files []string
				for _, k := range encodeKernelConfigs() {
					restore := useEncodeKernels(k)
					var b bytes.Buffer
					err := Encode(&b, img, m, &Options{Effort: e})
					restore()
					if err != nil {
						t.Fatalf("model %d image %d effort %d, %s: %v", mi, ii, e, k.name, err)
					}
					files = append(files, b.String())
					if b.String() != files[0] {
						t.Fatalf("model %d image %d effort %d: %s's file differs from %s's", mi, ii, e, k.name, encodeKernelConfigs()[0].name)
					}
				}
				file := []byte(files[0])
				if e == MaxEffort {
					if !bytes.Equal(file, def.Bytes()) {
						t.Errorf("model %d image %d: effort %d is not the default's file", mi, ii, e)
					}
					continue
				}
				h, err := DecodeHeader(bytes.NewReader(file))
				if err != nil {
					t.Fatal(err)
				}
				if h.Version != hd.Version || h.Width != hd.Width || h.Height != hd.Height || h.Step != hd.Step {
					t.Errorf("model %d image %d effort %d: header %+v, the default's %+v", mi, ii, e, h, hd)
				}
				var pix []string
				for _, k := range decodeKernelConfigs() {
					pix = append(pix, decodeWithKernels(file, m, k, false))
					if pix[len(pix)-1] != pix[0] || strings.HasPrefix(pix[0], "panic") {
						t.Fatalf("model %d image %d effort %d: decoded %s with %s, %s with %s", mi, ii, e, pix[0], decodeKernelConfigs()[0].name, pix[len(pix)-1], k.name)
					}
				}
				if e == MinEffort && !bytes.Equal(file, def.Bytes()) {
					differs++
				}
				sse := effortSSE(t, img, file, m)
				if sse > (1+effortShare[e])*defErr || math.Abs(float64(len(file)-def.Len())) > effortBytes*float64(def.Len()) {
					t.Errorf("model %d image %d effort %d: squared error %.0f, %d bytes; the default's %.0f, %d bytes", mi, ii, e, sse, len(file), defErr, def.Len())
				}
				t.Logf("model %d image %d effort %d: squared error %.4g of the default's, %d of %d bytes", mi, ii, e, sse/defErr, len(file), def.Len())
			}
		}
	}
	if differs == 0 {
		t.Error("effort 1 wrote the default's files: it searched as much")
	}
}

// effortSSE returns the mean squared error of file, decoded with m,
// against img (Quality's).
func effortSSE(t *testing.T, img image.Image, file []byte, m *Model) float64 {
	t.Helper()
	dec, err := Decode(bytes.NewReader(file), m)
	if err != nil {
		t.Fatal(err)
	}
	r := Quality(img, dec, m.Color)
	return r.RMSE * r.RMSE
}

// TestEffortRange: an effort outside MinEffort..MaxEffort (0 meaning the
// default) is an error naming it, from Encode, EncodeAtRate and
// StepForRate, before anything is written.
func TestEffortRange(t *testing.T) {
	m := gamma0GoldenModel(t)
	img := testimages.Texture(32, 24, 3)
	for _, e := range []int{-1, MaxEffort + 1, 100} {
		var b bytes.Buffer
		o := &Options{Effort: e}
		errs := []error{Encode(&b, img, m, o)}
		_, _, err := EncodeAtRate(&b, img, m, 1, o)
		errs = append(errs, err)
		_, _, err = StepForRate(img, m, 1, o)
		errs = append(errs, err)
		for i, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "effort") {
				t.Errorf("effort %d, call %d: error %v, want one naming the effort", e, i, err)
			}
		}
		if b.Len() != 0 {
			t.Errorf("effort %d: %d bytes written", e, b.Len())
		}
	}
}

// TestEffortRate: at MinEffort the rate search stops within its
// tolerance (lowRateTolerance) of a target the image reaches, and the
// file decodes; at the default within rateTolerance.
func TestEffortRate(t *testing.T) {
	m := gamma0GoldenModel(t)
	img := testimages.Texture(96, 64, 4)
	var own bytes.Buffer
	if err := Encode(&own, img, m, nil); err != nil {
		t.Fatal(err)
	}
	pixels := float64(96 * 64)
	target := 0.8 * 8 * float64(own.Len()) / pixels
	for _, c := range []struct {
		effort int
		tol    float64
	}{{0, rateTolerance}, {MinEffort, lowRateTolerance}} {
		var b bytes.Buffer
		_, rate, err := EncodeAtRate(&b, img, m, target, &Options{Effort: c.effort})
		if err != nil {
			t.Fatal(err)
		}
		if got := 8 * float64(b.Len()) / pixels; got != rate || math.Abs(rate-target) > c.tol*target {
			t.Errorf("effort %d: target %.3f bpp, coded at %.3f (file %.3f)", c.effort, target, rate, got)
		}
		if _, err := Decode(bytes.NewReader(b.Bytes()), m); err != nil {
			t.Errorf("effort %d: %v", c.effort, err)
		}
	}
}
