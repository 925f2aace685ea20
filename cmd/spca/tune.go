package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/spca"
)

func tuneCommand() *cli.Command {
	flags := []cli.Flag{inFlag(true), cliutil.JSONFlag(),
		&cli.IntFlag{Name: flagComponents, DefaultText: "none, the projection error", Usage: "choose k and tau by the RMS error of the samples reduced to their first `D'` responses and mapped back " +
			"(a fit per grid point), instead of the projection error onto the first curve; use it for sheets such as the swiss roll"},
		&cli.StringFlag{Name: flagGamma, Value: "1/3", Usage: "with --components, the gamma of the fits (as spca fit)"},
	}
	flags = append(flags, runFlags()...)
	return &cli.Command{
		Name:  "tune",
		Usage: "choose k, tau and q for fit: by the projection error onto the first principal curve, or with --components by the held-out error of a reduction",
		UsageText: "spca tune --in data.csv [--components D' [--gamma G]] [--json]\n\n" +
			"Tries the default grid of (k, tau, q) and prints the projection error of each point: the RMS distance of " +
			"the samples to the first curve. On a sheet that criterion prefers bendy curves that do not unfold it; " +
			"--components D' instead fits a model per (k, tau) (q fixed, 2^15 lattice nodes) to every other sample and " +
			"measures the RMS error of the others reduced to D' responses and mapped back (held out). Pass the best values to spca fit.",
		Flags:  flags,
		Action: runTune,
	}
}

// tunePointJSON is one grid point in the JSON output of tune.
type tunePointJSON struct {
	K     number `json:"k"`
	Tau   number `json:"tau"`
	Q     number `json:"q"`
	Error number `json:"error"`
}

func runTune(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagIn); err != nil {
		return err
	}
	opt, err := runOptions(c)
	if err != nil {
		return err
	}
	if c.IsSet(flagGamma) && !c.IsSet(flagComponents) {
		// Ignored, and unchecked, it was: --gamma foo ran the search.
		return fail("tune: --%s applies with --%s only", flagGamma, flagComponents)
	}
	data, err := readSamples(c, c.String(flagIn))
	if err != nil {
		return err
	}
	bars := cliutil.NewProgress(c)
	opt.Progress = bars.Callback()
	var res spca.TuneResult
	if k := c.Int(flagComponents); c.IsSet(flagComponents) {
		if opt.Gamma, err = parseGamma(c.String(flagGamma)); err != nil {
			bars.Finish()
			return fail("%s: --%s: %v", cliutil.CommandName(c), flagGamma, err)
		}
		res, err = spca.TuneReduced(data, opt, spca.TuneGrid{}, k)
	} else {
		res, err = spca.Tune(data, opt, spca.DefaultTuneGrid())
	}
	bars.Finish()
	if err != nil {
		return fail("tune: %s", brief(err))
	}

	// Say which error: the two criteria differ in kind and scale.
	criterion := "projection error"
	if c.IsSet(flagComponents) {
		criterion = fmt.Sprintf("held-out error in %d-D", c.Int(flagComponents))
	}
	w := c.App.Writer
	if c.Bool(flagJSON) {
		out := struct {
			Criterion string          `json:"criterion"`
			Best      tunePointJSON   `json:"best"`
			Table     []tunePointJSON `json:"table"`
		}{
			Criterion: criterion,
			Best:      tunePointJSON{number(res.Best.K), number(res.Best.Tau), number(res.Best.Q), number(res.Error)},
			Table:     make([]tunePointJSON, len(res.Table)),
		}
		for i, p := range res.Table {
			out.Table[i] = tunePointJSON{number(p.K), number(p.Tau), number(p.Q), number(p.Error)}
		}
		if err := cliutil.WriteJSON(w, out); err != nil {
			return fail("tune: %v", err)
		}
		return nil
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "k\ttau\tq\t%s\t\n", criterion)
	for _, p := range res.Table {
		mark := ""
		if p.K == res.Best.K && p.Tau == res.Best.Tau && p.Q == res.Best.Q {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.6g\t%s\n", formatFloat(p.K), formatFloat(p.Tau), formatFloat(p.Q), p.Error, mark)
	}
	if err := tw.Flush(); err != nil {
		return fail("tune: %v", err)
	}
	// The flags to give spca fit, gamma too when the fits used one.
	gamma := ""
	if c.IsSet(flagGamma) {
		gamma = fmt.Sprintf(" --%s %s", flagGamma, formatGamma(opt.Gamma))
	}
	fmt.Fprintf(w, "best: --%s %s --%s %s --%s %s%s (%s %.6g)\n",
		flagK, formatFloat(res.Best.K), flagTau, formatFloat(res.Best.Tau), flagQ, formatFloat(res.Best.Q), gamma, criterion, res.Error)
	return nil
}
