package main

import (
	"encoding/json"
	"image"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/extcodec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// colourEval trains a small colour 4:2:0 model on a generated colour
// texture, runs codec eval --json with it on another and returns the
// image and the output.
func colourEval(t *testing.T) (image.Image, codecEvalJSON) {
	t.Helper()
	dir := t.TempDir()
	colourEvalModel.once.Do(func() {
		// As TestCodec/Chroma420's model.
		o := codec.DefaultTrainOptions()
		o.Color, o.Subsample, o.Patch, o.Gamma, o.Step, o.Samples, o.SPCA.Resolution = true, true, 3, 0, 9, 1000, 4096
		colourEvalModel.m, colourEvalModel.err = codec.Train([]image.Image{testimages.ColorTexture(128, 128, 1), testimages.ColorTexture(128, 128, 2)}, &o)
	})
	if colourEvalModel.err != nil {
		t.Fatal(colourEvalModel.err)
	}
	model, img := filepath.Join(dir, "colour.model"), filepath.Join(dir, "test.png")
	if err := colourEvalModel.m.Save(model); err != nil {
		t.Fatal(err)
	}
	tex := testimages.ColorTexture(96, 64, 3)
	if err := patches.Save(img, tex); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustRun(t, "codec", "eval", "--quiet", "--json", "--model", model, "--images", img)
	var out codecEvalJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Results) < 2 {
		t.Fatalf("codec eval --json: %v\n%s", err, stdout)
	}
	return tex, out
}

// colourEvalModel is colourEval's model, trained once.
var colourEvalModel struct {
	once sync.Once
	m    *codec.Model
	err  error
}

type codecEvalJSON struct {
	JPEGCodec string `json:"jpeg_codec"`
	Results   []struct {
		Method string  `json:"method"`
		BPP    float64 `json:"bpp"`
		PSNR   float64 `json:"psnr_db"`
		SSIM   float64 `json:"ssim"`
	} `json:"results"`
}

// TestEvalJPEGRowCjpeg: codec eval's JPEG row of a colour model is cjpeg's
// file at the rate closest to the model's, decoded by djpeg (as codec eval
// --rd codes it), and named so.
func TestEvalJPEGRowCjpeg(t *testing.T) {
	have, _ := extcodec.Available(extcodec.All[:1])
	if len(have) == 0 {
		t.Skip("cjpeg or djpeg not on PATH: codec eval's cjpeg row not checked (TestEvalJPEGRowFallback checks image/jpeg's)")
	}
	tex, out := colourEval(t)
	model, row := out.Results[0], out.Results[len(out.Results)-1]
	for _, r := range out.Results {
		if r.Method == "spca gamma 0 (model)" {
			model = r
		}
	}
	want, err := have[0].Matched([]image.Image{tex}, model.BPP, true)
	if err != nil {
		t.Fatal(err)
	}
	if out.JPEGCodec != "cjpeg -optimize, djpeg" || row.Method != "cjpeg -optimize (matched bpp)" ||
		row.BPP != want.BPP || row.PSNR != want.PSNR || row.SSIM != want.SSIM {
		t.Errorf("codec eval of a colour model: JPEG row %+v by %q; want cjpeg's at the model's %.3f bpp, %+v", row, out.JPEGCodec, model.BPP, want)
	}
}

// TestEvalJPEGRowFallback: without cjpeg on PATH the JPEG row of a colour
// model is image/jpeg's, named so.
func TestEvalJPEGRowFallback(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, out := colourEval(t)
	row := out.Results[len(out.Results)-1]
	if out.JPEGCodec != "image/jpeg" || row.Method != "image/jpeg (matched bpp; cjpeg or djpeg not on PATH)" || !(row.BPP > 0) {
		t.Errorf("codec eval of a colour model without cjpeg: JPEG row %+v by %q; want image/jpeg's, named", row, out.JPEGCodec)
	}
}
