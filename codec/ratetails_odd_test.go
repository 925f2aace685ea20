package codec

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestRestTailsOddImages checks restTails as TestRestTails does on
// images of odd sizes and content: patches cut by the edges, one row of
// patches, an odd count of rows of patches (the last row taken, its
// ends read at the table's last index), constants (rests of zeros: no
// magnitudes), 16-bit noise, one pixel; with the 4×4 and the 3×3 model.
func TestRestTailsOddImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	noise16 := image.NewGray16(image.Rect(0, 0, 37, 23))
	for i := 0; i < len(noise16.Pix); i += 2 {
		noise16.Pix[i], noise16.Pix[i+1] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	constant := func(w, h int, v uint8) image.Image {
		m := image.NewGray(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = v
		}
		return m
	}
	one := image.NewGray(image.Rect(0, 0, 1, 1))
	one.Set(0, 0, color.Gray{200})
	images := map[string]image.Image{
		"texture 21x13":  testimages.Texture(21, 13, 5),
		"texture 200x4":  testimages.Texture(200, 4, 6),
		"texture 64x132": testimages.Texture(64, 132, 7),
		"texture 33x9":   testimages.Texture(33, 9, 8),
		"constant 0":     constant(40, 36, 0),
		"constant 255":   constant(41, 35, 255),
		"16-bit noise":   noise16,
		"one pixel":      one,
	}
	models := map[string]*Model{
		"4x4": smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 }),
		"3x3": stepModel(t),
	}
	lastTaken := 0
	for mname, m := range models {
		for name, img := range images {
			in := &encodeInput{share: true}
			b := img.Bounds()
			if newRateModel(img, m, &Options{}, in, float64(b.Dx()*b.Dy())) == nil {
				in.release()
				t.Fatalf("%s model, %s: no rate model", mname, name)
			}
			tf := in.chans[0]
			rows, _ := tf.y.Dims()
			cols := tf.grid.Cols()
			if (rows/cols-1)%estRowStride == 0 {
				lastTaken++
			}
			taken, _ := checkRestTails(t, tf, restFrom(m.Channels[0].Leading()))
			if taken == 0 {
				t.Errorf("%s model, %s: no row taken", mname, name)
			}
			in.release()
		}
	}
	if lastTaken < 4 {
		t.Errorf("%d images had their last row of patches taken, want 4 or more", lastTaken)
	}
}
