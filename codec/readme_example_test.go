package codec_test

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"path/filepath"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/testimages"
)

// The README's coding snippet, run as written (internal/readme checks
// that the README shows exactly the lines between the markers) on
// generated textures; the lines after it check that every call did its
// job, since the snippet keeps only the last error.
func Example_readme() {
	images := []image.Image{testimages.Texture(64, 64, 1), testimages.Texture(64, 64, 2)}
	testImages := []image.Image{testimages.Texture(64, 64, 3)}
	img := testImages[0]
	dir, _ := os.MkdirTemp("", "readme")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "photo.model")
	// README begin
	opt := codec.PhotoTrainOptions()    // 8×8, gamma 0, step 30; DefaultTrainOptions: the seed's 2×2, 66 bins
	m, err := codec.Train(images, &opt) // nil options: DefaultTrainOptions
	err = m.Save(path)                  // m, err = codec.LoadModel(path); defer m.Close()
	var own, at1 bytes.Buffer
	err = codec.Encode(&own, img, m, nil) // nil options: the model's own step, fast path
	step, _, err := codec.StepForRate(img, m, 1, nil)
	err = codec.Encode(&at1, img, m, &codec.Options{Step: step}) // at 1 bit per pixel (spca encode --bpp 1)
	dec, err := codec.Decode(bytes.NewReader(at1.Bytes()), m)    // *codec.FormatError on bad files or another model
	pca, err := codec.PCABaseline(m)                             // linear PCA with the same quantisers and coder
	// vs PCA and image/jpeg; nil options: also gammas 1/3 and 1, refitted (slow)
	res, err := codec.Evaluate(m, testImages, &codec.EvalOptions{Gammas: []float64{0}})
	// README end
	loaded, lerr := codec.LoadModel(path)
	if lerr == nil {
		defer loaded.Close()
	}
	bpp := float64(8*at1.Len()) / float64(img.Bounds().Dx()*img.Bounds().Dy())
	fmt.Println("last error:", err)
	fmt.Println("saved and loaded:", lerr == nil && loaded.ID() == m.ID())
	fmt.Println("coded at the own step and at 1 bpp:", own.Len() > 0, bpp > 0.95 && bpp < 1.05)
	fmt.Println("decoded:", dec != nil && dec.Bounds() == img.Bounds())
	fmt.Println("PCA baseline and evaluation:", pca != nil, len(res) > 2)
	// Output:
	// last error: <nil>
	// saved and loaded: true
	// coded at the own step and at 1 bpp: true true
	// decoded: true
	// PCA baseline and evaluation: true true
}
