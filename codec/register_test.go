package codec

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestRegisterModel checks image.Decode of .spc files: ErrNeedModel
// naming the model until it is registered, then the pixels of Decode;
// a file of another, unregistered model still needs its model, and a
// damaged file is a *FormatError.
func TestRegisterModel(t *testing.T) {
	train := []image.Image{testimages.Texture(64, 64, 1)}
	opt := DefaultTrainOptions()
	opt.Samples, opt.SPCA.Resolution = 1000, 1<<10
	m, err := Train(train, &opt)
	if err != nil {
		t.Fatal(err)
	}
	defer registered.Delete(m.ID())
	img := testimages.Texture(40, 24, 2)
	var file bytes.Buffer
	if err := Encode(&file, img, m, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = image.Decode(bytes.NewReader(file.Bytes()))
	if !errors.Is(err, ErrNeedModel) || !strings.Contains(err.Error(), m.ID().Short()) {
		t.Fatalf("unregistered model: %v, want ErrNeedModel naming %s", err, m.ID().Short())
	}
	RegisterModel(m)
	got, format, err := image.Decode(bytes.NewReader(file.Bytes()))
	if err != nil || format != "spc" {
		t.Fatalf("registered model: format %q, %v", format, err)
	}
	want, err := Decode(bytes.NewReader(file.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.(*image.Gray).Pix, want.(*image.Gray).Pix) || got.Bounds() != want.Bounds() {
		t.Error("image.Decode and Decode give different images")
	}
	damaged := bytes.Clone(file.Bytes())
	damaged[len(damaged)-10] ^= 0xff
	var fe *FormatError
	if _, _, err := image.Decode(bytes.NewReader(damaged)); !errors.As(err, &fe) {
		t.Errorf("damaged file: %v, want a *FormatError", err)
	}
	opt.Seed = 7
	other, err := Train(train, &opt)
	if err != nil {
		t.Fatal(err)
	}
	file.Reset()
	if err := Encode(&file, img, other, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := image.Decode(&file); !errors.Is(err, ErrNeedModel) {
		t.Errorf("file of an unregistered model: %v, want ErrNeedModel", err)
	}
}

// TestErrTooLarge checks that a file beyond the pixel budget is
// errors.Is both codec.ErrTooLarge and patches.ErrTooLarge, so that one
// check covers images that load and images that decode.
func TestErrTooLarge(t *testing.T) {
	train := []image.Image{testimages.Texture(64, 64, 1)}
	opt := DefaultTrainOptions()
	opt.Samples, opt.SPCA.Resolution = 1000, 1<<10
	m, err := Train(train, &opt)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := Encode(&file, testimages.Texture(40, 24, 2), m, nil); err != nil {
		t.Fatal(err)
	}
	_, err = DecodeWith(&file, m, &DecodeOptions{MaxPixels: 100})
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || !errors.Is(err, patches.ErrTooLarge) {
		t.Errorf("40×24 file with a budget of 100 pixels: %v, want a *FormatError wrapping ErrTooLarge and patches.ErrTooLarge", err)
	}
	if errors.Is(patches.ErrTooLarge, ErrTooLarge) {
		t.Error("patches.ErrTooLarge is codec.ErrTooLarge: a loaded image's error would read as a decoded file's")
	}
}
