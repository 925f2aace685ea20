package main

import (
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
)

// TestRDTableOutsideRates: a rate point with no PCA point at its rate
// (gap NaN) is named as outside PCA's rates, not printed as "NaN dB".
func TestRDTableOutsideRates(t *testing.T) {
	pts := []codec.Result{{Method: "step 15", BPP: 1.2, PSNR: 40, SSIM: 0.98}, {Method: "step 30", BPP: 0.6, PSNR: 35, SSIM: 0.95}}
	spca := &rdCurve{Codec: "spca", results: pts}
	pca := &rdCurve{Codec: "pca", results: pts}
	spca.VsPCA = &rdVersus{Ref: "pca", GapPSNR: []number{number(math.NaN()), 0.1}, GapSSIM: []number{number(math.NaN()), 0.002}, Ahead: 1, Comparable: 1}
	var b strings.Builder
	if err := writeRDTable(&b, []*rdCurve{spca, pca}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "NaN") || !strings.Contains(out, "outside pca's rates") || !strings.Contains(out, "+0.10 dB") {
		t.Errorf("table:\n%s\nwant the NaN point named outside pca's rates and the other's gap", out)
	}
}
