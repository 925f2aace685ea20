package main

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/csvmat"
	"github.com/spcalab/spca/testimages"
)

func synthCommand() *cli.Command {
	return &cli.Command{
		Name:      "synth",
		Usage:     "generate a synthetic data set: " + strings.Join(testimages.Names(), ", "),
		UsageText: "spca synth NAME [--n 1000] [--seed 1] [--out data.csv] [--latent]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: flagN, Value: 1000, Usage: "number of samples"},
			&cli.Uint64Flag{Name: flagSeed, Value: 1, Usage: "seed of the generator"},
			csvOutFlag(),
			&cli.BoolFlag{Name: flagLatent, Usage: "append the latent coordinates as extra columns"},
		},
		Action: runSynth,
	}
}

func runSynth(c *cli.Context) error {
	args, err := positionals(c, 1, "one data set NAME")
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		return err
	}
	s, err := testimages.Generate(args[0], c.Int(flagN), c.Uint64(flagSeed))
	if err != nil {
		return fail("synth: %s", strings.TrimPrefix(err.Error(), "testimages: "))
	}
	_, d := s.X.Dims()
	header := columnNames("x", d)
	var out mat.Matrix = s.X
	if c.Bool(flagLatent) {
		out = joinColumns(s.X, s.Latent)
		header += "," + strings.Join(s.LatentNames, ",")
	}
	if err := csvmat.WriteFile(c.String(flagOut), out, header); err != nil {
		return fail("%v", err)
	}
	return nil
}

// joinColumns returns [a b], the columns of b after those of a.
func joinColumns(a, b mat.Matrix) *mat.Dense {
	var ab mat.Dense
	ab.Augment(a, b)
	return &ab
}
