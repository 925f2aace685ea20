package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// tinyCodecModel writes a small codec model's file to dir and returns its
// path.
func tinyCodecModel(t *testing.T, dir string) string {
	t.Helper()
	o := codec.DefaultTrainOptions()
	o.Samples, o.Bins, o.SPCA.Resolution = 300, 30, 1024
	return savedModel(t, filepath.Join(dir, "tiny.model"), o)
}

// savedFiles holds the files savedModel wrote first, by options.
var savedFiles struct {
	sync.Mutex
	files map[string]savedFile
}

type savedFile struct {
	data []byte
	mode os.FileMode
}

// savedModel writes to path the file (bytes and mode) of the codec model
// trained with options o on a 64×64 texture. The first call with these
// options trains the model and saves it there; later calls write the same
// file again: training and saving give the same bytes every time, and the
// save built the model's fast path (0.4 s of its 0.6), ten times over in
// this package's tests.
func savedModel(t *testing.T, path string, o codec.TrainOptions) string {
	t.Helper()
	key := fmt.Sprintf("%#v", o)
	savedFiles.Lock()
	defer savedFiles.Unlock()
	if f, ok := savedFiles.files[key]; ok {
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, f.mode); err != nil { // WriteFile's mode went through the umask
			t.Fatal(err)
		}
		return path
	}
	m, err := codec.Train([]image.Image{testimages.Texture(64, 64, 5)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if savedFiles.files == nil {
		savedFiles.files = map[string]savedFile{}
	}
	savedFiles.files[key] = savedFile{data, fi.Mode().Perm()}
	return path
}

// Issue 23: images beyond the pixel budget are refused from their header
// with a message naming --max-pixels, which raises the budget.
func TestPixelBudget(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	huge := filepath.Join(dir, "huge.png")
	if err := os.WriteFile(huge, hostile.ZeroPNG(16384, 16384), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "huge.spc")
	wantError(t, []string{"encode", "--model", model, "-o", out, huge}, "huge.png", "16384×16384", "--max-pixels")
	if exists(out) {
		t.Error("an output was written")
	}
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3) // 96×64
	spc := filepath.Join(dir, "c.spc")
	wantError(t, []string{"encode", "--model", model, "--max-pixels", "6143", "-o", spc, img}, "c.png", "--max-pixels")
	mustRun(t, "encode", "--model", model, "--max-pixels", "6144", "-o", spc, img)
	wantError(t, []string{"decode", "--model", model, "--max-pixels", "6143", "-o", filepath.Join(dir, "d.png"), spc}, "c.spc", "96×64", "--max-pixels")
	mustRun(t, "decode", "--model", model, "--max-pixels", "6144", "-o", filepath.Join(dir, "d.png"), spc)
	// The same budget for an image on standard input, which is read by
	// its own call (loadInputImage): without --max-pixels there it took
	// the default budget whatever the flag said.
	app := newApp()
	var sink bytes.Buffer
	app.Reader, app.Writer, app.ErrWriter = bytes.NewReader(readBytes(t, img)), &sink, &sink
	if err := app.Run([]string{"spca", "encode", "--model", model, "--max-pixels", "6143", "-o", spc, "-"}); err == nil ||
		!strings.Contains(errorLine(err), "stdin") || !strings.Contains(errorLine(err), "--max-pixels") {
		t.Errorf("encode - of 6144 pixels under --max-pixels 6143: %v, want an error naming stdin and --max-pixels", err)
	}
	pipeStderr(t, readBytes(t, img), "encode", "--model", model, "--max-pixels", "6144", "-o", spc, "-")
	// Budgets beyond a 32-bit int (loadOptions): on 386 and arm they
	// wrapped to 0 and to a negative number, which refused every image.
	mustRun(t, "encode", "--model", model, "--max-pixels", "4294967296", "-o", spc, img)
	pipeStderr(t, readBytes(t, img), "encode", "--model", model, "--max-pixels", "2147483648", "-o", spc, "-")
	// 4294967295×4294967295 overflowed the size check: spca info printed
	// it with -0.000 bits per pixel and exited 0.
	wide := readBytes(t, spc)
	for i := len(codec.Magic) + 1 + 32; i < len(codec.Magic)+1+32+8; i++ {
		wide[i] = 0xff
	}
	widePath := filepath.Join(dir, "wide.spc")
	if err := os.WriteFile(widePath, wide, 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, []string{"info", widePath}, "4294967295×4294967295 out of range")
	wantError(t, []string{"encode", "--model", model, "--max-pixels", "0", "-o", spc, img}, "--max-pixels 0 is out of its range")
}

// Session 30's question 9: on 32-bit platforms the default budget is
// 2^23 - 1 pixels (patches.DefaultMaxPixels): an .spc file declaring
// just under the 64-bit default of 10^8 made a 32-bit spca die out of
// memory, and is refused there from its header, the message naming the
// budget and --max-pixels. On 64-bit platforms the budget admits it, and
// the streams of a 96×64 image refuse it (as before). --help states both
// defaults.
func TestDefaultBudget32(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3) // 96×64
	spc := filepath.Join(dir, "c.spc")
	mustRun(t, "encode", "--model", model, "-o", spc, img)
	big := readBytes(t, spc)
	at := len(codec.Magic) + 1 + 32 // width and height
	binary.LittleEndian.PutUint32(big[at:], 10000)
	binary.LittleEndian.PutUint32(big[at+4:], 9992)
	bigPath := filepath.Join(dir, "big.spc")
	if err := os.WriteFile(bigPath, checksum.Refresh(big), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"decode", "--model", model, "-o", filepath.Join(dir, "big.png"), bigPath}
	if strconv.IntSize == 32 {
		wantError(t, args, "big.spc", "10000×9992", "more than the budget of 8388607", "--max-pixels", "32-bit platforms default to 8388607")
	} else {
		stdout, _, err := run(t, args...)
		if line := errorLine(err); err == nil || strings.Contains(line, "budget") || !strings.Contains(line, "big.spc") {
			t.Errorf("64-bit: decode of 10000×9992 in the streams of 96×64: %v (stdout %q), want an error of the streams", line, stdout)
		}
	}
	help, _ := mustRun(t, "decode", "--help")
	if !strings.Contains(help, "100000000 on 64-bit platforms and 8388607 on 32-bit ones") ||
		!strings.Contains(help, fmt.Sprintf("(default: %d)", patches.DefaultMaxPixels)) {
		t.Errorf("decode --help does not state the defaults of --max-pixels:\n%s", help)
	}
}

// Issue 23: numeric flags are checked against their documented ranges, 0
// included, before any work (codec train --patch 0 trained a 2×2 model).
func TestFlagRanges(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m")
	imgs := filepath.Join(dir, "images")
	if err := os.Mkdir(imgs, 0o755); err != nil {
		t.Fatal(err)
	}
	saveTexture(t, filepath.Join(imgs, "a.png"), 1)
	for _, args := range [][]string{
		{"codec", "train", "--images", dir, "--patch", "0", "--out", out},
		{"codec", "train", "--images", dir, "--patch", "16", "--out", out},
		{"codec", "train", "--images", dir, "--bins", "0", "--out", out},
		{"codec", "train", "--images", dir, "--samples", "0", "--out", out},
		{"codec", "train", "--images", dir, "--bpp", "-1", "--out", out},
		{"codec", "train", "--images", dir, "--bpp", "Inf", "--out", out}, // passed the range, caught later in other words
		{"codec", "train", "--images", dir, "--step", "70000", "--out", out},
		{"encode", "--model", out, "--step", "1e300", "-o", out + ".spc", out}, // refused per image, naming the image
		{"encode", "--model", out, "--step", "NaN", "-o", out + ".spc", out},
		{"encode", "--model", out, "--bpp", "+Inf", "-o", out + ".spc", out},
		{"fit", "--in", out, "--resolution", "0", "--out", out},
		{"fit", "--in", out, "--max-reference", "0", "--out", out},
		{"fit", "--in", out, "--workers", "-1", "--out", out},
		{"encode", "--model", out, "-o", out + ".spc", out, "--max-pixels", "-3"}, // after the positional argument
		{"adapt", "apply", "--model", out, "-o", out + ".png", out, "--workers", "-1"},
		{"codec", "train", "--images", imgs, "--k", "0", "--out", out}, // codec's K = 0 means its default
		{"adapt", "eval", "--eval-pixels", "-1"},                       // a subsample size, 0: all
		{"adapt", "eval", "--max-pixels", "-1"},                        // its old name
	} {
		wantError(t, args, "out of its range")
	}
	if exists(out) {
		t.Error("an output was written")
	}
}

// Binary files cannot go to standard output: each writer of one says so
// before any work (binaryOutput).
func TestBinaryOutputNotStdout(t *testing.T) {
	dir := t.TempDir()
	saveTexture(t, filepath.Join(dir, "a.png"), 1)
	for _, args := range [][]string{
		{"fit", "--in", filepath.Join(dir, "d.csv"), "-o", "-"},
		{"classify", "train", "--in", filepath.Join(dir, "d.csv"), "-o", "-"},
		{"codec", "train", "--images", dir, "-o", "-"},
		{"adapt", "train", "--env-a", dir, "--env-b", dir, "-o", "-"},
	} {
		wantError(t, args, "--out must name a file")
		// An existing directory is refused before the work too: adapt
		// train trained for 15 s, then failed to write its model
		// ("write DIR is not a regular file").
		args[len(args)-1] = dir
		wantError(t, args, "--out "+dir+" is a directory")
	}
}

// adapt eval reads images within the default budget and has no flag to
// raise it (its hidden --max-pixels is the old name of --eval-pixels): the
// message for a too large image said "raise the limit with --max-pixels",
// which there set the subsample size and changed nothing.
func TestAdaptEvalTooLarge(t *testing.T) {
	pairs := t.TempDir()
	for _, side := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(pairs, side), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pairs, side, "x.png"), hostile.ZeroPNG(16384, 16384), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantError(t, []string{"adapt", "eval", "--pairs", pairs}, "x.png: image too large", "has no --max-pixels to raise the limit")
	// codec train's, after adapt eval's in the same process, still names it
	// (no closing parenthesis: 32-bit platforms add a remark inside it).
	wantError(t, []string{"codec", "train", "--images", filepath.Join(pairs, "a"), "-o", filepath.Join(pairs, "m.model")}, "(raise the limit with --max-pixels")
}

// codec.MaxStep, the range of --step, is codec's bound of a quantiser step.
func TestMaxStepIsCodecs(t *testing.T) {
	var m codec.Model
	if err := m.SetStep(codec.MaxStep); err != nil {
		t.Errorf("codec refuses --step %v, the top of its range: %v", float64(codec.MaxStep), err)
	}
	if err := m.SetStep(math.Nextafter(codec.MaxStep, inf)); err == nil {
		t.Errorf("codec accepts a step above %v, the top of --step's range", float64(codec.MaxStep))
	}
}

// A --k far above the default makes each local PCA take many more
// neighbours, and the fit as many times longer (codec train --k 1: 105 s
// against 5 s): codec train and fit warn before the work, with the
// count; not at the default or with few samples. Both fail right after
// here (constant data).
func TestLargeKWarning(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "c.csv")
	writeFile(t, csv, strings.Repeat("1,2\n", 5000))
	flat := filepath.Join(dir, "flat.png")
	if err := patches.Save(flat, image.NewGray(image.Rect(0, 0, 64, 64))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m")
	for _, c := range []struct {
		args []string
		want string // "" for no warning
	}{
		{[]string{"codec", "train", "--images", flat, "--k", "1", "-o", out},
			"codec train: warning: --k 1 makes each local PCA take 3000 neighbours of 3000 reference samples (300 at the default 0.1): the fit takes about 10 times as long"},
		{[]string{"codec", "train", "--images", flat, "--k", "0.5", "--samples", "1000", "-o", out}, ""},
		{[]string{"codec", "train", "--images", flat, "-o", out}, ""},
		{[]string{"fit", "--in", csv, "--k", "0.5", "-o", out},
			"fit: warning: --k 0.5 makes each local PCA take 1500 neighbours of 3000 reference samples (300 at the default 0.1): the fit takes about 5 times as long"},
		{[]string{"fit", "--in", csv, "--k", "0.2", "-o", out}, ""},
	} {
		_, stderr, err := run(t, c.args...)
		if err == nil || c.want == "" && strings.Contains(stderr, "warning: --k") || c.want != "" && !strings.Contains(stderr, c.want) {
			t.Errorf("spca %s: error %v, stderr %q; want %q", strings.Join(c.args, " "), err, stderr, c.want)
		}
	}
}
