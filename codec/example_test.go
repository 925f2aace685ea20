package codec_test

import (
	"bytes"
	"fmt"
	"image"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// A model is trained once on an image set and shared, like a dictionary,
// by the encoder and the decoder of every image coded with it.
func Example() {
	train := []image.Image{testimages.Texture(128, 128, 1), testimages.Texture(128, 128, 2)}
	opt := codec.DefaultTrainOptions() // 2×2 luminance patches, gamma 1/3, 66 bins
	opt.Samples = 2000
	opt.SPCA.Resolution = 1 << 12 // a coarse lattice, fast to fit: about 0.5 s
	model, err := codec.Train(train, &opt)
	if err != nil {
		fmt.Println(err)
		return
	}

	img := testimages.Texture(96, 64, 3)
	var file bytes.Buffer
	if err := codec.Encode(&file, img, model, nil); err != nil {
		fmt.Println(err)
		return
	}
	bpp := 8 * float64(file.Len()) / (96 * 64)

	// The header is readable without the model (a registered image format).
	cfg, format, err := image.DecodeConfig(bytes.NewReader(file.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(format, cfg.Width, cfg.Height)

	dec, err := codec.Decode(&file, model)
	if err != nil {
		fmt.Println(err)
		return
	}
	rmse := patches.RMSE(patches.Luminance(img), patches.Luminance(dec))
	fmt.Printf("under 2.5 bits per pixel: %v; RMSE under 4.5 grey levels: %v\n", bpp < 2.5, rmse < 4.5)
	// Output:
	// spc 96 64
	// under 2.5 bits per pixel: true; RMSE under 4.5 grey levels: true
}
