package codec

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestReuseColourBatch is TestReuseBatch for colour: a colour 4:2:0
// model (whose 8-bit decodes write into DecodeOptions.IntoRGBA and take
// their index and lead-pixel buffers from the kept ones by size) and a
// 4:4:4 one, images of sizes from 1×1 to 64×48 and a grey image coded as
// colour, in mixed orders, each decode into the last RGBA image decoded
// (garbled first) as spca decode does, in three batches at once: every
// file and every pixel equals those of coding the image alone.
func TestReuseColourBatch(t *testing.T) {
	ms := []*Model{smallColorModel(t, true), smallColorModel(t, false)}
	var imgs []image.Image
	for i, s := range [][2]int{{64, 48}, {1, 1}, {45, 31}, {2, 17}, {33, 2}, {9, 9}, {20, 40}} {
		imgs = append(imgs, testimages.ColorTexture(s[0], s[1], uint64(20+i)))
	}
	imgs = append(imgs, testimages.Texture(30, 22, 4))
	type ref struct {
		file []byte
		pix  []byte
	}
	refs := make([][]ref, len(ms))
	for mi, m := range ms {
		for _, img := range imgs {
			file, pix := codeAndDecode(t, img, m)
			refs[mi] = append(refs[mi], ref{file, pix})
		}
	}
	batch := func(m *Model, refs []ref, seed uint64) error {
		rng := rand.New(rand.NewPCG(seed, 3))
		var last *image.RGBA
		order := append(append([]int{0, 1, 0, 2}, rng.Perm(len(imgs))...), rng.Perm(len(imgs))...)
		for step, i := range order {
			var b bytes.Buffer
			if err := Encode(&b, imgs[i], m, nil); err != nil {
				return err
			}
			if !bytes.Equal(b.Bytes(), refs[i].file) {
				return fmt.Errorf("step %d, image %d: file differs from the one coded alone", step, i)
			}
			if last != nil {
				for k := range last.Pix {
					last.Pix[k] = uint8(rng.Uint32())
				}
			}
			img, err := DecodeWith(bytes.NewReader(b.Bytes()), m, &DecodeOptions{IntoRGBA: last})
			if err != nil {
				return fmt.Errorf("step %d, image %d: %v", step, i, err)
			}
			if !bytes.Equal(pixelBytesOf(img), refs[i].pix) {
				return fmt.Errorf("step %d, image %d: pixels differ from the ones decoded alone", step, i)
			}
			if rgba, ok := img.(*image.RGBA); ok {
				last = rgba
			}
		}
		return nil
	}
	for mi, m := range ms {
		if err := batch(m, refs[mi], uint64(mi)); err != nil {
			t.Errorf("model %d: %v", mi, err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = batch(ms[g%2], refs[g%2], uint64(10+g))
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("batch %d at once with others: %v", g, err)
		}
	}
}

// codeAndDecode codes img with m (default options), decodes the file and
// returns the file and the decoded pixels' bytes.
func codeAndDecode(t *testing.T, img image.Image, m *Model) (file, pix []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, img, m, nil); err != nil {
		t.Fatal(err)
	}
	dec, err := Decode(bytes.NewReader(b.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), pixelBytesOf(dec)
}
