package codec

import (
	"bytes"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestChromaSubsampling checks 4:2:0 colour models against 4:4:4 ones
// trained alike: the same luma error (the luma models are the same),
// smaller files, a decoded image of the original size whose RGB error
// lies between that of resampling alone and the two errors combined,
// identical files on repeated runs, and a model file that keeps the mode
// (and so its ID).
func TestChromaSubsampling(t *testing.T) {
	var train []image.Image
	for s := uint64(1); s <= 3; s++ {
		train = append(train, testimages.ColorTexture(96, 64, s))
	}
	models := map[bool]*Model{}
	for _, sub := range []bool{false, true} {
		o := DefaultTrainOptions()
		o.Samples, o.Patch, o.Gamma, o.Step, o.Color, o.Subsample = 3000, 3, 0, 6, true, sub
		o.SPCA.Resolution = 1 << 12 // coarse: both models alike, and the test fast
		m, err := Train(train, &o)
		if err != nil {
			t.Fatal(err)
		}
		models[sub] = m
	}
	full, half := models[false], models[true]
	if full.ID() == half.ID() {
		t.Fatal("4:2:0 and 4:4:4 models share an ID")
	}
	img := testimages.ColorTexture(77, 53, 9) // odd sizes: Halve and Double at the edges
	size := map[bool]int{}
	rmse, luma := map[bool]float64{}, map[bool]float64{}
	for sub, m := range models {
		var w bytes.Buffer
		if err := Encode(&w, img, m, nil); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := Encode(&again, img, m, nil); err != nil || !bytes.Equal(w.Bytes(), again.Bytes()) {
			t.Fatalf("4:2:0 %v: repeated encodes differ (%v)", sub, err)
		}
		size[sub] = w.Len()
		dec, err := Decode(&w, m)
		if err != nil {
			t.Fatal(err)
		}
		if dec.Bounds().Dx() != 77 || dec.Bounds().Dy() != 53 {
			t.Fatalf("4:2:0 %v: decoded %v", sub, dec.Bounds())
		}
		rmse[sub] = Quality(img, dec, true).RMSE
		luma[sub] = patches.RMSE(patches.Luminance(img), patches.Luminance(dec))
		t.Logf("4:2:0 %v: %d bytes, RGB RMSE %.3f, luma RMSE %.3f", sub, size[sub], rmse[sub], luma[sub])
	}
	// The error of resampling alone, without coding.
	ycc := patches.YCbCr(img)
	for c := 1; c < 3; c++ {
		ycc[c] = patches.Double(patches.Halve(ycc[c]), 77, 53)
	}
	resampled := Quality(img, patches.FromYCbCr(ycc, false), true).RMSE
	t.Logf("resampling alone: RGB RMSE %.3f", resampled)
	if math.Abs(luma[true]-luma[false]) > 0.03*luma[false] {
		t.Errorf("luma RMSE %.3f in 4:2:0, %.3f in 4:4:4", luma[true], luma[false])
	}
	if size[true] >= size[false] {
		t.Errorf("4:2:0 file %d bytes, 4:4:4 %d", size[true], size[false])
	}
	// At fixed length, 3×3 patches: 26×18 luma patches of 77×53 pixels,
	// and per chroma channel as many again in 4:4:4 or 13×9 of the 39×27
	// half planes in 4:2:0; the coded files are smaller.
	for sub, m := range models {
		chroma := 26 * 18
		if sub {
			chroma = 13 * 9
		}
		want := 26*18*exactPatchBits(m.Channels[0].Bins) + chroma*(exactPatchBits(m.Channels[1].Bins)+exactPatchBits(m.Channels[2].Bins))
		if got := m.FixedLengthBits(77, 53); got != float64(want) || !(8*float64(size[sub]) < got) {
			t.Errorf("4:2:0 %v: fixed-length indices %v bits, want %d, more than the file's %d", sub, got, want, 8*size[sub])
		}
	}
	if bound := math.Hypot(resampled, rmse[false]); rmse[true] < resampled || rmse[true] > 1.1*bound {
		t.Errorf("4:2:0 RGB RMSE %.3f: want between resampling's %.3f and 1.1 × %.3f", rmse[true], resampled, bound)
	}
	var saved bytes.Buffer
	if _, err := half.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(&saved)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Subsample || !back.Color || back.ID() != half.ID() {
		t.Fatalf("read back: subsample %v, colour %v, same ID %v", back.Subsample, back.Color, back.ID() == half.ID())
	}
	o := DefaultTrainOptions()
	o.Subsample = true
	if _, err := Train(train, &o); err == nil {
		t.Error("4:2:0 without colour accepted")
	}
	// Grey images have constant chroma: the error names the channel.
	o.Color, o.Samples, o.SPCA.Resolution = true, 1000, 1<<12 // the luma fit before the error: coarse
	_, err = Train([]image.Image{testimages.Texture(64, 64, 1)}, &o)
	if err == nil || !strings.Contains(err.Error(), "channel 2 (Cb at half resolution") || !strings.Contains(err.Error(), "constant") {
		t.Errorf("colour model of a grey image: got %v, want an error naming channel 2 and constant data", err)
	}
}

// TestDecodeIntoRGBA checks DecodeOptions.IntoRGBA: the decode of a 4:2:0
// file into a whole RGBA image with room for it (its size, holding
// another image's pixels; larger; turned by a quarter) returns that image
// with the decoded pixels (every one set) in Decode's layout; an image too
// small, of a wider stride or a sub-image of a taller one, or the decode of
// a 4:4:4 file, leaves it alone.
func TestDecodeIntoRGBA(t *testing.T) {
	for _, sub := range []bool{true, false} {
		m := smallColorModel(t, sub)
		var files [2][]byte
		for i := range files {
			var buf bytes.Buffer
			if err := Encode(&buf, testimages.ColorTexture(45, 31, uint64(7+i)), m, nil); err != nil {
				t.Fatal(err)
			}
			files[i] = buf.Bytes()
		}
		want, err := Decode(bytes.NewReader(files[0]), m)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := Decode(bytes.NewReader(files[1]), m) // other pixels, same size
		if err != nil {
			t.Fatal(err)
		}
		b := want.Bounds()
		parent := image.NewRGBA(image.Rect(0, 0, b.Dx(), 2*b.Dy()))
		for _, c := range []struct {
			into *image.RGBA
			fits bool // a whole image with room for the decoded one
		}{
			{prev.(*image.RGBA), true},
			{image.NewRGBA(image.Rect(0, 0, b.Dx()+1, b.Dy())), true},
			{image.NewRGBA(image.Rect(0, 0, b.Dy(), b.Dx())), true},
			{image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()-1)), false},
			{&image.RGBA{Pix: make([]uint8, 4*(b.Dx()+2)*b.Dy()), Stride: 4 * (b.Dx() + 2), Rect: b}, false},
			// The top rows of a taller image: the decode must not write
			// the parent's other rows.
			{parent.SubImage(image.Rect(0, 0, b.Dx(), b.Dy()/2)).(*image.RGBA), false},
		} {
			into := c.into
			before := bytes.Clone(into.Pix)
			rect, stride := into.Rect, into.Stride
			got, err := DecodeWith(bytes.NewReader(files[0]), m, &DecodeOptions{IntoRGBA: into})
			if err != nil {
				t.Fatal(err)
			}
			g := got.(*image.RGBA)
			used := &g.Pix[0] == &into.Pix[0]
			if use := sub && c.fits; used != use || !use && (!bytes.Equal(into.Pix, before) || into.Rect != rect || into.Stride != stride) {
				t.Errorf("4:2:0 %v: decode into a %v image of stride %d: used %v, want %v", sub, rect, stride, used, use)
			}
			if !bytes.Equal(g.Pix, want.(*image.RGBA).Pix) || g.Rect != b || g.Stride != 4*b.Dx() {
				t.Errorf("4:2:0 %v: decode into a %v image: pixels or layout differ from Decode's", sub, rect)
			}
		}
	}
}

// TestGetFit checks keptPool.getFit: the smallest kept value of at least
// the size asked for, else the largest, else a new one.
func TestGetFit(t *testing.T) {
	p := keptPool{New: func() any { return new([]int32) }}
	size := func(x any) int { return cap(*x.(*[]int32)) }
	for _, n := range []int{10, 40, 20, 5} {
		b := make([]int32, n)
		p.Put(&b)
	}
	for _, c := range []struct{ ask, want int }{{15, 20}, {50, 40}, {1, 5}, {11, 10}, {3, 0}} {
		if got := size(p.getFit(c.ask, size)); got != c.want {
			t.Errorf("getFit(%d): a value of size %d, want %d", c.ask, got, c.want)
		}
	}
}
