package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
)

// pixelBudget is the --max-pixels of the running command: the largest
// image, in pixels, that loadImage reads and decode produces. Every
// command's Before sets it (withPixelBudget), so one run does not see
// another's value.
var pixelBudget int64 = patches.DefaultMaxPixels

// pixelBudgetCommands are the commands that read images or decode .spc
// files. adapt eval keeps its own --max-pixels (a subsample size).
var pixelBudgetCommands = []string{"train", "eval", "encode", "decode", "apply"}

// withPixelBudget gives cmd the --max-pixels flag if it reads images, and
// a Before that sets pixelBudget from it (or to the default).
func withPixelBudget(cmd *cli.Command) {
	has := false
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), flagMaxPixels) {
			has = true
		}
	}
	add := !has && cmd.Action != nil && slices.Contains(pixelBudgetCommands, cmd.Name)
	if add {
		cmd.Flags = append(cmd.Flags, &cli.Int64Flag{
			Name:  flagMaxPixels,
			Value: patches.DefaultMaxPixels,
			Usage: "refuse images (inputs, and decoded .spc files) of more than `N` pixels, read from their header " +
				"before decoding; memory grows with the pixels (see the README)",
		})
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		pixelBudget = patches.DefaultMaxPixels
		if add {
			n := c.Int64(flagMaxPixels)
			if n < 1 {
				return fail("%s: --%s must be at least 1, got %d", commandName(c), flagMaxPixels, n)
			}
			pixelBudget = n
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// tooLarge returns the message for an image beyond the pixel budget, or
// "" if err is not that.
func tooLarge(path string, err error) string {
	if !errors.Is(err, patches.ErrTooLarge) && !errors.Is(err, codec.ErrTooLarge) {
		return ""
	}
	msg := brief(err)
	if !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return fmt.Sprintf("%s (raise the limit with --%s)", msg, flagMaxPixels)
}
