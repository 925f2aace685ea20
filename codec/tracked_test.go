package codec

import (
	"bytes"
	"image"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// trackedModel returns a fresh copy (no codebook built, no predictor
// pooled) of a 4×4 gamma-0 model at a step where its leading cells are
// few enough for a codebook (at most maxBook) and its centre levels are 0
// (centreZero): images with fewer patches than cells track their cells
// (trackCells, with ends), larger ones use the codebook.
func trackedModel(t *testing.T) *Model {
	t.Helper()
	var b bytes.Buffer
	if _, err := reuseTestModels(t)[1].WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	for _, step := range []float64{20, 15, 12} {
		m0, err := ReadModel(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := m0.Stepped(step)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Channels[0]
		if c.edgePredictable() && c.Leading() > 0 && c.keysFit() && c.bookSize() <= maxBook && c.newEdgePredictor(1, 1).centreZero {
			return m
		}
	}
	t.Skip("no step gives the test model a codebook and centre levels 0")
	return nil
}

// TestTrackedThenCodebook codes, with a fresh model, an image with fewer
// patches than the model has leading cells (its predictor tracks cells
// and their ends), then one with more (the codebook): the pooled
// predictor must not keep the first image's ends, which are too short for
// the second (it did: index out of range, a panic in Encode and in
// Decode, since predictors are pooled): the second image's file and
// pixels are those of coding it alone.
func TestTrackedThenCodebook(t *testing.T) {
	m := trackedModel(t)
	book := m.Channels[0].bookSize()
	side := 4
	for side*side < book {
		side++
	}
	cases := []reuseCase{
		{"small", testimages.Texture(40, 36, 51)},
		{"large", testimages.Texture(4*side+3, 4*side+1, 52)},
	}
	// Each image alone, with a fresh copy of the model.
	var files [][]byte
	for _, c := range cases {
		var b bytes.Buffer
		if err := Encode(&b, c.img, trackedModel(t), nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		files = append(files, b.Bytes())
	}
	want, err := Decode(bytes.NewReader(files[1]), trackedModel(t))
	if err != nil {
		t.Fatal(err)
	}
	// Decoded in a batch, then encoded in one.
	dec := trackedModel(t)
	var got image.Image
	for i, f := range files {
		if got, err = Decode(bytes.NewReader(f), dec); err != nil {
			t.Fatalf("%s: %v", cases[i].name, err)
		}
	}
	if !bytes.Equal(pixelBytesOf(got), pixelBytesOf(want)) {
		t.Error("the large image's pixels differ after a small one")
	}
	for i, c := range cases {
		var b bytes.Buffer
		if err := Encode(&b, c.img, m, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(b.Bytes(), files[i]) {
			t.Errorf("%s: the file differs in a batch", c.name)
		}
	}
}
