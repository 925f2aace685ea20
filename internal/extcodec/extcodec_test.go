package extcodec

import (
	"image"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestSweep runs every installed codec on a generated texture: the rate
// and the PSNR rise with the quality setting. Codecs not installed are
// skipped with a note.
func TestSweep(t *testing.T) {
	have, missing := Available(All)
	for _, m := range missing {
		t.Logf("%s not installed: skipped", m)
	}
	if len(have) == 0 {
		t.Skip("no external codec installed")
	}
	imgs := []image.Image{testimages.Texture(64, 48, 3)}
	for _, c := range have {
		res, err := c.Sweep(imgs, []int{30, 90})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !(res[1].BPP > res[0].BPP && res[1].PSNR > res[0].PSNR) {
			t.Errorf("%s: quality 30 %+v, 90 %+v: rate and PSNR should rise", c.Name, res[0], res[1])
		}
	}
}
