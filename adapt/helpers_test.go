package adapt

import (
	"bytes"
	"image"
	"os"
	"sync"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// long reports whether the heavier checks were asked for (SPCA_LONG=1).
func long() bool { return os.Getenv("SPCA_LONG") == "1" }

// Training and test scenes of the package's tests: many small training
// scenes (variety of surfaces matters more than pixels) and held-out
// scenes with other seeds.
const (
	trainSeed   = 1
	testSeed    = 2
	trainScenes = 300
	trainW      = 32
	trainH      = 24
)

var (
	modelOnce sync.Once
	model     *Model
	modelErr  error
)

// testOptions are the training options of the shared model.
func testOptions() Options {
	o := DefaultOptions()
	o.WhiteA, o.WhiteB = testimages.SceneWhites()
	return o
}

// trainingSets returns the training scenes.
func trainingSets() (a, b []image.Image) {
	return testimages.SceneSet(trainScenes, trainW, trainH, trainSeed)
}

// modelBytes returns m as WriteTo writes it (marshal's buffer, not a
// copy: the shared model's file is 30 MB).
func modelBytes(tb testing.TB, m *Model) []byte {
	tb.Helper()
	b, err := m.marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// readBack returns m written and read again.
func readBack(tb testing.TB, m *Model) *Model {
	tb.Helper()
	got, err := Read(bytes.NewReader(modelBytes(tb, m)))
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// withoutHighlight returns m read back from its file without its
// highlight gains: the model as programs before format 7 wrote (as
// version 4 to 6) and mapped it.
func withoutHighlight(tb testing.TB, m *Model) *Model {
	tb.Helper()
	c := readBack(tb, m)
	c.HighlightGains = [3]float64{}
	return c
}

// testModel returns the model trained once for all tests.
func testModel(t testing.TB) *Model {
	t.Helper()
	modelOnce.Do(func() {
		a, b := trainingSets()
		o := testOptions()
		model, modelErr = Train(a, b, &o)
	})
	if modelErr != nil {
		t.Fatal(modelErr)
	}
	return model
}
