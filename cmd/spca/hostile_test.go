package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// corruptSection writes a copy of the sectioned codec model at path with
// one byte changed in the middle of section i, and returns its path.
func corruptSection(t *testing.T, path string, i int) string {
	t.Helper()
	b := readBytes(t, path)
	at := len(codec.ModelMagic) + 4
	if v := binary.LittleEndian.Uint32(b[len(codec.ModelMagic):]); v != 17 && v != 18 || i >= int(b[at]) {
		t.Fatalf("%s: not a sectioned model with a section %d", path, i)
	}
	n := int(b[at])
	off := at + 1 + 4*n
	for j := range i {
		off += int(binary.LittleEndian.Uint32(b[at+1+4*j:]))
	}
	l := int(binary.LittleEndian.Uint32(b[at+1+4*i:]))
	b = slices.Clone(b)
	b[off+l/2] ^= 0x55
	bad := strings.TrimSuffix(path, ".model") + "-sec" + string(rune('0'+i)) + ".model"
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

// tinyStepModel is tinyCodecModel in the entropy-constrained mode (step
// 20), whose encoder and decoder at another step read its step basis.
func tinyStepModel(t *testing.T, dir string) string {
	t.Helper()
	o := codec.DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution, o.Step = 300, 1024, 20
	return savedModel(t, filepath.Join(dir, "step.model"), o)
}

// notInError runs the app like wantError and also checks that the error
// line contains none of nots.
func notInError(t *testing.T, args []string, nots []string, wants ...string) {
	t.Helper()
	wantError(t, args, wants...)
	_, _, err := run(t, args...)
	line := errorLine(err)
	for _, n := range nots {
		if strings.Contains(line, n) {
			t.Errorf("spca %s: error %q contains %q", strings.Join(args, " "), line, n)
		}
	}
}

// A corrupt section of a model read on first use (training sample, fast
// path) is the model's fault: encode and decode name the model file, not
// the output ("write OUT.spc: invalid model file", atomicfile wrapping
// the producer's error) nor the coded file (decode's FormatError), and
// leave no output.
func TestCorruptModelSectionNamed(t *testing.T) {
	dir := t.TempDir()
	model := tinyStepModel(t, dir)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	img2 := filepath.Join(dir, "d.png")
	saveTexture(t, img2, 4)
	spc := filepath.Join(dir, "c.spc")
	mustRun(t, "encode", "--model", model, "--step", "40", "-o", spc, img)
	// Another step reads the step basis (section 3), not the training
	// sample.
	sample, fast, basis := corruptSection(t, model, 1), corruptSection(t, model, 2), corruptSection(t, model, 3)
	out := filepath.Join(dir, "out.spc")
	for _, args := range [][]string{
		{"encode", "--model", basis, "--step", "40", "-o", out, img},
		{"encode", "--model", basis, "--bpp", "1", "-o", out, img},
		{"encode", "--model", fast, "-o", out, img},
		{"encode", "--model", fast, "-o", filepath.Join(dir, "outd"), img, img2},
	} {
		notInError(t, args, []string{"write", "codec:"}, args[2]+": invalid model file: section", "(read for "+img+")")
	}
	notInError(t, []string{"decode", "--model", basis, "-o", filepath.Join(dir, "dec.png"), spc}, []string{"write", "codec:", spc + ": "},
		basis+": invalid model file: section 3 (step basis)", "(read for "+spc+")")
	// codec eval read the sections without naming the model, info kept
	// the package prefix.
	for _, m := range []string{sample, fast} {
		notInError(t, []string{"codec", "eval", "--model", m, "--images", img}, []string{"codec:"}, m+": invalid model file: section")
		notInError(t, []string{"info", m}, []string{"codec:"}, m+": invalid model file: section")
	}
	notInError(t, []string{"info", basis}, []string{"codec:"}, basis+": invalid model file: section 3 (step basis)")
	notInError(t, []string{"codec", "eval", "--rd", "--model", sample, "--images", img}, []string{"codec:"}, sample+": invalid model file: section 1")
	if exists(out) || exists(filepath.Join(dir, "dec.png")) || exists(filepath.Join(dir, "outd", "c.spc")) {
		t.Error("an output was written")
	}
	noTempFiles(t, dir)
}

// A batch stops at the first input, in input order, that fails, whatever
// order the images finish coding in: every output before it is written,
// byte-identical to the output of a run on that input alone, and none at
// it or after it, with no temporary file left; the message names the
// failing input and counts the outputs written. A large image before a
// bad one that fails at once is the case where images coded at the same
// time (two lanes) finish out of order.
func TestBatchStopsInOrder(t *testing.T) {
	dir := t.TempDir()
	model := tinyStepModel(t, dir)
	var imgs []string
	for i := range 6 {
		p := filepath.Join(dir, string(rune('a'+i))+".png")
		w, h := 96, 64
		if i%2 == 0 {
			w, h = 256, 192 // slower to code than the bad input is to fail
		}
		if err := patches.Save(p, testimages.Texture(w, h, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, p)
	}
	bad := filepath.Join(dir, "bad.png")
	if err := os.WriteFile(bad, readBytes(t, imgs[1])[:200], 0o644); err != nil {
		t.Fatal(err)
	}
	// Each input alone, the reference outputs.
	single := filepath.Join(dir, "single")
	if err := os.Mkdir(single, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, in := range imgs {
		name := strings.TrimSuffix(filepath.Base(in), ".png")
		mustRun(t, "encode", "--quiet", "--model", model, "--step", "30", "-o", filepath.Join(single, name+".spc"), in)
		mustRun(t, "decode", "--quiet", "--model", model, "--format", "pgm", "-o", filepath.Join(single, name+".pgm"), filepath.Join(single, name+".spc"))
	}
	check := func(out string, inputs []string, stop int, ext string) {
		t.Helper()
		for i, in := range inputs {
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(in), ".png"), ".spc")
			got := filepath.Join(out, name+ext)
			if i >= stop {
				if exists(got) {
					t.Errorf("%s: written although input %d of %d (%s) failed before it", got, stop+1, len(inputs), filepath.Base(inputs[stop]))
				}
				continue
			}
			if !bytes.Equal(readBytes(t, got), readBytes(t, filepath.Join(single, name+ext))) {
				t.Errorf("%s differs from the output of %s alone", got, filepath.Base(in))
			}
		}
		noTempFiles(t, out)
	}
	for _, stop := range []int{1, 3} {
		inputs := slices.Insert(slices.Clone(imgs[:5]), stop, bad)
		out := filepath.Join(dir, "enc"+string(rune('0'+stop)))
		args := append([]string{"encode", "--model", model, "--step", "30", "-o", out}, inputs...)
		wantError(t, args, bad, fmt.Sprintf("stopped, %d of %d files written", stop, len(inputs)))
		check(out, inputs, stop, ".spc")
	}
	// All good: every output as alone.
	all := filepath.Join(dir, "all")
	mustRun(t, append([]string{"encode", "--quiet", "--model", model, "--step", "30", "-o", all}, imgs...)...)
	check(all, imgs, len(imgs), ".spc")

	// Decode: a coded file with a byte changed (its checksum fails).
	var spcs []string
	for _, in := range imgs {
		spcs = append(spcs, filepath.Join(all, strings.TrimSuffix(filepath.Base(in), ".png")+".spc"))
	}
	badSpc := filepath.Join(dir, "bad.spc")
	b := slices.Clone(readBytes(t, spcs[1]))
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(badSpc, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, stop := range []int{0, 3} {
		inputs := slices.Insert(slices.Clone(spcs[:4]), stop, badSpc)
		out := filepath.Join(dir, "dec"+string(rune('0'+stop)))
		args := append([]string{"decode", "--model", model, "--format", "pgm", "-o", out}, inputs...)
		wantError(t, args, badSpc, fmt.Sprintf("stopped, %d of %d files written", stop, len(inputs)))
		check(out, inputs, stop, ".pgm")
	}
	out := filepath.Join(dir, "decall")
	mustRun(t, append([]string{"decode", "--quiet", "--model", model, "--format", "pgm", "-o", out}, spcs...)...)
	check(out, spcs, len(spcs), ".pgm")
}

// An unknown data set name lists every set synth makes: it listed the
// unlabelled ones only, as a Go slice.
func TestSynthUnknownNamesAll(t *testing.T) {
	wantError(t, []string{"synth", "-o", filepath.Join(t.TempDir(), "s.csv"), "foo"}, `unknown data set "foo"`, "spiral, swissroll", "moons", "scenes", "photos")
}

// An image on standard input that does not load gets the message a file
// gets, named stdin: the file first, package prefixes dropped, the
// --max-pixels hint for one too large, the advice for an .spc file. It
// was "stdin: patches: decode spc: codec: decoding an .spc file needs its
// model (codec.Decode)", "stdin: patches: image too large: ..." without
// the hint, "stdin: patches: not an image: unknown format".
func TestStdinImageErrors(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	spc := filepath.Join(dir, "c.spc")
	mustRun(t, "encode", "--quiet", "--model", model, "-o", spc, img)
	huge := filepath.Join(dir, "huge.png")
	if err := os.WriteFile(huge, hostile.ZeroPNG(16384, 16384), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.png")
	if err := os.WriteFile(cut, readBytes(t, img)[:300], 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.png")
	if err := os.WriteFile(junk, []byte("not an image at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file  string
		wants []string
	}{
		// No closing parenthesis: 32-bit platforms add their default's remark inside it.
		{huge, []string{": image too large: 16384×16384", "(raise the limit with --max-pixels"}},
		{spc, []string{": an SPCA-coded image, not an image (decode it with spca decode)"}},
		{junk, []string{": not an image (PNG"}},
		{cut, []string{": png: "}},
	} {
		var lines [2]string
		for i, name := range []string{tc.file, "stdin"} {
			args := []string{"encode", "--model", model, "-o", filepath.Join(dir, "o.spc"), tc.file}
			app := newApp()
			var out bytes.Buffer
			app.Writer, app.ErrWriter = &out, &out
			if name == "stdin" {
				args[len(args)-1] = "-"
				app.Reader = bytes.NewReader(readBytes(t, tc.file))
			}
			err := app.Run(append([]string{"spca"}, args...))
			if err == nil {
				t.Fatalf("spca %s: no error", strings.Join(args, " "))
			}
			lines[i] = errorLine(err)
			if !strings.HasPrefix(lines[i], "spca: "+name+": ") || strings.Contains(lines[i], "patches:") || strings.Contains(lines[i], "codec:") {
				t.Errorf("%s: %q, want it to start with %q and no package prefix", filepath.Base(tc.file), lines[i], "spca: "+name+": ")
			}
			for _, w := range tc.wants {
				if !strings.Contains(lines[i], w) {
					t.Errorf("%s: %q does not contain %q", name, lines[i], w)
				}
			}
		}
		if strings.Replace(lines[0], tc.file, "stdin", 1) != lines[1] {
			t.Errorf("file and stdin differ:\n%s\n%s", lines[0], lines[1])
		}
	}
	if exists(filepath.Join(dir, "o.spc")) {
		t.Error("an output was written")
	}
}

// synth scenes bounds the pixels of a scene, not only its sides:
// --size 32768x32768 asked for a 25 GB block (fatal error: out of
// memory under a 4 GB limit).
func TestSceneSizeBounded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sc")
	wantError(t, []string{"synth", "scenes", "--n", "1", "--size", "32768x32768", "-o", out}, "--size", "1073741824 pixels, more than 16777216")
	wantError(t, []string{"synth", "scenes", "--n", "1", "--size", "4097x4096", "-o", out}, "more than 16777216")
	if w, h, err := parseSize("4096x4096"); err != nil || w != 4096 || h != 4096 {
		t.Errorf("4096x4096: %d×%d, %v", w, h, err)
	}
	if w, h, err := parseSize("32768x512"); err != nil || w != 32768 || h != 512 {
		t.Errorf("32768x512: %d×%d, %v", w, h, err)
	}
}

// tune's --gamma, used only with --components, was ignored unchecked
// without it: tune --gamma foo ran the whole search and exited 0.
func TestTuneGammaNeedsComponents(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d.csv")
	mustRun(t, "synth", "spiral", "--n", "50", "--out", data)
	wantError(t, []string{"tune", "--in", data, "--gamma", "foo"}, "--gamma applies with --components only")
	wantError(t, []string{"tune", "--in", data, "--components", "1", "--gamma", "foo"}, "--gamma", "foo")
}

// synth refuses the flags of other data sets instead of ignoring them
// unchecked: synth spiral --size foo, synth moons --noise 5, synth
// scenes --noise 3 ran and exited 0.
func TestSynthForeignFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.csv")
	for _, args := range [][]string{
		{"synth", "spiral", "--size", "foo"},
		{"synth", "spiral", "--truth"},
		{"synth", "swissroll", "--exposure", "2"},
		{"synth", "curve3d", "--images", dir},
		{"synth", "spiral", "--upsampling", "smits1999"},
		{"synth", "moons", "--noise", "5"},
		{"synth", "moons", "--latent"},
		{"synth", "scenes", "--noise", "3"},
	} {
		wantError(t, append(args, "-o", out), "does not apply")
	}
	if exists(out) {
		t.Error("an output was written")
	}
	mustRun(t, "synth", "swissroll", "--noise", "0.2", "--latent", "-o", out)
}

// classify predict --model refuses the training flags the classifier
// file fixes: --metric euclidean, --nearest 5 (or --k), --gamma foo ran with the file's
// and exited 0.
func TestPredictModelFixesTraining(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "c.knn")
	mustRun(t, "synth", "moons", "--n", "60", "-o", data)
	mustRun(t, "classify", "train", "--in", data, "--metric", "euclidean", "--nearest", "3", "-o", model)
	q := filepath.Join(dir, "q.csv")
	writeFile(t, q, "0.1,0.2\n1,-0.5\n")
	for _, flag := range [][]string{{"--nearest", "5"}, {"--k", "5"}, {"--metric", "spca"}, {"--gamma", "foo"}, {"--label-column", "1"}, {"--seed", "3"}} {
		wantError(t, append([]string{"classify", "predict", "--model", model, "--in", q, "-o", filepath.Join(dir, "p.csv")}, flag...), flag[0]+" applies with --train only")
	}
	mustRun(t, "classify", "predict", "--model", model, "--in", q, "-o", filepath.Join(dir, "p.csv"))
}

// classify eval matches the test set's classes to the training set's by
// label value: it compared only their numbers, so test labels 5 and 9
// were scored as 0 and 1 (exit 0, a made-up accuracy).
func TestClassifyEvalLabelsByValue(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	mustRun(t, "synth", "moons", "--n", "60", "-o", train)
	test := filepath.Join(dir, "test.csv")
	writeFile(t, test, "0.1,0.2,5\n1,-0.5,9\n0.5,0.5,5\n")
	wantError(t, []string{"classify", "eval", "--in", train, "--test", test}, "label 5 of "+test+" is not a class of "+train)
	writeFile(t, test, "0.1,0.2,1\n1,-0.5,0\n0.5,0.5,1\n")
	mustRun(t, "classify", "eval", "--quiet", "--in", train, "--test", test)
}

// A labelled CSV of one column says so: it was "--label-column 1 not in
// [1, 1]", a flag the user had not given.
func TestClassifyOneColumn(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.csv")
	writeFile(t, one, "1\n2\n1\n2\n")
	wantError(t, []string{"classify", "train", "--in", one, "-o", filepath.Join(dir, "c.knn")}, one+" has 1 column")
	wantError(t, []string{"classify", "eval", "--in", one}, one+" has 1 column")
	two := filepath.Join(dir, "two.csv")
	writeFile(t, two, "1,0\n2,1\n1,0\n2,1\n")
	wantError(t, []string{"classify", "train", "--in", two, "--label-column", "3", "-o", filepath.Join(dir, "c.knn")}, "--label-column 3 not in [1, 2]")
}

// Other encoders' rate flags (cjpeg -quality, cwebp -q, ffmpeg -b) are
// answered with ours: they were only "flag provided but not defined".
func TestRateSynonyms(t *testing.T) {
	for _, args := range [][]string{
		{"encode", "--model", "m", "--quality", "75", "-o", "x.spc", "a.png"},
		{"encode", "--model", "m", "-q", "75", "-o", "x.spc", "a.png"},
		{"codec", "train", "--images", "d", "--bitrate", "1", "-o", "m"},
	} {
		wantError(t, args, "; the rate is --bpp (bits per pixel) or --step (the quantiser step)")
	}
	// Not where there is no rate to set, nor where a near name exists.
	if _, _, err := run(t, "decode", "--model", "m", "--quality", "75", "x.spc"); err == nil || strings.Contains(err.Error(), "the rate is") {
		t.Errorf("decode --quality: %v", err)
	}
	wantError(t, []string{"encode", "--model", "m", "--bbp", "1", "a.png"}, "did you mean --bpp?")
}

// An empty path, as a required flag or an input, is named as such: it
// was ": no such file or directory".
func TestEmptyPaths(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	out := filepath.Join(dir, "o.spc")
	wantError(t, []string{"encode", "--model", "", "-o", out, img}, "--model is empty")
	wantError(t, []string{"decode", "--model", "", "-o", out, img}, "--model is empty")
	wantError(t, []string{"fit", "--in", "", "-o", filepath.Join(dir, "m")}, "--in is empty")
	wantError(t, []string{"transform", "--model", "", "--in", img}, "--model is empty")
	wantError(t, []string{"encode", "--model", img, "-o", out, ""}, "an input is empty")
	wantError(t, []string{"encode", "--model", img, "-o", dir, img, ""}, "an input is empty")
}

// encode -o NAME.png wrote an .spc file under an image's name.
func TestEncodeOutputNotImageName(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	model := tinyCodecModel(t, dir)
	for _, name := range []string{"y.png", "y.JPG", "y.tif", "y.pgm"} {
		out := filepath.Join(dir, name)
		wantError(t, []string{"encode", "--model", model, "-o", out, img}, "encode writes SPCA-coded .spc files")
		if exists(out) {
			t.Errorf("%s written", out)
		}
	}
	mustRun(t, "encode", "--quiet", "--model", model, "-o", filepath.Join(dir, "y.spc"), img)
	mustRun(t, "encode", "--quiet", "--model", model, "-o", filepath.Join(dir, "y.bin"), img)
}

// Commands that write models, classifiers, CSV files or .cube LUTs wrote
// them under an image's name without a word (fit -o m.png, transform
// -o r.jpg, adapt lut -o l.png); every later read of the file as an image
// failed with "not an image". They refuse such a name before any work (the
// inputs here do not exist: the name is refused first).
func TestOutputNotImageName(t *testing.T) {
	dir := t.TempDir()
	nope := filepath.Join(dir, "nope")
	data := filepath.Join(dir, "d.csv")
	mustRun(t, "synth", "spiral", "--n", "300", "--out", data)
	model := filepath.Join(dir, "m.spca")
	mustRun(t, "fit", "--quiet", "--in", data, "--out", model)
	// synth scenes writes a directory of images, whatever its name.
	pairs := filepath.Join(dir, "sc.png")
	mustRun(t, "synth", "--quiet", "--n", "1", "--size", "8x8", "--out", pairs, "scenes")
	out := filepath.Join(dir, "x.PNG")
	for _, args := range [][]string{
		{"fit", "--in", data, "--out", out},
		{"transform", "--model", model, "--in", data, "--out", out},
		{"inverse", "--model", model, "--in", data, "-o", out},
		{"synth", "moons", "--out", out},
		{"synth", "--out", out, "spiral"},
		{"classify", "train", "--in", nope, "--out", out},
		{"classify", "predict", "--model", nope, "--in", data, "--out", out},
		{"codec", "train", "--images", filepath.Join(pairs, "a"), "--out", out},
		{"adapt", "train", "--pairs", pairs, "--out", out},
		{"adapt", "lut", "--model", nope, "-o", out},
		{"adapt", "map", "--model", nope, "--in", data, "-o", out},
	} {
		wantError(t, args, "--out "+out+": ", "not png images")
		if exists(out) {
			t.Fatalf("%v: %s written", args, out)
		}
	}
	// Not images: accepted.
	mustRun(t, "transform", "--model", model, "--in", data, "--out", filepath.Join(dir, "r.csv"))
	mustRun(t, "synth", "spiral", "--n", "3", "--out", filepath.Join(dir, "s.txt"))
}

// adapt map of sRGB 1e300 said "adapt map: colour 1 is not finite:
// [+Inf +Inf +Inf]" (the converted value); LMS 1.7e308 panicked in the SPCA
// blend. The input file and its values are named, before the model is
// read (it does not exist here).
func TestAdaptMapHugeColour(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "c.csv")
	writeFile(t, csv, "0.5,0.5,0.5\n1e300,0.5,0.5\n")
	for _, space := range []string{"srgb", "xyz", "lms"} {
		wantError(t, []string{"adapt", "map", "--model", filepath.Join(dir, "nope"), "--space", space, "--in", csv},
			csv+": colour 2 (1e+300, 0.5, 0.5) is out of range")
	}
}

// inverse of responses far beyond the model's range (1e300) gave the edge
// point of its lattice, exit 0, without a word, and transform of samples
// far outside the data clamped them visibly only with --stats. Both warn
// with the count; inverse --stats gives it; responses of an ordinary
// round trip do not warn.
func TestClampedWarned(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "s.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "200", "-o", data)
	mustRun(t, "fit", "--in", data, "-o", model, "--resolution", "4096")
	resp := filepath.Join(dir, "r.csv")
	if _, stderr := mustRun(t, "transform", "--model", model, "--in", data, "-o", resp, "--quiet"); stderr != "" {
		t.Errorf("transform of the training data: stderr %q, want nothing", stderr)
	}
	if _, stderr := mustRun(t, "inverse", "--model", model, "--in", resp, "-o", filepath.Join(dir, "x.csv"), "--quiet"); stderr != "" {
		t.Errorf("inverse of their responses: stderr %q, want nothing", stderr)
	}
	far := filepath.Join(dir, "far.csv")
	writeFile(t, far, "0.5,0.5\n1e300,0.5\n0.5,-1e6\n0.4,0.6\n")
	_, stderr := mustRun(t, "inverse", "--model", model, "--in", far)
	if want := "inverse: warning: 2 of the 4 responses (50.0 %)"; !strings.Contains(stderr, want) {
		t.Errorf("inverse of far responses: stderr %q, want %q", stderr, want)
	}
	_, stderr = mustRun(t, "inverse", "--model", model, "--in", far, "--stats")
	if want := "clamped to lattice    2 (50.0%)"; !strings.Contains(stderr, want) {
		t.Errorf("inverse --stats: stderr %q, want %q", stderr, want)
	}
	writeFile(t, far, "0,0\n1e6,-1e6\n")
	_, stderr = mustRun(t, "transform", "--model", model, "--in", far)
	if want := "transform: warning: 1 of the 2 samples (50.0 %)"; !strings.Contains(stderr, want) {
		t.Errorf("transform of a far sample: stderr %q, want %q", stderr, want)
	}
}

// adapt map of XYZ (1e10, 0, 0), an imaginary colour, printed 0,0,0 (the
// gamut mapping's answer), exit 0, without a word. Imaginary colours and
// colours brighter than adapt.MaxPlausibleLuminance times the white are
// counted on stderr and in --json; physical colours are not.
func TestAdaptMapImplausible(t *testing.T) {
	dir, _, model := adaptSetup(t)
	csv, out := filepath.Join(dir, "c.csv"), filepath.Join(dir, "m.csv")
	writeFile(t, csv, "1e10,0,0\n0.3,0.25,0.08\n0,0,1\n-0.1,0.5,0.5\n95,100,108\n0,0,0\n0.95,1,1.09\n")
	stdout, stderr := mustRun(t, "adapt", "map", "--model", model, "--space", "xyz", "--in", csv, "-o", out, "--json")
	var rep struct {
		Colours     int `json:"colours"`
		Implausible int `json:"implausible"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Colours != 7 || rep.Implausible != 4 {
		t.Errorf("map --json: %q (%v), want 7 colours, 4 implausible", stdout, err)
	}
	if want := "adapt map: warning: 4 of the 7 colours are no surface colours"; !strings.Contains(stderr, want) {
		t.Errorf("map: stderr %q, want %q", stderr, want)
	}
	writeFile(t, csv, "0.3,0.25,0.08\n0,0,0\n1,1,1\n0,0,1\n")
	if _, stderr := mustRun(t, "adapt", "map", "--model", model, "--space", "srgb", "--in", csv, "-o", out); strings.Contains(stderr, "surface") {
		t.Errorf("sRGB colours of the cube: stderr %q, want no implausible colour", stderr)
	}
}

// A batch reads each image into the memory of the one before it, reshaped
// when the new one has no more pixels (800cce8: a portrait photograph
// after a landscape one), and decodes each .spc into the previous output:
// every output must be that of the file coded or decoded alone, whatever
// the order of shapes and formats.
func TestBatchShapesMatchSingle(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	var ins []string
	for i, s := range []struct {
		w, h int
		ext  string
	}{{40, 24, ".png"}, {24, 40, ".png"}, {17, 9, ".pgm"}, {40, 24, ".pgm"}, {9, 17, ".png"}, {30, 30, ".png"}, {3, 2, ".pgm"}} {
		p := filepath.Join(dir, fmt.Sprintf("i%d%s", i, s.ext))
		if err := patches.Save(p, testimages.Texture(s.w, s.h, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, p)
	}
	batch, single := filepath.Join(dir, "batch"), filepath.Join(dir, "single")
	mustRun(t, append([]string{"encode", "--quiet", "--model", model, "-o", batch}, ins...)...)
	var spcs []string
	for i, in := range ins {
		name := fmt.Sprintf("i%d.spc", i)
		one := filepath.Join(dir, "one-"+name)
		mustRun(t, "encode", "--quiet", "--model", model, "-o", one, in)
		if !bytes.Equal(readBytes(t, one), readBytes(t, filepath.Join(batch, name))) {
			t.Errorf("%s: coded in the batch differs from coded alone", in)
		}
		spcs = append(spcs, one)
	}
	mustRun(t, append([]string{"decode", "--quiet", "--model", model, "--format", "pgm", "-o", single}, spcs...)...)
	for i, spc := range spcs {
		one := filepath.Join(dir, fmt.Sprintf("one-i%d.pgm", i))
		mustRun(t, "decode", "--quiet", "--model", model, "-o", one, spc)
		if !bytes.Equal(readBytes(t, one), readBytes(t, filepath.Join(single, fmt.Sprintf("one-i%d.pgm", i)))) {
			t.Errorf("%s: decoded in the batch differs from decoded alone", spc)
		}
	}
}

// transform left samples whose correction stopped short of the model's
// tolerance (3 of the README's 2000-sample swiss roll; here a model fitted
// with --max-iter 1) without a word unless --stats was given. It warns
// with the count, also under --quiet, and --stats gives the unconverged
// samples that were not clamped.
func TestUnconvergedWarned(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "s.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "300", "-o", data)
	mustRun(t, "fit", "--in", data, "-o", model, "--resolution", "4096", "--max-iter", "1", "--tol", "1e-6")
	resp := filepath.Join(dir, "r.csv")
	_, stderr := mustRun(t, "transform", "--model", model, "--in", data, "-o", resp, "--quiet")
	// 64 here; the count is not the point.
	m := regexp.MustCompile(`^transform: warning: ([1-9][0-9]*) of the 300 samples \([0-9.]+ %\) did not converge: .*\n$`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("transform: stderr %q, want one line 'transform: warning: N of the 300 samples (P %%) did not converge: ...'", stderr)
	}
	_, stderr = mustRun(t, "transform", "--model", model, "--in", data, "-o", resp, "--stats")
	if want := "of them not clamped " + m[1] + " ("; !strings.Contains(stderr, want) {
		t.Errorf("transform --stats: stderr %q, want %q", stderr, want)
	}
	// A sample far outside is clamped, and unconverged, but warned about once.
	far := filepath.Join(dir, "far.csv")
	writeFile(t, far, "1e6,-1e6\n")
	_, stderr = mustRun(t, "transform", "--model", model, "--in", far)
	if strings.Contains(stderr, "converge") || !strings.Contains(stderr, "clamped") {
		t.Errorf("transform of a far sample: stderr %q, want the clamped warning only", stderr)
	}
}

// A --step too small for the model was reported as the image's fault
// ("a.png: a step of 1e-06 gives about ... bins"): the message now names
// the flag and the model. codec.ErrStepTooSmall tells the two apart.
func TestStepTooSmallNamesFlag(t *testing.T) {
	dir := t.TempDir()
	model := tinyStepModel(t, dir)
	img := filepath.Join(dir, "a.png")
	if err := patches.Save(img, testimages.Texture(64, 64, 3)); err != nil {
		t.Fatal(err)
	}
	wantError(t, []string{"encode", "--model", model, "--step", "1e-6", "-o", filepath.Join(dir, "a.spc"), img},
		"encode: --step 1e-06 is too small for "+model+": a step of 1e-06 gives", "choose a larger step")
	if exists(filepath.Join(dir, "a.spc")) {
		t.Error("a.spc written although the step was refused")
	}
}
