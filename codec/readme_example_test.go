package codec_test

import (
	"bytes"
	"image"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/testimages"
)

// The README's coding snippet, compiled as written (see
// internal/readme).
func Example_readme() {
	images := []image.Image{testimages.Texture(64, 64, 1), testimages.Texture(64, 64, 2)}
	testImages := []image.Image{testimages.Texture(64, 64, 3)}
	img := testImages[0]
	w := new(bytes.Buffer)
	r := w
	// README begin
	m, err := codec.Train(images, &codec.TrainOptions{Patch: 2, Gamma: 1.0 / 3, Bins: 66})
	err = codec.Encode(w, img, m, nil) // nil options: fast path
	dec, err := codec.Decode(r, m)     // *codec.FormatError on bad files
	res, err := codec.Evaluate(m, testImages, nil)
	// README end
	_, _, _ = dec, res, err
}
