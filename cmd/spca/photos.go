package main

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// Flags of synth photos and synth scenes --truth.
const (
	flagExposure = "exposure"
	flagTruth    = "truth"
	// flagUpsampling names the spectral upsampling of synth photos.
	flagUpsampling = "upsampling"
	// truthDir is the subdirectory of a pairs directory that holds the
	// colour-only truth (B's geometry and exposure, D65 colours).
	truthDir = "b_d65"
)

// runSynthPhotos writes, for each photograph, environment A (the photo),
// B (relit with illuminant A) and the colour-only truth as
// DIR/{a,b,b_d65}/NAME.png.
func runSynthPhotos(c *cli.Context) error {
	for _, f := range []string{flagLatent, flagSize, flagN, flagSeed, flagNoise, flagTruth} {
		if c.IsSet(f) {
			return fail("synth photos: --%s does not apply to photos", f)
		}
	}
	exposure := c.Float64(flagExposure)
	if !(exposure > 0 && exposure <= 16) || math.IsInf(exposure, 0) {
		return fail("synth photos: --%s %g not in (0, 16]", flagExposure, exposure)
	}
	up, err := testimages.ParseUpsampling(c.String(flagUpsampling))
	if err != nil {
		return fail("synth photos: --%s: %s", flagUpsampling, strings.TrimPrefix(err.Error(), "testimages: "))
	}
	if !c.IsSet(flagImages) {
		return fail("synth photos: --%s is required (the photographs, taken as environment A)", flagImages)
	}
	paths, err := expandImages([]string{c.String(flagImages)}, "synth photos")
	if err != nil {
		return err
	}
	dir, err := pairsOutDir(c, "synth photos")
	if err != nil {
		return err
	}
	if err := makeSubdirs(dir, "a", "b", truthDir); err != nil {
		return err
	}
	start := time.Now()
	bars := cliutil.NewProgress(c)
	progress := bars.Callback()
	for i, p := range paths {
		if progress != nil {
			progress("photos", i, len(paths))
		}
		a, err := loadImage(p)
		if err != nil {
			bars.Finish()
			return err
		}
		// A is written at 16 bits as B is (adapt refuses mixed depths).
		a16, b, truth := testimages.RelightPhotoWith(a, exposure, up)
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) + ".png"
		for j, img := range []image.Image{a16, b, truth} {
			out := filepath.Join(dir, []string{"a", "b", truthDir}[j], name)
			if err := patches.Save(out, img); err != nil {
				bars.Finish()
				return fail("%s", withPathC(out, err))
			}
		}
	}
	if progress != nil {
		progress("photos", len(paths), len(paths))
	}
	bars.Finish()
	if !cliutil.Quiet(c) {
		wb, wt := testimages.PhotoWhitesWith(exposure, up)
		method := "Mallett-Yuksel 2019 spectra"
		switch up {
		case testimages.Smits1999:
			method = "Smits 1999 spectra; A = the spectra under D65"
		case testimages.JakobHanika2019:
			method = "Jakob-Hanika 2019 spectra; A = the spectra under D65"
		}
		fmt.Fprintf(c.App.ErrWriter, "synth photos: %s relit with illuminant A (%s), exposure %g, in %s -> %s/a, %s/b, %s/%s\n"+
			"whites for --white-a/--white-b: B %.5f,%.5f,%.5f; truth %.5f,%.5f,%.5f\n",
			cliutil.Plural(len(paths), "photo"), method, exposure, time.Since(start).Round(time.Millisecond), dir, dir, dir, truthDir,
			wb[0], wb[1], wb[2], wt[0], wt[1], wt[2])
	}
	return nil
}

// pairsOutDir returns --out, which must name a directory (existing or
// not).
func pairsOutDir(c *cli.Context, what string) (string, error) {
	dir := c.String(flagOut)
	if !c.IsSet(flagOut) || dir == stdio || dir == "" {
		return "", fail("%s: --%s must name a directory (it gets subdirectories a and b)", what, flagOut)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", fail("%s: --%s %s is a file, not a directory", what, flagOut, dir)
	}
	return dir, nil
}

func makeSubdirs(dir string, subs ...string) error {
	for _, sub := range subs {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fail("--%s: %s", flagOut, pathError(err))
		}
	}
	return nil
}
