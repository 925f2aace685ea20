package codec

import (
	"bytes"
	"image"
	"math/rand/v2"
	"slices"
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

// TestTrackedEnds checks the ends a decoder's predictor records for the
// reconstruction (1 + each patch's last dimension off its centre, where
// the centre levels are 0) when it decodes an image after another, whose
// patches are far busier: they must be this image's, found from its
// indices, for every patch. decodeAdaptive updates every patch before the
// reconstruction reads them (trackCells also fills them with the
// dimension count first, which is then never read: removing the fill
// alone changes nothing). Removing update's write, or it and the fill,
// makes this fail, checked.
func TestTrackedEnds(t *testing.T) {
	c := rereadModel(t, reuseTestModels(t)[1]).Channels[0]
	dims, k := c.Dims(), c.Leading()
	if !c.edgePredictable() || !c.newEdgePredictor(1, 1).centreZero || c.bookSize() <= maxBook || !c.keysFit() {
		t.Skip("the test model tracks no ends")
	}
	rng := rand.New(rand.NewPCG(24, 9))
	// indices returns a patch's indices: each dimension off its centre
	// with probability off, more often in the first ones.
	indices := func(blocks int, off float64) []int32 {
		idx := make([]int32, blocks*dims)
		for i := range idx {
			j := i % dims
			v := c.Centre[j]
			if rng.Float64() < off*float64(dims-j)/float64(dims) {
				v += 1 + rng.IntN(2)
				if rng.IntN(2) == 0 {
					v = c.Centre[j] - 1 - rng.IntN(2)
				}
			}
			idx[i] = int32(min(max(v, 0), c.Bins[j]-1))
		}
		return idx
	}
	const cols = 24
	busy, calm := indices(cols*20, 1), indices(cols*18, 0.3)
	var first *edgePredictor
	for n, idx := range [][]int32{busy, calm} {
		blocks := len(idx) / dims
		stream := encodeAdaptive(nil, idx, dims, cols, c.Centre, k, true, true, c.newEdgePredictor(blocks, cols), nil)
		data, _, err := parseAdaptive(stream)
		if err != nil {
			t.Fatal(err)
		}
		p := c.takeEdgePredictor(blocks, cols)
		if n == 0 {
			first = p
		} else if p != first {
			t.Fatal("the predictor was not reused")
		}
		got := make([]int32, len(idx))
		if err := decodeAdaptive(data, got, dims, cols, c.Centre, c.Bins, k, true, true, p); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, idx) {
			t.Fatal("the indices decode differently")
		}
		lead, ok := p.leadCells()
		if !ok || len(lead.ends) != blocks {
			t.Fatalf("tracked %v, %d ends for %d patches", ok, len(lead.ends), blocks)
		}
		short := 0
		for i := 0; i < blocks; i++ {
			end := 0
			for j := 0; j < dims; j++ {
				if int(idx[i*dims+j]) != c.Centre[j] {
					end = j + 1
				}
			}
			if int(lead.ends[i]) != end {
				t.Fatalf("patch %d of %d: end %d recorded, %d in its indices", i, blocks, lead.ends[i], end)
			}
			if end < dims {
				short++
			}
		}
		if n == 1 && short < blocks/4 {
			t.Fatalf("only %d of %d patches end early: the test cannot tell the ends apart", short, blocks)
		}
		c.putEdgePredictor(p)
	}
}
