package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/spca"
)

func fitCommand() *cli.Command {
	flags := []cli.Flag{
		inFlag(true),
		&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Usage: "model `FILE` to write (required)"},
	}
	flags = append(flags, fitFlags()...)
	flags = append(flags, runFlags()...)
	return &cli.Command{
		Name:  "fit",
		Usage: "fit an SPCA model to the samples of a CSV file",
		UsageText: "spca fit --in data.csv -o model.spca [--gamma 1/3 --k 0.1 --tau 0.1 --q 10 ...]\n\n" +
			"spca tune chooses --k and --tau (with --components D' for data to reduce to D' dimensions). " +
			fmt.Sprintf("fit warns when the samples are too few for the neighbourhoods: under %d in the local PCA's (--k of them) "+
				"or in the window of a secondary curve's density (--conditioning of them), so under %d samples with the defaults.",
				spca.MinNeighbourhood, int(spca.MinNeighbourhood/spca.DefaultK)),
		Flags:  flags,
		Action: runFit,
	}
}

func runFit(c *cli.Context) error {
	if err := cliutil.NoPositionals(c); err != nil {
		return err
	}
	if err := requireFlags(c, flagIn, flagOut); err != nil {
		return err
	}
	out, err := binaryOutput(c, "models")
	if err != nil {
		return err
	}
	opt, err := fitOptions(c)
	if err != nil {
		return err
	}
	// Fail before a long fit rather than when saving its result.
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return fail("%s: --%s: %s", cliutil.CommandName(c), flagOut, pathError(err))
	}
	data, err := readSamples(c, c.String(flagIn))
	if err != nil {
		return err
	}
	warnLargeK(c, cliutil.CommandName(c), opt.K, data.RawMatrix().Rows, opt.MaxReference)

	start := time.Now()
	bars := cliutil.NewProgress(c)
	opt.Progress = bars.Callback()
	model, err := spca.Fit(data, opt)
	if err == nil {
		// The medians of the responses, for inverse --components.
		err = model.RecordTypical(data)
	}
	bars.Finish()
	if err != nil {
		return fail("fit: %s", brief(err))
	}
	elapsed := time.Since(start)
	if err := model.Save(out); err != nil {
		return fail("%s", withPath(out, err))
	}
	if w := opt.SampleWarning(data.Dims()); w != "" {
		fmt.Fprintf(c.App.ErrWriter, "fit: warning: %s\n", w)
	}
	if !cliutil.Quiet(c) {
		n, d := data.Dims()
		fmt.Fprintf(c.App.ErrWriter, "fit: %d samples of dimension %d, gamma %s, in %s -> %s\n",
			n, d, formatGamma(opt.Gamma), elapsed.Round(time.Millisecond), out)
	}
	return nil
}
