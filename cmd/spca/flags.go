package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/spca"
)

// Flag names.
const (
	flagQuiet = cliutil.FlagQuiet
	flagIn    = "in"
	flagOut   = cliutil.FlagOut
	flagModel = "model"
	flagGamma = "gamma"
	flagK     = "k"
	// flagNearest is classify's number of neighbours that vote, the k
	// of k-NN; it was --k, which everywhere else is the SPCA
	// neighbourhood as a fraction of the samples.
	flagNearest      = "nearest"
	flagBandwidth    = "bandwidth"
	flagConditioning = "conditioning"
	flagNeighbours   = "neighbours"
	flagTau          = "tau"
	flagQ            = "q"
	flagOrigin       = "origin"
	flagSeed         = cliutil.FlagSeed
	flagTol          = "tol"
	flagMaxIter      = "max-iter"
	flagWorkers      = "workers"
	flagAlign        = "align"
	flagResolution   = "resolution"
	flagLeading      = "leading"
	flagMaxReference = "max-reference"
	flagStats        = "stats"
	flagJSON         = cliutil.FlagJSON
	flagN            = "n"
	flagLatent       = "latent"
	flagNoise        = "noise"
	flagComponents   = "components"
)

// Flag names of the codec, encode and decode commands.
const (
	flagImages  = cliutil.FlagImages
	flagPatch   = "patch"
	flagBins    = "bins"
	flagBPP     = "bpp"
	flagStep    = "step"
	flagUniform = "uniform"
	// flagFastLoad writes a codec model in its fast-load form.
	flagFastLoad = "fast-load"
	flagColor    = "color"
	flagChroma   = "chroma"
	flagSamples  = "samples"
	flagExact    = "exact"
	flagAssign   = "assign"
	flagEffort   = "effort"
	flagFormat   = "format"
	flagO        = cliutil.FlagO // alias of --out
)

// Flag names of the adapt commands and of synth scenes.
const (
	flagEnvA             = "env-a"
	flagEnvB             = "env-b"
	flagPairs            = "pairs"
	flagWhiteA           = "white-a"
	flagWhiteB           = "white-b"
	flagLuminanceRatio   = "luminance-ratio"
	flagMethod           = "method"
	flagLUTSize          = "lut-size"
	flagNoGains          = "no-gains"
	flagSeparateGeometry = "separate-geometry"
	flagSharedGeometry   = "shared-geometry"
	flagSize             = "size"
	flagSpace            = "space"
	flagMaxPixels        = "max-pixels"
	flagEvalPixels       = "eval-pixels"
)

// defaultSeed is the default of --seed in every command (and in
// spca-figures).
const defaultSeed = cliutil.DefaultSeed

// hiddenAliases are old spellings of flags: still accepted, not shown in
// the help. Keyed by alias, so a flag whose own name is one of them (the
// --size WxH of synth scenes and adapt eval) is shown.
var hiddenAliases = map[string]bool{
	flagSize: true, // adapt lut --size, now --lut-size as in adapt apply
}

// flagString formats a flag for the help (cli.FlagStringer) as cli does,
// with two dashes except for the short options and without the hidden
// aliases.
var flagString = cliutil.FlagStringer(hiddenAliases)

// shortOptions are the flags written with one dash in the help.
var shortOptions = cliutil.ShortOptions

// stdio is the file name that stands for standard input or output.
const stdio = cliutil.Stdio

func inFlag(required bool) cli.Flag {
	if required {
		return &cli.StringFlag{Name: flagIn, Usage: "input CSV `FILE`, - for stdin (required)"}
	}
	return &cli.StringFlag{Name: flagIn, Value: stdio, Usage: "input CSV `FILE`, - for stdin"}
}

// csvOutFlag is the --out of the commands that write a CSV file; it
// refuses an image's name (synth, whose scenes and photos write images,
// checks its own).
func csvOutFlag() cli.Flag {
	return &cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Value: stdio, Usage: "output CSV `FILE`, - for stdout",
		Action: func(c *cli.Context, out string) error {
			if err := notImageName(c, out, "CSV files"); err != nil {
				return err
			}
			return notModelName(c, out)
		}}
}

func modelFlag() cli.Flag {
	return &cli.StringFlag{Name: flagModel, Usage: "model `FILE` written by spca fit (required)"}
}

// fitFlags are the options of the fitted transform itself.
func fitFlags() []cli.Flag {
	def := spca.DefaultOptions()
	return []cli.Flag{
		&cli.StringFlag{Name: flagGamma, Value: "1/3", Usage: "exponent of the PDF in the metric, >= 0: 0 unfolds, 1/3 minimises quantisation error, 1 equalises (fractions allowed)"},
		&cli.Float64Flag{Name: flagK, Value: def.K, Usage: "neighbourhood of the local PCA as a fraction of the samples, in (0, 1]"},
		&cli.Float64Flag{Name: flagTau, Value: def.Tau, Usage: "step of the curves as a fraction of the RMS radius of the data (0.001 to 10)"},
		&cli.StringFlag{Name: flagQ, Value: strconv.FormatFloat(def.Q, 'g', -1, 64), Usage: "stiffness of the curves, > 0 (inf ignores the local mean)"},
		&cli.Float64Flag{Name: flagTol, Value: def.Tol, Usage: "convergence tolerance of the forward transform, as a fraction of the data diameter"},
		&cli.IntFlag{Name: flagMaxIter, Value: def.MaxIter, Usage: "maximum correction iterations of the forward transform"},
		&cli.IntFlag{Name: flagResolution, Value: spca.DefaultResolution, Usage: "number of lattice nodes for the secondary curves"},
		&cli.Float64Flag{Name: flagBandwidth, Value: spca.DefaultBandwidth, Usage: "kernel bandwidth of the densities along the curves, as a fraction of Silverman's rule (narrow keeps edges sharp, wide gives a smoother transform)"},
		&cli.Float64Flag{Name: flagConditioning, Value: spca.DefaultConditioning, Usage: "share of the samples a secondary curve's density is estimated from, in (0, 1]"},
		&cli.Float64Flag{Name: flagNeighbours, DefaultText: "none, a kernel", Usage: "estimate the densities along the curves by the seed's k-neighbours rule with k this share of a curve's samples, in (0, 1], instead of a kernel"},
	}
}

// runFlags are the options that control how Fit and Tune run.
func runFlags() []cli.Flag {
	def := spca.DefaultOptions()
	return []cli.Flag{
		&cli.StringFlag{Name: flagOrigin, Value: def.Origin.String(), Usage: "origin of the first curve: mean, densest or a point x1,x2,..."},
		&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the random choices"},
		&cli.IntFlag{Name: flagWorkers, Value: def.Workers, Usage: "number of parallel workers, 0 for all CPUs"},
		&cli.IntFlag{Name: flagMaxReference, Value: spca.DefaultMaxReference, Usage: "largest number of samples used for the local PCA neighbourhoods"},
	}
}

// runOptions returns the default options with the runFlags applied.
func runOptions(c *cli.Context) (spca.Options, error) {
	opt := spca.DefaultOptions()
	var err error
	opt.Origin, opt.OriginPoint, err = parseOrigin(c.String(flagOrigin))
	if err != nil {
		return opt, fail("%s: --%s: %v", cliutil.CommandName(c), flagOrigin, err)
	}
	opt.Seed = c.Uint64(flagSeed)
	opt.Workers = c.Int(flagWorkers)
	opt.MaxReference = c.Int(flagMaxReference)
	return opt, nil
}

// fitOptions returns the options given by runFlags and fitFlags.
func fitOptions(c *cli.Context) (spca.Options, error) {
	opt, err := runOptions(c)
	if err != nil {
		return opt, err
	}
	if opt.Gamma, err = parseGamma(c.String(flagGamma)); err != nil {
		return opt, fail("%s: --%s: %v", cliutil.CommandName(c), flagGamma, err)
	}
	if opt.Q, err = parseQ(c.String(flagQ)); err != nil {
		return opt, fail("%s: --%s: %v", cliutil.CommandName(c), flagQ, err)
	}
	opt.K = c.Float64(flagK)
	opt.Tau = c.Float64(flagTau)
	opt.Tol = c.Float64(flagTol)
	opt.MaxIter = c.Int(flagMaxIter)
	opt.Resolution = c.Int(flagResolution)
	opt.Bandwidth = c.Float64(flagBandwidth)
	opt.Conditioning = c.Float64(flagConditioning)
	opt.Neighbours = c.Float64(flagNeighbours)
	return opt, nil
}

// warnLargeK warns, before a fit, that --k k makes each local PCA take
// far more neighbours than the default (n samples, at most maxRef of
// them, 0 for spca's default, as references): the fit's time grows with
// them (codec train --k 1: 3000 neighbours, 105 s against 5 s for the
// default 0.1; session 14, rev6), which a user of a knob described as
// "larger: stiffer curves" may not expect.
func warnLargeK(c *cli.Context, name string, k float64, n, maxRef int) {
	if maxRef <= 0 {
		maxRef = spca.DefaultMaxReference
	}
	m := min(n, maxRef)
	nb, def := int(math.Round(k*float64(m))), int(math.Round(spca.DefaultK*float64(m)))
	if k <= 2*spca.DefaultK || nb < 1000 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: warning: --%s %s makes each local PCA take %d neighbours of %d reference samples (%d at the default %s): the fit takes about %.0f times as long, or more\n",
		name, flagK, formatFloat(k), nb, m, def, formatFloat(spca.DefaultK), float64(nb)/float64(max(def, 1)))
}

// parseNumber parses a decimal number or a fraction "a/b".
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, den, isFraction := strings.Cut(s, "/")
	a, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number or fraction", s)
	}
	if !isFraction {
		return a, nil
	}
	b, err := strconv.ParseFloat(strings.TrimSpace(den), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number or fraction", s)
	}
	if b == 0 {
		return 0, fmt.Errorf("%q divides by zero", s)
	}
	return a / b, nil
}

// parseGamma parses the exponent gamma: a finite number or fraction >= 0.
func parseGamma(s string) (float64, error) {
	g, err := parseNumber(s)
	switch {
	case err != nil:
		return 0, err
	case math.IsNaN(g) || math.IsInf(g, 0):
		return 0, fmt.Errorf("%q is not finite", s)
	case g < 0:
		return 0, fmt.Errorf("%q is negative; gamma must be >= 0", s)
	case g == 0:
		// -0 (or 0/-1) as 0: it printed 'gamma -0' and wrote a model
		// with other bytes than --gamma 0.
		return 0, nil
	}
	return g, nil
}

// parseQ parses the stiffness: a number > 0 or "inf".
func parseQ(s string) (float64, error) {
	q, err := parseNumber(s)
	switch {
	case err != nil:
		return 0, err
	case !(q > 0):
		return 0, fmt.Errorf("%q is not > 0", s)
	}
	return q, nil
}

// parseOrigin parses "mean", "densest" or a comma-separated point.
func parseOrigin(s string) (spca.OriginKind, []float64, error) {
	switch strings.TrimSpace(s) {
	case spca.OriginMean.String():
		return spca.OriginMean, nil, nil
	case spca.OriginDensest.String():
		return spca.OriginDensest, nil, nil
	}
	fields := strings.Split(s, ",")
	point := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil, fmt.Errorf("%q is not mean, densest or a point x1,x2,... of finite numbers", s)
		}
		point[i] = v
	}
	return spca.OriginGiven, point, nil
}

// errHelpShown tells an action that positionals printed the help because
// --help followed a positional argument; the action then stops quietly.
var errHelpShown = errors.New("help shown")

// positionals returns the positional arguments of the command, which must
// number n; what names them for the error message.
//
// Go's flag parsing stops at the first positional argument. So that
// "spca info model.spca --json" works, flags that follow a positional
// argument are parsed here and stored into c. "--" ends the flags.
func positionals(c *cli.Context, n int, what string) ([]string, error) {
	pos, err := positionalArgs(c)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		name := cliutil.CommandName(c)
		return nil, fail("%s: expected %s, got %d arguments (see spca %s --help)", name, what, len(pos), name)
	}
	return pos, nil
}

// positionalArgs returns the positional arguments of the command, however
// many, parsing the flags that follow them as positionals does.
func positionalArgs(c *cli.Context) ([]string, error) {
	var pos []string
	rest := c.Args().Slice()
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			pos = append(pos, rest[1:]...)
			break
		}
		if a == stdio || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			rest = rest[1:]
			continue
		}
		set := flag.NewFlagSet(c.Command.Name, flag.ContinueOnError)
		set.SetOutput(io.Discard)
		for _, f := range c.Command.Flags {
			if err := f.Apply(set); err != nil {
				return nil, err
			}
		}
		if err := set.Parse(rest); err != nil {
			return nil, cliutil.UsageError(c, err, true)
		}
		var err error
		set.Visit(func(f *flag.Flag) {
			if err == nil {
				err = c.Set(primaryName(c.Command.Flags, f.Name), f.Value.String())
			}
		})
		if err != nil {
			return nil, cliutil.UsageError(c, err, true)
		}
		consumed := len(rest) - len(set.Args())
		if consumed > 0 && rest[consumed-1] == "--" {
			pos = append(pos, set.Args()...)
			break
		}
		rest = set.Args()
	}
	if c.Bool("help") {
		if err := cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name); err != nil {
			return nil, err
		}
		return nil, errHelpShown
	}
	return pos, nil
}

// primaryName returns the name of the flag among flags that has name as an
// alias ("out" for "o"), since cli reads a flag's value under its name.
func primaryName(flags []cli.Flag, name string) string {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f.Names()[0]
		}
	}
	return name
}

// requireFlags reports the first of names that was not given, as one line
// instead of the help text cli prints for Required flags.
func requireFlags(c *cli.Context, names ...string) error {
	for _, name := range names {
		if !c.IsSet(name) {
			cmd := cliutil.CommandName(c)
			return fail("%s: missing --%s (see spca %s --help)", cmd, name, cmd)
		}
		// An empty path was reported as ": no such file or directory".
		if v, ok := c.Value(name).(string); ok && v == "" {
			return fail("%s: --%s is empty: it must name a file", cliutil.CommandName(c), name)
		}
	}
	return nil
}
