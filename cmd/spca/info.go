package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe a model file",
		UsageText: "spca info model.spca [--json]",
		Flags:     []cli.Flag{jsonFlag()},
		Action:    runInfo,
	}
}

// infoJSON is the JSON output of info.
type infoJSON struct {
	Dimension         int      `json:"dimension"`
	Gamma             number   `json:"gamma"`
	K                 number   `json:"k"`
	Tau               number   `json:"tau"`
	Q                 number   `json:"q"`
	Origin            string   `json:"origin"`
	OriginPoint       []number `json:"origin_point"`
	Tol               number   `json:"tol"`
	MaxIter           int      `json:"max_iter"`
	Seed              uint64   `json:"seed"`
	Resolution        int      `json:"resolution"`
	MaxReference      int      `json:"max_reference"`
	Bandwidth         number   `json:"bandwidth"`
	Conditioning      number   `json:"conditioning"`
	Neighbours        number   `json:"neighbours"`
	LatticeSize       []int    `json:"lattice_size"`
	Scale             []number `json:"scale"`
	MarginalEntropies []number `json:"marginal_entropies_bits"`
	MaxDistance       number   `json:"max_distance"`
}

func runInfo(c *cli.Context) error {
	args, err := positionals(c, 1, "one model file")
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		return err
	}
	model, err := loadModel(args[0])
	if err != nil {
		return err
	}
	opt := model.Options()
	info := infoJSON{
		Dimension:         model.Dim(),
		Gamma:             number(opt.Gamma),
		K:                 number(opt.K),
		Tau:               number(opt.Tau),
		Q:                 number(opt.Q),
		Origin:            opt.Origin.String(),
		OriginPoint:       numbers(model.Origin()),
		Tol:               number(opt.Tol),
		MaxIter:           opt.MaxIter,
		Seed:              opt.Seed,
		Resolution:        opt.Resolution,
		MaxReference:      opt.MaxReference,
		Bandwidth:         number(opt.Bandwidth),
		Conditioning:      number(opt.Conditioning),
		Neighbours:        number(opt.Neighbours),
		LatticeSize:       model.LatticeSize(),
		Scale:             numbers(model.Scale()),
		MarginalEntropies: numbers(model.MarginalEntropies()),
		MaxDistance:       number(model.MaxDistance()),
	}
	if c.Bool(flagJSON) {
		if err := writeJSON(c.App.Writer, info); err != nil {
			return fail("info: %v", err)
		}
		return nil
	}

	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	lattice := make([]string, len(info.LatticeSize))
	for i, g := range info.LatticeSize {
		lattice[i] = fmt.Sprint(g)
	}
	rows := [][2]string{
		{"model", args[0]},
		{"dimension", fmt.Sprint(info.Dimension)},
		{"gamma", formatFloat(opt.Gamma)},
		{"k", formatFloat(opt.K)},
		{"tau", formatFloat(opt.Tau)},
		{"q", formatFloat(opt.Q)},
		{"origin", info.Origin + " at " + formatFloats(model.Origin())},
		{"tol", formatFloat(opt.Tol)},
		{"max-iter", fmt.Sprint(opt.MaxIter)},
		{"seed", fmt.Sprint(opt.Seed)},
		{"resolution", fmt.Sprint(opt.Resolution)},
		{"max-reference", fmt.Sprint(opt.MaxReference)},
		{"bandwidth", formatFloat(opt.Bandwidth)},
		{"conditioning", formatFloat(opt.Conditioning)},
		{"neighbours", formatFloat(opt.Neighbours)},
		{"lattice", strings.Join(lattice, " × ") + " nodes"},
		{"scale", formatFloats(model.Scale())},
		{"marginal entropies", formatFloats(model.MarginalEntropies()) + " bits"},
		{"max distance", formatFloat(model.MaxDistance())},
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	if err := tw.Flush(); err != nil {
		return fail("info: %v", err)
	}
	return nil
}
