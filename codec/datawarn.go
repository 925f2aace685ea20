package codec

import (
	"fmt"
	"image"
)

// MinPatchesPerCoefficient is the number of non-overlapping training
// patches per coefficient (n² for n×n patches) below which
// TrainingWarning warns; it also wants at least one patch per quantiser
// bin of the channel. Train samples overlapping patches (every position
// of a small image), which are far from independent: what the PCA front
// end, the SPCA curves and the quantisers learn from is the image area.
//
// Measured (8×8 default model, step 30, coding held-out grey kodim13 and
// kodim19 against the model of kodim01-12, 1.164 and 0.477 bpp):
// trained on a 64×48 crop of kodim01 (48 patches, 579 bins) 34 % and 74 %
// more bits and 0.5 dB less on kodim13; 128×96 (192 patches, 700 bins)
// 13 % and 27 % more; 256×192 (768 patches, 828 bins) 6 % and 8 %; the
// whole kodim01 (6,144 patches) 4 % and 3 %. The threshold for 8×8
// patches is therefore 640 patches, or more where the channel has more
// bins (256×192 of kodim01 warns, just).
const MinPatchesPerCoefficient = 10

// TrainingWarning returns a one-line warning if the training images
// (those given to Train for m, or their sizes) hold too few
// non-overlapping patches for the model: fewer, in some channel, than
// MinPatchesPerCoefficient per coefficient or than the channel's
// quantiser bins. It returns "" if they hold enough. The warning names
// the channel short of patches by the largest factor.
func (m *Model) TrainingWarning(images []image.Image) string {
	worst, worstRatio := -1, 1.0
	var have, need []int
	for c, ch := range m.Channels {
		n := 0
		for _, img := range images {
			w, h := m.planeSize(c, img.Bounds().Dx(), img.Bounds().Dy())
			n += (w / m.Patch) * (h / m.Patch)
		}
		want := max(MinPatchesPerCoefficient*m.Patch*m.Patch, totalBins(ch))
		have, need = append(have, n), append(need, want)
		if r := float64(n) / float64(want); r < worstRatio {
			worst, worstRatio = c, r
		}
	}
	if worst < 0 {
		return ""
	}
	coeffs := m.Patch * m.Patch
	return fmt.Sprintf("the training images hold %d non-overlapping %d×%d patches of %s, fewer than the %d this model needs "+
		"(%d per coefficient: %d; one per quantiser bin: %d): it will code other images with more bits "+
		"(34-74 %% more for a model of one 64×48 crop of a Kodak photo than for a model of twelve photos); train on more or larger images",
		have[worst], m.Patch, m.Patch, m.channelName(worst), need[worst],
		MinPatchesPerCoefficient, MinPatchesPerCoefficient*coeffs, totalBins(m.Channels[worst]))
}

// totalBins is the sum of the quantiser bins of the channel.
func totalBins(ch *Channel) int {
	n := 0
	for _, b := range ch.Bins {
		n += b
	}
	return n
}
