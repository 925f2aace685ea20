package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
)

// pixelBudget is the --max-pixels of the running command: the largest
// image, in pixels, that loadImage reads and decode produces. Every
// command's Before sets it (withPixelBudget), so one run does not see
// another's value.
var pixelBudget int64 = patches.DefaultMaxPixels

// loadOptions is the options of every image read of a command: its
// pixel budget and --assume-srgb, then opts. patches.MaxPixels takes an
// int, which on a 32-bit platform holds no budget of 2^31 pixels or more:
// converted, --max-pixels 4294967296 became 0 and 2147483648 negative, and
// every image was refused as "more than 0" (or a negative number) of
// pixels. No image there can have more than math.MaxInt pixels anyway.
func loadOptions(opts []patches.LoadOption) []patches.LoadOption {
	return append([]patches.LoadOption{patches.MaxPixels(int(min(pixelBudget, math.MaxInt))), patches.AssumeSRGB(assumeSRGB)}, opts...)
}

// pixelBudgetFlag tells whether the running command has the --max-pixels
// that raises pixelBudget (adapt eval reads images within the default:
// its hidden --max-pixels is the old name of --eval-pixels).
var pixelBudgetFlag = true

// pixelBudgetCommands are the commands, by their path under spca, that
// read images or decode .spc files. adapt eval keeps its own --max-pixels
// (a subsample size). classify train and eval read CSV files only.
var pixelBudgetCommands = []string{"codec train", "codec eval", "encode", "decode", "adapt train", "adapt apply", "adapt eval"}

// withPixelBudget gives cmd, at path ("codec train"), the --max-pixels
// flag if it reads images, and a Before that sets pixelBudget from it (or
// to the default) and checks the numeric flags' ranges (checkRanges).
func withPixelBudget(cmd *cli.Command, path string) {
	has := false
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), flagMaxPixels) {
			has = true
		}
	}
	add := !has && cmd.Action != nil && slices.Contains(pixelBudgetCommands, path)
	if add {
		cmd.Flags = append(cmd.Flags, &cli.Int64Flag{
			Name:  flagMaxPixels,
			Value: patches.DefaultMaxPixels,
			Usage: "refuse images (inputs, and decoded .spc files) of more than `N` pixels, read from their header " +
				"before decoding; memory grows with the pixels (see the README): the default is 100000000 on 64-bit " +
				"platforms and 8388607 on 32-bit ones, whose address space the decode of 10^8 pixels overflows",
		})
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		pixelBudget, pixelBudgetFlag = patches.DefaultMaxPixels, add
		if add {
			n := c.Int64(flagMaxPixels)
			if _, late := cliutil.SplitArgs(c); len(late[flagMaxPixels]) > 0 {
				var err error
				if n, err = strconv.ParseInt(late[flagMaxPixels][0], 10, 64); err != nil {
					return fail("%s: --%s: %v", cliutil.CommandName(c), flagMaxPixels, err)
				}
			}
			if n < 1 {
				return fail("%s: --%s %d is out of its range [1, ∞)", cliutil.CommandName(c), flagMaxPixels, n)
			}
			pixelBudget = n
		}
		if err := checkRanges(c); err != nil {
			return err
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
	// The file first, as every other message of a bad input.
	msg := path + ": " + strings.Replace(codecBrief(err), path+": ", "", 1)
	if !pixelBudgetFlag {
		return msg + " (this command has no --" + flagMaxPixels + " to raise the limit: crop or scale the image)"
	}
	// The 32-bit default is far below the 64-bit one (see the flag):
	// say so, lest it read as a limit of the format.
	note := ""
	if strconv.IntSize == 32 && pixelBudget == patches.DefaultMaxPixels {
		note = fmt.Sprintf("; 32-bit platforms default to %d pixels, within their address space", patches.DefaultMaxPixels)
	}
	return fmt.Sprintf("%s (raise the limit with --%s%s)", msg, flagMaxPixels, note)
}

// numberRange is the documented range of a numeric flag: lo (or above it,
// if open) to hi.
type numberRange struct {
	lo, hi float64
	open   bool // lo excluded
}

func (r numberRange) String() string {
	lo := "["
	if r.open {
		lo = "("
	}
	hi := "∞)"
	if !math.IsInf(r.hi, 1) {
		hi = formatFloat(r.hi) + "]"
	}
	return lo + formatFloat(r.lo) + ", " + hi
}

var inf = math.Inf(1)

// flagRanges are the documented ranges of the numeric flags, by name
// (the same name has the same range in every command). A flag given
// explicitly is checked, 0 included: --patch 0 trained a 2×2 model.
var flagRanges = map[string]numberRange{
	flagPatch:        {1, codec.MaxPatch, false},
	flagBins:         {1, inf, false},
	flagBPP:          {0, inf, true},
	flagStep:         {0, codec.MaxStep, true},
	flagEffort:       {codec.MinEffort, codec.MaxEffort, false},
	flagSamples:      {2, inf, false},
	flagResolution:   {1, inf, false},
	flagMaxReference: {1, inf, false},
	flagWorkers:      {0, inf, false}, // 0: all CPUs
	flagLUTSize:      {adapt.MinLUTSize, adapt.MaxLUTSize, false},
}

// --k, --tau, --bandwidth, --conditioning, --neighbours, --tol,
// --max-iter and --n are checked by their commands, with their own
// messages.

// codec train's --patch, --bins and --bpp and every --step take codec's
// bounds (codec.MaxPatch, MaxBins, MaxTrainBPP, MaxStep): --step 1e300
// was refused per image, as if the image were at fault.

// checkRanges checks the numeric flags given to the command of c against
// flagRanges.
func checkRanges(c *cli.Context) error {
	_, late := cliutil.SplitArgs(c)
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		r, ok := flagRanges[name]
		if !ok {
			continue
		}
		var values []float64
		if c.IsSet(name) {
			switch x := c.Value(name).(type) {
			case int:
				values = append(values, float64(x))
			case int64:
				values = append(values, float64(x))
			case float64:
				values = append(values, x)
			}
		}
		for _, s := range late[name] { // given after the positional arguments
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				values = append(values, v)
			}
		}
		for _, v := range values {
			// Infinities too: ∞ closes no range (--bpp Inf passed).
			if v < r.lo || r.open && v == r.lo || v > r.hi || math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("%s: --%s %s is out of its range %v", cliutil.CommandName(c), name, formatFloat(v), r)
			}
		}
	}
	return nil
}
