package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/internal/csvmat"
	"github.com/spcalab/spca/spca"
)

func transformCommand() *cli.Command {
	return &cli.Command{
		Name:  "transform",
		Usage: "compute the SPCA responses r = R(x) of the samples of a CSV file",
		UsageText: "spca transform --model model.spca [--in x.csv] [-o r.csv] [--components D'] [--stats]\n\n" +
			"With --components D' only the first D' responses are written: the samples reduced to D' dimensions " +
			"(spca inverse maps them back). Warns on stderr of samples far outside the training data (clamped to the " +
			"model's lattice) and of samples whose correction stopped short of the model's tolerance (--tol and " +
			"--max-iter of spca fit); --stats counts both.",
		Flags: []cli.Flag{
			modelFlag(),
			inFlag(false),
			csvOutFlag(),
			componentsFlag("write only the first `D'` responses (dimensionality reduction); 0: all"),
			&cli.BoolFlag{Name: flagStats, Usage: "print convergence statistics on stderr"},
		},
		Action: runTransform,
	}
}

func inverseCommand() *cli.Command {
	return &cli.Command{
		Name:  "inverse",
		Usage: "compute the samples x = R^-1(r) of the responses in a CSV file",
		UsageText: "spca inverse --model model.spca [--in r.csv] [-o x.csv] [--components D'] [--stats]\n\n" +
			"Responses may have fewer columns than the model's dimension d (as written by spca transform " +
			"--components): the missing ones are set to their typical values, the medians of the training " +
			"responses recorded by spca fit (0.5, the centre of the response range, for models without them), " +
			"so that the samples come back on the learned D'-dimensional manifold.",
		Flags: []cli.Flag{
			modelFlag(),
			inFlag(false),
			csvOutFlag(),
			componentsFlag("use only the first `D'` columns of the responses, the others at their typical values; 0: all given"),
			&cli.BoolFlag{Name: flagStats, Usage: "print on stderr how many responses lay beyond the model's range and were clamped"},
		},
		Action: runInverse,
	}
}

func runTransform(c *cli.Context) error {
	model, in, err := loadModelAndInput(c, false)
	if err != nil {
		return err
	}
	r, stats, err := model.TransformBatch(in)
	if err != nil {
		return fail("transform: %s", brief(err))
	}
	k, err := components(c, model.Dim(), model.Dim())
	if err != nil {
		return err
	}
	n, _ := r.Dims()
	if err := writeSamples(c, r.Slice(0, n, 0, k), columnNames("r", k)); err != nil {
		return err
	}
	if c.Bool(flagStats) {
		writeStats(c.App.ErrWriter, stats, model)
	} else {
		warnClamped(c, stats.Clamped, stats.N, "samples", "far outside the training data")
		warnUnconverged(c, stats, model)
	}
	what := fmt.Sprintf("%d responses", k)
	if k < model.Dim() {
		what = fmt.Sprintf("the first %d of %d responses", k, model.Dim())
	}
	csvSummary(c, "%d samples, %s", n, what)
	return nil
}

// csvSummary prints the one-line summary of a command writing CSV data,
// "NAME: what -> FILE", as fit and encode do, when wantSummary.
func csvSummary(c *cli.Context, format string, args ...any) {
	if wantSummary(c) {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s -> %s\n", cliutil.CommandName(c), fmt.Sprintf(format, args...), c.String(flagOut))
	}
}

// wantSummary tells whether a command prints its one-line summary: only
// when --out is a file or a directory (data on stdout speak for
// themselves, and a pipeline of one process per file would print a line
// each) and not under --quiet.
func wantSummary(c *cli.Context) bool {
	out := c.String(flagOut)
	return out != "" && out != stdio && !cliutil.Quiet(c)
}

// warnUnconverged prints a one-line warning when the forward transform of
// some samples inside the model's lattice stopped short of its tolerance
// (--max-iter corrections, or a stalled correction on a fold): their
// responses are approximate. The clamped samples have their own warning.
func warnUnconverged(c *cli.Context, s spca.BatchStats, model *spca.Model) {
	if s.UnconvergedInside > 0 {
		opt := model.Options()
		residual := ""
		if s.Clamped == 0 { // else MaxResidual is a clamped sample's
			residual = fmt.Sprintf("residual up to %.4g against a tolerance of %.4g ", s.MaxResidual, opt.Tol*model.MaxDistance())
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d of the %d samples (%.1f %%) did not converge: %s(--tol %g, --max-iter %d of spca fit); their responses are approximate (--stats for details)\n",
			cliutil.CommandName(c), s.UnconvergedInside, s.N, pct(s.UnconvergedInside, s.N), residual, opt.Tol, opt.MaxIter)
	}
}

// warnClamped prints a one-line warning when some of the n rows (what)
// were clamped to the model's lattice: their results are those of a point
// at its edge, the same for all rows beyond it, not an extrapolation.
// Unlike rows just outside the training data, which the model
// extrapolates, every clamped row is a wrong answer, hence no share below
// which it is silent.
func warnClamped(c *cli.Context, clamped, n int, what, where string) {
	if clamped > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d of the %d %s (%.1f %%) lie %s, beyond the model's lattice: clamped to its edge\n",
			cliutil.CommandName(c), clamped, n, what, 100*float64(clamped)/float64(n), where)
	}
}

func runInverse(c *cli.Context) error {
	model, in, err := loadModelAndInput(c, true)
	if err != nil {
		return err
	}
	n, given := in.Dims()
	k, err := components(c, model.Dim(), given)
	if err != nil {
		return err
	}
	x, stats, err := model.InverseReducedStats(in.Slice(0, n, 0, k))
	if err != nil {
		return fail("inverse: %s", brief(err))
	}
	if err := writeSamples(c, x, columnNames("x", model.Dim())); err != nil {
		return err
	}
	if c.Bool(flagStats) {
		fmt.Fprintf(c.App.ErrWriter, "inverse: %d responses\n  clamped to lattice    %d (%.1f%%)\n", stats.N, stats.Clamped, pct(stats.Clamped, stats.N))
	} else {
		warnClamped(c, stats.Clamped, stats.N, "responses", "far outside the responses of the training data")
	}
	what := fmt.Sprintf("%d responses", k)
	if k < model.Dim() {
		what = fmt.Sprintf("%d of %d responses (the others at their typical values)", k, model.Dim())
	}
	csvSummary(c, "%d samples from %s", n, what)
	return nil
}

// componentsFlag is --components of transform and inverse.
func componentsFlag(usage string) cli.Flag {
	return &cli.IntFlag{Name: flagComponents, Usage: usage}
}

// components returns --components, checked against the dimension d of the
// model and the number of columns given; 0 (the default) means given.
func components(c *cli.Context, d, given int) (int, error) {
	k := c.Int(flagComponents)
	switch {
	case k == 0:
		return given, nil
	case k < 1 || k > d:
		return 0, fail("%s: --%s must be in [1, %d] for this model, got %d", cliutil.CommandName(c), flagComponents, d, k)
	case k > given:
		return 0, fail("%s: --%s %d but the responses have %d columns", cliutil.CommandName(c), flagComponents, k, given)
	}
	return k, nil
}

// loadModelAndInput reads --model and --in and checks that the input has
// the model's dimension, or with reduced at most that many columns.
func loadModelAndInput(c *cli.Context, reduced bool) (*spca.Model, *mat.Dense, error) {
	if err := cliutil.NoPositionals(c); err != nil {
		return nil, nil, err
	}
	if err := requireFlags(c, flagModel); err != nil {
		return nil, nil, err
	}
	model, err := loadModel(c.String(flagModel))
	if err != nil {
		return nil, nil, err
	}
	path := c.String(flagIn)
	if path == stdio && stdinIsTerminal() && !cliutil.Quiet(c) {
		// Without --in the command waits on the terminal, silent.
		fmt.Fprintf(c.App.ErrWriter, "%s: reading CSV samples from standard input (end with Ctrl-D; --in FILE reads a file)\n", cliutil.CommandName(c))
	}
	in, err := readSamples(c, path)
	if err != nil {
		return nil, nil, err
	}
	if _, d := in.Dims(); d != model.Dim() && !(reduced && d < model.Dim()) {
		if path == stdio {
			path = "stdin"
		}
		return nil, nil, fail("%s: model expects %d values per sample, got %d", path, model.Dim(), d)
	}
	return model, in, nil
}

// stdinIsTerminal reports whether standard input is a terminal.
var stdinIsTerminal = func() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

// loadModel reads a model file.
func loadModel(path string) (*spca.Model, error) {
	if err := checkKind(path, spca.ModelMagic); err != nil {
		return nil, err
	}
	model, err := spca.Load(path)
	if err != nil {
		return nil, fail("%s", withPath(path, err))
	}
	return model, nil
}

// readSamples reads the CSV samples of path (standard input for -) for
// the command of c: its errors name the command and the file, "spca:
// fit: data.csv: no samples" (they were "spca: data.csv: no samples" and
// "spca: open data.csv: no such file or directory").
func readSamples(c *cli.Context, path string) (*mat.Dense, error) {
	m, err := csvmat.ReadFile(path)
	if err != nil {
		return nil, fail("%s: %s", cliutil.CommandName(c), pathError(err))
	}
	return m, nil
}

// writeSamples writes m as CSV with header to --out (standard output for
// -): its errors name the command, and a missing directory the flag,
// "spca: transform: --out: DIR: no such file or directory" (it was
// "spca: write DIR/x.csv: open DIR/.x.csv.tmp-1234: no such file or
// directory").
func writeSamples(c *cli.Context, m mat.Matrix, header string) error {
	out := c.String(flagOut)
	if err := csvmat.WriteFile(out, m, header); err != nil {
		if _, serr := os.Stat(filepath.Dir(out)); out != stdio && serr != nil {
			return fail("%s: --%s: %s", cliutil.CommandName(c), flagOut, pathError(serr))
		}
		return fail("%s: %s", cliutil.CommandName(c), brief(err))
	}
	return nil
}

// withPath returns the brief message of err, prefixed with path unless it
// names the path already.
func withPath(path string, err error) string {
	msg := brief(err)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == path {
		msg = pathError(err) // "path: reason", not "open path: reason"
	}
	if !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return msg
}

// columnNames returns "p1,p2,...,pd" for the CSV header.
func columnNames(prefix string, d int) string {
	names := make([]string, d)
	for i := range names {
		names[i] = prefix + strconv.Itoa(i+1)
	}
	return strings.Join(names, ",")
}

// pct is k as a percentage of n (0 for n = 0).
func pct(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}

// writeStats prints the convergence statistics of a batch transform.
func writeStats(w io.Writer, s spca.BatchStats, model *spca.Model) {
	pct := func(k int) float64 { return pct(k, s.N) }
	fmt.Fprintf(w, "transform: %d samples\n", s.N)
	fmt.Fprintf(w, "  no correction needed  %d (%.1f%%)\n", s.NoCorrection, pct(s.NoCorrection))
	fmt.Fprintf(w, "  unconverged           %d (%.1f%%)\n", s.Unconverged, pct(s.Unconverged))
	fmt.Fprintf(w, "    of them not clamped %d (%.1f%%)\n", s.UnconvergedInside, pct(s.UnconvergedInside))
	fmt.Fprintf(w, "  clamped to lattice    %d (%.1f%%)\n", s.Clamped, pct(s.Clamped))
	opt := model.Options()
	fmt.Fprintf(w, "  max iterations        %d (limit %d)\n", s.MaxIter, opt.MaxIter)
	fmt.Fprintf(w, "  max residual          %.4g (tolerance %.4g)\n", s.MaxResidual, opt.Tol*model.MaxDistance())
	fmt.Fprintf(w, "  iterations histogram ")
	for i, k := range s.Histogram {
		if k > 0 {
			fmt.Fprintf(w, " %d:%d", i, k)
		}
	}
	fmt.Fprintln(w)
}
