package main

import (
	"fmt"
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

// TestBDRatesOverModelQualities: every BD-rate is averaged over the
// model's qualities. cjpeg's log-rate is linear in the quality from 20 to
// 45 dB; another codec needs 0.8 exp(-(q-25)/20) of cjpeg's bits, less
// as the quality rises; the model reaches 25-35 dB at 0.7 of cjpeg's
// bits. Over the model's qualities the codec is at 0.8 exp(-1/4) of
// cjpeg's rate (-37.7 %) and the model at 0.7 / (0.8 exp(-1/4)) of the
// codec's (+12.4 %); over the codec's own overlap with cjpeg (20-45 dB)
// it read 0.8 exp(-3/8) (-45.0 %), a row the model's did not compare with.
func TestBDRatesOverModelQualities(t *testing.T) {
	curve := func(name string, lo, hi float64, share func(q float64) float64) *rdCurve {
		cv := &rdCurve{Codec: name}
		for q := lo; q <= hi; q++ {
			cv.results = append(cv.results, codec.Result{PSNR: q, SSIM: q / 50, BPP: share(q) * math.Exp(q/8)})
		}
		return cv
	}
	m := curve("spca", 25, 35, func(float64) float64 { return 0.7 })
	pca := curve("pca", 24, 35, func(float64) float64 { return 0.75 })
	ref := curve("cjpeg -optimize", 20, 45, func(float64) float64 { return 1 })
	x := curve("cwebp", 20, 45, func(q float64) float64 { return 0.8 * math.Exp(-(q-25)/20) })
	setBDRates([]*rdCurve{m, pca, ref, x}, m, pca)
	pct := func(share float64) float64 { return 100 * (share - 1) }
	near := func(got *number, want float64) bool { return got != nil && math.Abs(float64(*got)-want) < 1e-6 }
	xShare := 0.8 * math.Exp(-0.25)
	if !near(m.BDPSNR, pct(0.7)) || !near(m.BDSSIM, pct(0.7)) || !near(x.BDPSNR, pct(xShare)) || !near(x.BDSSIM, pct(xShare)) {
		t.Errorf("BD-rates vs cjpeg: model %v/%v, codec %v/%v; want %.3f and %.3f %% (over 25-35 dB)", m.BDPSNR, m.BDSSIM, x.BDPSNR, x.BDSSIM, pct(0.7), pct(xShare))
	}
	if !near(x.SpcaBDPSNR, pct(0.7/xShare)) || !near(x.SpcaBDSSIM, pct(0.7/xShare)) || !near(ref.SpcaBDPSNR, pct(0.7)) || m.SpcaBDPSNR != nil || pca.SpcaBDPSNR != nil {
		t.Errorf("model vs codec %v, vs cjpeg %v, on itself %v, on pca %v; want %.3f %%, %.3f %% and none", x.SpcaBDPSNR, ref.SpcaBDPSNR, m.SpcaBDPSNR, pca.SpcaBDPSNR, pct(0.7/xShare), pct(0.7))
	}
	if r := x.BDRangePSNR; len(r) != 2 || r[0] != 25 || r[1] != 35 {
		t.Errorf("codec's BD range %v, want the model's 25-35 dB", r)
	}
	if r := pca.BDRangePSNR; len(r) != 2 || r[0] != 25 || r[1] != 35 || !near(pca.BDPSNR, pct(0.75)) {
		t.Errorf("pca's BD %v over %v, want %.3f %% over the model's 25-35 dB", pca.BDPSNR, r, pct(0.75))
	}
	var b strings.Builder
	if err := writeRDTable(&b, "m on 1 image", []*rdCurve{m, pca, ref, x}); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`(?m)^cwebp +%+.1f %% +%+.1f %% +25\.00-35\.00, 0\.5000-0\.7000 +\%+.1f %% +\%+.1f %%$`, pct(xShare), pct(xShare), pct(0.7/xShare), pct(0.7/xShare))
	if !regexp.MustCompile(row).MatchString(b.String()) {
		t.Errorf("table:\n%s\nwant cwebp's row with its range and the model against it", b.String())
	}
}
