package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/testimages"
)

func synthCommand() *cli.Command {
	return &cli.Command{
		Name:  "synth",
		Usage: "generate a synthetic data set: " + strings.Join(testimages.Names(), ", ") + ", labelled (last column the class): " + strings.Join(testimages.ClassSets(), ", ") + ", or scenes or photos (image pairs)",
		UsageText: "spca synth NAME [--n 1000] [--seed 1] [-o data.csv] [--latent]\n" +
			"spca synth scenes [--n 8] [--seed 1] [--size 256x192] [--truth] -o DIR\n" +
			"spca synth photos --images DIR [--exposure 1] [--upsampling mallett2019|smits1999|jakob2019] -o DIR\n\n" +
			"scenes writes spectral scenes rendered under D65 (DIR/a/NAME.png) and under illuminant A " +
			"with lower light and more shadow (DIR/b/NAME.png), as 16-bit sRGB PNG with pixel correspondence; " +
			"--truth adds the colour-only truth DIR/b_d65/NAME.png (B's geometry and exposure, lit by D65).\n" +
			"photos takes photographs as environment A (sRGB, D65), estimates each pixel's reflectance spectrum " +
			"(Mallett & Yuksel 2019) and relights it with illuminant A, exposed so that white's red channel is " +
			"--exposure (DIR/b), and writes the colour-only truth (D65, same exposure; DIR/b_d65).",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: flagN, Value: 1000, Usage: "number of samples (scenes: number of scene pairs)", DefaultText: fmt.Sprintf("1000; scenes: %d", defaultScenes)},
			&cli.Uint64Flag{Name: flagSeed, Value: defaultSeed, Usage: "seed of the generator"},
			&cli.StringFlag{Name: flagOut, Aliases: []string{flagO}, Value: stdio, Usage: "output CSV `FILE`, - for stdout"},
			&cli.BoolFlag{Name: flagLatent, Usage: "append the latent coordinates as extra columns"},
			&cli.Float64Flag{Name: flagNoise, Usage: "standard deviation of the noise of swissroll and curve3d, in the units of the data", DefaultText: fmt.Sprintf("%g for swissroll, %g for curve3d", testimages.DefaultSwissRollNoise, testimages.DefaultCurve3DNoise)},
			&cli.StringFlag{Name: flagSize, Value: defaultSceneSize, Usage: "scenes: image size `WxH`"},
			&cli.BoolFlag{Name: flagTruth, Usage: "scenes: also write the colour-only truth (B's geometry, D65) to DIR/" + truthDir},
			&cli.StringFlag{Name: flagImages, Usage: "photos: the photographs, a `DIR` or one FILE"},
			&cli.Float64Flag{Name: flagExposure, Value: 1, Usage: "photos: exposure of B, the linear red value of white under illuminant A (0.5: one stop darker)"},
			&cli.StringFlag{Name: flagUpsampling, Value: testimages.MallettYuksel2019.String(), Usage: "photos: spectral upsampling of the photos' colours: mallett2019 (Mallett & Yuksel 2019, three basis spectra: B is a 3x3 matrix of A; A is the photo), smits1999 (Smits 1999, seven spectra, piecewise linear: B is not one matrix of A; A is the spectra under D65) or jakob2019 (Jakob & Hanika 2019, a sigmoid of a quadratic fitted per colour: smooth, non-linear; A is the spectra under D65)"},
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
	if args[0] == "scenes" {
		return runSynthScenes(c)
	}
	if args[0] == "photos" {
		return runSynthPhotos(c)
	}
	// The image sets' flags, and the unlabelled sets' for a labelled
	// one, were ignored unchecked (synth spiral --size foo wrote the
	// spiral), as photos and scenes refuse theirs.
	ignored := []string{flagSize, flagTruth, flagImages, flagExposure, flagUpsampling}
	labelled := slices.Contains(testimages.ClassSets(), args[0])
	if labelled {
		ignored = append(ignored, flagNoise, flagLatent)
	}
	for _, f := range ignored {
		if c.IsSet(f) {
			return fail("synth %s: --%s does not apply to this data set", args[0], f)
		}
	}
	if err := notImageName(c, c.String(flagOut), "CSV files for this data set"); err != nil {
		return err
	}
	if err := notModelName(c, c.String(flagOut)); err != nil {
		return err
	}
	// --n by its name (testimages said 'number of samples -4 not in [1,
	// 10000000]'), for the sets this program knows.
	if n := c.Int(flagN); (labelled || slices.Contains(testimages.Names(), args[0])) &&
		(n < 1 || n > testimages.MaxSamples || labelled && (n < 2 || n%2 != 0)) {
		want := fmt.Sprintf("[1, %d]", testimages.MaxSamples)
		if labelled {
			want = fmt.Sprintf("(an even number from 2 to %d: two classes of equal size)", testimages.MaxSamples)
		}
		return fail("synth: --%s %d is out of its range %s", flagN, n, want)
	}
	if labelled {
		// A labelled set: the samples and their class (0 or 1) last.
		l, err := testimages.GenerateClasses(args[0], c.Int(flagN), c.Uint64(flagSeed))
		if err != nil {
			return fail("synth: %s", strings.TrimPrefix(err.Error(), "testimages: "))
		}
		_, d := l.X.Dims()
		lab := mat.NewDense(len(l.Label), 1, nil)
		for i, v := range l.Label {
			lab.Set(i, 0, float64(v))
		}
		if err := writeSamples(c, joinColumns(l.X, lab), columnNames("x", d)+",label"); err != nil {
			return err
		}
		classes := fmt.Sprintf("0 to %d", len(l.Classes)-1)
		if len(l.Classes) == 2 {
			classes = "0 or 1"
		}
		synthSummary(c, args[0], len(l.Label), fmt.Sprintf("%s, then the class %s", cliutil.Plural(d, "column"), classes))
		return nil
	}
	if !slices.Contains(testimages.Names(), args[0]) {
		// testimages' error lists the unlabelled sets only.
		known := slices.Concat(testimages.Names(), testimages.ClassSets(), []string{"scenes", "photos"})
		return fail("synth: unknown data set %q%s (known: %s)", args[0], didYouMeanOf(args[0], known), strings.Join(known, ", "))
	}
	noise := -1.0 // the data set's default
	if c.IsSet(flagNoise) {
		if noise = c.Float64(flagNoise); !(noise >= 0) {
			return fail("synth: --%s must be >= 0, got %g", flagNoise, noise)
		}
	}
	s, err := testimages.GenerateNoisy(args[0], c.Int(flagN), noise, c.Uint64(flagSeed))
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
	if err := writeSamples(c, out, header); err != nil {
		return err
	}
	columns := cliutil.Plural(d, "column")
	if c.Bool(flagLatent) {
		columns += ", then the latent " + strings.Join(s.LatentNames, ", ")
	}
	n, _ := s.X.Dims()
	synthSummary(c, args[0], n, columns)
	return nil
}

// synthSummary prints the one-line summary of synth NAME for a CSV data
// set (the image sets print theirs), when wantSummary: it said nothing, so
// that with -o FILE a new user saw no sign of what was written.
func synthSummary(c *cli.Context, name string, n int, columns string) {
	if !wantSummary(c) {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "synth %s: %d samples (%s), seed %d -> %s\n",
		name, n, columns, c.Uint64(flagSeed), c.String(flagOut))
}

// joinColumns returns [a b], the columns of b after those of a.
func joinColumns(a, b mat.Matrix) *mat.Dense {
	var ab mat.Dense
	ab.Augment(a, b)
	return &ab
}
