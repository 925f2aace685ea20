package main

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// Defaults of synth scenes.
const (
	defaultScenes    = 8
	defaultSceneSize = "256x192"
	maxScenes        = 100000
	// maxScenePixels bounds a scene's pixels (4096×4096): rendering one
	// of 2048×2048 took 400 MB and 23 s, so the 32768×32768 that the
	// bound on each side let through asked for a 25 GB block at once.
	maxScenePixels = 1 << 24
)

// runSynthScenes writes n spectral scenes rendered under environments A
// and B as DIR/a/NAME.png and DIR/b/NAME.png (16-bit sRGB PNG).
func runSynthScenes(c *cli.Context) error {
	n := defaultScenes
	if c.IsSet(flagN) {
		n = c.Int(flagN)
	}
	if n < 1 || n > maxScenes {
		return fail("synth scenes: --%s %d not in [1, %d]", flagN, n, maxScenes)
	}
	for _, f := range []string{flagLatent, flagNoise} {
		if c.IsSet(f) {
			return fail("synth scenes: --%s does not apply to images", f)
		}
	}
	for _, f := range []string{flagImages, flagExposure, flagUpsampling} {
		if c.IsSet(f) {
			return fail("synth scenes: --%s applies to synth photos only", f)
		}
	}
	w, h, err := parseSize(c.String(flagSize))
	if err != nil {
		return fail("synth scenes: --%s: %v", flagSize, err)
	}
	dir := c.String(flagOut)
	if !c.IsSet(flagOut) || dir == stdio || dir == "" {
		return fail("synth scenes: --%s must name a directory (it gets subdirectories a and b)", flagOut)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fail("synth scenes: --%s %s is a file, not a directory", flagOut, dir)
	}
	subs := []string{"a", "b"}
	if c.Bool(flagTruth) {
		subs = append(subs, truthDir)
	}
	if err := makeSubdirs(dir, subs...); err != nil {
		return err
	}
	seed := c.Uint64(flagSeed)
	digits := len(strconv.Itoa(n - 1))
	start := time.Now()
	bars := cliutil.NewProgress(c)
	progress := bars.Callback()
	for i := range n {
		if progress != nil {
			progress("scenes", i, n)
		}
		a, b := testimages.Scene(w, h, testimages.SceneSeed(seed, i))
		name := fmt.Sprintf("scene-%0*d.png", digits, i)
		imgs := []image.Image{a, b}
		if c.Bool(flagTruth) {
			imgs = append(imgs, testimages.SceneTruth(w, h, testimages.SceneSeed(seed, i)))
		}
		for j, img := range imgs {
			path := filepath.Join(dir, subs[j], name)
			if err := patches.Save(path, img); err != nil {
				bars.Finish()
				return fail("%s", withPathC(path, err))
			}
		}
	}
	if progress != nil {
		progress("scenes", n, n)
	}
	bars.Finish()
	if !cliutil.Quiet(c) {
		fmt.Fprintf(c.App.ErrWriter, "synth scenes: %s of %d×%d, seed %d, in %s -> %s/a, %s/b\n",
			cliutil.Plural(n, "scene"), w, h, seed, time.Since(start).Round(time.Millisecond), dir, dir)
	}
	return nil
}

// parseSize parses "WxH" (or "W×H") with positive dimensions up to
// testimages.MaxSceneSize.
func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.ReplaceAll(s, "×", "x")), "x")
	w, errW := strconv.Atoi(strings.TrimSpace(ws))
	h, errH := strconv.Atoi(strings.TrimSpace(hs))
	if !ok || errW != nil || errH != nil {
		return 0, 0, fmt.Errorf("%q is not WIDTHxHEIGHT", s)
	}
	if w < 1 || h < 1 || w > testimages.MaxSceneSize || h > testimages.MaxSceneSize {
		return 0, 0, fmt.Errorf("%q: width and height must be in [1, %d]", s, testimages.MaxSceneSize)
	}
	if w*h > maxScenePixels {
		return 0, 0, fmt.Errorf("%q is %d pixels, more than %d (a scene takes ~100 bytes a pixel while rendered)", s, w*h, maxScenePixels)
	}
	return w, h, nil
}
