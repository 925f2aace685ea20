package codec

import (
	"image"
	"strings"
	"testing"
)

// TestTrainingWarning checks the threshold of TrainingWarning: the larger
// of MinPatchesPerCoefficient per coefficient and the channel's bins, in
// non-overlapping patches of the training images (a codec model trained
// on one 64×48 image said nothing, session 11).
func TestTrainingWarning(t *testing.T) {
	m := trainedModel(t) // 2×2, 66 bins: needs max(10·4, 66) = 66 patches
	train, _ := images()
	if w := m.TrainingWarning(train); w != "" {
		t.Errorf("four 192×128 training images: warning %q", w)
	}
	gray := func(w, h int) image.Image { return image.NewGray(image.Rect(0, 0, w, h)) }
	if w := m.TrainingWarning([]image.Image{gray(22, 12)}); w != "" { // 11·6 = 66 patches
		t.Errorf("66 patches for 66 bins: warning %q", w)
	}
	w := m.TrainingWarning([]image.Image{gray(21, 13)}) // 10·6 = 60 patches
	for _, want := range []string{"60 non-overlapping 2×2 patches of luma", "fewer than the 66", "per coefficient: 40", "quantiser bin: 66"} {
		if !strings.Contains(w, want) {
			t.Errorf("60 patches for 66 bins: warning %q lacks %q", w, want)
		}
	}
	if strings.Contains(w, "\n") {
		t.Errorf("warning of more than one line: %q", w)
	}
	// The patches of every image count.
	if w := m.TrainingWarning([]image.Image{gray(10, 12), gray(12, 12)}); w != "" { // 30 + 36
		t.Errorf("66 patches in two images: warning %q", w)
	}
}
