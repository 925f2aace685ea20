package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/figures"
)

func runFigures(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	var only []string
	for _, s := range c.StringSlice(cliutil.FlagOnly) {
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n != "" {
				only = append(only, n)
			}
		}
	}
	cfg := figures.Config{
		Out:    c.String(cliutil.FlagOut),
		Images: c.String(cliutil.FlagImages),
		Only:   only,
		Quick:  c.Bool(cliutil.FlagQuick),
		Seed:   c.Uint64(cliutil.FlagSeed),
	}
	start := time.Now()
	bars := cliutil.NewProgress(c)
	if cb := bars.Callback(); cb != nil {
		cfg.Progress = func(fig, stage string, done, total int) { cb(fig+": "+stage, done, total) }
	}
	rep, err := figures.Run(cfg)
	bars.Finish()
	if err != nil {
		return cliutil.Fail("%s", strings.TrimPrefix(cliutil.Brief(err), "figures: "))
	}
	w := c.App.Writer
	if c.Bool(cliutil.FlagJSON) {
		if err := cliutil.WriteJSON(w, rep); err != nil {
			return cliutil.Fail("%v", err)
		}
	} else if !cliutil.Quiet(c) {
		// --quiet silences the tables too (they are in the results
		// directory); --json is output asked for, printed anyway.
		if err := writeFigureTables(w, rep); err != nil {
			return cliutil.Fail("%v", err)
		}
	}
	if !cliutil.Quiet(c) {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s in %s -> %s\n", c.App.Name,
			cliutil.Plural(len(rep.Figures), "figure"), time.Since(start).Round(time.Millisecond), cfg.Out)
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
