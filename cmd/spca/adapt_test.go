package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/patches"
)

// loadPNG reads an image written by a command.
func loadPNG(t *testing.T, path string) image.Image {
	t.Helper()
	img, err := patches.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestSynthScenes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pairs")
	mustRun(t, "synth", "scenes", "--n", "3", "--seed", "4", "--size", "24x16", "--out", dir)
	for _, sub := range []string{"a", "b"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "scene-0.png scene-1.png scene-2.png" {
			t.Errorf("%s: files %v", sub, names)
		}
		img := loadPNG(t, filepath.Join(dir, sub, "scene-1.png"))
		if img.Bounds().Dx() != 24 || img.Bounds().Dy() != 16 || adapt.BitDepth(img) != 16 {
			t.Errorf("%s: %T %v, want a 16-bit 24×16 image", sub, img, img.Bounds())
		}
	}
	wantError(t, []string{"synth", "scenes", "--n", "2"}, "synth scenes: --out must name a directory")
	wantError(t, []string{"synth", "scenes", "--size", "12", "--out", dir}, `--size: "12" is not WIDTHxHEIGHT`)
	wantError(t, []string{"synth", "scenes", "--size", "0x5", "--out", dir}, "must be in [1, 32768]")
	wantError(t, []string{"synth", "scenes", "--latent", "--out", dir}, "--latent does not apply")
	wantError(t, []string{"synth", "scenes", "--n", "0", "--out", dir}, "--n 0 not in")
}

// adaptShared holds the pairs and the model of adaptSetup, made once for
// the package's tests (the model's training was most of their time) and
// removed by TestMain.
var adaptShared struct {
	once               sync.Once
	root, pairs, model string
}

// TestMain removes adaptSetup's shared directory after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if adaptShared.root != "" {
		os.RemoveAll(adaptShared.root)
	}
	os.Exit(code)
}

// adaptSetup returns a new directory for the test's own files, and small
// generated pairs with a model trained on them, shared by the tests (read
// only).
func adaptSetup(t *testing.T) (dir, pairs, model string) {
	t.Helper()
	s := &adaptShared
	s.once.Do(func() {
		root, err := os.MkdirTemp("", "spca-adapt-test-")
		if err != nil {
			t.Fatal(err)
		}
		s.root = root
		p := filepath.Join(root, "pairs")
		mustRun(t, "synth", "scenes", "--n", "30", "--seed", "7", "--size", "32x24", "--out", p)
		m := filepath.Join(root, "adapt.model")
		_, stderr := mustRun(t, "adapt", "train", "--pairs", p, "--samples", "4000", "--resolution", "16384", "--out", m)
		// The default alignment (auto) keeps the gains on generated
		// scenes: no linear map explains their pairs.
		if !strings.Contains(stderr, "adapt train: alignment: gains (auto: residual of the 3×3 matrix on the pairs 0.") ||
			!strings.Contains(stderr, "adapt train: 30 images of A, 30 images of B, 4000 + 4000 colours (distinct at 6 bits: ") ||
			!strings.Contains(stderr, "gamma 1") || strings.Contains(stderr, "warning") {
			t.Errorf("train summary %q", stderr)
		}
		s.pairs, s.model = p, m
	})
	if s.model == "" {
		t.Fatal("the shared pairs and model were not made (see the first test that failed)")
	}
	return t.TempDir(), s.pairs, s.model
}

func TestAdaptWorkflow(t *testing.T) {
	dir, pairs, model := adaptSetup(t)
	inB := filepath.Join(pairs, "b", "scene-03.png")

	// Training from --env-a and --env-b file lists gives a model too.
	model2 := filepath.Join(dir, "m2.model")
	mustRun(t, "adapt", "train", "--quiet", "--env-a", filepath.Join(pairs, "a", "scene-00.png")+","+filepath.Join(pairs, "a", "scene-01.png"),
		"--env-b", filepath.Join(pairs, "b"), "--samples", "1000", "--resolution", "4096", "--out", model2)

	// info describes an adaptation model.
	checkInfoHeader(t, model, kindAdapt)
	stdout, _ := mustRun(t, "info", model, "--json")
	var info struct {
		Kind     string    `json:"kind"`
		SamplesA int       `json:"samples_a"`
		WhiteB   []float64 `json:"white_b_xyz"`
		A        struct {
			Dimension int     `json:"dimension"`
			Gamma     float64 `json:"gamma"`
		} `json:"spca_a"`
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil {
		t.Fatalf("info --json: %v\n%s", err, stdout)
	}
	if info.Kind != "adaptation model" || info.SamplesA != 4000 || len(info.WhiteB) != 3 || info.A.Dimension != 3 || info.A.Gamma != 1 {
		t.Errorf("info --json of an adaptation model: %+v", info)
	}
	if stdout, _ := mustRun(t, "info", model); !strings.Contains(stdout, "environment B") || !strings.Contains(stdout, "4000 training colours") {
		t.Errorf("info of an adaptation model:\n%s", stdout)
	}

	// apply, one input: the output keeps size and bit depth.
	out := filepath.Join(dir, "out.png")
	mustRun(t, "adapt", "apply", "--model", model, "--lut-size", "17", "-o", out, inB)
	src, res := loadPNG(t, inB), loadPNG(t, out)
	if res.Bounds() != src.Bounds() || adapt.BitDepth(res) != 16 {
		t.Errorf("output %T %v, input %T %v", res, res.Bounds(), src, src.Bounds())
	}
	// The correction brightens and de-yellows: the mean blue of the
	// output exceeds the input's.
	if meanChannel(res, 2) <= meanChannel(src, 2) {
		t.Errorf("blue %.0f after correction, %.0f before", meanChannel(res, 2), meanChannel(src, 2))
	}
	// - reads stdin and -o - writes stdout, as its help says (both failed:
	// "save -: unsupported extension", "-: no such file or directory"), the
	// same pixels as the file and no summary line on stderr.
	piped, stderr := pipeStderr(t, readBytes(t, inB), "adapt", "apply", "--model", model, "--lut-size", "17", "-o", "-", "-")
	fromPipe, err := patches.Decode(bytes.NewReader(piped))
	if err != nil {
		t.Fatalf("adapt apply -o - -: %v", err)
	}
	if !sameRGBA64(fromPipe, res) {
		t.Error("adapt apply from stdin to stdout: other pixels than to a file")
	}
	if stderr != "" {
		t.Errorf("adapt apply to stdout printed %q on stderr, want nothing", stderr)
	}
	wantError(t, []string{"adapt", "apply", "--model", model, "--json", "-o", "-", inB}, "--json needs -o FILE or DIR")

	// Several inputs into a directory, every method, the exact path, and
	// an 8-bit image with alpha: 8 bits and alpha kept.
	img8 := image.NewNRGBA(image.Rect(0, 0, 20, 10))
	for i := range 200 {
		img8.Set(i%20, i/20, color.NRGBA{uint8(40 + i), uint8(20 + i/2), 30, uint8(55 + i)})
	}
	in8 := filepath.Join(dir, "alpha.png")
	if err := patches.Save(in8, img8); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"spca", "pca-whitening", "grayworld", "bradford", "cat02"} {
		outDir := filepath.Join(dir, "out-"+method)
		mustRun(t, "adapt", "apply", "--model", model, "--method", method, "--lut-size", "9", "-o", outDir, inB, in8)
		got := loadPNG(t, filepath.Join(outDir, "alpha.png"))
		if adapt.BitDepth(got) != 8 || got.Bounds() != img8.Bounds() {
			t.Fatalf("%s: 8-bit input gave %T %v", method, got, got.Bounds())
		}
		for i := range 200 {
			_, _, _, a := got.At(i%20, i/20).RGBA()
			if uint8(a>>8) != uint8(55+i) {
				t.Fatalf("%s: alpha of pixel %d is %d, want %d", method, i, a>>8, 55+i)
			}
		}
		if _, err := os.Stat(filepath.Join(outDir, "scene-03.png")); err != nil {
			t.Error(err)
		}
	}
	exact := filepath.Join(dir, "exact.png")
	mustRun(t, "adapt", "apply", "--model", model, "--exact", "-o", exact, in8)
	if adapt.BitDepth(loadPNG(t, exact)) != 8 {
		t.Error("exact path changed the bit depth")
	}

	// lut: a valid .cube file; also to stdout.
	cube := filepath.Join(dir, "map.cube")
	// --size is the old spelling of --lut-size, still accepted.
	mustRun(t, "adapt", "lut", "--model", model, "--size", "9", "-o", cube)
	l, err := adapt.LoadCube(cube)
	if err != nil {
		t.Fatal(err)
	}
	if l.Size != 9 || !strings.Contains(l.Title, "spca") {
		t.Errorf("LUT size %d title %q", l.Size, l.Title)
	}
	stdout, stderr = mustRun(t, "adapt", "lut", "--model", model, "--method", "grayworld", "--lut-size", "3", "-o", "-")
	if !strings.Contains(stdout, "LUT_3D_SIZE 3\n") || strings.Count(stdout, "\n") != 27+5 {
		t.Errorf("LUT on stdout:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("adapt lut -o - printed %q on stderr, want no summary", stderr)
	}
	// Without --lut-size: the size adapt apply uses (it was 33 against
	// apply's 65 before session 28), whose SPCA nodes the model stores:
	// written as stored, not rebuilt.
	def := filepath.Join(dir, "default.cube")
	mustRun(t, "adapt", "lut", "--model", model, "-o", def)
	ld, err := adapt.LoadCube(def)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := adapt.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Size != adapt.DefaultLUTSize || stored.LUT == nil || !slices.Equal(ld.Table, stored.LUT.Table) {
		t.Errorf("adapt lut without --lut-size: %d nodes per axis, want the %d-node LUT the model stores", ld.Size, adapt.DefaultLUTSize)
	}

	// map: colours in three spaces, written back in the same space.
	csv := filepath.Join(dir, "colours.csv")
	writeFile(t, csv, "# B colours\n0.3,0.25,0.08\n0.05,0.04,0.02\n")
	for _, space := range []string{"xyz", "lms", "srgb"} {
		mapped := filepath.Join(dir, "mapped-"+space+".csv")
		_, stderr := mustRun(t, "adapt", "map", "--model", model, "--space", space, "--in", csv, "--out", mapped)
		// The one-line summary of a run writing a file, as fit's.
		if want := "adapt map: 2 colours (" + space + ") mapped from B to A by spca -> " + mapped + "\n"; !strings.HasSuffix(stderr, want) {
			t.Errorf("map --space %s: stderr %q, want the summary %q", space, stderr, want)
		}
		m := readCSV(t, mapped)
		if r, c := m.Dims(); r != 2 || c != 3 {
			t.Errorf("%s: %d×%d", space, r, c)
		}
	}
	if h := firstLine(t, filepath.Join(dir, "mapped-xyz.csv")); h != "# X,Y,Z" {
		t.Errorf("header %q", h)
	}
	// Outside the training colours: a warning and the share in JSON
	// (grey and white are far from B's orange colours, the second colour
	// is one of B's).
	writeFile(t, csv, "0.5,0.5,0.5\n1,1,1\n0.3,0.2,0.1\n")
	stdout, stderr = mustRun(t, "adapt", "map", "--model", model, "--space", "srgb", "--in", csv, "--out", filepath.Join(dir, "far.csv"), "--json")
	var share struct {
		Colours      int     `json:"colours"`
		OutsideShare float64 `json:"outside_share"`
	}
	if err := json.Unmarshal([]byte(stdout), &share); err != nil || share.Colours != 3 || share.OutsideShare < 0.6 {
		t.Errorf("map --json: %q (%v)", stdout, err)
	}
	// Colours count one by one: how many, not only a share.
	if !regexp.MustCompile(`adapt map: warning: [23] of the 3 colours \([0-9.]+ %\) lie outside the training colours of B`).MatchString(stderr) {
		t.Errorf("map: no warning with the count on stderr: %q", stderr)
	}
	stdout, _ = mustRun(t, "adapt", "apply", "--model", model, "-o", filepath.Join(dir, "j.png"), inB, "--json")
	var rep []struct {
		Input        string  `json:"input"`
		OutsideShare float64 `json:"outside_share"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep) != 1 || rep[0].Input != inB || !(rep[0].OutsideShare >= 0 && rep[0].OutsideShare < 0.05) {
		t.Errorf("apply --json on a training-like image: %q (%v)", stdout, err)
	}

	// eval on the pairs with the model, JSON.
	// --max-pixels, elsewhere a limit on the images read, is the hidden
	// old name of --eval-pixels here.
	stdout, _ = mustRun(t, "adapt", "eval", "--pairs", pairs, "--model", model, "--max-pixels", "2500", "--json")
	if !strings.Contains(stdout, `"pixels": 2500,`) {
		t.Errorf("eval --max-pixels 2500: %s", stdout)
	}
	if help, _ := mustRun(t, "adapt", "eval", "--help"); !strings.Contains(help, "--eval-pixels N") || strings.Contains(help, "--max-pixels") {
		t.Errorf("adapt eval --help: want --eval-pixels and no --max-pixels:\n%s", help)
	}
	wantError(t, []string{"adapt", "eval", "--pairs", pairs, "--model", model, "--eval-pixels", "3000", "--max-pixels", "2000"}, "give only --eval-pixels")
	stdout, _ = mustRun(t, "adapt", "eval", "--pairs", pairs, "--model", model, "--eval-pixels", "3000", "--json")
	var ev struct {
		Evaluated string
		Pixels    int
		Methods   []adapt.MethodResult
	}
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if ev.Pixels != 3000 || len(ev.Methods) != len(adapt.Methods()) || ev.Evaluated != "30 image pairs in "+pairs {
		t.Errorf("eval JSON: %+v", ev)
	}
	unc := ev.Methods[len(ev.Methods)-1]
	if unc.Method != "uncorrected" || ev.Methods[0].All.Mean >= unc.All.Mean {
		t.Errorf("spca %.2f, %s %.2f", ev.Methods[0].All.Mean, unc.Method, unc.All.Mean)
	}
	stdout, _ = mustRun(t, "adapt", "eval", "--pairs", pairs, "--max-pixels", "2000", "--samples", "3000", "--resolution", "4096")
	for _, want := range []string{"evaluated: 30 image pairs", "model: trained on the pairs themselves (not held out: --model evaluates a model trained on other images), gamma 1", "pca-whitening", "shadow mean"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval text lacks %q:\n%s", want, stdout)
		}
	}
}

// meanChannel returns the mean of channel k (0-65535) over the image.
// sameRGBA64 reports whether a and b have the same bounds and pixels.
func sameRGBA64(a, b image.Image) bool {
	r := a.Bounds()
	if r != b.Bounds() {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBA64Model.Convert(a.At(x, y)) != color.RGBA64Model.Convert(b.At(x, y)) {
				return false
			}
		}
	}
	return true
}

func meanChannel(img image.Image, k int) float64 {
	b := img.Bounds()
	s := 0.0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			s += float64([3]uint32{r, g, bl}[k])
		}
	}
	return s / float64(b.Dx()*b.Dy())
}

func TestAdaptErrors(t *testing.T) {
	dir, pairs, model := adaptSetup(t)
	out := filepath.Join(dir, "x.model")
	a := filepath.Join(pairs, "a")
	notImage := filepath.Join(dir, "notes.png")
	writeFile(t, notImage, "not an image\n")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	writeFile(t, filepath.Join(empty, "readme.txt"), "no images here\n")
	img8 := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := range 64 {
		img8.Set(i%8, i/8, color.NRGBA{uint8(3 * i), uint8(2 * i), uint8(i), 255})
	}
	dir8 := filepath.Join(dir, "eight")
	os.Mkdir(dir8, 0o755)
	patches.Save(filepath.Join(dir8, "p.png"), img8)
	spcaModel := filepath.Join(dir, "s.spca")
	data := filepath.Join(dir, "d.csv")
	mustRun(t, "synth", "spiral", "--n", "300", "--out", data)
	mustRun(t, "fit", "--in", data, "--out", spcaModel, "--quiet")

	// train
	wantError(t, []string{"adapt", "train", "--env-a", a, "--out", out}, "adapt train: give --env-a and --env-b, or --pairs")
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--env-a", a, "--out", out}, "not both")
	wantError(t, []string{"adapt", "train", "--env-a", a, "--env-b", empty, "--out", out}, "adapt train: --env-b, environment B: no image files", empty)
	wantError(t, []string{"adapt", "train", "--env-a", notImage, "--env-b", a, "--out", out}, notImage, "not an image")
	wantError(t, []string{"adapt", "train", "--env-a", a, "--env-b", dir8, "--out", out}, "mismatched bit depths", "image 1 of environment B has 8 bits")
	wantError(t, []string{"adapt", "train", "--pairs", pairs}, "missing --out")
	wantError(t, []string{"adapt", "train", "--pairs", filepath.Join(dir, "nope"), "--out", out}, "no such file")
	wantError(t, []string{"adapt", "train", "--pairs", dir, "--out", out}, "has no subdirectory a: it needs "+filepath.Join(dir, "a"))
	wantError(t, []string{"adapt", "eval", "--pairs", dir, "--model", model}, "adapt eval: --pairs "+dir+" has no subdirectory a")
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--gamma", "-1", "--out", out}, "--gamma")
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--white-a", "1,2", "--out", out}, "--white-a")
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--separate-geometry", "--shared-geometry", "--out", out}, "--separate-geometry and --shared-geometry contradict each other")
	// --no-gains overrode --align matrix in silence: no matrix fitted.
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--align", "matrix", "--no-gains", "--out", out}, "adapt train: --align matrix and --no-gains contradict each other")
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--bogus"}, "adapt train: flag provided but not defined: --bogus (see spca adapt train --help)")

	// apply
	inB := filepath.Join(pairs, "b", "scene-00.png")
	res := filepath.Join(dir, "r.png")
	wantError(t, []string{"adapt", "apply", "--model", spcaModel, "-o", res, inB}, "an SPCA model (spca fit), not an adaptation model")
	wantError(t, []string{"adapt", "apply", "--model", inB, "-o", res, inB}, "not an adaptation model")
	wantError(t, []string{"adapt", "apply", "--model", model, "--method", "magic", "-o", res, inB}, `unknown method "magic"`)
	wantError(t, []string{"adapt", "apply", "--model", model, "-o", res}, "adapt apply: no input images")
	wantError(t, []string{"adapt", "apply", "--model", model, "--lut-size", "1", "-o", res, inB}, "adapt apply: --lut-size 1 is out of its range [2, 256]")
	wantError(t, []string{"adapt", "apply", "--model", model, "--exact", "--lut-size", "129", "-o", res, inB}, "adapt apply: --exact and --lut-size contradict each other")
	wantError(t, []string{"adapt", "apply", "--model", model, "--lut-size", "5", "-o", res, notImage}, notImage, "not an image")

	// lut, map, eval
	wantError(t, []string{"adapt", "lut", "--model", model, "--lut-size", "300", "-o", res}, "adapt lut: --lut-size 300 is out of its range [2, 256]")
	wantError(t, []string{"adapt", "lut", "--model", spcaModel, "-o", filepath.Join(dir, "l.cube")}, "SPCA model")
	csv := filepath.Join(dir, "c.csv")
	writeFile(t, csv, "1,2\n")
	wantError(t, []string{"adapt", "map", "--model", model, "--in", csv}, "colours have 3 values per line, got 2")
	wantError(t, []string{"adapt", "map", "--model", model, "--space", "hsv", "--in", csv}, `--space: "hsv" is not one of xyz, lms, srgb`)
	bad := filepath.Join(dir, "badpairs")
	os.MkdirAll(filepath.Join(bad, "a"), 0o755)
	os.MkdirAll(filepath.Join(bad, "b"), 0o755)
	patches.Save(filepath.Join(bad, "a", "x.png"), img8)
	patches.Save(filepath.Join(bad, "b", "y.png"), img8)
	wantError(t, []string{"adapt", "eval", "--pairs", bad, "--model", model}, "has no counterpart")
	wantError(t, []string{"adapt", "nosuch"}, `adapt: unknown command "nosuch"`)
}

// TestMethodHelpListsEveryMethod checks that --method's help names every
// method --method accepts (uncorrected was accepted and listed by the
// error of an unknown method, not by the help).
func TestMethodHelpListsEveryMethod(t *testing.T) {
	help, _ := mustRun(t, "adapt", "apply", "--help")
	for _, m := range adapt.Methods() {
		if !strings.Contains(help, " "+m.String()) {
			t.Errorf("adapt apply --help does not name --method %s", m)
		}
	}
}

// TestAdaptAlignMatrix: adapt train --align matrix fits the alignment on
// the pairs, info shows it, eval adds the aligned row (the matrix alone)
// before uncorrected, and apply --method aligned maps by it; a bad
// --align value and image sets that are not pairs are refused.
func TestAdaptAlignMatrix(t *testing.T) {
	dir, pairs, shared := adaptSetup(t)
	// The shared model, trained with the default --align auto on
	// generated scenes, records its choice of the gains and the residual.
	var choice struct {
		Version   int `json:"format_version"`
		Alignment *struct {
			Asked, Chosen       string
			Residual, Threshold *float64
		} `json:"alignment"`
		Highlight []float64 `json:"highlight_gains"`
	}
	stdout, _ := mustRun(t, "info", shared, "--json")
	if err := json.Unmarshal([]byte(stdout), &choice); err != nil || choice.Version != 7 || len(choice.Highlight) != 3 || choice.Alignment == nil ||
		choice.Alignment.Asked != "auto" || choice.Alignment.Chosen != "gains" || choice.Alignment.Residual == nil ||
		!(*choice.Alignment.Residual > *choice.Alignment.Threshold) {
		t.Errorf("info --json of the default model: %+v (%v)\n%s", choice, err, stdout)
	}
	if stdout, _ := mustRun(t, "info", shared); !strings.Contains(stdout, "alignment choice  gains (auto: residual of the 3×3 matrix on the pairs 0.") ||
		!strings.Contains(stdout, "highlight gains") {
		t.Errorf("info of the default model:\n%s", stdout)
	}
	model := filepath.Join(dir, "matrix.model")
	mustRun(t, "adapt", "train", "--quiet", "--pairs", pairs, "--align", "matrix", "--samples", "3000", "--resolution", "4096", "--out", model)
	stdout, _ = mustRun(t, "info", model, "--json")
	var info struct {
		Version int       `json:"format_version"`
		Align   []float64 `json:"align"`
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil || len(info.Align) != 9 || info.Version != 7 {
		t.Errorf("info --json of a matrix model: %+v (%v)\n%s", info, err, stdout)
	}
	if stdout, _ := mustRun(t, "info", model); !strings.Contains(stdout, "alignment") || !strings.Contains(stdout, "not applied: the alignment matrix is") {
		t.Errorf("info of a matrix model:\n%s", stdout)
	}
	stdout, _ = mustRun(t, "adapt", "eval", "--pairs", pairs, "--model", model, "--eval-pixels", "2000", "--json")
	var ev struct{ Methods []adapt.MethodResult }
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	n := len(ev.Methods)
	if n != len(adapt.Methods())+1 || ev.Methods[n-2].Method != "aligned" || ev.Methods[n-1].Method != "uncorrected" ||
		!(ev.Methods[n-2].All.Mean < ev.Methods[n-1].All.Mean) {
		t.Errorf("eval of a matrix model: %+v", ev.Methods)
	}
	out := filepath.Join(dir, "aligned.png")
	mustRun(t, "adapt", "apply", "--quiet", "--model", model, "--method", "aligned", "-o", out, filepath.Join(pairs, "b", "scene-00.png"))
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	wantError(t, []string{"adapt", "train", "--pairs", pairs, "--align", "diagonal", "--out", model}, `--align: "diagonal" is not auto, gains or matrix`)
	wantError(t, []string{"adapt", "train", "--env-a", filepath.Join(pairs, "a", "scene-00.png"), "--env-b", filepath.Join(pairs, "b"),
		"--align", "matrix", "--samples", "1000", "--out", model}, "matrix alignment needs corresponding pairs: 1 images of A, 30 of B")
}

// A LUT larger than 129 nodes is announced before it is built (256: about
// 50 s, in silence off a terminal), not with --quiet; the note names the
// command, the size and the map.
func TestNoteLargeLUT(t *testing.T) {
	for _, c := range []struct {
		args []string
		size int
		want string
	}{
		{[]string{"spca"}, 130, "adapt apply: building a 130-node LUT: 2.2 million colours through the spca map, which takes tens of seconds (--lut-size 65, the default, is stored in the model for spca)\n"},
		{[]string{"spca", "--quiet"}, 256, ""},
		{[]string{"spca"}, 129, ""},
	} {
		var errOut bytes.Buffer
		app := &cli.App{Name: "adapt apply", Flags: []cli.Flag{&cli.BoolFlag{Name: "quiet"}}, ErrWriter: &errOut,
			Action: func(ctx *cli.Context) error { noteLargeLUT(ctx, "adapt apply", adapt.SPCA, c.size); return nil }}
		if err := app.Run(c.args); err != nil || errOut.String() != c.want {
			t.Errorf("%v, size %d: %v, %q; want %q", c.args, c.size, err, errOut.String(), c.want)
		}
	}
}
