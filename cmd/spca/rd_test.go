package main

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
)

// TestRDTableOutsideRates: a rate point with no PCA point at its rate
// (gap NaN) is named as outside PCA's rates, not printed as "NaN dB".
func TestRDTableOutsideRates(t *testing.T) {
	pts := []codec.Result{{Method: "spca step 15", BPP: 1.2, PSNR: 40, SSIM: 0.98}, {Method: "spca step 30", BPP: 0.6, PSNR: 35, SSIM: 0.95}}
	spca := &rdCurve{Codec: "spca", results: pts}
	pca := &rdCurve{Codec: "pca", results: pts}
	spca.VsPCA = &rdVersus{Ref: "pca", GapPSNR: []number{number(math.NaN()), 0.1}, GapSSIM: []number{number(math.NaN()), 0.002}, Ahead: 1, Comparable: 1}
	var b strings.Builder
	if err := writeRDTable(&b, "m.model on 2 images", []*rdCurve{spca, pca}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "NaN") || !strings.Contains(out, "outside pca's rates") || !strings.Contains(out, "+0.10 dB") {
		t.Errorf("table:\n%s\nwant the NaN point named outside pca's rates and the other's gap", out)
	}
	// What was measured first; yes or no, not Go's false; the setting
	// without the codec's name the first column gives.
	if !strings.HasPrefix(out, "m.model on 2 images\n") || !regexp.MustCompile(`at every rate point +no: at 1 of the 1 points`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^spca +step 15 +1\.200`).MatchString(out) || strings.Contains(out, "false") {
		t.Errorf("table:\n%s\nwant the line about the run, 'no: at 1 of the 1 points', settings without the codec's name", out)
	}
}

// TestVersusWideReference: a point just above the reference's highest
// rate is left out of the comparison with the reference's own points,
// and compared by interpolation once the reference reaches beyond it.
func TestVersusWideReference(t *testing.T) {
	ref := []codec.Result{{BPP: 0.2, PSNR: 35, SSIM: 0.93}, {BPP: 0.3, PSNR: 38, SSIM: 0.95}, {BPP: 0.422, PSNR: 41, SSIM: 0.96}}
	wider := append([]codec.Result{{BPP: 0.15, PSNR: 33, SSIM: 0.91}}, append(ref, codec.Result{BPP: 0.6, PSNR: 44, SSIM: 0.975})...)
	cv := []codec.Result{{BPP: 0.25, PSNR: 36.8, SSIM: 0.945}, {BPP: 0.425, PSNR: 41.2, SSIM: 0.962}}
	for _, tc := range []struct {
		gaps             []codec.Result
		comparable, want int
		all              bool
	}{{ref, 1, 1, false}, {wider, 2, 2, true}} {
		c := &rdCurve{Codec: "spca", results: cv}
		versus(c, &rdCurve{Codec: "pca", results: ref}, tc.gaps)
		v := c.VsPCA
		if v.Comparable != tc.comparable || v.Ahead != tc.want || v.AheadAll != tc.all {
			t.Errorf("reference of %d points: comparable %d, ahead %d, all %v; want %d, %d, %v",
				len(tc.gaps), v.Comparable, v.Ahead, v.AheadAll, tc.comparable, tc.want, tc.all)
		}
	}
}
