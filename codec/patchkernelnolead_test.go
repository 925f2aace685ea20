package codec

import (
	"bytes"
	"image"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestPatchKernelNoLeading codes images with the PCA baselines of the
// tracked test models, whose edge predictors have no leading dimensions
// (as spca-figures' coding figure codes them), with the patch kernels
// allowed and not: the same bytes and the same decoded pixels. With the
// kernels taking such a channel, a first dimension equal to its centre
// but not to its prediction was listed for the predictor, whose sums
// then indexed past their end (a panic in the figures).
func TestPatchKernelNoLeading(t *testing.T) {
	if !patchKernel {
		t.Skip("no patch kernel on this architecture")
	}
	// The coding figure's entropy-constrained 4×4 model (SPCA γ 0, one
	// uniform step), small.
	var train []image.Image
	for s := range 4 {
		train = append(train, testimages.Texture(128, 96, uint64(40+s)))
	}
	o := DefaultTrainOptions()
	o.Patch, o.Gamma, o.Step, o.Samples = 4, 0, 32, 3000
	// The baseline keeps the model's PCA and training sample, not its
	// SPCA: a coarse lattice gives the same baseline (the same IDs at
	// every step below) without the default lattice's 3.8 s of CPU.
	o.SPCA.Resolution = 1 << 10
	model, err := Train(train, &o)
	if err != nil {
		t.Fatal(err)
	}
	base, err := PCABaseline(model)
	if err != nil {
		t.Fatal(err)
	}
	if c := base.Channels[0]; !c.edgePredictable() || c.Leading() != 0 {
		t.Fatalf("the PCA baseline's channel: edge predictor %v, %d leading dimensions, want one with 0", c.edgePredictable(), c.Leading())
	}
	img := testimages.Texture(160, 120, 5)
	for _, step := range []float64{32, 16, 8, 4} {
		if err := base.SetStep(step); err != nil {
			t.Fatal(err)
		}
		code := func(kernel bool) ([]byte, []uint8) {
			defer func(old bool) { patchKernel = old }(patchKernel)
			patchKernel = kernel
			var b bytes.Buffer
			if err := Encode(&b, img, base, nil); err != nil {
				t.Fatalf("step %g: %v", step, err)
			}
			out, err := Decode(bytes.NewReader(b.Bytes()), base)
			if err != nil {
				t.Fatalf("step %g: %v", step, err)
			}
			return b.Bytes(), out.(*image.Gray).Pix
		}
		want, wantPix := code(false)
		got, gotPix := code(true)
		if !bytes.Equal(got, want) {
			t.Errorf("step %g: %d bytes with the kernels allowed, %d without, or other bytes", step, len(got), len(want))
		}
		if !bytes.Equal(gotPix, wantPix) {
			t.Errorf("step %g: other pixels with the kernels allowed", step)
		}
	}
}
