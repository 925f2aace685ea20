package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/figures"
)

func figuresCommand() *cli.Command {
	return &cli.Command{
		Name:  "figures",
		Usage: "rebuild the figures and tables of the SPCA method in a results directory",
		UsageText: "spca figures [--out results] [--images DIR] [--only NAME...] [--quick] [--seed S] [--json]\n\n" +
			"Rebuilds every figure (" + strings.Join(figures.Names(), ", ") + ") as PNG and SVG " +
			"with the CSV of its data, and writes README.md in the output directory with each figure, " +
			"what it shows and its numbers beside the seed's. Data are generated from fixed seeds; " +
			"--images uses a directory of images for the coding and independence figures instead " +
			"(the first half, in name order, trains; the rest tests). Prints the tables on stdout " +
			"unless --quiet (--json: every table as JSON, printed even with --quiet).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Value: "results", Usage: "output `DIR`"},
			&cli.StringFlag{Name: flagImages, Usage: "`DIR` of images for the coding and independence figures"},
			&cli.StringSliceFlag{Name: flagOnly, Usage: "rebuild only the figure `NAME` (repeatable, or comma-separated)"},
			&cli.BoolFlag{Name: flagQuick, Usage: "small data sets (under a minute), for tests"},
			&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the generated data"},
			jsonFlag(),
		},
		Action: runFigures,
	}
}

func runFigures(c *cli.Context) error {
	if err := noPositionals(c); err != nil {
		return err
	}
	var only []string
	for _, s := range c.StringSlice(flagOnly) {
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n != "" {
				only = append(only, n)
			}
		}
	}
	cfg := figures.Config{
		Out:    c.String(flagOut),
		Images: c.String(flagImages),
		Only:   only,
		Quick:  c.Bool(flagQuick),
		Seed:   c.Uint64(flagSeed),
	}
	start := time.Now()
	bars := newProgress(c)
	if cb := bars.callback(); cb != nil {
		cfg.Progress = func(fig, stage string, done, total int) { cb(fig+": "+stage, done, total) }
	}
	rep, err := figures.Run(cfg)
	bars.finish()
	if err != nil {
		return fail("figures: %s", strings.TrimPrefix(brief(err), "figures: "))
	}
	w := c.App.Writer
	if c.Bool(flagJSON) {
		if err := writeJSON(w, rep); err != nil {
			return fail("figures: %v", err)
		}
	} else if !quiet(c) {
		// --quiet silences the tables too (they are in the results
		// directory); --json is output asked for, printed anyway.
		if err := writeFigureTables(w, rep); err != nil {
			return fail("figures: %v", err)
		}
	}
	if !quiet(c) {
		fmt.Fprintf(c.App.ErrWriter, "figures: %s in %s -> %s\n",
			plural(len(rep.Figures), "figure"), time.Since(start).Round(time.Millisecond), cfg.Out)
	}
	return nil
}

// writeFigureTables prints every table of the report: ours beside the
// seed's, where the seed has a counterpart.
func writeFigureTables(w io.Writer, rep *figures.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range rep.Figures {
		for _, t := range f.Tables {
			fmt.Fprintf(tw, "%s: %s\n", f.Name, t.Name)
			fmt.Fprint(tw, "\t")
			for _, col := range t.Columns {
				if t.NoSeed {
					fmt.Fprintf(tw, "\t%s", col)
				} else {
					fmt.Fprintf(tw, "\t%s\tseed", col)
				}
			}
			fmt.Fprintln(tw)
			for _, r := range t.Rows {
				fmt.Fprintf(tw, "\t%s", r.Label)
				for k, v := range r.Ours {
					if t.NoSeed {
						fmt.Fprintf(tw, "\t%s", formatFloat4(v))
						continue
					}
					seed := "-"
					if k < len(r.Seed) && r.Seed[k] != nil {
						seed = formatFloat4(*r.Seed[k])
					}
					fmt.Fprintf(tw, "\t%s\t%s", formatFloat4(v), seed)
				}
				fmt.Fprintln(tw)
			}
		}
	}
	return tw.Flush()
}

func formatFloat4(v float64) string { return fmt.Sprintf("%.4g", v) }
