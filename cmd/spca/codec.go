package main

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/cmd/spca/internal/hugestart"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/extcodec"
	"github.com/spcalab/spca/internal/opacity"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/spca"
)

// imageExts are the extensions of the image files taken from a directory.
var imageExts = patches.Extensions()

// imageFormats names the image formats read, for error messages.
const imageFormats = "PNG, JPEG, GIF, TIFF, BMP, WebP or binary PGM/PPM"

// batchNote is the help text on how encode and decode handle -o and
// failures.
const batchNote = "With one input, -o names the output file (or an existing directory to write it " +
	"in). With several, -o is a directory, created if missing (unless named like an output file, such as out.png), and each output is named after " +
	"its input with the extension %s. The inputs are processed in order and the command " +
	"stops at the first failure: outputs written before it are kept, and no output file is " +
	"ever left partially written (an existing file is replaced only once its new content is " +
	"complete). - as the one input reads standard input, -o - writes standard output (one input). " +
	"Several inputs in one call load the model once: batch them rather than run one process per file."

func codecCommand() *cli.Command {
	subs := []*cli.Command{codecTrainCommand(), codecEvalCommand(), codecRepackCommand()}
	return &cli.Command{
		Name:  "codec",
		Usage: "train and evaluate SPCA image codecs (see also encode and decode)",
		UsageText: "spca codec train --images DIR|FILE [FILE...] -o codec.model [--patch 8] [--gamma 0] [--step 30 | --uniform --bpp B | --bins N | --bpp B] [--color] ...\n" +
			"spca codec eval --model codec.model --images DIR|FILE [FILE...] [--json] [--rd]\n" +
			"spca codec repack --model codec.model -o fast.model [--fast-load]",
		Subcommands: subs,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fail("codec: unknown command %q%s (see spca codec --help)", c.Args().First(), didYouMean(c.Command.Subcommands, c.Args().First()))
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

// imagesFlag is --images; more image files may follow as arguments.
func imagesFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: flagImages, Usage: what + ": a `DIR` (all its image files, by name) or a FILE; more FILEs may follow (required)"}
}

func codecModelFlag() cli.Flag {
	return &cli.StringFlag{Name: flagModel, Usage: "codec model `FILE` written by spca codec train (required)"}
}

func exactFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagExact, Usage: "compute every SPCA response exactly instead of by the tabulated fast path (slower on large images)"}
}

func assignFlag() cli.Flag {
	return &cli.StringFlag{Name: flagAssign, Value: codec.AssignNearest.String(), Usage: "how the encoder assigns patches to cells: " +
		"`nearest` (fixed-resolution mode: the cell with the nearest reconstruction; entropy-constrained mode: a neighbouring SPCA cell where the error saved outweighs the bits, on models of gamma 0; with gamma > 0 the same cells as responses) or responses (the cell of the SPCA responses, the seed's encoder); the decoder is the same"}
}

// assignment parses --assign.
func assignment(c *cli.Context) (codec.Assignment, error) {
	v := c.String(flagAssign)
	for _, a := range []codec.Assignment{codec.AssignNearest, codec.AssignResponses} {
		if v == a.String() {
			return a, nil
		}
	}
	return 0, fail("%s: --%s must be nearest or responses, not %q", cliutil.CommandName(c), flagAssign, v)
}

func codecTrainCommand() *cli.Command {
	def := codec.PhotoTrainOptions()
	return &cli.Command{
		Name:  "train",
		Usage: "train a codec model on a set of images",
		UsageText: "spca codec train --images DIR|FILE [FILE...] -o codec.model [--patch 8] [--gamma 0] [--step 30 | --uniform --bpp B | --bins N | --bpp B] [--color] [--samples N] [--seed S]\n\n" +
			"Learns the PCA of the image patches, SPCA on the leading coefficients and the " +
			"quantisers of the others. The default is the entropy-constrained mode: one uniform " +
			"quantiser step for every coefficient (--step S, 30 unless --bins or --bpp is given, or " +
			"--uniform with --bpp B for the step that codes the training images at B bits per pixel), " +
			"8×8 patches, gamma 0: the configuration measured ahead of linear PCA with the same " +
			"quantisers at every rate of held-out photographs (the encoder's --bpp codes a model at " +
			"other rates). --bins N, or --bpp B without --uniform, selects the seed's fixed-resolution " +
			"mode (total resolution N, Lloyd-Max beyond SPCA); the seed's configuration is " +
			"--patch 2 --gamma 1/3 --bins 66. " +
			fmt.Sprintf("It warns when the images hold too few non-overlapping patches for the model: fewer than %d per "+
				"coefficient (%d for 8×8) or than the quantiser bins of a channel.",
				codec.MinPatchesPerCoefficient, 64*codec.MinPatchesPerCoefficient),
		Flags: []cli.Flag{
			imagesFlag("training images"),
			&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: "model `FILE` to write (required)"},
			&cli.IntFlag{Name: flagPatch, Value: def.Patch, Usage: "patch size n, 1 to 15: images are coded in n×n blocks"},
			&cli.StringFlag{Name: flagGamma, Value: formatFloat(def.Gamma), Usage: "exponent of the PDF in the SPCA metric, >= 0: 0 unfolds, 1/3 minimises quantisation error (the seed's), 1 equalises (fractions allowed)"},
			&cli.IntFlag{Name: flagBins, DefaultText: "none, the step mode", Usage: "fixed-resolution mode with this total resolution: the number of quantisation bins summed over the n² coefficients (the seed's: 66)"},
			&cli.Float64Flag{Name: flagBPP, DefaultText: "none", Usage: "choose the resolution (or with --uniform the step) that codes the training images at this many bits per pixel (instead of --bins)"},
			&cli.Float64Flag{Name: flagStep, DefaultText: formatFloat(def.Step) + " unless --bins or --bpp is given", Usage: "entropy-constrained mode with this quantiser step in grey levels for every coefficient"},
			&cli.BoolFlag{Name: flagUniform, Usage: "entropy-constrained mode, the step chosen for --bpp"},
			&cli.BoolFlag{Name: flagColor, Usage: "code colour (YCbCr, a model per channel) instead of the luminance"},
			&cli.StringFlag{Name: flagChroma, Value: "444", Usage: "with --color, the chroma resolution: 444 (full) or 420 (half in both directions, as JPEG: faster, fewer bits)"},
			&cli.IntFlag{Name: flagSamples, Value: def.Samples, Usage: "training patches per channel"},
			&cli.IntFlag{Name: flagResolution, DefaultText: fmt.Sprintf("%d for 8×8 patches and larger, %d below", codec.LargePatchResolution, codec.DefaultResolution),
				Usage: "number of lattice nodes of the SPCA curves (more: larger models, slower to load; 4×4 Kodak codes alike at 65536 and 262144; 8×8 at 131072 and 262144, but loses 0.04 dB at one rate of held-out photographs with 65536)"},
			&cli.IntFlag{Name: flagLeading, DefaultText: "min(n², 4)",
				Usage: "PCA coefficients coded through SPCA, 1 to min(n², 8) (8×8 Kodak: 5 put SPCA further ahead of PCA than 4, BD-rate by PSNR -2.5 against -1.9 % on the training images, -1.5 against -1.1 % and -2.7 against -1.7 % on held-out photographs, 6 behind PCA; encoding about 1.5 times slower, the 4-D lattice has its own fast path)"},
			&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the random choices"},
			&cli.Float64Flag{Name: flagK, Value: def.SPCA.K, Usage: "SPCA neighbourhood of the local PCA as a fraction of the patches, in (0, 1] (larger: stiffer curves)"},
			&cli.Float64Flag{Name: flagBandwidth, Value: spca.DefaultBandwidth, Usage: "SPCA density bandwidth as a fraction of Silverman's rule"},
			&cli.Float64Flag{Name: flagConditioning, Value: spca.DefaultConditioning, Usage: "SPCA share of the patches a secondary curve's density is estimated from, in (0, 1]"},
			&cli.Float64Flag{Name: flagNeighbours, DefaultText: "none, a kernel", Usage: "SPCA densities by the seed's k-neighbours rule, k this share of a curve's patches, in (0, 1], instead of a kernel (keeps gamma 1 ahead of gamma 0 at high resolutions)"},
			fastLoadFlag(),
		},
		Action: runCodecTrain,
	}
}

func runCodecTrain(c *cli.Context) error {
	paths, err := imagePaths(c)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := requireFlags(c, flagOut); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	out, err := binaryOutput(c, "models")
	if err != nil {
		return err
	}
	opt := codec.PhotoTrainOptions()
	if opt.Gamma, err = parseGamma(c.String(flagGamma)); err != nil {
		return fail("%s: --%s: %v", name, flagGamma, err)
	}
	if n := countSet(c, flagBins, flagBPP, flagStep); n > 1 {
		return fail("%s: --%s, --%s and --%s are mutually exclusive", name, flagBins, flagBPP, flagStep)
	}
	if c.Bool(flagUniform) && !c.IsSet(flagBPP) && !c.IsSet(flagStep) {
		return fail("%s: --%s needs --%s (or give --%s)", name, flagUniform, flagBPP, flagStep)
	}
	if opt.Step, err = positiveFlag(c, flagStep, "a quantiser step"); err != nil {
		return err
	}
	if !c.IsSet(flagStep) && !c.IsSet(flagBins) && !c.IsSet(flagBPP) {
		opt.Step = codec.PhotoStep
	}
	if opt.BPP, err = positiveFlag(c, flagBPP, "a number of bits per pixel"); err != nil {
		return err
	}
	opt.Uniform = c.Bool(flagUniform)
	opt.Patch = c.Int(flagPatch)
	opt.Bins = c.Int(flagBins)
	// By the flags' names (codec said 'resolution 50 bins must be between
	// n² = 64 and 32768', 'target of 30 bits per pixel').
	if c.IsSet(flagBins) && (opt.Bins < opt.Patch*opt.Patch || opt.Bins > codec.MaxBins) {
		return fail("%s: --%s %d is out of its range [n² = %d, %d] for --%s %d", name, flagBins, opt.Bins, opt.Patch*opt.Patch, codec.MaxBins, flagPatch, opt.Patch)
	}
	if opt.BPP > codec.MaxTrainBPP {
		return fail("%s: --%s %s is out of its range (0, %d] for training", name, flagBPP, formatFloat(opt.BPP), codec.MaxTrainBPP)
	}
	opt.Color = c.Bool(flagColor)
	switch ch := c.String(flagChroma); {
	case ch == "420" && opt.Color:
		opt.Subsample = true
	case ch == "420":
		return fail("%s: --%s 420 needs --%s", name, flagChroma, flagColor)
	case ch != "444":
		return fail("%s: --%s %q: want 444 or 420", name, flagChroma, ch)
	}
	opt.Samples = c.Int(flagSamples)
	opt.Seed = c.Uint64(flagSeed)
	opt.SPCA.K = c.Float64(flagK)
	if k := opt.SPCA.K; !(k > 0 && k <= 1) {
		// codec.TrainOptions reads K = 0 as its default: refuse it here,
		// where the help promises (0, 1].
		return fail("%s: --%s %s is out of its range (0, 1]", name, flagK, formatFloat(k))
	}
	warnLargeK(c, name, opt.SPCA.K, opt.Samples, opt.SPCA.MaxReference)
	opt.SPCA.Bandwidth = c.Float64(flagBandwidth)
	opt.SPCA.Conditioning = c.Float64(flagConditioning)
	opt.SPCA.Neighbours = c.Float64(flagNeighbours)
	opt.SPCA.Resolution = c.Int(flagResolution) // 0 (not given): codec.ResolutionFor the patch size
	// 0 is codec's default, not a value the help offers: --leading 0
	// trained min(n², 4) silently.
	if opt.Leading = c.Int(flagLeading); opt.Leading < 0 || c.IsSet(flagLeading) && opt.Leading == 0 || opt.Leading > min(opt.Patch*opt.Patch, codec.MaxLeading) {
		return fail("%s: --%s %d is out of its range (1 to min(n², %d))", name, flagLeading, opt.Leading, codec.MaxLeading)
	}
	// Fail before a long training rather than when saving its result.
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return fail("%s: --%s: %s", name, flagOut, pathError(err))
	}

	start := time.Now()
	bars := cliutil.NewProgress(c)
	images, err := loadImages(paths, bars.Callback())
	if err != nil {
		bars.Finish()
		return err
	}
	opt.Progress = bars.Callback()
	model, err := codec.Train(images, &opt)
	bars.Finish()
	if err != nil {
		return fail("%s: %s", name, codecBrief(err))
	}
	elapsed := time.Since(start)
	model.SetFastLoad(c.Bool(flagFastLoad))
	if err := model.Save(out); err != nil {
		return fail("%s", withPathC(out, err))
	}
	if w := model.TrainingWarning(images); w != "" {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", name, w)
	}
	if !cliutil.Quiet(c) {
		kind := "grey"
		if model.Color {
			kind = "colour 4:4:4"
			if model.Subsample {
				kind = "colour 4:2:0"
			}
		}
		bins := fmt.Sprintf("%d bins", sum(model.Channels[0].Bins))
		if model.Step > 0 {
			bins = fmt.Sprintf("step %.4g (%d bins)", model.Step, sum(model.Channels[0].Bins))
		}
		if opt.BPP > 0 {
			bins += fmt.Sprintf(" (for %s bpp)", formatFloat(opt.BPP))
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: %s, %d×%d %s patches, gamma %s, %s, in %s -> %s\n",
			name, cliutil.Plural(len(images), "image"), model.Patch, model.Patch, kind, formatGamma(model.Gamma), bins,
			elapsed.Round(time.Millisecond), out)
	}
	return nil
}

// fastLoadFlag is --fast-load of codec train and codec repack.
func fastLoadFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagFastLoad, Usage: "write the model in the fast-load form: the sections coding reads stored uncompressed, the SPCA lattices ready to use " +
		"(the 8×8 grey Kodak model takes 5.31 instead of 3.50 MB and loads several times faster; the same model, ID and coded files; spca builds before session 34 cannot read it)"}
}

func codecRepackCommand() *cli.Command {
	return &cli.Command{
		Name:  "repack",
		Usage: "rewrite a codec model in the compact form (the default) or the fast-load form (--fast-load)",
		UsageText: "spca codec repack --model codec.model -o fast.model [--fast-load]\n\n" +
			"Reads the model whole (every section checked) and writes it in the compact form, every " +
			"section compressed with zstd (what codec train writes by default: the smallest file), or " +
			"with --fast-load in the fast-load form: the sections an encoding or decoding process reads " +
			"stored uncompressed (zstd raw blocks), the SPCA lattices as float32 that a load uses in place " +
			"instead of decoding them (a larger file, faster to load in every process; spca info reports " +
			"the form and the load time). Both forms hold the same model: the same ID, the same coded " +
			"files and decoded pixels; spca builds before session 34 read the compact form only. " +
			"Repacking back gives the original file's bytes.",
		Flags: []cli.Flag{
			codecModelFlag(),
			&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: "model `FILE` to write (required; not the input)"},
			fastLoadFlag(),
		},
		Action: runCodecRepack,
	}
}

func runCodecRepack(c *cli.Context) error {
	if c.Args().Present() {
		return fail("%s: unexpected argument %q (the model is --%s)", cliutil.CommandName(c), c.Args().First(), flagModel)
	}
	if err := requireFlags(c, flagModel, flagOut); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	out, err := binaryOutput(c, "models")
	if err != nil {
		return err
	}
	in := c.String(flagModel)
	model, err := loadCodecModel(in)
	if err != nil {
		return err
	}
	defer model.Close()
	// Every section read (and checked) before the output, which may be
	// the input, is replaced.
	if err := model.LoadSections(); err != nil {
		return fail("%s", withPathC(in, err))
	}
	was := model.FastLoad()
	model.SetFastLoad(c.Bool(flagFastLoad))
	if err := model.Save(out); err != nil {
		return fail("%s", withPathC(out, err))
	}
	if !cliutil.Quiet(c) {
		size := int64(0)
		if fi, err := os.Stat(out); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: %s (%s form) -> %s (%s form, %d bytes)\n", name, in, formName(was), out, formName(model.FastLoad()), size)
	}
	return nil
}

// formName names a codec model's form (codec.Model.FastLoad).
func formName(fastLoad bool) string {
	if fastLoad {
		return "fast-load"
	}
	return "compact"
}

func codecEvalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "compare a codec model with other gammas, PCA and JPEG on a set of images",
		UsageText: "spca codec eval --model codec.model --images DIR|FILE [FILE...] [--json] [--exact] [--assign nearest|responses] [--effort N] [--rd]\n\n" +
			"Codes the images with the model and, at the same total resolution (or step), with SPCA " +
			"refitted for gamma 0, 1/3 and 1 and with PCA and a Lloyd–Max (or dead-zone uniform) " +
			"quantiser per coefficient; then with that PCA baseline and with JPEG at the bits per " +
			"pixel of the model (\"matched bpp\": the comparison at equal rate; JPEG is Go's image/jpeg for a grey model, " +
			"cjpeg -optimize decoded by djpeg for a colour one when both are on PATH, else image/jpeg, the row named so); prints RMSE and " +
			"PSNR (8-bit units), SSIM (luminance) and bits per pixel, averaged over the images, " +
			"and the bins per coefficient (of the first channel).",
		Flags: []cli.Flag{
			codecModelFlag(),
			imagesFlag("test images"),
			cliutil.JSONFlag(),
			exactFlag(),
			assignFlag(),
			effortFlag(),
			rdFlag(),
		},
		Action: runCodecEval,
	}
}

// evalResultJSON is one method in the JSON output of codec eval; the
// fields are those of codec.Result.
type evalResultJSON struct {
	Method string `json:"method"`
	RMSE   number `json:"rmse"`
	PSNR   number `json:"psnr_db"`
	SSIM   number `json:"ssim"`
	BPP    number `json:"bpp"`
	Fixed  number `json:"fixed_length_bpp,omitempty"`
	Bins   []int  `json:"bins,omitempty"`
	Step   number `json:"step,omitempty"`
}

func runCodecEval(c *cli.Context) error {
	paths, err := imagePaths(c)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := requireFlags(c, flagModel); err != nil {
		return err
	}
	assign, err := assignment(c)
	if err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	modelPath := c.String(flagModel)
	model, err := loadCodecModel(modelPath)
	if err != nil {
		return err
	}
	bars := cliutil.NewProgress(c)
	images, err := loadImages(paths, bars.Callback())
	if err != nil {
		bars.Finish()
		return err
	}
	if c.Bool(flagRD) {
		bars.Finish()
		return runRD(c, model, images)
	}
	// The model's own gamma is always among the methods.
	gammas := []float64{0, 1.0 / 3, 1}
	if !slices.Contains(gammas, model.Gamma) {
		gammas = append(gammas, model.Gamma)
		slices.Sort(gammas)
	}
	jr := evalJPEG(model.Color, extcodec.All[0])
	opt := &codec.EvalOptions{Gammas: gammas, Exact: c.Bool(flagExact), Assign: assign, Effort: c.Int(flagEffort), MatchedPCA: true, JPEG: jr.measure}
	if cb := bars.Callback(); cb != nil {
		cb("evaluate", 0, len(gammas)+3)
		opt.Progress = func(_ string, done, total int) { cb("evaluate", done, total) }
	}
	results, err := codec.Evaluate(model, images, opt)
	bars.Finish()
	if err := modelFault(c, "", err); err != nil {
		return err
	}
	if err != nil {
		return fail("%s: %s", name, codecBrief(err))
	}
	for i := range results {
		if results[i].Method == jpegMethod {
			results[i].Method = jr.method
		}
	}

	// image/jpeg's headers (its tables) weigh on its rate on small
	// images: on 64×48 generated scenes they were 0.98 of the 1.09 bpp
	// JPEG was matched to, and its row read 23.6 dB against SPCA's 33.4.
	headerBPP := jpegHeaderBPP(images, jr.headerBits)
	var warnings []string
	for _, r := range results {
		if r.Method == jr.method && headerBPP > jpegHeaderShare*r.BPP {
			w := fmt.Sprintf("%s's headers (%d bytes an image) take %.3f of the %.3f bpp of the JPEG row "+
				"on these images of %.0f pixels on average; they stay under %.0f %% of it from about %.0f pixels an image",
				jr.coder, jr.headerBits/8, headerBPP, r.BPP, meanPixels(images), 100*jpegHeaderShare,
				float64(jr.headerBits)/(jpegHeaderShare*r.BPP))
			warnings = append(warnings, w)
			fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", name, w)
		}
	}

	w := c.App.Writer
	if c.Bool(flagJSON) {
		out := struct {
			Model   string           `json:"model"`
			Images  int              `json:"images"`
			Exact   bool             `json:"exact"`
			Results []evalResultJSON `json:"results"`
			// JPEGHeaderBPP is the share of the JPEG row's rate its
			// coder's headers take, averaged over the images.
			JPEGHeaderBPP number `json:"jpeg_header_bpp"`
			// JPEGCodec names the coder of the JPEG row.
			JPEGCodec string `json:"jpeg_codec"`
			// Warnings are the warnings also printed on stderr.
			Warnings []string `json:"warnings,omitempty"`
		}{Model: modelPath, Images: len(images), Exact: opt.Exact, JPEGHeaderBPP: number(headerBPP), JPEGCodec: jr.codec, Warnings: warnings}
		for _, r := range results {
			out.Results = append(out.Results, evalResultJSON{r.Method, number(r.RMSE), number(r.PSNR), number(r.SSIM), number(r.BPP), number(r.FixedBPP), r.Bins, number(r.Step)})
		}
		if err := cliutil.WriteJSON(w, out); err != nil {
			return fail("%s: %v", name, err)
		}
		return nil
	}
	if err := writeEvalTable(w, results); err != nil {
		return fail("%s: %v", name, err)
	}
	return nil
}

// jpegMethod is the Method of codec.Evaluate's JPEG result by image/jpeg.
const jpegMethod = "jpeg (matched bpp)"

// jpegHeaderShare is the share of the JPEG row's rate above which codec
// eval warns that the JPEG coder's headers weigh on it.
const jpegHeaderShare = 0.1

// evalJPEGRow is how codec eval makes its JPEG row.
type evalJPEGRow struct {
	coder      string // "cjpeg -optimize" or "image/jpeg"
	codec      string // coder and decoder: "cjpeg -optimize, djpeg" or "image/jpeg"
	method     string // the row's Method
	headerBits int    // what the coder writes besides the coded data
	// measure is codec.EvalOptions.JPEG: nil for image/jpeg.
	measure func(images []image.Image, bpp float64, color bool) (codec.Result, error)
}

// evalJPEG returns the JPEG row of codec eval: for a colour model cjpeg
// (x, PPM in, -optimize, its default 4:2:0 chroma) decoded by djpeg when
// both are on PATH, as codec eval --rd codes it and as JPEG's users
// decode it; image/jpeg, which repeats each chroma sample where djpeg
// interpolates (5 % of BD-rate against cjpeg by RGB PSNR on kodim13-24,
// session 28), otherwise, its row named so. A grey model's row stays
// image/jpeg's "jpeg (matched bpp)", the comparison of the README's
// tables since session 12.
func evalJPEG(color bool, x extcodec.Codec) evalJPEGRow {
	goRow := evalJPEGRow{coder: "image/jpeg", codec: "image/jpeg", method: jpegMethod, headerBits: jpegHeaderBits(color)}
	if !color {
		return goRow
	}
	if have, _ := extcodec.Available([]extcodec.Codec{x}); len(have) == 0 {
		// runCodecEval renames codec.Evaluate's row.
		goRow.method = "image/jpeg (matched bpp; cjpeg or djpeg not on PATH)"
		return goRow
	}
	bits, err := x.HeaderBytes(true)
	if err != nil {
		bits = 0
	}
	return evalJPEGRow{coder: x.Name, codec: x.Name + ", " + x.Decoder(), method: x.Name + " (matched bpp)", headerBits: 8 * bits, measure: x.Matched}
}

// jpegHeaderBits is the size in bits of what image/jpeg writes for any
// image besides its coded data (tables and markers): what it writes for
// a 1×1 image, 376 bytes grey, 597 in colour.
func jpegHeaderBits(color bool) int {
	var img image.Image = image.NewGray(image.Rect(0, 0, 1, 1))
	if color {
		img = image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		return 0
	}
	return 8 * b.Len()
}

// jpegHeaderBPP is bits per image per pixel, averaged over the images as
// codec.Evaluate averages rates.
func jpegHeaderBPP(images []image.Image, bits int) float64 {
	total := 0.0
	for _, img := range images {
		total += float64(bits) / float64(img.Bounds().Dx()*img.Bounds().Dy())
	}
	return total / float64(len(images))
}

// meanPixels is the mean number of pixels of the images.
func meanPixels(images []image.Image) float64 {
	total := 0.0
	for _, img := range images {
		total += float64(img.Bounds().Dx() * img.Bounds().Dy())
	}
	return total / float64(len(images))
}

// maxTableCoefficients is the most coefficients whose bins the codec
// eval table lists one by one (4×4 patches); --json lists them all.
const maxTableCoefficients = 16

// writeEvalTable prints the results of codec eval as a table; the bins
// column gives the total and the bins of each coefficient (the total
// only beyond maxTableCoefficients), the fixed-length column what the
// same cells cost without entropy coding.
func writeEvalTable(w io.Writer, results []codec.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tRMSE\tPSNR dB\tSSIM\tbpp\tfixed-length bpp\tbins")
	for _, r := range results {
		bins := "-"
		if len(r.Bins) > 0 {
			parts := make([]string, len(r.Bins))
			for i, b := range r.Bins {
				parts[i] = fmt.Sprint(b)
			}
			bins = fmt.Sprintf("%d = %s", sum(r.Bins), strings.Join(parts, "+"))
			if len(r.Bins) > maxTableCoefficients {
				// 64 of them made 300-character lines.
				bins = fmt.Sprintf("%d over %d coefficients (--json lists them)", sum(r.Bins), len(r.Bins))
			}
			if r.Step > 0 {
				bins = fmt.Sprintf("step %.4g: %s", r.Step, bins)
			}
		}
		fixed := "-"
		if r.FixedBPP > 0 {
			fixed = fmt.Sprintf("%.3f", r.FixedBPP)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.2f\t%.4f\t%.3f\t%s\t%s\n", r.Method, r.RMSE, r.PSNR, r.SSIM, r.BPP, fixed, bins)
	}
	return tw.Flush()
}

// effortFlag is encode's --effort (codec.Options.Effort), checked
// against flagRanges.
func effortFlag() cli.Flag {
	return &cli.IntFlag{Name: flagEffort, Value: codec.DefaultEffort,
		Usage: fmt.Sprintf("how much the encoder searches, %d (fastest) to %d (the full search); a lower level takes less CPU for slightly larger or worse files, in the same format (README: \"Encoder effort\")", codec.MinEffort, codec.MaxEffort)}
}

// outFlag is -o/--out of encode and decode.
func outFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: what + " (required; see above)"}
}

func encodeCommand() *cli.Command {
	return &cli.Command{
		Name:  "encode",
		Usage: "code images into .spc files with a codec model",
		UsageText: "spca encode --model codec.model [--bpp B | --step S] [--effort N] [--assign nearest|responses] [--exact] -o OUT in.png [in2.png ...]\n\n" +
			"Grey models code the luminance of colour images; 16-bit images stay 16-bit. " +
			fmt.Sprintf(batchNote, ".spc"),
		Flags: []cli.Flag{
			codecModelFlag(),
			outFlag("output `FILE` for one input, DIR for several"),
			exactFlag(),
			assignFlag(),
			&cli.Float64Flag{Name: flagBPP, Usage: "code each image at this many bits per pixel (within 2 %, 5 % at --effort 1, searching the quantiser step on the image; models in the entropy-constrained mode)", DefaultText: "none, the model's step"},
			&cli.Float64Flag{Name: flagStep, Usage: "code at this quantiser step instead of the model's (larger: fewer bits; models in the entropy-constrained mode)", DefaultText: "the model's"},
			effortFlag(),
		},
		Before: adviseHugeHeap,
		Action: runEncode,
	}
}

func decodeCommand() *cli.Command {
	return &cli.Command{
		Name:  "decode",
		Usage: "decode .spc files into PNG, TIFF or PGM/PPM images with their codec model",
		UsageText: "spca decode --model codec.model [--format png|pgm|ppm|tiff] -o OUT in.spc [in2.spc ...]\n\n" +
			"Writes PNG, or TIFF if -o names one file ending in .tif or .tiff, or an uncompressed " +
			"binary PGM (grey) or PPM (colour) if it ends in .pgm, .ppm or .pnm, as djpeg writes: " +
			"the cheapest to write. --" + flagFormat + " sets the format of outputs written into a " +
			"directory or to standard output. " +
			fmt.Sprintf(batchNote, ".png (or that of --"+flagFormat+")"),
		Flags: []cli.Flag{
			codecModelFlag(),
			outFlag("output `FILE` (.png, .tif, .pgm) for one input, DIR for several"),
			&cli.StringFlag{Name: flagFormat, Value: "png", Usage: "`FORMAT` of outputs in a directory or on standard output: png, pgm or ppm (uncompressed, as djpeg writes: PGM for grey images, PPM for colour; the name sets the extension) or tiff; an output FILE takes its extension's"},
		},
		Before: adviseHugeHeap,
		Action: runDecode,
	}
}

// adviseHugeHeap backs the heap of an encode or decode process with 2 MB
// pages before the model loads: one process per image is the common use,
// and its page faults were a third of its CPU (see hugeHeap). It also
// sets the heap ballast. A process started as spca encode or decode has
// done both before package initialisation (internal/hugestart), which
// also covers the heap the initialisations and flags fill.
func adviseHugeHeap(*cli.Context) error {
	if hugestart.Done() {
		// Done at start, before package initialisation, ballast included
		// (none where the start raised GOGC until the first collection
		// instead: amd64's stack step).
		heapBallast = hugestart.TakeBallast()
		return nil
	}
	if hugestart.Limited() {
		return nil // no ballast: it would count against the user's memory limit
	}
	hugeHeap(hugestart.Bytes)
	return nil
}

// heapBallast is allocated and never touched, so that it takes address
// space but no memory: the collector counts it as live heap, and with it
// the first collection of an encode or decode process comes at 128 MB of
// heap instead of 4 MB. Coding a 768×512 image allocates less (12-27 MB):
// a process per image collects only once (hugeHeap; not at all where
// the start advised the heap without a collection and raised GOGC
// instead, hugestart.adviseFenced), where it collected 3 or 4 times, each cycle sweeping and faulting in fresh runtime
// metadata (kodim13 grey, 4×4 model: 1,375 -> 1,208 page faults for a
// decode, 1,531 -> 1,375 for an encode, as GOGC=off). A batch collects
// every 128 MB of allocation or more; large images, whose live heap
// dwarfs it, keep GOGC's 2× of it plus at most 128 MB.
var heapBallast []byte

// ballastBytes is the size of heapBallast.
const ballastBytes = hugestart.BallastBytes

// setBallast allocates the heap ballast, once; the caller keeps the
// collector off meanwhile, or the allocation starts a cycle.
func setBallast() {
	if heapBallast == nil {
		heapBallast = make([]byte, ballastBytes)
	}
}

// dropBallast releases the heap ballast, and the GOGC setting the start
// raised instead where it did (hugestart.Release), so that collections
// come at GOGC's pace again.
func dropBallast() {
	heapBallast = nil
	hugestart.Release()
}

// rateWarnShare is the relative distance from the --bpp target beyond
// which encode warns that the rate could not be reached (the search
// stops within 2 % when it can).
const rateWarnShare = 0.05

func runEncode(c *cli.Context) error {
	var opt codec.Options
	var bpp float64
	setup := func() error {
		assign, err := assignment(c)
		if err != nil {
			return err
		}
		opt = codec.Options{Exact: c.Bool(flagExact), Assign: assign, Effort: c.Int(flagEffort)}
		if countSet(c, flagBPP, flagStep) > 1 {
			return fail("%s: --%s and --%s are mutually exclusive", cliutil.CommandName(c), flagBPP, flagStep)
		}
		if opt.Step, err = positiveFlag(c, flagStep, "a quantiser step"); err != nil {
			return err
		}
		bpp, err = positiveFlag(c, flagBPP, "a number of bits per pixel")
		return err
	}
	var bytes, pixels int64
	greyed := 0     // colour inputs coded by a grey model
	coloured := 0   // grey inputs coded by a colour model
	seeThrough := 0 // inputs with transparency (alpha is not coded)
	ext := ".spc"
	var last image.Image // coded: the next input may be read into it
	err := runBatch(c, &ext, setup, func(model *codec.Model, in, out string) error {
		var noAlpha bool // the reader knows the image is opaque
		img, err := loadInputImage(c, in, patches.Into(last), patches.NoAlpha(&noAlpha), patches.PackedRGB())
		last = nil
		if err != nil {
			return err
		}
		if hasChroma := patches.HasChroma(img); !model.Color && hasChroma {
			greyed++
		} else if model.Color && !hasChroma {
			coloured++
		}
		if !noAlpha && !opacity.Of(img) {
			seeThrough++
		}
		o := opt
		if (bpp > 0 || o.Step > 0) && model.Step == 0 {
			// The model's fault, not the image's: said once, plainly.
			flag := flagBPP
			if o.Step > 0 {
				flag = flagStep
			}
			return fail("%s: --%s needs a model in the entropy-constrained mode (spca codec train --step or --uniform); %s has fixed bins per coefficient",
				cliutil.CommandName(c), flag, c.String(flagModel))
		}
		var n int64
		var step, rate float64 // the search's, with --bpp
		err = writeOutput(c, out, func(w io.Writer) error {
			cw := &countWriter{w: w}
			var err error
			if bpp > 0 {
				// The search and the encode share the image's
				// transform (codec.EncodeAtRate).
				step, rate, err = codec.EncodeAtRate(cw, img, model, bpp, &o)
			} else {
				err = codec.Encode(cw, img, model, &o)
			}
			n = cw.n
			return err
		})
		if err != nil {
			if err := modelFault(c, in, err); err != nil {
				return err
			}
			if bpp > 0 && step == 0 { // the search failed
				return fail("%s: --%s: %s", stdioName(in, "stdin"), flagBPP, brief(err))
			}
			if errors.Is(err, codec.ErrStepTooSmall) && opt.Step > 0 {
				// The flag's fault with this model, not the image's.
				return fail("%s: --%s %s is too small for %s: %s", cliutil.CommandName(c), flagStep, formatFloat(opt.Step), c.String(flagModel), codecBrief(err))
			}
			return fail("%s", withPathC(stdioName(in, "stdin"), err))
		}
		if bpp > 0 && math.Abs(rate-bpp) > rateWarnShare*bpp {
			// --bpp 0.01 coded at 0.62 bpp, --bpp 30 at 13.9, silently.
			fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s: coded at %.3f bpp, the nearest rate the quantiser step reaches to --%s %s\n",
				cliutil.CommandName(c), stdioName(in, "stdin"), rate, flagBPP, formatFloat(bpp))
		}
		b := img.Bounds()
		bytes += n
		pixels += int64(b.Dx()) * int64(b.Dy())
		last = img
		return nil
	}, func(files int, out string) string {
		line := fmt.Sprintf("%s, %d bytes, %.3f bpp -> %s", cliutil.Plural(files, "image"), bytes, 8*float64(bytes)/float64(pixels), out)
		if greyed > 0 {
			line += fmt.Sprintf("; %s in colour coded as grey: the model codes luminance only (train it with --%s for colour)", cliutil.Plural(greyed, "image"), flagColor)
		}
		if coloured > 0 {
			line += fmt.Sprintf("; %s in grey coded as colour: the model codes three channels (train it without --%s for grey)", cliutil.Plural(coloured, "image"), flagColor)
		}
		if seeThrough > 0 {
			line += fmt.Sprintf("; %s with transparency coded opaque: the codec codes no alpha channel", cliutil.Plural(seeThrough, "image"))
		}
		return line
	})
	return err
}

func runDecode(c *cli.Context) error {
	modelPath := c.String(flagModel)
	ext := ".png"
	setup := func() (err error) {
		ext, err = formatExt(c)
		return err
	}
	// The last image, written out: the next decode may reuse it.
	var last *image.Gray
	var lastRGBA *image.RGBA
	return runBatch(c, &ext, setup, func(model *codec.Model, in, out string) error {
		f, err := openInput(c, in)
		if err != nil {
			return err
		}
		var r io.Reader = f
		var head bytes.Buffer // standard input's header, for wrongModelIDs
		if in == stdio {
			r = io.TeeReader(f, &limitedBuffer{&head, stdinHeaderBytes})
		}
		img, err := codec.DecodeWith(r, model, &codec.DecodeOptions{MaxPixels: pixelBudget, Into: last, IntoRGBA: lastRGBA})
		f.Close()
		headerOf := in
		in = stdioName(in, "stdin")
		if msg := tooLarge(in, err); msg != "" {
			return fail("%s", msg)
		}
		if err := modelFault(c, in, err); err != nil {
			return err
		}
		if err != nil {
			if errors.Is(err, codec.ErrWrongModel) {
				return fail("%s: encoded with another model than %s (%s; spca info gives the model ids)", in, modelPath, wrongModelIDs(headerOf, head.Bytes(), model))
			}
			return fail("%s", withPathC(in, err))
		}
		// A colour decode's RGBA image is opaque (FromYCbCr420Into).
		_, rgba := img.(*image.RGBA)
		if err := saveOutputImage(c, out, ext, img, rgba); err != nil {
			return fail("%s", withPathC(stdioName(out, "stdout"), err))
		}
		last, _ = img.(*image.Gray)
		lastRGBA, _ = img.(*image.RGBA)
		return nil
	}, func(files int, out string) string {
		return fmt.Sprintf("%s -> %s", cliutil.Plural(files, "image"), out)
	})
}

// batchArgs reads the inputs of a batch command (encode, decode, adapt
// apply) and checks its --model and -o. It returns nil inputs when the
// command must stop, with the error to return (nil after --help).
func batchArgs(c *cli.Context, what string) ([]string, string, error) {
	inputs, err := positionalArgs(c)
	if errors.Is(err, errHelpShown) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	name := cliutil.CommandName(c)
	if len(inputs) == 0 {
		return nil, name, fail("%s: no input %s (see spca %s --help)", name, what, name)
	}
	if slices.Contains(inputs, "") {
		return nil, name, fail("%s: an input is empty: it must name a file", name)
	}
	if err := requireFlags(c, flagModel, flagOut); err != nil {
		return nil, name, err
	}
	return inputs, name, nil
}

// runBatch is the common part of encode and decode: it reads the inputs
// and -o, calls setup if not nil (flags that follow the inputs are parsed
// by then), loads the model, plans the output paths (*ext, read after
// setup, is the extension of outputs written into a directory) and calls op on every input in
// turn, stopping at the first failure. Unless --quiet, it prints the
// summary line returned by summary.
func runBatch(c *cli.Context, ext *string, setup func() error, op func(m *codec.Model, in, out string) error, summary func(files int, out string) string) error {
	inputs, name, err := batchArgs(c, "files")
	if inputs == nil {
		return err
	}
	if setup != nil {
		if err := setup(); err != nil {
			return err
		}
	}
	outputs, dir, err := planOutputs(c, inputs, *ext)
	if err != nil {
		return err
	}
	model, err := loadCodecModel(c.String(flagModel))
	if err != nil {
		return err
	}
	if len(inputs) > 1 {
		// One sync for every groupFiles outputs instead of an fsync each.
		atomicfile.Group(groupFiles)
		defer atomicfile.Group(0)
	}
	bars := cliutil.NewProgress(c)
	progress := bars.Callback()
	var loopAlloc uint64 // before the first image, of a batch
	if len(inputs) > 1 {
		loopAlloc = heapAllocated()
	}
	dropped := false
	for i, in := range inputs {
		if progress != nil {
			progress(name, i, len(inputs))
		}
		if dir != "" && i == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				bars.Finish()
				return fail("%s: -%s: %s", name, flagO, pathError(err))
			}
		}
		if i >= 1 && !dropped && heapAllocated()-loopAlloc > batchGrowth {
			// The ballast pays off for a process per image; in a long
			// batch it delays every collection to 128 MB, so each image's
			// buffers land on fresh pages (8x8 encode of 12 images: ~19,400
			// faults before the coders kept their buffers).
			dropBallast()
			dropped = true
		}
		if err := op(model, in, outputs[i]); err != nil {
			bars.Finish()
			if len(inputs) > 1 {
				if cerr := atomicfile.Commit(); cerr != nil {
					return fail("%s; stopped, and %s", brief(err), brief(cerr))
				}
				return fail("%s; stopped, %d of %d files written", brief(err), i, len(inputs))
			}
			return err
		}
	}
	if err := atomicfile.Commit(); err != nil {
		bars.Finish()
		return fail("%s", brief(err))
	}
	if progress != nil {
		progress(name, len(inputs), len(inputs))
	}
	bars.Finish()
	if wantSummary(c) {
		out := c.String(flagOut)
		if len(inputs) == 1 {
			out = outputs[0]
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", name, summary(len(inputs), out))
	}
	return nil
}

// batchGrowth is how many bytes a batch allocates from its first image
// on before it drops the heap ballast (and the GOGC the start raised),
// checked between images. The coders keep their buffers across images: a
// 768×512 grey image allocates 4-14 MB when it is the first, 0.2-0.4 MB
// after (60 images: 20-30 MB), so that a batch of them ends without a
// collection; a colour image 31.5 MB as the first, 2-4 MB for the next
// two, 0.25-0.5 MB after (12 images: ~45 MB, 32 MB dropped them at the
// second or third image, and the collection that followed cost the batch
// ~210-240 of its ~840 page faults: kodim13-24 with the colour model,
// from PPM or PNG); an image of many megapixels still drops them after
// it.
// Dropping them at the second image, as before, started a collection at
// once (the ballast and the start's never-touched allocations count as
// heap): ~200 more page faults (span sets), ~150 more context switches and
// the collector's work, against a few MB more of heap in 2 MB pages (8x8
// model, 12 kgray images, GOGC=off as the stand-in, 16 interleaved rounds,
// load 16-22: batch encode from PNG median ratio 0.954, decode to PNG
// 0.91; 60 images, max RSS 46 -> 49 MB (encode), 32 -> 32 (decode)).
var batchGrowth uint64 = 64 << 20

// groupFiles is how many outputs of a batch are synced together
// (atomicfile.Group): an fsync per 768×512 decoded image was 6-10 % of the
// CPU of a batch decode to PGM, one syncfs per group costs about one of
// them; a crash or an interrupt loses at most the outputs of one group,
// never leaving a partial file.
const groupFiles = 16

// planOutputs checks the inputs and returns the output path of each, and
// the directory to create before writing them ("" if none). With one
// input, -o is the output file unless it is an existing directory; with
// several it is a directory and the outputs are named after the inputs
// with the extension ext. A single decode output must be PNG or TIFF.
func planOutputs(c *cli.Context, inputs []string, ext string) (outputs []string, dir string, err error) {
	name := cliutil.CommandName(c)
	out := c.String(flagOut)
	if out == "" {
		return nil, "", fail("%s: -%s must name a file or directory", name, flagO)
	}
	if slices.Contains(inputs, stdio) && len(inputs) > 1 {
		return nil, "", fail("%s: - (standard input) must be the only input", name)
	}
	if out == stdio {
		if len(inputs) > 1 {
			return nil, "", fail("%s: -%s - (standard output) takes one input, not %d", name, flagO, len(inputs))
		}
		return []string{stdio}, "", nil
	}
	for _, in := range inputs {
		if in == stdio {
			continue
		}
		fi, err := os.Stat(in)
		if err != nil {
			return nil, "", fail("%s", pathError(err))
		}
		if fi.IsDir() {
			return nil, "", fail("%s is a directory; list the files to %s (%s)", in, name, filepath.Join(in, "*"))
		}
	}
	outInfo, statErr := os.Stat(out)
	outIsDir := statErr == nil && outInfo.IsDir()
	switch {
	case len(inputs) == 1 && !outIsDir:
		if ext == ".spc" {
			// An .spc file named like an image (encode -o y.png) was
			// written without a word.
			if err := notImageName(c, out, "SPCA-coded .spc files"); err != nil {
				return nil, "", err
			}
		}
		if ext != ".spc" {
			e := strings.ToLower(filepath.Ext(out))
			f, ok := imageFormatOf[e]
			if !ok {
				return nil, "", fail("%s: -%s %s: unsupported extension %q (want .png, .tif, .tiff, .pgm, .ppm or .pnm)", name, flagO, out, e)
			}
			if cliutil.HasFlag(c.Command, flagFormat) && c.IsSet(flagFormat) && f != imageFormatOf[ext] {
				return nil, "", fail("%s: --%s %s, but -%s %s is a %s file (its extension decides; drop --%s)", name, flagFormat, c.String(flagFormat), flagO, out, f, flagFormat)
			}
		}
		if _, err := os.Stat(filepath.Dir(out)); err != nil {
			return nil, "", fail("%s: -%s: %s", name, flagO, pathError(err))
		}
		outputs = []string{out}
	case len(inputs) > 1 && statErr == nil && !outIsDir:
		return nil, "", fail("%s: -%s %s is a file; with several inputs it must be a directory", name, flagO, out)
	case len(inputs) > 1 && !outIsDir && namedLikeOutput(out):
		// decode -o out.png a.spc b.spc (a glob matching two files) made a
		// directory out.png of PNGs.
		return nil, "", fail("%s: -%s %s is named like a file, but with %d inputs it is the directory to create; name a directory, or give one input", name, flagO, out, len(inputs))
	case inputs[0] == stdio:
		return nil, "", fail("%s: -%s %s is a directory; name the output file of standard input", name, flagO, out)
	default:
		if !outIsDir {
			dir = out
		}
		from := make(map[string]string)
		for _, in := range inputs {
			base := filepath.Base(in)
			p := filepath.Join(out, strings.TrimSuffix(base, filepath.Ext(base))+ext)
			if prev, ok := from[p]; ok {
				return nil, "", fail("%s: %s and %s would both be written to %s", name, prev, in, p)
			}
			from[p] = in
			outputs = append(outputs, p)
		}
	}
	for i, in := range inputs {
		if sameFile(in, outputs[i]) {
			return nil, "", fail("%s: refusing to overwrite the input %s with its output", name, in)
		}
	}
	return outputs, dir, nil
}

// namedLikeOutput reports whether path ends like a file encode, decode or
// adapt apply writes (an image or an .spc file), not a directory.
func namedLikeOutput(path string) bool {
	e := strings.ToLower(filepath.Ext(path))
	return e == ".spc" || slices.Contains(imageExts, e)
}

// sameFile reports whether the paths a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// imagePaths returns the image files named by --images and the
// positional arguments; directories stand for their image files, sorted
// by name.
func imagePaths(c *cli.Context) ([]string, error) {
	args, err := positionalArgs(c)
	if err != nil {
		return nil, err
	}
	var given []string
	if c.IsSet(flagImages) {
		given = append(given, c.String(flagImages))
	}
	given = append(given, args...)
	if len(given) == 0 {
		return nil, requireFlags(c, flagImages)
	}
	var paths []string
	for _, p := range given {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fail("%s", pathError(err))
		}
		if !fi.IsDir() {
			paths = append(paths, p)
			continue
		}
		entries, err := os.ReadDir(p) // sorted by name
		if err != nil {
			return nil, fail("%s", pathError(err))
		}
		n := len(paths)
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") &&
				slices.Contains(imageExts, strings.ToLower(filepath.Ext(e.Name()))) {
				paths = append(paths, filepath.Join(p, e.Name()))
			}
		}
		if len(paths) == n {
			return nil, fail("%s: no image files (%s) in the directory", p, imageFormats)
		}
	}
	return paths, nil
}

// loadImages reads the image files, reporting progress if set.
func loadImages(paths []string, progress func(stage string, done, total int)) ([]image.Image, error) {
	images := make([]image.Image, len(paths))
	for i, p := range paths {
		if progress != nil {
			progress("load", i, len(paths))
		}
		img, err := loadImage(p)
		if err != nil {
			return nil, err
		}
		images[i] = img
	}
	if progress != nil {
		progress("load", len(paths), len(paths))
	}
	return images, nil
}

// loadImage reads an image file; errors are one line naming the file.
func loadImage(path string, opts ...patches.LoadOption) (image.Image, error) {
	img, err := patches.Load(path, loadOptions(opts)...)
	if err == nil {
		return img, nil
	}
	return nil, imageError(path, err, func() bool { return isCoded(path) })
}

// imageError is the CLI error of an image that did not load, named name
// (a path, or stdin); coded tells whether its bytes are an .spc file's.
func imageError(name string, err error, coded func() bool) error {
	var pe *fs.PathError
	switch {
	case tooLarge(name, err) != "":
		return fail("%s", tooLarge(name, err))
	case errors.Is(err, patches.ErrNotSRGB):
		msg := codecBrief(err)
		if !strings.Contains(msg, name) {
			msg = name + ": " + msg
		}
		return fail("%s (or pass --%s)", msg, flagAssumeSRGB)
	case errors.Is(err, patches.ErrNotImage):
		if fi, serr := os.Stat(name); serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			// A failed download or a truncated copy: say so, not only
			// which formats it is not.
			return fail("%s: empty file, not an image (%s)", name, imageFormats)
		}
		return fail("%s: not an image (%s)", name, imageFormats)
	case coded():
		return fail("%s: an SPCA-coded image, not an image (decode it with spca decode)", name)
	case errors.As(err, &pe):
		return fail("%s", pathError(pe))
	}
	return fail("%s", withPathC(name, err))
}

// isCoded reports whether the file at path starts like an .spc file.
func isCoded(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(codec.Magic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == codec.Magic
}

// loadCodecModel reads a codec model file. The garbage collector is off
// while it does: loading allocates about twice what the model keeps (the
// decompressed file, scratch), and the collections that allocation
// triggers from a fresh process's 4 MB heap goal cost encode and decode
// processes more CPU than the memory they would free.
func loadCodecModel(path string) (*codec.Model, error) {
	if err := checkKind(path, codec.ModelMagic); err != nil {
		return nil, err
	}
	gc := debug.SetGCPercent(-1)
	m, err := codec.LoadModel(path)
	debug.SetGCPercent(gc)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fail("%s", pathError(pe))
		}
		return nil, fail("%s", withPathC(path, err))
	}
	return m, nil
}

// modelFault returns the error to report when err, met coding or decoding
// in, is the model file's (a section read on first use found corrupt,
// codec.ModelError): it names the model, not in nor the output; nil for
// any other error. in is "" for an error met on several inputs.
func modelFault(c *cli.Context, in string, err error) error {
	var me *codec.ModelError
	if !errors.As(err, &me) {
		return nil
	}
	if in == "" { // read for several inputs (codec eval)
		return fail("%s: %s", c.String(flagModel), codecBrief(err))
	}
	return fail("%s: %s (read for %s)", c.String(flagModel), codecBrief(err), stdioName(in, "stdin"))
}

// wrongModelIDs says which model the file at path needs (for standard
// input, read from head, its first bytes) and which one model is, by
// their short ids.
func wrongModelIDs(path string, head []byte, model *codec.Model) string {
	have := "this model is " + model.ID().Short()
	var h *codec.Header
	var err error
	if path == stdio {
		// Standard input cannot be read again: its first bytes were kept.
		h, err = codec.DecodeHeader(bytes.NewReader(head))
	} else {
		h, _, err = readHeader(path)
	}
	if err != nil {
		return have
	}
	return "the file needs model " + h.Model.Short() + ", " + have
}

// stdinHeaderBytes is how much of an .spc file read from standard input
// decode keeps for wrongModelIDs: its whole header (the model's ID, the
// bins of up to three channels of 15×15 patches: under 1,500 bytes).
const stdinHeaderBytes = 2048

// pathError formats an error of the os package as "path: reason"
// instead of "op path: reason".
func pathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return brief(err)
}

// codecBrief returns the message of an error of the codec or patches
// packages without the package prefixes.
func codecBrief(err error) string {
	msg := brief(err)
	for _, p := range []string{"patches: load: ", "patches: decode: ", "patches: decode ", "patches: save: ", "patches: ", "codec: "} {
		if s, ok := strings.CutPrefix(msg, p); ok {
			msg = s
			break
		}
	}
	return strings.ReplaceAll(msg, ": codec: ", ": ")
}

// withPathC is withPath for errors of the codec and patches packages.
func withPathC(path string, err error) string {
	msg := codecBrief(err)
	if !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return msg
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// positiveFlag returns the value of a float flag that must be finite and
// positive when given (0 when not given).
func positiveFlag(c *cli.Context, name, what string) (float64, error) {
	if !c.IsSet(name) {
		return 0, nil
	}
	v := c.Float64(name)
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fail("%s: --%s: %s is not %s > 0", cliutil.CommandName(c), name, formatFloat(v), what)
	}
	return v, nil
}

// countSet returns how many of the named flags were given.
func countSet(c *cli.Context, names ...string) int {
	n := 0
	for _, name := range names {
		if c.IsSet(name) {
			n++
		}
	}
	return n
}
