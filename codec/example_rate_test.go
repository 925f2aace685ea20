package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"sync"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// trainSmall trains a small model in the entropy-constrained mode, the
// mode of PhotoTrainOptions, on two generated textures. It is trained
// once and shared by the examples that call it: neither changes it
// (ExampleDecodeHeader registers it, which ExampleStepForRate does not
// look at).
func trainSmall() (*codec.Model, error) {
	smallOnce.Do(func() {
		train := []image.Image{testimages.Texture(128, 128, 1), testimages.Texture(128, 128, 2)}
		opt := codec.PhotoTrainOptions() // 8×8 patches, gamma 0, step 30
		opt.Patch = 4
		opt.Samples = 2000
		opt.SPCA.Resolution = 1 << 12 // a coarse lattice, fast to fit
		small, smallErr = codec.Train(train, &opt)
	})
	return small, smallErr
}

var (
	smallOnce sync.Once
	small     *codec.Model
	smallErr  error
)

// Choose the rate at encode time: StepForRate finds the quantiser step
// at which the model codes the image at a target number of bits per
// pixel (the command line's --bpp), Options.Step codes at it, and the
// file records the step, so Decode needs nothing more. PCABaseline is
// linear PCA with the same quantisers and entropy coder, the baseline
// SPCA is measured against at equal rate.
func ExampleStepForRate() {
	m, err := trainSmall()
	if err != nil {
		fmt.Println(err)
		return
	}
	img := testimages.Texture(96, 64, 3)
	for _, target := range []float64{0.5, 1, 2} {
		step, _, err := codec.StepForRate(img, m, target, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		var file bytes.Buffer
		if err := codec.Encode(&file, img, m, &codec.Options{Step: step}); err != nil {
			fmt.Println(err)
			return
		}
		bpp := 8 * float64(file.Len()) / (96 * 64)
		dec, err := codec.Decode(&file, m)
		if err != nil {
			fmt.Println(err)
			return
		}
		psnr := patches.PSNR(patches.Luminance(img), patches.Luminance(dec))
		fmt.Printf("target %.1f bpp: %.1f bpp, PSNR above 30 dB: %v\n", target, bpp, psnr > 30)
	}

	pca, err := codec.PCABaseline(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	rd, err := codec.RateSweep(pca, []image.Image{img}, []float64{m.Step}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rd[0].Step == m.Step, rd[0].BPP > 0)
	// Output:
	// target 0.5 bpp: 0.5 bpp, PSNR above 30 dB: true
	// target 1.0 bpp: 1.0 bpp, PSNR above 30 dB: true
	// target 2.0 bpp: 2.0 bpp, PSNR above 30 dB: true
	// true true
}

// An .spc file names the model it was coded with (its ID, a hash of the
// model file): DecodeHeader reads it without the model, image.DecodeConfig
// reads the size through the registered format "spc", and image.Decode
// says it needs the model (ErrNeedModel) until RegisterModel registers
// it. A model written with WriteTo (or Save) and read back with ReadModel
// (or LoadModel) has the same ID and decodes the same pixels.
func ExampleDecodeHeader() {
	m, err := trainSmall()
	if err != nil {
		fmt.Println(err)
		return
	}
	img := testimages.Texture(96, 64, 3)
	var file bytes.Buffer
	if err := codec.Encode(&file, img, m, nil); err != nil {
		fmt.Println(err)
		return
	}
	spc := file.Bytes()

	h, err := codec.DecodeHeader(bytes.NewReader(spc))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Width, h.Height, h.Patch, h.Model == m.ID())

	cfg, format, err := image.DecodeConfig(bytes.NewReader(spc))
	fmt.Println(format, cfg.Width, cfg.Height, err)
	_, _, err = image.Decode(bytes.NewReader(spc))
	fmt.Println(errors.Is(err, codec.ErrNeedModel))
	codec.RegisterModel(m)
	viaImage, format, err := image.Decode(bytes.NewReader(spc))
	fmt.Println(format, viaImage.Bounds(), err)

	var modelFile bytes.Buffer // or m.Save(path) and codec.LoadModel(path)
	if _, err := m.WriteTo(&modelFile); err != nil {
		fmt.Println(err)
		return
	}
	back, err := codec.ReadModel(&modelFile)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := codec.Decode(bytes.NewReader(spc), m)
	b, err := codec.Decode(bytes.NewReader(spc), back)
	fmt.Println(back.ID() == m.ID(), bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix), err)

	other, _ := codec.PCABaseline(m)
	_, err = codec.Decode(bytes.NewReader(spc), other)
	var fe *codec.FormatError
	fmt.Println(errors.As(err, &fe), errors.Is(err, codec.ErrWrongModel))
	// Output:
	// 96 64 4 true
	// spc 96 64 <nil>
	// true
	// spc (0,0)-(96,64) <nil>
	// true true <nil>
	// true true
}
