package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/classify"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// eachFlag calls fn with the command name ("fit", "codec train") and each
// flag of every command and subcommand of the app.
func eachFlag(cmds []*cli.Command, prefix string, fn func(cmd string, f cli.Flag)) {
	for _, c := range cmds {
		name := strings.TrimSpace(prefix + " " + c.Name)
		for _, f := range c.Flags {
			fn(name, f)
		}
		eachFlag(c.Subcommands, name, fn)
	}
}

// TestFlagConvention checks the one convention of the command line: -o is
// --out everywhere, --seed defaults to the same value everywhere, --size is
// always an image size WxH, and the help writes every flag with two dashes
// except the short options, without the hidden old spellings.
func TestFlagConvention(t *testing.T) {
	app := newApp()
	oneDash := regexp.MustCompile(`(^|, )-([a-z][a-z-]*)`)
	eachFlag(app.Commands, "", func(cmd string, f cli.Flag) {
		names := f.Names()
		switch names[0] {
		case flagOut:
			if len(names) < 2 || names[1] != flagO {
				t.Errorf("%s: --out has names %v, want -o as well", cmd, names)
			}
		case flagSeed:
			if s, ok := f.(*cli.Uint64Flag); !ok || s.Value != defaultSeed {
				t.Errorf("%s: --seed is not a uint64 flag with default %d", cmd, defaultSeed)
			}
		case flagSize:
			if s, ok := f.(*cli.StringFlag); !ok || !strings.Contains(s.Usage, "WxH") {
				t.Errorf("%s: --size is not an image size WxH", cmd)
			}
		}
		help, _, _ := strings.Cut(flagString(f), "\t")
		for _, m := range oneDash.FindAllStringSubmatch(help, -1) {
			if !shortOptions[m[2]] {
				t.Errorf("%s: help writes -%s with one dash: %q", cmd, m[2], help)
			}
		}
		for _, shown := range strings.Split(help, ", ") {
			shown, _, _ = strings.Cut(strings.TrimLeft(shown, "-"), " ")
			if shown != names[0] && hiddenAliases[shown] {
				t.Errorf("%s: help shows the hidden alias --%s: %q", cmd, shown, help)
			}
		}
	})
}

func TestVersionAndHelp(t *testing.T) {
	stdout, _ := mustRun(t, "--version")
	if !strings.HasPrefix(stdout, "spca version ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("--version printed %q", stdout)
	}
	stdout, _ = mustRun(t, "help")
	if !strings.Contains(stdout, "COMMANDS:") || !strings.Contains(stdout, "transform") {
		t.Errorf("help printed %q", stdout)
	}
	stdout, _ = mustRun(t, "help", "fit")
	if !strings.Contains(stdout, "--k value") || !strings.Contains(stdout, "--out FILE, -o FILE") {
		t.Errorf("help fit printed %q", stdout)
	}
	// spca help COMMAND SUBCOMMAND is spca COMMAND SUBCOMMAND --help (it
	// printed codec's help), and --help, -h stay global options.
	for _, cmd := range [][]string{{"codec", "train"}, {"adapt", "apply"}, {"classify", "eval"}, {"encode"}} {
		got, _ := mustRun(t, append([]string{"help"}, cmd...)...)
		want, _ := mustRun(t, append(cmd, "--help")...)
		if got != want || !strings.Contains(got, "spca "+strings.Join(cmd, " ")+" - ") {
			t.Errorf("help %v printed %q, want %q", cmd, got, want)
		}
	}
	for _, h := range []string{"--help", "-h"} {
		if stdout, _ = mustRun(t, h); !strings.Contains(stdout, "--help, -h") || !strings.Contains(stdout, "help, h") {
			t.Errorf("%s printed %q", h, stdout)
		}
	}
	wantError(t, []string{"help", "nosuch"}, `unknown command "nosuch"`)
}

// TestShortOut checks that -o works where only --out was accepted before.
func TestShortOut(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "s.csv")
	mustRun(t, "synth", "spiral", "--n", "200", "-o", data)
	model := filepath.Join(dir, "m.spca")
	mustRun(t, "fit", "--in", data, "-o", model, "--resolution", "4096")
	resp := filepath.Join(dir, "r.csv")
	mustRun(t, "transform", "--model", model, "--in", data, "-o", resp)
	if r, c := readCSV(t, resp).Dims(); r != 200 || c != 2 {
		t.Errorf("transform -o wrote %d×%d responses, want 200×2", r, c)
	}
}

// TestErrorsNameFlags checks that invalid options are reported by the flag
// that set them, not by the field of spca.Options.
func TestErrorsNameFlags(t *testing.T) {
	data := filepath.Join(t.TempDir(), "s.csv")
	mustRun(t, "synth", "spiral", "--n", "200", "-o", data)
	out := filepath.Join(t.TempDir(), "m.spca")
	for _, tc := range []struct{ flag, value, want string }{
		{"--k", "2", "fit: --k must be a fraction in (0, 1]"},
		{"--tau", "20", "fit: --tau must be in (0, 10]"},
		{"--max-iter", "-1", "fit: --max-iter must be"},
		{"--origin", "100,100", "fit: --origin is outside the data manifold"},
		{"--conditioning", "2", "fit: --conditioning must be"},
	} {
		wantError(t, []string{"fit", "--in", data, "-o", out, "--resolution", "1000", tc.flag, tc.value}, tc.want)
	}
	// Flag errors found by the commands themselves name the command too
	// (they began with the flag: 'spca: --gamma: ...').
	colours, labelled := filepath.Join(t.TempDir(), "c.csv"), filepath.Join(t.TempDir(), "l.csv")
	writeFile(t, colours, "0.5,0.5,0.5\n")
	mustRun(t, "synth", "spirals", "--n", "40", "-o", labelled)
	images := t.TempDir()
	saveTexture(t, filepath.Join(images, "a.png"), 1)
	for _, args := range [][]string{
		{"fit", "--in", data, "-o", out, "--gamma", "x"},
		{"fit", "--in", data, "-o", out, "--q", "-1"},
		{"tune", "--in", data, "--components", "1", "--gamma", "x"},
		{"adapt", "train", "--pairs", t.TempDir(), "-o", out, "--align", "rotate"},
		{"adapt", "map", "--model", out, "--in", colours, "--json"},
		{"classify", "eval", "--in", labelled, "--gamma", "x"},
		{"codec", "train", "--images", images, "-o", out, "--gamma", "x"},
		{"codec", "train", "--images", images, "-o", filepath.Join(images, "none", "m.model")},
		{"encode", "--model", out, "--bpp", "-1", filepath.Join(images, "a.png")},
	} {
		name := args[0]
		if args[0] == "adapt" || args[0] == "classify" || args[0] == "codec" {
			name += " " + args[1]
		}
		wantError(t, args, "spca: "+name+": -")
	}
}

// writeP3PNG writes a small PNG carrying an ICC profile described as
// "Display P3" (no primaries: the description decides).
func writeP3PNG(t *testing.T, path string) {
	t.Helper()
	desc := "Display P3"
	tag := append([]byte("desc\x00\x00\x00\x00"), binary.BigEndian.AppendUint32(nil, uint32(len(desc)+1))...)
	tag = append(append(tag, desc...), 0)
	profile := make([]byte, 144)
	copy(profile[16:], "RGB ")
	copy(profile[36:], "acsp")
	binary.BigEndian.PutUint32(profile[128:], 1)
	copy(profile[132:], "desc")
	binary.BigEndian.PutUint32(profile[136:], 144)
	binary.BigEndian.PutUint32(profile[140:], uint32(len(tag)))
	profile = append(profile, tag...)
	binary.BigEndian.PutUint32(profile, uint32(len(profile)))

	var img, z bytes.Buffer
	if err := png.Encode(&img, testimages.ColorTexture(16, 16, 1)); err != nil {
		t.Fatal(err)
	}
	zw := zlib.NewWriter(&z)
	zw.Write(profile)
	zw.Close()
	data := append([]byte("P3\x00\x00"), z.Bytes()...)
	chunk := append(binary.BigEndian.AppendUint32(nil, uint32(len(data))), "iCCP"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	b := img.Bytes()
	const ihdrEnd = 8 + 8 + 13 + 4
	writeFile(t, path, string(b[:ihdrEnd])+string(chunk)+string(b[ihdrEnd:]))
}

// TestICCProfileRefused checks that an image with a profile other than
// sRGB is refused by name, and read with --assume-srgb.
func TestICCProfileRefused(t *testing.T) {
	dir := t.TempDir()
	p3 := filepath.Join(dir, "p3.png")
	writeP3PNG(t, p3)
	model := filepath.Join(dir, "m.model")
	wantError(t, []string{"codec", "train", "--images", p3, "-o", model}, "p3.png", `ICC profile "Display P3"`, "--assume-srgb")
	// With --assume-srgb the image is read: training gets past loading
	// (and fails on a 16×16 image's few patches, or succeeds).
	_, _, err := run(t, "codec", "train", "--images", p3, "-o", model, "--assume-srgb", "--samples", "50", "--patch", "2", "--bins", "8")
	if err != nil && strings.Contains(errorLine(err), "ICC") {
		t.Errorf("--assume-srgb: %s", errorLine(err))
	}
}

// TestComponents checks dimensionality reduction from the command line:
// transform --components writes the first responses, inverse maps them
// back with the others at the medians fit recorded, alike from a reduced
// file and from full responses with --components.
func TestComponents(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "s.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "300", "-o", data)
	mustRun(t, "fit", "--in", data, "-o", model, "--resolution", "4096")
	r1, full := filepath.Join(dir, "r1.csv"), filepath.Join(dir, "r.csv")
	mustRun(t, "transform", "--model", model, "--in", data, "--components", "1", "-o", r1)
	mustRun(t, "transform", "--model", model, "--in", data, "-o", full)
	if _, c := readCSV(t, r1).Dims(); c != 1 || firstLine(t, r1) != "# r1" {
		t.Fatalf("transform --components 1 wrote %d columns, header %q", c, firstLine(t, r1))
	}
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	mustRun(t, "inverse", "--model", model, "--in", r1, "-o", a)
	mustRun(t, "inverse", "--model", model, "--in", full, "--components", "1", "-o", b)
	xa, xb := readCSV(t, a), readCSV(t, b)
	if r, c := xa.Dims(); r != 300 || c != 2 || !mat.Equal(xa, xb) {
		t.Errorf("inverse of 1 response: %d×%d, equal to --components 1 of all: %v", r, c, mat.Equal(xa, xb))
	}
	wantError(t, []string{"transform", "--model", model, "--in", data, "--components", "3"}, "transform: --components must be in [1, 2]")
	wantError(t, []string{"inverse", "--model", model, "--in", r1, "--components", "2"}, "inverse: --components 2 but the responses have 1 columns")
}

// TestClassify runs classify eval and predict on a generated labelled set.
func TestClassify(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	// synth says what it wrote (it said nothing).
	if _, stderr := mustRun(t, "synth", "moons", "--n", "200", "--seed", "1", "-o", train); stderr != "synth moons: 200 samples (2 columns, then the class 0 or 1), seed 1 -> "+train+"\n" {
		t.Errorf("synth moons printed %q", stderr)
	}
	mustRun(t, "synth", "moons", "--n", "100", "--seed", "2", "-o", test)
	if firstLine(t, train) != "# x1,x2,label" {
		t.Errorf("labelled set header %q", firstLine(t, train))
	}
	stdout, _ := mustRun(t, "classify", "eval", "--in", train, "--test", test, "--json")
	var rows []struct {
		Metric   string  `json:"metric"`
		K        int     `json:"k"`
		Accuracy float64 `json:"test_accuracy"`
		SPCAK    float64 `json:"spca_k"`
		Dims     []int   `json:"dims"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != len(classify.Metrics()) {
		t.Fatalf("classify eval --json: %v, %d rows: %s", err, len(rows), stdout)
	}
	for _, r := range rows {
		if r.Accuracy < 0.8 || r.K < 1 {
			t.Errorf("%s: k %d accuracy %.3f on the moons", r.Metric, r.K, r.Accuracy)
		}
		if spcaMetric := strings.HasPrefix(r.Metric, "spca"); spcaMetric != (r.SPCAK > 0) {
			t.Errorf("%s: SPCA K %g reported", r.Metric, r.SPCAK)
		}
		if selects := r.Metric == classify.SPCASelect.String(); selects != (len(r.Dims) > 0) || len(r.Dims) > 2 {
			t.Errorf("%s: response dimensions %v reported", r.Metric, r.Dims)
		}
	}
	// The text table says its last columns are accuracies.
	if stdout, _ := mustRun(t, "classify", "eval", "--in", train, "--test", test, "--gamma", "0"); !strings.HasPrefix(stdout, "metric") ||
		!strings.Contains(strings.SplitN(stdout, "\n", 2)[0], "accuracy: leave-one-out  test") {
		t.Errorf("classify eval table:\n%s", stdout)
	}
	x := filepath.Join(dir, "x.csv")
	m := readCSV(t, test)
	writeFile(t, x, fmt.Sprintf("%g,%g\n%g,%g\n", m.At(0, 0), m.At(0, 1), m.At(1, 0), m.At(1, 1)))
	labels := filepath.Join(dir, "labels.csv")
	_, stderr := mustRun(t, "classify", "predict", "--train", train, "--in", x, "--metric", "euclidean", "-o", labels)
	if !regexp.MustCompile(`^classify predict: 2 samples labelled by euclidean k-NN, k = [0-9]+ \(0: [0-2], 1: [0-2]\) -> ` + regexp.QuoteMeta(labels) + "\n$").MatchString(stderr) {
		t.Errorf("classify predict printed %q, want a summary of the labels", stderr)
	}
	if p := readCSV(t, labels); p.At(0, 0) != m.At(0, 2) || p.At(1, 0) != m.At(1, 2) {
		t.Errorf("predicted %v %v, want the labels %v %v", p.At(0, 0), p.At(1, 0), m.At(0, 2), m.At(1, 2))
	}
	wantError(t, []string{"classify", "predict", "--train", train, "--in", x, "--metric", "cosine"}, "--metric", "cosine")

	// A saved classifier predicts as one trained on the fly.
	model, fromModel := filepath.Join(dir, "c.knn"), filepath.Join(dir, "m.csv")
	if _, stderr := mustRun(t, "classify", "train", "--in", train, "--metric", "spca", "-o", model); !strings.Contains(stderr, ", SPCA K ") || !strings.Contains(stderr, ", gamma ") {
		t.Errorf("classify train printed %q, want the SPCA K and gamma chosen", stderr)
	}
	// A labelled file given to predict: say how to drop the labels.
	wantError(t, []string{"classify", "predict", "--model", model, "--in", test}, "has 3 values per sample, the training samples 2 (if its last column holds class labels", "cut -d, -f1-2")
	testX := filepath.Join(dir, "tx.csv")
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "%g,%g\n", m.At(i, 0), m.At(i, 1))
	}
	writeFile(t, testX, b.String())
	mustRun(t, "classify", "predict", "--model", model, "--in", testX, "-o", fromModel)
	mustRun(t, "classify", "predict", "--train", train, "--metric", "spca", "--in", testX, "-o", labels)
	if a, b := readCSV(t, fromModel), readCSV(t, labels); !mat.Equal(a, b) {
		t.Error("the saved classifier predicts otherwise than one trained on the fly")
	}
	wantError(t, []string{"classify", "predict", "--model", model, "--train", train, "--in", testX}, "give --model or --train, not both")
	wantError(t, []string{"classify", "predict", "--in", testX}, "classify predict: give --model or --train")
	// A test set without its labels given to eval (as predict takes it)
	// said only that its dimension differs.
	wantError(t, []string{"classify", "eval", "--in", train, "--test", testX}, "tx.csv has 1 value per sample besides its label column", "2 (both are labelled CSV")
	wantError(t, []string{"classify", "predict", "--model", testX, "--in", testX}, "invalid classifier file")

	// A CSV without a label column: a message saying so, not that of a
	// class too small for an SPCA model.
	wantError(t, []string{"classify", "eval", "--in", testX}, "not class labels")

	// spca info describes a classifier file as it does the other models.
	checkInfoHeader(t, model, kindKNN)
	if out, _ := mustRun(t, "info", model); !regexp.MustCompile(`kind +classifier`).MatchString(out) ||
		!regexp.MustCompile(`samples +200 of dimension 2`).MatchString(out) || !regexp.MustCompile(`spca +gamma `).MatchString(out) {
		t.Errorf("info of a classifier printed %q", out)
	}
	out, _ := mustRun(t, "info", "--json", model)
	var ki knnInfo
	if err := json.Unmarshal([]byte(out), &ki); err != nil || ki.Kind != kindKNN || ki.Metric != "spca" ||
		ki.Samples != 200 || ki.Dimension != 2 || len(ki.Labels) != 2 || len(ki.SPCA) != 1 {
		t.Errorf("info --json of a classifier: %v, %+v", err, ki)
	}
}

// TestImageFlagsOnImageCommandsOnly checks that --max-pixels and
// --assume-srgb are offered by the commands that read images and by no
// other: classify train and eval, which share the names train and eval
// with codec's and adapt's, read CSV files and showed both flags.
func TestImageFlagsOnImageCommandsOnly(t *testing.T) {
	want := map[string][]string{
		"codec train": {flagMaxPixels, flagAssumeSRGB},
		"codec eval":  {flagMaxPixels, flagAssumeSRGB},
		"encode":      {flagMaxPixels, flagAssumeSRGB},
		"decode":      {flagMaxPixels},
		"adapt train": {flagMaxPixels, flagAssumeSRGB},
		"adapt apply": {flagMaxPixels, flagAssumeSRGB},
		"adapt eval":  {flagMaxPixels, flagAssumeSRGB}, // its hidden --max-pixels: the old name of --eval-pixels
	}
	got := map[string][]string{}
	eachFlag(newApp().Commands, "", func(cmd string, f cli.Flag) {
		if n := f.Names()[0]; n == flagMaxPixels || n == flagAssumeSRGB {
			got[cmd] = append(got[cmd], n)
		}
	})
	for cmd, flags := range got {
		if fmt.Sprint(flags) != fmt.Sprint(want[cmd]) {
			t.Errorf("%s has %v, want %v", cmd, flags, want[cmd])
		}
	}
	for cmd, flags := range want {
		if got[cmd] == nil {
			t.Errorf("%s has none of %v", cmd, flags)
		}
	}
}

// TestOneDefaultPerFlag checks that no flag's help gives two defaults (a
// "(default: ...)" in its usage and the one the help appends), as
// synth --noise, classify --label-column and --separate-geometry did.
func TestOneDefaultPerFlag(t *testing.T) {
	eachFlag(newApp().Commands, "", func(cmd string, f cli.Flag) {
		if help := flagString(f); strings.Count(help, "(default: ") > 1 || strings.Count(help, "; default: ") > 0 {
			t.Errorf("%s: two defaults in %q", cmd, help)
		}
	})
}

// TestOneTypePerFlagName checks issue 25's "one name per meaning" as far
// as types tell meanings apart: a flag name shown in the help has one Go
// type in every command (--k was a fraction, a float, in fit, tune, codec
// train and adapt train, and a number of neighbours, an int, in classify;
// classify's is now --nearest, --k its hidden old name).
func TestOneTypePerFlagName(t *testing.T) {
	seen := map[string]string{} // flag name: "type in command"
	eachFlag(newApp().Commands, "", func(cmd string, f cli.Flag) {
		if h, ok := f.(interface{ IsVisible() bool }); ok && !h.IsVisible() {
			return
		}
		typ := fmt.Sprintf("%T", f)
		for _, name := range f.Names() {
			if hiddenAliases[name] {
				continue
			}
			if first, ok := seen[name]; !ok {
				seen[name] = typ + " in " + cmd
			} else if !strings.HasPrefix(first, typ+" ") {
				t.Errorf("--%s is a %s in %s and a %s", name, typ, cmd, first)
			}
		}
	})
}

// TestNearestOldName: classify's --k, now --nearest, still works as a
// hidden old name, with a note, and gives the same classifier.
func TestNearestOldName(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	mustRun(t, "synth", "moons", "--n", "60", "-o", data)
	a, b := filepath.Join(dir, "a.knn"), filepath.Join(dir, "b.knn")
	_, stderr := mustRun(t, "classify", "train", "--in", data, "--metric", "euclidean", "--nearest", "3", "-o", a)
	if strings.Contains(stderr, "deprecated") || !strings.Contains(stderr, "k = 3") {
		t.Errorf("classify train --nearest 3 printed %q", stderr)
	}
	_, stderr = mustRun(t, "classify", "train", "--in", data, "--metric", "euclidean", "--k", "3", "-o", b)
	if !strings.Contains(stderr, "classify train: note: --k is deprecated here, use --nearest 3") || !strings.Contains(stderr, "k = 3") {
		t.Errorf("classify train --k 3 printed %q, want a note naming --nearest", stderr)
	}
	if !bytes.Equal(readBytes(t, a), readBytes(t, b)) {
		t.Error("classify train --k 3 and --nearest 3 wrote different classifiers")
	}
	wantError(t, []string{"classify", "train", "--in", data, "--nearest", "3", "--k", "5", "-o", b}, "--nearest 3 and --k 5: give only --nearest")
	for _, sub := range []string{"train", "predict"} {
		stdout, _ := mustRun(t, "classify", sub, "--help")
		if !strings.Contains(stdout, "--nearest N") || strings.Contains(stdout, "--k") {
			t.Errorf("classify %s --help shows --k or no --nearest N:\n%s", sub, stdout)
		}
	}
}

// checkInfoHeader checks that spca info gives the model file at path,
// of the kind, the header every kind of model has (session 11: only
// codec models showed their size and load time): kind, format version,
// file size and load time in the text, and the same in --json.
func checkInfoHeader(t *testing.T, path, kind string) {
	t.Helper()
	size := int64(len(readBytes(t, path)))
	out, _ := mustRun(t, "info", path)
	lines := strings.Split(out, "\n")
	for i, re := range []string{`^file +` + regexp.QuoteMeta(path) + `$`, `^kind +` + kind + `$`, `^format version +[1-9]`,
		fmt.Sprintf(`^file size +%d bytes \(`, size), `^load time +[0-9.]+ ms`} {
		if i >= len(lines) || !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("info %s: line %d does not match %q:\n%s", path, i+1, re, out)
		}
	}
	out, _ = mustRun(t, "info", "--json", path)
	var h struct {
		Kind          string  `json:"kind"`
		FormatVersion int     `json:"format_version"`
		FileBytes     int64   `json:"file_bytes"`
		LoadMS        float64 `json:"load_ms"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.Kind != kind || h.FormatVersion < 1 || h.FileBytes != size || h.LoadMS <= 0 {
		t.Errorf("info --json %s: %v, %+v (file %d bytes)", path, err, h, size)
	}
}

// TestWrongModelKind checks that a model file of another kind given to a
// command is named for what it is (transform --model codec.model said
// "not an SPCA model (bad magic number)"). Only the magic is read first,
// so files holding just a magic stand for each kind.
func TestWrongModelKind(t *testing.T) {
	dir := t.TempDir()
	file := func(name, magic string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, magic+"\x01\x00\x00\x00rest of the file")
		return p
	}
	codecM, spcaM := file("c.model", codec.ModelMagic), file("s.spca", spca.ModelMagic)
	adaptM, knn, spc := file("a.model", adapt.ModelMagic), file("k.knn", classify.Magic), file("x.spc", codec.Magic+"\x05")
	csv := filepath.Join(dir, "x.csv")
	writeFile(t, csv, "1,2\n3,4\n")
	img := filepath.Join(dir, "x.png")
	saveTexture(t, img, 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transform", "--model", codecM, "--in", csv}, "this is a codec model (spca codec train), not an SPCA model (spca fit)"},
		{[]string{"inverse", "--model", knn, "--in", csv}, "this is a classifier (spca classify train), not an SPCA model (spca fit)"},
		{[]string{"classify", "predict", "--model", codecM, "--in", csv}, "this is a codec model (spca codec train), not a classifier (spca classify train)"},
		{[]string{"encode", "--model", adaptM, "-o", filepath.Join(dir, "o.spc"), img}, "this is an adaptation model (spca adapt train), not a codec model (spca codec train)"},
		{[]string{"decode", "--model", spc, "-o", filepath.Join(dir, "o.png"), spc}, "this is a coded image (spca encode), not a codec model (spca codec train)"},
		{[]string{"adapt", "apply", "--model", spcaM, "-o", filepath.Join(dir, "o.png"), img}, "this is an SPCA model (spca fit), not an adaptation model (spca adapt train)"},
	} {
		model := c.args[slices.Index(c.args, "--model")+1]
		wantError(t, c.args, model+": invalid model file: "+c.want)
	}
	// info says what a file that is no model seems to be.
	wantError(t, []string{"info", csv}, csv+": invalid model file: not an SPCA, codec, adaptation or classifier model, nor a coded image (it is a text file")
	// An empty file (a failed download, a truncated copy) said only "not
	// an SPCA, codec, ... model".
	empty := filepath.Join(t.TempDir(), "empty.model")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, []string{"info", empty}, empty+": invalid model file: not an SPCA", "nor a coded image (it is empty)")
	// An empty image file said only "not an image (PNG, JPEG, ...)".
	emptyImg := filepath.Join(filepath.Dir(empty), "empty.png")
	if err := os.WriteFile(emptyImg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, []string{"encode", "--model", tinyCodecModel(t, dir), "-o", filepath.Join(dir, "e.spc"), emptyImg}, emptyImg+": empty file, not an image (")
	wantError(t, []string{"info", img}, "(it is an image: spca encode codes images with a codec model)")
}

// TestOutputKindNames checks that a CSV output named like a model or a
// coded image, and a model output named like a CSV file, are refused
// before any work: transform -o roll.spca wrote CSV over an SPCA model,
// fit -o model.csv a binary model under a CSV's name.
func TestOutputKindNames(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeFile(t, data, "1,2\n3,4\n5,7\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transform", "--model", filepath.Join(dir, "none.spca"), "--in", data, "-o", filepath.Join(dir, "r.spca")}, "transform writes CSV files, not .spca files"},
		{[]string{"synth", "spiral", "-o", filepath.Join(dir, "s.model")}, "synth writes CSV files, not .model files"},
		{[]string{"classify", "predict", "--train", data, "--in", data, "-o", filepath.Join(dir, "l.KNN")}, "classify predict writes CSV files, not .knn files"},
		{[]string{"fit", "--in", data, "-o", filepath.Join(dir, "m.csv")}, "fit writes models, not CSV files"},
		{[]string{"classify", "train", "--in", data, "-o", filepath.Join(dir, "c.CSV")}, "classify train writes classifiers, not CSV files"},
	} {
		wantError(t, c.args, c.want)
	}
}
