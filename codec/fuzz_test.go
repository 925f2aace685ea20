package codec

import (
	"bytes"
	"errors"
	"image"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// smallModel is a codec model small enough to fuzz (a coarse SPCA
// lattice, few training patches), with the options changed by set.
func smallModel(t testing.TB, set ...func(*TrainOptions)) *Model {
	o := DefaultTrainOptions()
	o.Samples = 300
	o.Bins = 30
	o.SPCA.Resolution = 1024
	for _, f := range set {
		f(&o)
	}
	m, err := Train([]image.Image{testimages.Texture(64, 64, 5)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// smallColorModel is a small colour model (YCbCr, a model per channel)
// in the entropy-constrained mode with 3×3 patches, its chroma at half
// resolution if subsample.
func smallColorModel(t testing.TB, subsample bool) *Model {
	o := DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution = 300, 1024
	o.Patch, o.Step, o.Color, o.Subsample = 3, 12, true, subsample
	m, err := Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// smallStepModel is smallModel in the entropy-constrained mode with 3×3
// patches, so that its file (version 2) holds dead-zone quantisers with
// their thresholds.
func smallStepModel(t testing.TB) *Model {
	return smallModel(t, func(o *TrainOptions) { o.Patch, o.Step = 3, 12 })
}

// FuzzReadModel checks that no input makes ReadModel panic or hang, that
// every rejection is a *ModelError, and that a model it accepts encodes an
// image and decodes its own file.
func FuzzReadModel(f *testing.F) {
	var b bytes.Buffer
	if _, err := smallModel(f).WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	good := b.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(checksum.Refresh(good[:len(good)/2]))
	f.Add([]byte(ModelMagic))
	f.Add([]byte{})
	var sb bytes.Buffer
	if _, err := smallStepModel(f).WriteTo(&sb); err != nil {
		f.Fatal(err)
	}
	f.Add(sb.Bytes())
	f.Add(checksum.Refresh(sb.Bytes()[:len(sb.Bytes())*2/3]))
	// A colour model with 4:2:0 chroma, and its colour byte made 3.
	var cb bytes.Buffer
	if _, err := smallColorModel(f, true).WriteTo(&cb); err != nil {
		f.Fatal(err)
	}
	f.Add(cb.Bytes())
	bad := append([]byte(nil), cb.Bytes()...)
	bad[len(ModelMagic)+5] = 3
	f.Add(checksum.Refresh(bad))
	for _, m := range [][]byte{good, sb.Bytes()} {
		for _, off := range []int{len(ModelMagic) + 4, len(ModelMagic) + 6, len(ModelMagic) + 16, len(ModelMagic) + 20} {
			c := append([]byte(nil), m...)
			c[off] ^= 0xff
			f.Add(checksum.Refresh(c))
		}
	}
	img := testimages.Texture(10, 7, 9)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range [][]byte{data, checksum.Refresh(data)} {
			m, err := ReadModel(bytes.NewReader(d))
			if err != nil {
				var me *ModelError
				if !errors.As(err, &me) {
					t.Fatalf("error of another type: %v", err)
				}
				continue
			}
			var w bytes.Buffer
			if err := Encode(&w, img, m, &Options{Exact: true}); err != nil {
				continue
			}
			if _, err := Decode(&w, m); err != nil {
				t.Fatalf("a model read back cannot decode its own file: %v", err)
			}
		}
	})
}
