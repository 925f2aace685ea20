// Command spca-figures rebuilds the figures and tables of the SPCA method
// (the seed's experiments, on data generated from fixed seeds) in a
// results directory, with README.md putting the numbers beside the seed's:
//
//	go run ./cmd/spca-figures                # results/
//	spca-figures --quick --only gamma --out /tmp/r
//	spca-figures --images DIR --json
//
// It is a program of its own, not a command of spca, so that spca (started
// once per image by spca encode and spca decode) does not link or
// initialise the plotting and LaTeX packages; spca figures runs it.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/figures"
)

func main() {
	cliutil.RemoveTempsOnSignal("spca-figures")
	if err := newApp().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(cliutil.ExitCode(err))
	}
}

// newApp builds the command-line application. Errors are returned from Run
// instead of being printed and exiting, so that main prints them as one
// line and tests can run the app in-process.
func newApp() *cli.App {
	cli.FlagStringer = cliutil.FlagStringer(nil)
	return &cli.App{
		Name:  "spca-figures",
		Usage: "rebuild the figures and tables of the SPCA method in a results directory",
		UsageText: "spca-figures [-o results] [--images DIR] [--only NAME...] [--quick] [--seed S] [--json]\n\n" +
			"Rebuilds every figure (" + strings.Join(figures.Names(), ", ") + ") as PNG and SVG " +
			"with the CSV of its data, and writes README.md in the output directory with each figure, " +
			"what it shows and its numbers beside the seed's. Data are generated from fixed seeds; " +
			"--images uses a directory of images for the coding and independence figures instead " +
			"(the first half, in name order, trains; the rest tests). Prints the tables on stdout " +
			"unless --quiet (--json: every table as JSON, printed even with --quiet). " +
			"spca figures runs this program with the same arguments.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: cliutil.FlagOut, Aliases: []string{cliutil.FlagO}, Value: "results", Usage: "output `DIR`"},
			&cli.StringFlag{Name: cliutil.FlagImages, Usage: "`DIR` of images for the coding and independence figures"},
			&cli.StringSliceFlag{Name: cliutil.FlagOnly, Usage: "rebuild only the figure `NAME` (repeatable, or comma-separated)"},
			&cli.BoolFlag{Name: cliutil.FlagQuick, Usage: "small data sets (under a minute), for tests"},
			&cli.Uint64Flag{Name: cliutil.FlagSeed, Value: cliutil.DefaultSeed, Usage: "seed of the generated data"},
			cliutil.JSONFlag(),
			cliutil.QuietFlag(),
		},
		Version:         cliutil.Version(),
		HideHelpCommand: true,
		// Runtime errors are printed by main as one line; nothing else may
		// print or exit.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   cliutil.UsageError,
		Before: func(c *cli.Context) error {
			return cliutil.GuardOutputs(c, []string{cliutil.FlagImages})
		},
		Action: runFigures,
	}
}

// errorLine formats err as the one line main prints: "spca-figures: message".
func errorLine(err error) string {
	return "spca-figures: " + cliutil.Brief(err)
}
