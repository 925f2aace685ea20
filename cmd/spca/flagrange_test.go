package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
)

// TestRangeErrorsNameFlags: codec train's --bins and --bpp and synth's
// --n out of range are reported by the flag's name and range (issue 25,
// 'error messages name flags'; they were codec's and testimages' words:
// 'resolution 50 bins must be between n² = 64 and 32768', 'target of 30
// bits per pixel', 'number of samples -4 not in [1, 10000000]').
func TestRangeErrorsNameFlags(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.png")
	saveTexture(t, img, 1)
	model := filepath.Join(dir, "m.model")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"codec", "train", "--images", img, "-o", model, "--patch", "8", "--bins", "50"}, "codec train: --bins 50 is out of its range [n² = 64, 32768] for --patch 8"},
		{[]string{"codec", "train", "--images", img, "-o", model, "--patch", "2", "--bins", "40000"}, "codec train: --bins 40000 is out of its range [n² = 4, 32768] for --patch 2"},
		{[]string{"codec", "train", "--images", img, "-o", model, "--bpp", "30"}, "codec train: --bpp 30 is out of its range (0, 24] for training"},
		{[]string{"synth", "spiral", "--n", "-4"}, "synth: --n -4 is out of its range [1, 10000000]"},
		{[]string{"synth", "swissroll", "--n", "0"}, "synth: --n 0 is out of its range [1, 10000000]"},
		{[]string{"synth", "moons", "--n", "3"}, "synth: --n 3 is out of its range (an even number from 2"},
		{[]string{"synth", "arcs", "--n", "20000002"}, "synth: --n 20000002 is out of its range"},
	} {
		wantError(t, c.args, c.want)
	}
	// The edges of the ranges are taken.
	for _, c := range []struct{ set, n string }{{"moons", "2"}, {"spiral", "1"}} {
		out := filepath.Join(dir, c.set+".csv")
		mustRun(t, "synth", c.set, "--n", c.n, "-o", out)
		if b, err := os.ReadFile(out); err != nil || strings.Count(string(b), "\n") != 1+int(c.n[0]-'0') {
			t.Errorf("synth %s --n %s wrote %q (%v)", c.set, c.n, b, err)
		}
	}
}

// codec.MaxBins and MaxTrainBPP are codec.Train's bounds: it takes them (and
// fails for want of images) and refuses the next values.
func TestTrainBoundsAreCodecs(t *testing.T) {
	for _, c := range []struct {
		o  codec.TrainOptions
		ok bool
	}{
		{codec.TrainOptions{Patch: 2, Bins: codec.MaxBins}, true},
		{codec.TrainOptions{Patch: 2, Bins: codec.MaxBins + 1}, false},
		{codec.TrainOptions{Patch: 8, Bins: 64}, true},
		{codec.TrainOptions{Patch: 8, Bins: 63}, false},
		{codec.TrainOptions{Patch: 2, BPP: codec.MaxTrainBPP}, true},
		{codec.TrainOptions{Patch: 2, BPP: math.Nextafter(codec.MaxTrainBPP, 100)}, false},
	} {
		_, err := codec.Train(nil, &c.o)
		if ok := err != nil && strings.Contains(err.Error(), "no training images"); ok != c.ok {
			t.Errorf("codec.Train with %+v: %v", c.o, err)
		}
	}
}
