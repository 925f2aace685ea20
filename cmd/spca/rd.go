package main

import (
	"fmt"
	"image"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/extcodec"
)

// flagRD selects the rate–distortion comparison of codec eval.
const flagRD = "rd"

func rdFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagRD, Usage: "instead: rate–distortion curves of the model (entropy-constrained mode) over quantiser steps, " +
		"of its PCA baseline with the same quantisers and entropy coder over the same steps (SPCA vs PCA: BD-rates and the gap at each rate point) " +
		"and of the external codecs on PATH (cjpeg -optimize, cwebp, cjxl, avifenc; the others skipped with a note) at their settings around the model's qualities, " +
		"with Bjøntegaard delta rates against cjpeg, and the model's against each codec, by PSNR (of R, G and B for a colour model, whose images every codec codes in colour) and by SSIM (of the luma), over the model's qualities"}
}

// rdStepFactors are the multiples of the model's step the curve sweeps.
var rdStepFactors = []float64{0.5, 0.7, 1, 1.4, 2, 2.8, 4}

// rdStepRatio is about the ratio of neighbouring rdStepFactors.
const rdStepRatio = 1.4

// rdCurve is one codec's rate–distortion points and Bjøntegaard rates.
type rdCurve struct {
	Codec   string           `json:"codec"`
	Points  []evalResultJSON `json:"points"`
	BDPSNR  *number          `json:"bd_rate_psnr_percent,omitempty"`
	BDSSIM  *number          `json:"bd_rate_ssim_percent,omitempty"`
	BDError string           `json:"bd_error,omitempty"`
	// VsPCA is, for the spca curve, the comparison with the pca curve
	// (same quantisers and entropy coder over the same steps).
	VsPCA *rdVersus `json:"vs_pca,omitempty"`
	// BDRangePSNR and BDRangeSSIM are the qualities the BD-rates against
	// cjpeg (and the model's against this codec) are averaged over: the
	// model's own, where both curves reach.
	BDRangePSNR []number `json:"bd_psnr_range_db,omitempty"`
	BDRangeSSIM []number `json:"bd_ssim_range,omitempty"`
	// SpcaBDPSNR and SpcaBDSSIM are, for an external codec, the model's
	// BD-rates against it (positive: the model needs more bits).
	SpcaBDPSNR  *number `json:"spca_bd_rate_psnr_percent,omitempty"`
	SpcaBDSSIM  *number `json:"spca_bd_rate_ssim_percent,omitempty"`
	SpcaBDError string  `json:"spca_bd_error,omitempty"`
	// SweepNote says where an external codec's settings do not reach
	// the model's qualities.
	SweepNote string `json:"sweep_note,omitempty"`
	results   []codec.Result
}

// rdVersus compares a curve with a reference curve: BD-rates, and the
// quality gaps at each of the curve's rate points (positive: ahead).
type rdVersus struct {
	Ref      string   `json:"ref"`
	BDPSNR   *number  `json:"bd_rate_psnr_percent,omitempty"`
	BDSSIM   *number  `json:"bd_rate_ssim_percent,omitempty"`
	BDError  string   `json:"bd_error,omitempty"`
	GapPSNR  []number `json:"psnr_gap_db"`
	GapSSIM  []number `json:"ssim_gap"`
	AheadAll bool     `json:"ahead_at_every_point"`
	// Ahead counts the points ahead by PSNR and SSIM among the
	// Comparable ones, those inside ref's rates.
	Ahead      int `json:"ahead_points"`
	Comparable int `json:"comparable_points"`
}

// versus records in cv its comparison with ref: the BD-rates over
// ref's points, the gaps over refGaps, ref's points and more beyond
// its ends, so that a point of cv just outside ref's rates is compared
// by interpolation rather than left out.
func versus(cv, ref *rdCurve, refGaps []codec.Result) {
	v := &rdVersus{Ref: ref.Codec, AheadAll: true}
	p, err1 := codec.BDRate(points(ref.results, false), points(cv.results, false))
	s, err2 := codec.BDRate(points(ref.results, true), points(cv.results, true))
	if err := firstErr(err1, err2); err != nil {
		v.BDError = err.Error()
	} else {
		np, ns := number(p), number(s)
		v.BDPSNR, v.BDSSIM = &np, &ns
	}
	gp := codec.QualityGap(points(refGaps, false), points(cv.results, false))
	gs := codec.QualityGap(points(refGaps, true), points(cv.results, true))
	for i := range gp {
		v.GapPSNR = append(v.GapPSNR, number(gp[i]))
		v.GapSSIM = append(v.GapSSIM, number(gs[i]))
		if !math.IsNaN(gp[i]) && !math.IsNaN(gs[i]) {
			v.Comparable++
			if gp[i] > 0 && gs[i] > 0 {
				v.Ahead++
			}
		}
		// A point outside ref's rates (NaN) is not a win.
		if !(gp[i] > 0 && gs[i] > 0) {
			v.AheadAll = false
		}
	}
	cv.VsPCA = v
}

// rdCurves measures the model over steps and every installed external
// codec over its qualities, and the BD-rates against cjpeg.
func rdCurves(model *codec.Model, images []image.Image, exact bool, effort int, note func(string)) ([]*rdCurve, error) {
	steps := make([]float64, len(rdStepFactors))
	for i, f := range rdStepFactors {
		steps[i] = f * model.Step
	}
	spc, err := codec.RateSweep(model, images, steps, &codec.Options{Exact: exact, Effort: effort})
	if err != nil {
		return nil, err
	}
	curves := []*rdCurve{{Codec: "spca", results: spc}}
	// The linear baseline with the same machinery (PCA, quantisers,
	// outliers, entropy coder) over the same steps.
	base, err := codec.PCABaseline(model)
	if err != nil {
		return nil, err
	}
	// One more step beyond each end for the gaps: at equal steps SPCA
	// and PCA land at slightly different rates, and the end points of
	// one would otherwise fall just outside the other's rates.
	first, last := rdStepFactors[0], rdStepFactors[len(rdStepFactors)-1]
	wide := append([]float64{first / rdStepRatio * model.Step}, steps...)
	wide = append(wide, last*rdStepRatio*model.Step)
	pcaWide, err := codec.RateSweep(base, images, wide, &codec.Options{Effort: effort})
	if err != nil {
		return nil, err
	}
	pcaCurve := &rdCurve{Codec: "pca", results: pcaWide[1 : len(pcaWide)-1]}
	curves = append(curves, pcaCurve)
	versus(curves[0], pcaCurve, pcaWide)
	have, missing := extcodec.Available(extcodec.All)
	for _, m := range missing {
		note(m + " not found on PATH: skipped")
	}
	// Each codec's points around the model's qualities, and every
	// BD-rate over those qualities: rows over different qualities (each
	// codec's overlap with cjpeg) do not compare with each other.
	low, high := qualityRange(spc)
	for _, x := range have {
		res, sweepNote, err := x.Cover(images, model.Color, low, high)
		if err != nil {
			return nil, err
		}
		if sweepNote != "" {
			note(sweepNote)
		}
		curves = append(curves, &rdCurve{Codec: x.Name, results: res, SweepNote: sweepNote})
	}
	for _, cv := range curves {
		for _, r := range cv.results {
			cv.Points = append(cv.Points, evalResultJSON{r.Method, number(r.RMSE), number(r.PSNR), number(r.SSIM), number(r.BPP), 0, nil, number(r.Step)})
		}
	}
	setBDRates(curves, curves[0], pcaCurve)
	return curves, nil
}

// setBDRates sets every curve's BD-rates against cjpeg's and the model's
// (curve m) against every external codec's, all over m's qualities where
// both curves reach.
func setBDRates(curves []*rdCurve, m, pca *rdCurve) {
	low, high := qualityRange(m.results)
	var ref *rdCurve
	for _, cv := range curves {
		if cv.Codec == extcodec.All[0].Name {
			ref = cv
		}
	}
	for _, cv := range curves {
		if cv != m && cv != pca {
			p, s, _, _, err := bdRates(cv.results, m.results, low, high)
			if err != nil {
				cv.SpcaBDError = err.Error()
			} else {
				cv.SpcaBDPSNR, cv.SpcaBDSSIM = &p, &s
			}
		}
		if ref == nil || cv == ref {
			continue
		}
		p, s, rp, rs, err := bdRates(ref.results, cv.results, low, high)
		if err != nil {
			cv.BDError = err.Error()
			continue
		}
		cv.BDPSNR, cv.BDSSIM, cv.BDRangePSNR, cv.BDRangeSSIM = &p, &s, rp, rs
	}
}

// qualityRange returns the lowest and the highest PSNR and SSIM of rs.
func qualityRange(rs []codec.Result) (low, high codec.Result) {
	low = codec.Result{PSNR: math.Inf(1), SSIM: math.Inf(1)}
	high = codec.Result{PSNR: math.Inf(-1), SSIM: math.Inf(-1)}
	for _, r := range rs {
		low.PSNR, low.SSIM = math.Min(low.PSNR, r.PSNR), math.Min(low.SSIM, r.SSIM)
		high.PSNR, high.SSIM = math.Max(high.PSNR, r.PSNR), math.Max(high.SSIM, r.SSIM)
	}
	return low, high
}

// bdRates returns the BD-rates of test against ref by PSNR and by SSIM,
// averaged over the qualities between low and high both curves reach,
// and those qualities.
func bdRates(ref, test []codec.Result, low, high codec.Result) (p, s number, rangeP, rangeS []number, err error) {
	bp, p0, p1, err1 := codec.BDRateIn(points(ref, false), points(test, false), low.PSNR, high.PSNR)
	bs, s0, s1, err2 := codec.BDRateIn(points(ref, true), points(test, true), low.SSIM, high.SSIM)
	if err := firstErr(err1, err2); err != nil {
		return 0, 0, nil, nil, err
	}
	return number(bp), number(bs), []number{number(p0), number(p1)}, []number{number(s0), number(s1)}, nil
}

func points(rs []codec.Result, ssim bool) []codec.RDPoint {
	out := make([]codec.RDPoint, len(rs))
	for i, r := range rs {
		q := r.PSNR
		if ssim {
			q = r.SSIM
		}
		out[i] = codec.RDPoint{BPP: r.BPP, Quality: q}
	}
	return out
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// writeRDTable prints about (a line saying what was measured), the
// curves and the BD-rates against cjpeg.
func writeRDTable(w io.Writer, about string, curves []*rdCurve) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n\n", about)
	fmt.Fprintln(tw, "codec\tsetting\tbpp\tPSNR dB\tSSIM")
	for _, cv := range curves {
		for _, r := range cv.results {
			// The setting without the codec's name, which the first
			// column gives ("q20", not "cjpeg -optimize q20").
			setting := strings.TrimPrefix(r.Method, cv.Codec+" ")
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.2f\t%.4f\n", cv.Codec, setting, r.BPP, r.PSNR, r.SSIM)
		}
	}
	fmt.Fprintln(tw, "\ncodec\tBD-rate vs cjpeg, PSNR\tBD-rate vs cjpeg, SSIM\tover PSNR dB, SSIM\tspca vs codec, PSNR\tspca vs codec, SSIM")
	for _, cv := range curves {
		vs := "\t\t"
		switch {
		case cv.SpcaBDPSNR != nil:
			vs = fmt.Sprintf("\t%+.1f %%\t%+.1f %%", float64(*cv.SpcaBDPSNR), float64(*cv.SpcaBDSSIM))
		case cv.SpcaBDError != "":
			vs = "\t" + cv.SpcaBDError + "\t"
		}
		switch {
		case cv.BDPSNR != nil:
			fmt.Fprintf(tw, "%s\t%+.1f %%\t%+.1f %%\t%.2f-%.2f, %.4f-%.4f%s\n", cv.Codec, float64(*cv.BDPSNR), float64(*cv.BDSSIM),
				float64(cv.BDRangePSNR[0]), float64(cv.BDRangePSNR[1]), float64(cv.BDRangeSSIM[0]), float64(cv.BDRangeSSIM[1]), vs)
		case cv.BDError != "":
			fmt.Fprintf(tw, "%s\t%s\t\t%s\n", cv.Codec, cv.BDError, vs)
		case vs != "\t\t":
			fmt.Fprintf(tw, "%s\t(reference)\t\t%s\n", cv.Codec, vs)
		}
	}
	fmt.Fprintln(tw, "(BD-rates over the model's qualities, where both curves reach; spca vs codec: the model's BD-rate against that codec, positive where it needs more bits)")
	for _, cv := range curves {
		if cv.SweepNote != "" {
			fmt.Fprintf(tw, "note: %s\n", cv.SweepNote)
		}
	}
	for _, cv := range curves {
		v := cv.VsPCA
		if v == nil {
			continue
		}
		fmt.Fprintf(tw, "\n%s vs %s (same quantisers and entropy coder)\t", cv.Codec, v.Ref)
		if v.BDPSNR != nil {
			fmt.Fprintf(tw, "BD-rate %+.1f %% (PSNR), %+.1f %% (SSIM)\n", float64(*v.BDPSNR), float64(*v.BDSSIM))
		} else {
			fmt.Fprintf(tw, "%s\n", v.BDError)
		}
		for i, r := range cv.results {
			gp, gs := float64(v.GapPSNR[i]), float64(v.GapSSIM[i])
			if math.IsNaN(gp) || math.IsNaN(gs) {
				// No reference point at this rate to compare with.
				fmt.Fprintf(tw, "  %s\t%.3f bpp: outside %s's rates\n", r.Method, r.BPP, v.Ref)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%.3f bpp: %+.2f dB, SSIM %+.4f\n", r.Method, r.BPP, gp, gs)
		}
		yes := "no"
		if v.AheadAll {
			yes = "yes"
		}
		fmt.Fprintf(tw, "  ahead by PSNR and SSIM at every rate point\t%s: at %d of the %d points inside %s's rates\n", yes, v.Ahead, v.Comparable, v.Ref)
	}
	return tw.Flush()
}

// runRD is codec eval --rd: the curves as a table, or JSON.
func runRD(c *cli.Context, model *codec.Model, images []image.Image) error {
	name := cliutil.CommandName(c)
	if model.Step == 0 {
		return fail("%s: --%s needs a model in the entropy-constrained mode (codec train --uniform or --step)", name, flagRD)
	}
	note := func(msg string) {
		if !cliutil.Quiet(c) {
			fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", name, msg)
		}
	}
	curves, err := rdCurves(model, images, c.Bool(flagExact), c.Int(flagEffort), note)
	if err := modelFault(c, "", err); err != nil {
		return err
	}
	if err != nil {
		return fail("%s: %s", name, codecBrief(err))
	}
	if c.Bool(flagJSON) {
		out := struct {
			Model  string     `json:"model"`
			Images int        `json:"images"`
			Curves []*rdCurve `json:"curves"`
		}{c.String(flagModel), len(images), curves}
		if err := cliutil.WriteJSON(c.App.Writer, out); err != nil {
			return fail("%s: %v", name, err)
		}
		return nil
	}
	about := fmt.Sprintf("%s on %s: bpp, PSNR and SSIM averaged over the images at each setting", c.String(flagModel), cliutil.Plural(len(images), "image"))
	if err := writeRDTable(c.App.Writer, about, curves); err != nil {
		return fail("%s: %v", name, err)
	}
	return nil
}
