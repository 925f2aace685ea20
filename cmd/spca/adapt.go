package main

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// The generated scenes of adapt eval (the same as in the adapt package's
// acceptance test): training scenes and held-out scenes.
const (
	evalTrainScenes = 300
	evalTrainSize   = "32x24"
	evalTrainSeed   = 1
	evalScenes      = 24
	evalSize        = "80x60"
	evalSeed        = 2
)

func adaptCommand() *cli.Command {
	subs := []*cli.Command{
		adaptTrainCommand(), adaptApplyCommand(), adaptLUTCommand(), adaptMapCommand(), adaptEvalCommand(),
	}
	return &cli.Command{
		Name:  "adapt",
		Usage: "correct colours seen under light B so they look as under light A (corresponding-pair SPCA)",
		UsageText: "spca adapt train (--env-a DIR|FILES --env-b DIR|FILES | --pairs DIR) -o adapt.model [--gamma 1]\n" +
			"spca adapt apply --model adapt.model [--method spca] -o OUT in.jpg [in2.jpg ...] [--exact]\n" +
			"spca adapt lut --model adapt.model [--lut-size 65] -o map.cube\n" +
			"spca adapt map --model adapt.model [--space xyz|lms|srgb] --in colours.csv [-o mapped.csv]\n" +
			"spca adapt eval [--pairs DIR] [--model adapt.model] [--json]",
		Subcommands: subs,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fail("adapt: unknown command %q%s (see spca adapt --help)", c.Args().First(), didYouMean(c.Command.Subcommands, c.Args().First()))
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

func adaptModelFlag() cli.Flag {
	return &cli.StringFlag{Name: flagModel, Usage: "adaptation model `FILE` written by spca adapt train (required)"}
}

func methodFlag() cli.Flag {
	names := make([]string, 0, 6)
	for _, m := range adapt.Methods() {
		if m != adapt.Uncorrected {
			names = append(names, m.String())
		}
	}
	return &cli.StringFlag{Name: flagMethod, Value: adapt.SPCA.String(),
		Usage: "mapping: " + strings.Join(names, ", ") + " or uncorrected (the identity, for comparison) (bradford, cat02, von-kries and cat16 use the whites given at training; colour-science's names such as \"Von Kries\" and \"CAT16\" work too)"}
}

func adaptOutFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: usage}
}

// sceneWhitesText formats the whites of the generated scenes for --white-a
// and --white-b.
func sceneWhitesText() (string, string) {
	a, b := testimages.SceneWhites()
	f := func(w colorspace.XYZ) string {
		return fmt.Sprintf("%.5g,%.5g,%.5g", w[0], w[1], w[2])
	}
	return f(a), f(b)
}

// trainFlags are the options of the adaptation fit, shared by train and
// eval.
func trainFlags() []cli.Flag {
	def := adapt.DefaultOptions()
	wa, wb := sceneWhitesText()
	return []cli.Flag{
		&cli.StringFlag{Name: flagGamma, Value: formatFloat(def.SPCA.Gamma), Usage: "SPCA metric exponent, >= 0 (1, unlike fit's 1/3 and codec train's 0: equalisation, the seed's infomax choice for adaptation)"},
		&cli.Float64Flag{Name: flagK, Value: def.SPCA.K, Usage: "SPCA neighbourhood of the local PCA as a fraction of the samples, in (0, 1] (1: stiff curves, which correspond best between the two lights)"},
		&cli.Float64Flag{Name: flagTau, Value: def.SPCA.Tau, Usage: "SPCA step of the curves as a fraction of the RMS radius of the colours"},
		&cli.Float64Flag{Name: flagBandwidth, Value: def.SPCA.Bandwidth, Usage: "SPCA density bandwidth as a fraction of Silverman's rule (wide: a smooth mapping a LUT samples well)"},
		&cli.Float64Flag{Name: flagConditioning, Value: def.SPCA.Conditioning, Usage: "SPCA share of the colours a secondary curve's density is estimated from, in (0, 1]"},
		&cli.IntFlag{Name: flagResolution, Value: spca.DefaultResolution, Usage: "SPCA lattice nodes of the secondary curves (fewer: faster to train, a coarser map)"},
		&cli.IntFlag{Name: flagSamples, Value: def.Samples, Usage: "pixels sampled from each environment"},
		&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the pixel samples"},
		&cli.StringFlag{Name: flagWhiteA, Usage: "`X,Y,Z` of a white surface in environment A as encoded in the images, for the bradford, cat02, von-kries and cat16 oracles (default: estimated from A's training colours, the mean of the brightest 1 %; eval on generated scenes: their D65 white " + wa + ")"},
		&cli.StringFlag{Name: flagWhiteB, Usage: "`X,Y,Z` of a white surface in environment B (default: estimated from B's training colours; eval on generated scenes: their illuminant-A white " + wb + ")"},
		&cli.Float64Flag{Name: flagLuminanceRatio, Usage: "luminance of A's white over B's, Y_A/Y_B (B's white is scaled to it); 0: as the whites give"},
		&cli.BoolFlag{Name: flagNoGains, Usage: "fit B's SPCA on B's colours as they are, not on the gray-world-normalised ones (gains mean_A/mean_B in LMS; the default)"},
		&cli.StringFlag{Name: flagAlign, Value: adapt.AlignAuto.String(), Usage: fmt.Sprintf("how B's colours are brought towards A's before B's SPCA model: gains (diagonal gray-world gains mean_A/mean_B), matrix (the 3x3 matrix fitted on the corresponding pixels of the pairs; needs --pairs or image pairs of equal sizes) or auto (the matrix when the images are pairs and it explains them, weighted relative residual below %g, as on relit photographs; else the gains, as on generated scenes with their own shadows)", adapt.AutoAlignThreshold)},
		&cli.BoolFlag{Name: flagSeparateGeometry, Usage: "fit A's and B's SPCA models independently, instead of one SPCA geometry (curves and lattice) fitted on both environments' colours with each one's metric on it, so that equal distributions map by the identity"},
		&cli.BoolFlag{Name: flagSharedGeometry, Hidden: true, Usage: "the default since issue 22; accepted for old scripts, no effect"},
		&cli.IntFlag{Name: flagWorkers, Usage: "number of parallel workers, 0 for all CPUs"},
	}
}

// trainOptions returns the adaptation options given by trainFlags.
func trainOptions(c *cli.Context) (adapt.Options, error) {
	o := adapt.DefaultOptions()
	var err error
	if o.SPCA.Gamma, err = parseGamma(c.String(flagGamma)); err != nil {
		return o, fail("%s: --%s: %v", cliutil.CommandName(c), flagGamma, err)
	}
	o.SPCA.K = c.Float64(flagK)
	o.SPCA.Tau = c.Float64(flagTau)
	o.SPCA.Bandwidth = c.Float64(flagBandwidth)
	o.SPCA.Conditioning = c.Float64(flagConditioning)
	o.SPCA.Resolution = c.Int(flagResolution)
	o.Samples = c.Int(flagSamples)
	if o.Samples < 1 {
		return o, fail("%s: --%s: %d is not a positive number of pixels", cliutil.CommandName(c), flagSamples, o.Samples)
	}
	o.Seed = c.Uint64(flagSeed)
	o.SPCA.Workers = c.Int(flagWorkers)
	if c.String(flagWhiteA) != "" {
		if o.WhiteA, err = parseWhite(c.String(flagWhiteA)); err != nil {
			return o, fail("%s: --%s: %v", cliutil.CommandName(c), flagWhiteA, err)
		}
	}
	if c.String(flagWhiteB) != "" {
		if o.WhiteB, err = parseWhite(c.String(flagWhiteB)); err != nil {
			return o, fail("%s: --%s: %v", cliutil.CommandName(c), flagWhiteB, err)
		}
	}
	o.NoGains = c.Bool(flagNoGains)
	if o.Alignment, err = adapt.ParseAlignment(c.String(flagAlign)); err != nil {
		return o, fail("%s: --%s: %q is not auto, gains or matrix", cliutil.CommandName(c), flagAlign, c.String(flagAlign))
	}
	if o.NoGains && o.Alignment == adapt.AlignMatrix {
		// adapt's NoGains overrides the alignment: the matrix asked for
		// was neither fitted nor used, in silence.
		return o, fail("%s: --%s matrix and --%s contradict each other (--%s: B's colours as they are, no alignment)", cliutil.CommandName(c), flagAlign, flagNoGains, flagNoGains)
	}
	o.SeparateGeometry = c.Bool(flagSeparateGeometry)
	if o.SeparateGeometry && c.Bool(flagSharedGeometry) {
		return o, fail("%s: --%s and --%s contradict each other", cliutil.CommandName(c), flagSeparateGeometry, flagSharedGeometry)
	}
	o.LuminanceRatio = c.Float64(flagLuminanceRatio)
	if r := o.LuminanceRatio; !(r >= 0) || math.IsInf(r, 0) {
		return o, fail("%s: --%s: %v is not a positive ratio (0: as the whites give)", cliutil.CommandName(c), flagLuminanceRatio, r)
	}
	return o, nil
}

// whiteSource says where the whites of a training came from.
func whiteSource(c *cli.Context) string {
	switch {
	case c.String(flagWhiteA) != "" && c.String(flagWhiteB) != "":
		return "given"
	case c.String(flagWhiteA) == "" && c.String(flagWhiteB) == "":
		return "estimated from the training colours"
	}
	return "one given, one estimated"
}

// parseWhite parses "X,Y,Z" with positive finite values.
func parseWhite(s string) (colorspace.XYZ, error) {
	f := strings.Split(s, ",")
	var w colorspace.XYZ
	if len(f) != 3 {
		return w, fmt.Errorf("%q is not X,Y,Z", s)
	}
	for i, x := range f {
		v, err := parseNumber(x)
		if err != nil || !(v > 0) || v > 1e6 {
			return w, fmt.Errorf("%q is not X,Y,Z with positive values", s)
		}
		w[i] = v
	}
	return w, nil
}

func adaptTrainCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: flagEnvA, Usage: "images of environment A (the look to reach): a `DIR` (its image files) or FILEs, comma-separated or repeated"},
		&cli.StringSliceFlag{Name: flagEnvB, Usage: "images of environment B (the light to correct): a `DIR` or FILEs"},
		&cli.StringFlag{Name: flagPairs, Usage: "`DIR` with subdirectories a and b (instead of --env-a and --env-b), as written by spca synth scenes"},
		&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: "model `FILE` to write (required)"},
	}
	return &cli.Command{
		Name:  "train",
		Usage: "learn the B → A colour mapping from images of both environments",
		UsageText: "spca adapt train (--env-a DIR|FILES --env-b DIR|FILES | --pairs DIR) -o adapt.model [--gamma 1] [--samples 100000] [--seed 1]\n\n" +
			"Samples LMS colours from the images of each environment, fits one SPCA geometry (curves and lattice) " +
			"on the colours of both and each environment's metric on it, so that the responses mean the same " +
			"thing (--separate-geometry: SPCA on A, and on B along A's directions), and records the baselines. " +
			"The images need not show the same scenes (except with --align matrix, which fits a 3x3 matrix on the " +
			"corresponding pixels of image pairs of equal sizes; the default, --align auto, uses that matrix when the images " +
			"are such pairs and it explains them, and prints its choice), but all must have the same bit depth. It prints the " +
			"distinct colours, gamut coverage and chromaticities of each environment and warns when they are " +
			fmt.Sprintf("too few for a trustworthy map (under %d colours, %g %% of the gamut or %d chromaticities).",
				adapt.MinDistinctColours, 100*adapt.MinCoverage, adapt.MinChromaticities),
		Flags:  append(flags, trainFlags()...),
		Action: runAdaptTrain,
	}
}

func runAdaptTrain(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	pathsA, pathsB, err := envPaths(c)
	if err != nil {
		return err
	}
	if err := requireFlags(c, flagOut); err != nil {
		return err
	}
	out, err := binaryOutput(c, "models")
	if err != nil {
		return err
	}
	opt, err := trainOptions(c)
	if err != nil {
		return err
	}
	// Fail before a long training rather than when saving its result.
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return fail("%s: --%s: %s", cliutil.CommandName(c), flagOut, pathError(err))
	}
	start := time.Now()
	bars := cliutil.NewProgress(c)
	imgsA, err := loadImages(pathsA, bars.Callback())
	if err == nil {
		var imgsB []image.Image
		if imgsB, err = loadImages(pathsB, bars.Callback()); err == nil {
			opt.SPCA.Progress = bars.Callback()
			var model *adapt.Model
			model, err = adapt.Train(imgsA, imgsB, &opt)
			bars.Finish()
			if err != nil {
				return fail("%s: %s", name, adaptBrief(err))
			}
			if err := model.Save(out); err != nil {
				return fail("%s", withPathC(out, err))
			}
			if ch := model.AlignChoice; ch != nil && !cliutil.Quiet(c) {
				fmt.Fprintf(c.App.ErrWriter, "%s: alignment: %v\n", name, ch)
			}
			if !cliutil.Quiet(c) {
				fmt.Fprintf(c.App.ErrWriter, "%s: whites A %.4g,%.4g,%.4g and B %.4g,%.4g,%.4g (%s): A's light %.3g times as bright as B's\n",
					name, model.WhiteA[0], model.WhiteA[1], model.WhiteA[2], model.WhiteB[0], model.WhiteB[1], model.WhiteB[2],
					whiteSource(c), model.LuminanceRatio())
			}
			for _, w := range model.Warnings() {
				fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", name, w)
			}
			if !cliutil.Quiet(c) {
				fmt.Fprintf(c.App.ErrWriter, "%s: %s of A, %s of B, %d + %d colours (distinct at 6 bits: %d + %d; gamut covered: %.1f %% + %.1f %%; chromaticities: %.0f + %.0f), gamma %s, in %s -> %s\n",
					name, cliutil.Plural(len(imgsA), "image"), cliutil.Plural(len(imgsB), "image"), model.SamplesA, model.SamplesB,
					model.ReportA.Distinct, model.ReportB.Distinct, 100*model.ReportA.Coverage, 100*model.ReportB.Coverage,
					model.ChromaticitiesA, model.ChromaticitiesB,
					formatGamma(opt.SPCA.Gamma), time.Since(start).Round(time.Millisecond), out)
			}
			return nil
		}
	}
	bars.Finish()
	return err
}

// envPaths returns the image files of environments A and B from --pairs
// or from --env-a and --env-b.
func envPaths(c *cli.Context) (a, b []string, err error) {
	name := cliutil.CommandName(c)
	hasPairs := c.IsSet(flagPairs)
	hasEnv := c.IsSet(flagEnvA) || c.IsSet(flagEnvB)
	switch {
	case hasPairs && hasEnv:
		return nil, nil, fail("%s: give --%s or --%s and --%s, not both", name, flagPairs, flagEnvA, flagEnvB)
	case hasPairs:
		dir := c.String(flagPairs)
		if err := checkPairsDir(name, dir); err != nil {
			return nil, nil, err
		}
		what := name + ": --" + flagPairs + " " + dir + ", environment "
		if a, err = expandImages([]string{filepath.Join(dir, "a")}, what+"A"); err != nil {
			return nil, nil, err
		}
		b, err = expandImages([]string{filepath.Join(dir, "b")}, what+"B")
		return a, b, err
	case !c.IsSet(flagEnvA) || !c.IsSet(flagEnvB):
		return nil, nil, fail("%s: give --%s and --%s, or --%s (see spca %s --help)", name, flagEnvA, flagEnvB, flagPairs, name)
	}
	if a, err = expandImages(c.StringSlice(flagEnvA), name+": --"+flagEnvA+", environment A"); err != nil {
		return nil, nil, err
	}
	b, err = expandImages(c.StringSlice(flagEnvB), name+": --"+flagEnvB+", environment B")
	return a, b, err
}

// checkPairsDir refuses a --pairs DIR that exists without the
// subdirectories a and b, saying what it needs.
func checkPairsDir(name, dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return fail("%s: --%s %s", name, flagPairs, pathError(err))
	} else if !fi.IsDir() {
		return fail("%s: --%s %s is not a directory: it needs the subdirectories %s (images under light A) and %s (under light B), as spca synth scenes and synth photos write them",
			name, flagPairs, dir, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	}
	for _, sub := range []string{"a", "b"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err == nil && !fi.IsDir() || errors.Is(err, fs.ErrNotExist) {
			return fail("%s: --%s %s has no subdirectory %s: it needs %s (images under light A) and %s (under light B), as spca synth scenes and synth photos write them",
				name, flagPairs, dir, sub, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
		}
	}
	return nil
}

// expandImages returns the files named, with directories standing for
// their image files sorted by name; what names the set in errors.
func expandImages(given []string, what string) ([]string, error) {
	var paths []string
	for _, p := range given {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fail("%s: %s", what, pathError(err))
		}
		if !fi.IsDir() {
			paths = append(paths, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fail("%s: %s", what, pathError(err))
		}
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") &&
				slices.Contains(imageExts, strings.ToLower(filepath.Ext(e.Name()))) {
				paths = append(paths, filepath.Join(p, e.Name()))
			}
		}
	}
	if len(paths) == 0 {
		return nil, fail("%s: no image files (%s) in %s", what, imageFormats, strings.Join(given, ", "))
	}
	return paths, nil
}

// adaptBrief returns the message of an error of the adapt package without
// its prefixes.
func adaptBrief(err error) string {
	msg := codecBrief(err)
	return strings.TrimPrefix(msg, "adapt: ")
}

// loadAdaptModel reads an adaptation model file.
func loadAdaptModel(path string) (*adapt.Model, error) {
	if err := checkKind(path, adapt.ModelMagic); err != nil {
		return nil, err
	}
	m, err := adapt.Load(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fail("%s", pathError(pe))
		}
		var fe *adapt.FormatError
		if errors.As(err, &fe) {
			return nil, fail("%s", strings.TrimPrefix(err.Error(), "adapt: "))
		}
		return nil, fail("%s", withPathC(path, err))
	}
	return m, nil
}

// modelMapper loads --model and returns the mapper of --method.
func modelMapper(c *cli.Context) (adapt.Mapper, error) {
	_, mp, err := modelAndMapper(c)
	return mp, err
}

// modelAndMapper loads --model and returns it with the mapper of
// --method.
func modelAndMapper(c *cli.Context) (*adapt.Model, adapt.Mapper, error) {
	method, err := adapt.ParseMethod(c.String(flagMethod))
	if err != nil {
		var known []string
		for _, m := range adapt.Methods() {
			known = append(known, m.String())
		}
		return nil, nil, fail("%s: --%s: %s", cliutil.CommandName(c), flagMethod, withSuggestion(adaptBrief(err), c.String(flagMethod), known))
	}
	model, err := loadAdaptModel(c.String(flagModel))
	if err != nil {
		return nil, nil, err
	}
	mp, err := model.Mapper(method)
	return model, mp, err
}

// warnOutside prints a one-line warning when share of what (pixels of an
// image, colours of a list) lies outside the training colours of B.
func warnOutside(c *cli.Context, what string, share float64) {
	warnOutsideOf(c, what, share, 0)
}

// warnOutsideOf is warnOutside for n things that count one by one (the
// colours of adapt map): the warning gives how many ("1 of the 1 colours",
// not "100.0 % of the colours"). n = 0: a share only.
func warnOutsideOf(c *cli.Context, what string, share float64, n int) {
	if share > adapt.WarnOutsideShare && n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d of the %d %s (%.1f %%) lie outside the training colours of B; they are extrapolated (SPCA fades to a von Kries scaling there)\n",
			cliutil.CommandName(c), int(math.Round(share*float64(n))), n, what, 100*share)
	} else if share > adapt.WarnOutsideShare {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %.1f %% of the %s lie outside the training colours of B; they are extrapolated (SPCA fades to a von Kries scaling there)\n",
			cliutil.CommandName(c), 100*share, what)
	}
}

// applyReport is one image of adapt apply --json.
type applyReport struct {
	Input        string  `json:"input"`
	Output       string  `json:"output"`
	OutsideShare float64 `json:"outside_share"`
}

func adaptApplyCommand() *cli.Command {
	return &cli.Command{
		Name:  "apply",
		Usage: "correct images taken under light B",
		UsageText: "spca adapt apply --model adapt.model [--method spca] -o OUT in.jpg [in2.jpg ...] [--exact] [--lut-size 65]\n\n" +
			"Maps every pixel through a 3-D LUT built from the exact model (tetrahedral interpolation; for spca " +
			"in linear light, then scaled to the exact map's lightness, which a .cube file cannot carry), " +
			"or with --exact through the model itself (slow: about 3·10⁵ distinct colours per second). " +
			"Images keep their size, bit depth (8 or 16 bits per sample) and alpha; outputs are PNG, or TIFF " +
			"if -o names one file ending in .tif or .tiff. " + fmt.Sprintf(batchNote, ".png"),
		Flags: []cli.Flag{
			adaptModelFlag(),
			methodFlag(),
			adaptOutFlag("output `FILE` for one input, DIR for several (required)"),
			&cli.BoolFlag{Name: flagExact, Usage: "map every distinct colour with the exact model instead of the LUT"},
			&cli.IntFlag{Name: flagLUTSize, Value: adapt.DefaultLUTSize, Usage: "nodes per axis of the LUT (2 to 256; the model stores the SPCA LUT of 65 nodes, other sizes are built on each call, in a time that grows as the cube: 129 about 4 s, 256 about 50 s)"},
			&cli.IntFlag{Name: flagWorkers, Usage: "number of parallel workers, 0 for all CPUs"},
			&cli.BoolFlag{Name: flagJSON, Usage: "print, per image, the share of its pixels outside the training colours of B as JSON on stdout"},
		},
		Action: runAdaptApply,
	}
}

func runAdaptApply(c *cli.Context) error {
	inputs, name, err := batchArgs(c, "images")
	if inputs == nil {
		return err
	}
	size := c.Int(flagLUTSize) // in range: checkRanges
	if c.Bool(flagExact) && c.IsSet(flagLUTSize) {
		// --exact maps without a LUT: the size asked for was ignored.
		return fail("%s: --%s and --%s contradict each other (--%s maps every colour without a LUT)", name, flagExact, flagLUTSize, flagExact)
	}
	if c.Bool(flagJSON) && c.String(flagOut) == stdio {
		return fail("%s: --%s needs -%s FILE or DIR (the image goes to stdout otherwise)", name, flagJSON, flagO)
	}
	outputs, dir, err := planOutputs(c, inputs, ".png")
	if err != nil {
		return err
	}
	model, mapper, err := modelAndMapper(c)
	if err != nil {
		return err
	}
	start := time.Now()
	bars := cliutil.NewProgress(c)
	progress := bars.Callback()
	exact := c.Bool(flagExact)
	var lut adapt.ImageMapper
	if !exact {
		var p func(done, total int)
		if progress != nil {
			p = func(done, total int) { progress("lut", done, total) }
		}
		noteLargeLUT(c, name, mapper.Method(), size)
		if lut, err = model.ImageMapperFor(mapper.Method(), size, p); err != nil {
			bars.Finish()
			return fail("%s: %s", name, adaptBrief(err))
		}
	}
	lutTime := time.Since(start)
	var reports []applyReport
	for i, in := range inputs {
		if progress != nil {
			progress("apply", i, len(inputs))
		}
		if dir != "" && i == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				bars.Finish()
				return fail("%s: -%s: %s", cliutil.CommandName(c), flagO, pathError(err))
			}
		}
		share, err := applyOne(c, in, outputs[i], model, mapper, lut)
		if err == nil {
			reports = append(reports, applyReport{in, outputs[i], share})
			warnOutside(c, "pixels of "+stdioName(in, "stdin"), share)
		}
		if err != nil {
			bars.Finish()
			if len(inputs) > 1 {
				return fail("%s; stopped, %d of %d files written", brief(err), i, len(inputs))
			}
			return err
		}
	}
	if progress != nil {
		progress("apply", len(inputs), len(inputs))
	}
	bars.Finish()
	if c.Bool(flagJSON) {
		if err := cliutil.WriteJSON(c.App.Writer, reports); err != nil {
			return err
		}
	}
	if wantSummary(c) {
		how := "exact model"
		if !exact {
			how = fmt.Sprintf("%d-node LUT ready in %s", size, lutTime.Round(time.Millisecond))
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: %s, %s by %s, in %s -> %s\n", name, cliutil.Plural(len(inputs), "image"),
			mapper.Method(), how, time.Since(start).Round(time.Millisecond), c.String(flagOut))
	}
	return nil
}

// largeLUT is the largest LUT size built without a note: 129³ nodes of
// the SPCA map take about 4 s of CPU, 256³ (the largest) about 50 s and
// 0.4 GB (small model, load 7-10), in silence off a terminal.
const largeLUT = 2*adapt.DefaultLUTSize - 1

// noteLargeLUT says, unless --quiet, that a LUT of more than largeLUT
// nodes per axis is about to be built, and what it costs.
func noteLargeLUT(c *cli.Context, name string, method adapt.Method, size int) {
	if size <= largeLUT || cliutil.Quiet(c) {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: building a %d-node LUT: %.1f million colours through the %s map, which takes tens of seconds (--%s %d, the default, is stored in the model for spca)\n",
		name, size, float64(size*size*size)/1e6, method, flagLUTSize, adapt.DefaultLUTSize)
}

// applyOne corrects one image file (standard input for -, PNG to
// standard output for -o -, as encode and decode) and returns the share of
// its pixels outside the training colours of B.
func applyOne(c *cli.Context, in, out string, model *adapt.Model, mapper adapt.Mapper, lut adapt.ImageMapper) (float64, error) {
	img, err := loadInputImage(c, in)
	if err != nil {
		return 0, err
	}
	share := model.OutsideShareImage(img)
	var res image.Image
	if lut != nil {
		res, err = lut.Apply(img, c.Int(flagWorkers))
	} else {
		res, err = adapt.ApplyExact(img, mapper)
	}
	if err != nil {
		return 0, fail("%s: %s", stdioName(in, "stdin"), adaptBrief(err))
	}
	if err := saveOutputImage(c, out, ".png", res, false); err != nil {
		return 0, fail("%s", withPathC(stdioName(out, "stdout"), err))
	}
	return share, nil
}

func adaptLUTCommand() *cli.Command {
	return &cli.Command{
		Name:  "lut",
		Usage: "export the mapping as a 3-D LUT in the .cube format",
		UsageText: "spca adapt lut --model adapt.model [--method spca] [--lut-size 65] -o map.cube\n\n" +
			"Input and output of the LUT are sRGB-encoded R'G'B' in [0, 1] (DOMAIN_MIN 0 0 0, DOMAIN_MAX " +
			"1 1 1), red varying fastest. Sizes 17, 33 and 65 are usual; the default is the size adapt apply " +
			"uses, whose nodes the model stores; fewer nodes follow the map less closely where it curves. -o - writes to stdout. For spca the " +
			"LUT alone: adapt apply also keeps the exact map's lightness rule (never darker along a ray from black) " +
			"and interpolates in linear light, which a .cube cannot express.",
		Flags: []cli.Flag{
			adaptModelFlag(),
			methodFlag(),
			&cli.IntFlag{Name: flagLUTSize, Aliases: []string{flagSize}, Value: adapt.DefaultLUTSize, Usage: "nodes per axis of the LUT (2 to 256; the model stores the SPCA LUT of 65 nodes, an 8 MB .cube; other sizes are built on each call, in a time that grows as the cube: 33 about a second and 1 MB, 256 (16.8 million exact maps) about 40 s, 0.5 GB of memory and a 500 MB file)"},
			adaptOutFlag("output .cube `FILE`, - for stdout (required)"),
		},
		Action: runAdaptLUT,
	}
}

func runAdaptLUT(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagModel, flagOut); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	size := c.Int(flagLUTSize) // in range: checkRanges
	out := c.String(flagOut)
	if err := notImageName(c, out, ".cube LUTs"); err != nil {
		return err
	}
	if out != stdio {
		if _, err := os.Stat(filepath.Dir(out)); err != nil {
			return fail("%s: -%s: %s", cliutil.CommandName(c), flagO, pathError(err))
		}
	}
	model, mapper, err := modelAndMapper(c)
	if err != nil {
		return err
	}
	start := time.Now()
	bars := cliutil.NewProgress(c)
	var p func(done, total int)
	if cb := bars.Callback(); cb != nil {
		p = func(done, total int) { cb("lut", done, total) }
	}
	noteLargeLUT(c, name, mapper.Method(), size)
	lut, err := model.LUTFor(mapper.Method(), size, p)
	bars.Finish()
	if err != nil {
		return fail("%s: %s", name, adaptBrief(err))
	}
	if out == stdio {
		err = lut.WriteCube(c.App.Writer)
	} else {
		err = lut.SaveCube(out)
	}
	if err != nil {
		return fail("%s: %s", name, withPathC(out, errors.New(adaptBrief(err))))
	}
	if wantSummary(c) {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s, %d³ nodes in %s -> %s\n", name, mapper.Method(), size,
			time.Since(start).Round(time.Millisecond), out)
	}
	return nil
}

// Colour spaces of adapt map.
var mapSpaces = []string{"xyz", "lms", "srgb"}

func adaptMapCommand() *cli.Command {
	return &cli.Command{
		Name:  "map",
		Usage: "map a list of colours from environment B to environment A",
		UsageText: "spca adapt map --model adapt.model [--method spca] [--space xyz|lms|srgb] --in colours.csv [-o mapped.csv]\n\n" +
			"One colour per CSV line, three values, written back in the same space: xyz is CIE XYZ with " +
			"white Y = 1 (divide data given with Y = 100 by 100), lms the package's D65-normalised " +
			"Hunt–Pointer–Estévez cone space, srgb sRGB-encoded values in [0, 1]. Colours are not clipped " +
			"on input; srgb output is clipped to [0, 1].",
		Flags: []cli.Flag{
			adaptModelFlag(),
			methodFlag(),
			&cli.StringFlag{Name: flagSpace, Value: "xyz", Usage: "colour space of input and output: " + strings.Join(mapSpaces, ", ")},
			inFlag(true),
			csvOutFlag(),
			&cli.BoolFlag{Name: flagJSON, Usage: "print the number of colours, the share outside the training colours of B and the number of implausible ones (imaginary or brighter than 10 times the white) as JSON on stdout (needs --out FILE)"},
		},
		Action: runAdaptMap,
	}
}

func runAdaptMap(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagModel, flagIn); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	space := strings.ToLower(c.String(flagSpace))
	if !slices.Contains(mapSpaces, space) {
		return fail("%s: --%s: %q is not one of %s", cliutil.CommandName(c), flagSpace, c.String(flagSpace), strings.Join(mapSpaces, ", "))
	}
	in := c.String(flagIn)
	x, err := readSamples(c, in)
	if err != nil {
		return err
	}
	n, d := x.Dims()
	if d != 3 {
		if in == stdio {
			in = "stdin"
		}
		return fail("%s: %s: colours have 3 values per line, got %d", cliutil.CommandName(c), in, d)
	}
	if c.Bool(flagJSON) && (c.String(flagOut) == "" || c.String(flagOut) == stdio) {
		return fail("%s: --%s: needs --%s FILE (the mapped colours go to stdout otherwise)", cliutil.CommandName(c), flagJSON, flagOut)
	}
	src := make([]colorspace.LMS, n)
	for i := range src {
		var v [3]float64
		copy(v[:], x.RawRowView(i))
		switch space {
		case "xyz":
			src[i] = colorspace.XYZ(v).LMS()
		case "srgb":
			src[i] = adapt.SRGBToLMS(colorspace.SRGB(v))
		default:
			src[i] = colorspace.LMS(v)
		}
		// Finite values can overflow on conversion (sRGB 1e300 is
		// linearised with a power 2.4): name the input, not the
		// converted +Inf.
		for _, l := range src[i] {
			if !(math.Abs(l) <= adapt.MaxLMS) {
				if in == stdio {
					in = "stdin"
				}
				return fail("%s: colour %d (%s) is out of range: its cone values exceed ±%g (--%s %s)",
					in, i+1, formatFloats(v[:]), float64(adapt.MaxLMS), flagSpace, space)
			}
		}
	}
	model, mapper, err := modelAndMapper(c)
	if err != nil {
		return err
	}
	dst := make([]colorspace.LMS, n)
	if err := mapper.MapLMS(dst, src); err != nil {
		return fail("%s: %s", name, adaptBrief(err))
	}
	share := model.OutsideShare(src)
	warnOutsideOf(c, "colours", share, n)
	implausible := 0
	for _, l := range src {
		if adapt.Implausible(l) {
			implausible++
		}
	}
	if implausible > 0 {
		// Every one is a meaningless result (XYZ 1e10, 0, 0 maps to
		// black), not an extrapolation: no share below which to be silent.
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d of the %d colours are no surface colours: imaginary (outside the spectral locus) "+
			"or brighter than %g times the white (XYZ given with white Y = 100?); their mapped values mean nothing\n",
			name, implausible, n, float64(adapt.MaxPlausibleLuminance))
	}
	out := mat.NewDense(max(n, 1), 3, nil)
	for i, c := range dst {
		var v [3]float64
		switch space {
		case "xyz":
			v = c.XYZ()
		case "srgb":
			v = adapt.LMSToSRGB(c)
		default:
			v = c
		}
		out.SetRow(i, v[:])
	}
	header := map[string]string{"xyz": "X,Y,Z", "lms": "L,M,S", "srgb": "R',G',B'"}[space]
	if err := writeSamples(c, out, header); err != nil {
		return err
	}
	csvSummary(c, "%s (%s) mapped from B to A by %s", cliutil.Plural(n, "colour"), space, mapper.Method())
	if c.Bool(flagJSON) {
		return cliutil.WriteJSON(c.App.Writer, struct {
			Colours      int     `json:"colours"`
			OutsideShare float64 `json:"outside_share"`
			// Implausible counts the imaginary or too bright colours
			// (adapt.Implausible).
			Implausible int `json:"implausible"`
		}{n, share, implausible})
	}
	return nil
}

func adaptEvalCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: flagPairs, Usage: "`DIR` with subdirectories a and b holding the same scenes under both lights (same file names and sizes)", DefaultText: "generated held-out scenes"},
		&cli.StringFlag{Name: flagModel, Usage: "adaptation model `FILE` to evaluate", DefaultText: "train one, on generated scenes or with --pairs on the pairs themselves"},
		&cli.IntFlag{Name: flagN, Value: evalScenes, Usage: "number of generated held-out scenes"},
		&cli.StringFlag{Name: flagSize, Value: evalSize, Usage: "size `WxH` of the generated held-out scenes"},
		&cli.IntFlag{Name: flagEvalPixels, Value: 200000, Usage: "evaluate a seeded subsample of at most `N` pixels (0: all)"},
		// The old name of --eval-pixels, kept working: every other
		// --max-pixels is a limit on the images read.
		&cli.IntFlag{Name: flagMaxPixels, Hidden: true, Usage: "old name of --" + flagEvalPixels},
		cliutil.JSONFlag(),
	}
	return &cli.Command{
		Name:  "eval",
		Usage: "measure CIEDE2000 between corrected B and A renderings of the same scenes, per method",
		UsageText: "spca adapt eval [--pairs DIR] [--model adapt.model] [--json]\n\n" +
			fmt.Sprintf("By default trains on %d generated scenes of %s (seed %d) and evaluates %d held-out scenes "+
				"of %s (scene seed %d, fixed: --seed sets the pixel samples only). Reports mean and 95th-percentile "+
				"CIEDE2000 per method over all pixels and over the shadow region (the darkest quarter of B), "+
				"and the distance between the lightness distributions of corrected B and A; then the du'v' of corresponding "+
				"colours (ColorChecker and generated reflectances, illuminant A to D65). The default run takes about 15 s "+
				"of CPU, most of it training (--model skips it).",
				evalTrainScenes, evalTrainSize, evalTrainSeed, evalScenes, evalSize, evalSeed),
		Flags:  append(flags, trainFlags()...),
		Action: runAdaptEval,
	}
}

// evalPixelsFlag returns adapt eval's --eval-pixels, or its old name
// --max-pixels if that is given, checked.
func evalPixelsFlag(c *cli.Context) (int, error) {
	name, flag, n := cliutil.CommandName(c), flagEvalPixels, c.Int(flagEvalPixels)
	if c.IsSet(flagMaxPixels) {
		if c.IsSet(flagEvalPixels) && c.Int(flagMaxPixels) != n {
			return 0, fail("%s: --%s %d and --%s %d: give only --%s (--%s is its old name)", name, flagEvalPixels, n, flagMaxPixels, c.Int(flagMaxPixels), flagEvalPixels, flagMaxPixels)
		}
		flag, n = flagMaxPixels, c.Int(flagMaxPixels)
	}
	if n < 0 {
		return 0, fail("%s: --%s %d is out of its range [0, ∞) (0: all pixels)", name, flag, n)
	}
	return n, nil
}

// evalJSON is the JSON output of adapt eval.
type evalJSON struct {
	Evaluated string `json:"evaluated"`
	Model     string `json:"model"`
	*adapt.Evaluation
	// Truth names the colour-only truth the methods' truth scores are
	// against, if any.
	Truth string `json:"truth,omitempty"`
	// Corresponding is the corresponding-colours table: reflectance sets
	// under illuminant A mapped by each method, du'v' against D65.
	Corresponding []adapt.CorrespondingSet `json:"corresponding"`
}

// Reflectance sets of the corresponding-colours table of adapt eval.
const (
	evalReflectances    = 1000
	evalReflectanceSeed = 1
)

// correspondingSets returns the ColorChecker and the project's generated
// reflectances.
func correspondingSets() []adapt.ReflectanceSet {
	var cc []colorspace.Spectrum
	for _, p := range colorspace.ColorChecker() {
		cc = append(cc, p.Reflectance)
	}
	return []adapt.ReflectanceSet{
		{Name: "ColorChecker (Ohta 1997)", Reflectances: cc},
		{Name: fmt.Sprintf("generated reflectances (%d, seed %d)", evalReflectances, evalReflectanceSeed),
			Reflectances: testimages.Reflectances(evalReflectances, evalReflectanceSeed)},
	}
}

// loadTruth loads DIR/b_d65/NAME for the B images pathsB, or returns nil
// if DIR/b_d65 does not exist.
func loadTruth(dir string, pathsB []string, progress func(string, int, int)) ([]image.Image, error) {
	if fi, err := os.Stat(filepath.Join(dir, truthDir)); err != nil || !fi.IsDir() {
		return nil, nil
	}
	paths := make([]string, len(pathsB))
	for i, p := range pathsB {
		paths[i] = filepath.Join(dir, truthDir, filepath.Base(p))
	}
	return loadImages(paths, progress)
}

func runAdaptEval(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	name := cliutil.CommandName(c)
	evalPixels, err := evalPixelsFlag(c)
	if err != nil {
		return err
	}
	opt, err := trainOptions(c)
	if err != nil {
		return err
	}
	if !c.IsSet(flagPairs) {
		// Generated scenes: the true whites are known.
		sa, sb := testimages.SceneWhites()
		if c.String(flagWhiteA) == "" {
			opt.WhiteA = sa
		}
		if c.String(flagWhiteB) == "" {
			opt.WhiteB = sb
		}
	}
	bars := cliutil.NewProgress(c)
	opt.SPCA.Progress = bars.Callback()
	var a, b, truth []image.Image
	var evaluated, trained, truthName string
	if c.IsSet(flagPairs) {
		dir := c.String(flagPairs)
		if err := checkPairsDir(name, dir); err != nil {
			bars.Finish()
			return err
		}
		pathsA, pathsB, err := pairedPaths(dir)
		if err == nil {
			a, err = loadImages(pathsA, bars.Callback())
		}
		if err == nil {
			b, err = loadImages(pathsB, bars.Callback())
		}
		if err == nil {
			truth, err = loadTruth(dir, pathsB, bars.Callback())
		}
		if err != nil {
			bars.Finish()
			return err
		}
		evaluated = fmt.Sprintf("%s in %s", cliutil.Plural(len(a), "image pair"), dir)
		trained = "the pairs themselves (not held out: --model evaluates a model trained on other images)"
		if truth != nil {
			truthName = filepath.Join(dir, truthDir)
		}
	} else {
		w, h, err := parseSize(c.String(flagSize))
		if err != nil {
			bars.Finish()
			return fail("%s: --%s: %v", cliutil.CommandName(c), flagSize, err)
		}
		n := c.Int(flagN)
		if n < 1 || n > maxScenes {
			bars.Finish()
			return fail("%s: --%s %d not in [1, %d]", cliutil.CommandName(c), flagN, n, maxScenes)
		}
		a, b = testimages.SceneSet(n, w, h, evalSeed)
		truth = testimages.SceneTruthSet(n, w, h, evalSeed)
		truthName = "the scenes' B geometry lit by D65 (testimages.SceneTruth)"
		evaluated = fmt.Sprintf("%d held-out generated scenes of %d×%d (seed %d)", n, w, h, evalSeed)
		trained = fmt.Sprintf("%d generated scenes of %s (seed %d)", evalTrainScenes, strings.Replace(evalTrainSize, "x", "×", 1), evalTrainSeed)
	}
	var model *adapt.Model
	if c.IsSet(flagModel) {
		if model, err = loadAdaptModel(c.String(flagModel)); err != nil {
			bars.Finish()
			return err
		}
		trained = c.String(flagModel)
	} else {
		ta, tb := a, b
		if !c.IsSet(flagPairs) {
			w, h, _ := parseSize(evalTrainSize)
			ta, tb = testimages.SceneSet(evalTrainScenes, w, h, evalTrainSeed)
		}
		if model, err = adapt.Train(ta, tb, &opt); err != nil {
			bars.Finish()
			return fail("%s: %s", name, adaptBrief(err))
		}
		trained = fmt.Sprintf("trained on %s, gamma %s", trained, formatGamma(opt.SPCA.Gamma))
	}
	ev, err := adapt.Evaluate(model, a, b, adapt.EvalOptions{MaxPixels: evalPixels, Seed: opt.Seed, Truth: truth})
	var cc []adapt.CorrespondingSet
	if err == nil {
		cc, err = adapt.CorrespondingColours(model, correspondingSets())
	}
	bars.Finish()
	if err != nil {
		return fail("%s: %s", name, adaptBrief(err))
	}
	if c.Bool(flagJSON) {
		return cliutil.WriteJSON(c.App.Writer, evalJSON{Evaluated: evaluated, Model: trained, Evaluation: ev, Truth: truthName, Corresponding: cc})
	}
	w := c.App.Writer
	fmt.Fprintf(w, "evaluated: %s\nmodel: %s\n", evaluated, trained)
	if truthName != "" {
		fmt.Fprintf(w, "colour-only truth: %s\n", truthName)
	}
	fmt.Fprintf(w, "pixels: %d; shadow region: %d (darkest quarter of B, L* <= %.1f)\n\n", ev.Pixels, ev.ShadowPixels, ev.ShadowL)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "method\tmean ΔE00\tp95\tshadow mean\tshadow p95\tL* W1\t"
	if truthName != "" {
		head += "truth mean\ttruth p95\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range ev.Methods {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t", r.Method, r.All.Mean, r.All.P95, r.Shadow.Mean, r.Shadow.P95, r.LightnessW1)
		if r.Truth != nil {
			fmt.Fprintf(tw, "%.2f\t%.2f\t", r.Truth.Mean, r.Truth.P95)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncorresponding colours: illuminant A -> D65, du'v' against the D65 colours (oracles with the true whites)\n")
	for _, s := range cc {
		fmt.Fprintf(w, "\n%s, %d surfaces\n", s.Set, s.N)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "method\tmean du'v'\tmax du'v'\twhites\t")
		for _, r := range s.Methods {
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%s\t\n", r.Method, r.Mean, r.Max, r.Whites)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// pairedPaths returns the image files of DIR/a and DIR/b, matched by
// name: every image of a needs one of the same name in b and vice versa.
func pairedPaths(dir string) (a, b []string, err error) {
	a, err = expandImages([]string{filepath.Join(dir, "a")}, "environment A")
	if err != nil {
		return nil, nil, err
	}
	b, err = expandImages([]string{filepath.Join(dir, "b")}, "environment B")
	if err != nil {
		return nil, nil, err
	}
	names := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Base(p)
		}
		return out
	}
	na, nb := names(a), names(b)
	for _, n := range na {
		if !slices.Contains(nb, n) {
			return nil, nil, fail("%s: %s has no counterpart in %s", dir, filepath.Join("a", n), filepath.Join(dir, "b"))
		}
	}
	for _, n := range nb {
		if !slices.Contains(na, n) {
			return nil, nil, fail("%s: %s has no counterpart in %s", dir, filepath.Join("b", n), filepath.Join(dir, "a"))
		}
	}
	return a, b, nil
}
