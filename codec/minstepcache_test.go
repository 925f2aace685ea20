package codec

import (
	"bytes"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestMinStepAfterSetStep checks that a model searched at one step and
// then set to another (SetStep, as training's step search and the
// figures do) finds the finest step, and codes a rate beyond it, as the
// same model read and set to that step does: minStep's bisection starts
// from the model's step, and its result was kept across SetStep, so the
// two chose finest steps 1e-7 apart and wrote other files.
func TestMinStepAfterSetStep(t *testing.T) {
	ms := append([]*Model(nil), reuseTestModels(t)...)
	ms = append(ms, smallColorModel(t, true))
	img := testimages.ColorTexture(24, 16, 6)
	differ := 0
	for i, m := range ms {
		for _, f := range []float64{0.25, 3} {
			used, fresh := rereadModel(t, m), rereadModel(t, m)
			s0, err := used.minStep() // as a rate search finds it
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []*Model{used, fresh} {
				if err := x.SetStep(m.Step * f); err != nil {
					t.Fatal(err)
				}
			}
			got, err := used.minStep()
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.minStep()
			if err != nil {
				t.Fatal(err)
			}
			if got != s0 {
				differ++
			}
			var a, b bytes.Buffer
			if _, _, err := EncodeAtRate(&a, img, used, 1e9, nil); err != nil {
				t.Fatal(err)
			}
			if _, _, err := EncodeAtRate(&b, img, fresh, 1e9, nil); err != nil {
				t.Fatal(err)
			}
			if got != want || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("model %d, step x%g: finest step %v after a search at the old step, %v read at the new one; the files at 1e9 bpp equal: %v",
					i, f, got, want, bytes.Equal(a.Bytes(), b.Bytes()))
			}
		}
	}
	if differ == 0 {
		t.Error("no model's finest step moved with SetStep: the test shows nothing")
	}
}
