package main

import (
	"slices"

	"github.com/urfave/cli/v2"
)

const flagAssumeSRGB = "assume-srgb"

// assumeSRGB is the --assume-srgb of the running command: loadImage reads
// images with an ICC profile other than sRGB as sRGB instead of refusing
// them. Every command's Before sets it (withAssumeSRGB).
var assumeSRGB bool

// withAssumeSRGB gives the commands that read images (at a path of
// pixelBudgetCommands) the --assume-srgb flag, and every command a Before
// that sets assumeSRGB from it (or to false).
func withAssumeSRGB(cmd *cli.Command, path string) {
	add := cmd.Action != nil && slices.Contains(pixelBudgetCommands, path) && path != "decode"
	if add {
		cmd.Flags = append(cmd.Flags, &cli.BoolFlag{
			Name: flagAssumeSRGB,
			Usage: "read images whose ICC profile is not sRGB (Adobe RGB, Display P3, ...) as sRGB " +
				"instead of refusing them (their colours come out wrong)",
		})
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		assumeSRGB = add && c.Bool(flagAssumeSRGB)
		if before != nil {
			return before(c)
		}
		return nil
	}
}
