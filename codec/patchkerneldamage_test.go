package codec

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// TestPatchKernelFiles codes whole files with the patch kernels allowed
// and not (patchKernel), beyond TestPatchKernel's single channels: the
// tracked 8×8 and 4×4 models and a colour 4:2:0 model (its chroma
// channels through the kernels too), on 8-bit, 16-bit and colour images
// and a patch smaller than the model's, in the current version and in
// versions 7 and 8 (the first counted streams, which old files hold).
// The same bytes; then each file damaged (bits flipped, bytes replaced,
// cut, a run of random bytes; the checksum made valid again, so that
// the streams are decoded) must decode to the same pixels or fail with
// the same error either way, and never panic.
func TestPatchKernelFiles(t *testing.T) {
	if !patchKernel {
		t.Skip("no patch kernel on this architecture")
	}
	// kernelModels' three, each read back from its file (the tracked
	// 8×8 and 4×4 grey models and the 4×4 colour 4:2:0 one, trained once
	// for the kernel tests).
	ms, err := kernelModels()
	if err != nil {
		t.Fatal(err)
	}
	var models []*Model
	for _, m := range ms {
		models = append(models, rereadModel(t, m))
	}
	for _, m := range models {
		for ci, c := range m.Channels {
			// The configuration the kernels take (encodeAdaptive).
			if !c.edgePredictable() || c.Leading() == 0 {
				t.Fatalf("%d×%d model, channel %d: no edge predictor with leading dimensions", m.Patch, m.Patch, ci)
			}
		}
	}
	deep := image.NewGray16(image.Rect(0, 0, 45, 37))
	src := testimages.Texture(45, 37, 3)
	for y := range 37 {
		for x := range 45 {
			deep.SetGray16(x, y, color.Gray16{Y: uint16(src.GrayAt(x, y).Y)<<8 | uint16(x*y)})
		}
	}
	imgs := []image.Image{testimages.Texture(67, 53, 9), deep, testimages.ColorTexture(51, 39, 4), testimages.Texture(5, 3, 2)}
	code := func(kernel bool, img image.Image, m *Model, v int) ([]byte, error) {
		defer func(old bool) { patchKernel = old }(patchKernel)
		patchKernel = kernel
		var b bytes.Buffer
		if v == 0 {
			err := Encode(&b, img, m, nil)
			return b.Bytes(), err
		}
		err := encodeVersion(&b, img, m, nil, v)
		return b.Bytes(), err
	}
	decode := func(kernel bool, file []byte, m *Model) (out string) {
		defer func(old bool) { patchKernel = old }(patchKernel)
		patchKernel = kernel
		defer func() {
			if r := recover(); r != nil {
				out = fmt.Sprint("panic: ", r)
			}
		}()
		img, err := Decode(bytes.NewReader(file), m)
		if err != nil {
			return "error: " + err.Error()
		}
		return sum8(pixelBytes(t, img))
	}
	rng := rand.New(rand.NewPCG(19, 11))
	files, damaged, refused := 0, 0, 0
	for mi, m := range models {
		for ii, img := range imgs {
			for _, v := range []int{0, formatVersionCounts, formatVersionShifts} {
				name := fmt.Sprintf("model %d (%d×%d), image %d, version %d", mi, m.Patch, m.Patch, ii, v)
				file, err := code(true, img, m, v)
				if err != nil {
					continue // version 7 and 8 files are not written for every image
				}
				if want, err := code(false, img, m, v); err != nil || !bytes.Equal(file, want) {
					t.Fatalf("%s: the kernels code other bytes (%v)", name, err)
				}
				files++
				got, want := decode(true, file, m), decode(false, file, m)
				if got != want || len(got) != 16 {
					t.Fatalf("%s: decoded %s with the kernels, %s without", name, got, want)
				}
				body := file[:len(file)-4]
				for k := range 40 {
					bad := bytes.Clone(body)
					// Past the header (the first third of these files at most).
					p := len(bad)/3 + rng.IntN(len(bad)-len(bad)/3)
					switch k % 4 {
					case 0:
						bad[p] ^= 1 << rng.IntN(8)
					case 1:
						bad[p] = byte(rng.Uint32())
					case 2:
						bad = bad[:p]
					case 3:
						for q := p; q < min(p+8, len(bad)); q++ {
							bad[q] = byte(rng.Uint32())
						}
					}
					bad = checksum.Append(bad)
					got, want := decode(true, bad, m), decode(false, bad, m)
					if got != want {
						t.Fatalf("%s, damage %d at byte %d: %s with the kernels, %s without", name, k, p, got, want)
					}
					if len(want) != 16 {
						refused++
					}
					damaged++
				}
			}
		}
	}
	t.Logf("%d files, %d damaged copies (%d refused)", files, damaged, refused)
	if files < 24 || refused < damaged/2 {
		t.Errorf("%d files, %d of %d damaged copies refused: want at least 24 files and half refused", files, refused, damaged)
	}
}
