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
	opt := codec.PhotoTrainOptions()    // 8×8, gamma 0, step 30; DefaultTrainOptions: the seed's 2×2, 66 bins
	m, err := codec.Train(images, &opt) // nil options: DefaultTrainOptions
	err = m.Save("photo.model")         // m, err = codec.LoadModel("photo.model"); defer m.Close()
	err = codec.Encode(w, img, m, nil)  // nil options: the model's own step, fast path
	step, _, err := codec.StepForRate(img, m, 1, nil)
	err = codec.Encode(w, img, m, &codec.Options{Step: step}) // at 1 bit per pixel (spca encode --bpp 1)
	dec, err := codec.Decode(r, m)                            // *codec.FormatError on bad files or another model
	pca, err := codec.PCABaseline(m)                          // linear PCA with the same quantisers and coder
	res, err := codec.Evaluate(m, testImages, nil)            // vs other gammas, PCA and image/jpeg
	// README end
	_, _, _, _ = dec, pca, res, err
}
