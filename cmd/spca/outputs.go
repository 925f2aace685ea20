package main

import (
	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/urfave/cli/v2"
)

// Output safety (issue 23): see cliutil.GuardOutputs, shared with
// spca-figures.

// inputFlags name the flags whose values are files (or directories of
// files) a command reads; positional arguments are inputs too.
var inputFlags = []string{flagIn, flagModel, flagImages, flagPairs, flagEnvA, flagEnvB}

// withOutputGuard gives cmd a Before that registers its inputs with
// atomicfile.Protect and checks its --out with atomicfile.Check: an
// output that is an input, a FIFO or a device, or in a directory that
// cannot be written, fails before any work.
func withOutputGuard(cmd *cli.Command) {
	if cmd.Action == nil {
		return
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		if err := cliutil.GuardOutputs(c, inputFlags); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}
