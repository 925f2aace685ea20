package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/fifo"
	"github.com/spcalab/spca/internal/selfexec"
)

// Issue 23: an output naming an input (by any name) is refused before any
// work and the input is untouched, for every command that writes.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	modelBytes := readBytes(t, model)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	train := filepath.Join(dir, "train")
	os.Mkdir(train, 0o755)
	trainImg := filepath.Join(train, "a.png")
	saveTexture(t, trainImg, 1)
	csv := filepath.Join(dir, "x.csv")
	writeFile(t, csv, "1,2\n3,4\n5,6\n")
	link := filepath.Join(dir, "link.model")
	if err := os.Link(model, link); err != nil {
		t.Fatal(err)
	}
	same := "refusing to overwrite the input"
	for _, args := range [][]string{
		{"encode", "--model", model, "-o", model, img},
		{"encode", "--model", model, "-o", link, img},  // a hard link: another name, the same inode
		{"encode", "--model", model, img, "-o", model}, // -o after the input
		{"decode", "--model", model, "-o", img, img},
		{"codec", "train", "--images", train, "--patch", "2", "--out", trainImg},
		{"fit", "--in", csv, "--out", csv},
		{"transform", "--model", model, "--in", csv, "--out", csv},
		{"inverse", "--model", model, "--in", csv, "--out", csv},
		{"adapt", "map", "--model", model, "--space", "xyz", "--in", csv, "--out", csv},
		{"adapt", "lut", "--model", model, "-o", model},
		{"adapt", "apply", "--model", model, "-o", img, img},
	} {
		wantError(t, args, same)
	}
	if string(readBytes(t, model)) != string(modelBytes) {
		t.Error("the model was changed")
	}
	if _, err := codecLoad(trainImg); err != nil {
		t.Errorf("training image damaged: %v", err)
	}
	if b := readBytes(t, csv); string(b) != "1,2\n3,4\n5,6\n" {
		t.Errorf("CSV input now %q", b)
	}
	noTempFiles(t, dir)
	noTempFiles(t, train)
}

func codecLoad(path string) (any, error) { return loadImage(path) }

// Issue 23: a FIFO at the destination is refused (before any work) and
// stays a FIFO; a replaced 0600 file keeps its mode.
func TestOutputFIFOAndMode(t *testing.T) {
	dir := t.TempDir()
	model := tinyCodecModel(t, dir)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	pipe := filepath.Join(dir, "out.spc")
	if err := fifo.Make(pipe); err != nil {
		t.Skip("no FIFO:", err)
	}
	wantError(t, []string{"encode", "--model", model, "-o", pipe, img}, "out.spc", "not a regular file", "to discard the output, give -o -")
	if st, err := os.Stat(os.DevNull); err == nil && st.Mode()&os.ModeDevice != 0 {
		// -o /dev/null is refused on purpose; the message says what to do.
		wantError(t, []string{"encode", "--model", model, "-o", os.DevNull, img}, os.DevNull, "not a regular file", "-o - > /dev/null")
	}
	if st, err := os.Lstat(pipe); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	secret := filepath.Join(dir, "secret.spc")
	writeFile(t, secret, "old")
	os.Chmod(secret, 0o600)
	mustRun(t, "encode", "--model", model, "-o", secret, img)
	if st, _ := os.Stat(secret); st.Mode().Perm() != 0o600 || st.Size() < 10 {
		t.Errorf("replaced 0600 file: mode %v, %d bytes", st.Mode().Perm(), st.Size())
	}
	noTempFiles(t, dir)
}

// Issue 23: an output in a directory that cannot be written fails before
// training (it failed only after training before).
func TestOutputUnwritableFirst(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train")
	os.Mkdir(train, 0o755)
	saveTexture(t, filepath.Join(train, "a.png"), 1)
	out := filepath.Join(dir, "ro", "codec.model")
	os.Mkdir(filepath.Dir(out), 0o500)
	if os.Geteuid() == 0 {
		out = "/proc/spca-codec.model" // root writes anywhere but in read-only file systems
	}
	start := time.Now()
	wantError(t, []string{"codec", "train", "--images", train, "--out", out}, out)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("failed after %v: the check came after training", d)
	}
}

// signalHelperEnv runs TestSignalHelper as the child of TestSignalCleanup.
const signalHelperEnv = "SPCA_TEST_SIGNAL_DIR"

// TestSignalHelper is the child of TestSignalCleanup: with the signal
// handler of main, it starts an atomic write that never ends.
func TestSignalHelper(t *testing.T) {
	dir := os.Getenv(signalHelperEnv)
	if dir == "" {
		t.Skip("run by TestSignalCleanup")
	}
	cliutil.RemoveTempsOnSignal("spca")
	atomicfile.Write(filepath.Join(dir, "out.spc"), func(w io.Writer) error {
		io.WriteString(w, "partial")
		os.Stdout.WriteString("ready\n")
		select {}
	})
}

// Issue 23: SIGINT and SIGTERM during a write remove its temporary file
// (16 of 20 killed encodes left one before) and exit with 130 and 143.
func TestSignalCleanup(t *testing.T) {
	selfexec.SkipIfUnable(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHelper$")
		cmd.Env = append(os.Environ(), signalHelperEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			cmd.Process.Kill()
			t.Fatalf("child: %q, %v", line, err)
		}
		if n := len(tempFiles(t, dir)); n != 1 {
			t.Errorf("%d temporary files while writing, want 1", n)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var ee *exec.ExitError
		if want := 128 + int(sig); !errors.As(err, &ee) || ee.ExitCode() != want {
			t.Errorf("%v: %v, want exit status %d", sig, err, want)
		}
		if left := tempFiles(t, dir); len(left) != 0 {
			t.Errorf("%v: left %v", sig, left)
		}
	}
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestModelFromPipe checks that a model read from a pipe (--model
// <(cat m.spca)) still loads: the check of the model's kind reads the
// first bytes of regular files only, since a pipe cannot be read twice.
func TestModelFromPipe(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "300", "-o", data)
	mustRun(t, "fit", "--quiet", "--in", data, "-o", model)
	fifo := fifoOf(t, model)
	want, _ := mustRun(t, "transform", "--model", model, "--in", data)
	if got, _ := mustRun(t, "transform", "--model", fifo, "--in", data); got != want {
		t.Error("transform with the model from a pipe differs from the model file's")
	}
}

// info of a pipe (<(cat m.spca)) or of stdin (-) failed: it read the
// magic, then the loader reopened the pipe ("bad magic number"), and "-"
// was taken for a file name. Both describe the model as its file does.
func TestInfoFromPipe(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "300", "-o", data)
	mustRun(t, "fit", "--quiet", "--in", data, "-o", model, "--resolution", "4096")
	want, _ := mustRun(t, "info", model)
	// The rows but the file name and the load time.
	rows := func(out string) []string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "file ") && !strings.HasPrefix(l, "load time") {
				keep = append(keep, l)
			}
		}
		return keep
	}
	fifo := fifoOf(t, model)
	got, _ := mustRun(t, "info", fifo)
	if !slices.Equal(rows(got), rows(want)) || !strings.HasPrefix(got, "file  ") || !strings.Contains(got, fifo) {
		t.Errorf("info of a pipe:\n%s\nwant as the file's:\n%s", got, want)
	}

	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin, isTerm := os.Stdin, stdinIsTerminal
	os.Stdin, stdinIsTerminal = f, func() bool { return false }
	defer func() { os.Stdin, stdinIsTerminal = stdin, isTerm }()
	got, _ = mustRun(t, "info", "-")
	if !slices.Equal(rows(got), rows(want)) || !strings.Contains(got, "stdin") {
		t.Errorf("info of stdin:\n%s\nwant as the file's:\n%s", got, want)
	}
	// A truncated model from stdin is named as stdin, not a temporary file.
	short := filepath.Join(dir, "short.spca")
	writeFile(t, short, string(readBytes(t, model)[:100]))
	if os.Stdin, err = os.Open(short); err != nil {
		t.Fatal(err)
	}
	defer os.Stdin.Close()
	wantError(t, []string{"info", "-"}, "stdin: invalid model file")
}

// transform and inverse printed nothing on success while fit, synth and
// encode print a one-line summary: they print it when the data go to a
// file, not when they go to stdout, and not under --quiet.
func TestCSVWritersSummary(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "300", "-o", data)
	mustRun(t, "fit", "--quiet", "--in", data, "-o", model, "--resolution", "4096")
	r, r1, x := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r1.csv"), filepath.Join(dir, "x.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"transform", "--model", model, "--in", data, "-o", r}, "transform: 300 samples, 2 responses -> " + r + "\n"},
		{[]string{"transform", "--model", model, "--in", data, "-o", r1, "--components", "1"}, "transform: 300 samples, the first 1 of 2 responses -> " + r1 + "\n"},
		{[]string{"inverse", "--model", model, "--in", r, "-o", x}, "inverse: 300 samples from 2 responses -> " + x + "\n"},
		{[]string{"inverse", "--model", model, "--in", r1, "-o", x}, "inverse: 300 samples from 1 of 2 responses (the others at their typical values) -> " + x + "\n"},
	} {
		_, stderr := mustRun(t, tc.args...)
		// Only the summary's line is checked: a warning may precede it.
		if !strings.HasSuffix(stderr, tc.want) {
			t.Errorf("spca %s: stderr %q, want the summary %q", strings.Join(tc.args, " "), stderr, tc.want)
		}
		if _, stderr := mustRun(t, append(tc.args, "--quiet")...); strings.Contains(stderr, " -> ") {
			t.Errorf("spca %s --quiet: stderr %q, want no summary", strings.Join(tc.args, " "), stderr)
		}
	}
	// The CSV writers write os.Stdout itself: keep the data out of the log.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	stdout := os.Stdout
	os.Stdout = devNull
	defer func() { os.Stdout = stdout }()
	if _, stderr := mustRun(t, "transform", "--model", model, "--in", data); strings.Contains(stderr, " -> ") {
		t.Errorf("transform to stdout: stderr %q, want no summary", stderr)
	}
	// synth and classify predict said "-> stdout" where the README
	// promises no summary line for data on stdout.
	labelled := filepath.Join(dir, "l.csv")
	mustRun(t, "synth", "moons", "--n", "60", "-o", labelled)
	x2 := filepath.Join(dir, "x2.csv")
	mustRun(t, "synth", "spiral", "--n", "30", "-o", x2)
	for _, args := range [][]string{
		{"synth", "spiral", "--n", "30"},
		{"synth", "spiral", "--n", "30", "-o", "-"},
		{"classify", "predict", "--train", labelled, "--metric", "euclidean", "--nearest", "3", "--in", x2, "-o", "-"},
	} {
		if _, stderr := mustRun(t, args...); stderr != "" {
			t.Errorf("spca %s: stderr %q, want nothing", strings.Join(args, " "), stderr)
		}
	}
}

// info of a directory named it twice ("DIR: read DIR: is a directory").
func TestInfoDirectory(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "info", dir)
	if line := errorLine(err); line != "spca: "+dir+": is a directory" {
		t.Errorf("info of a directory: %q", line)
	}
}

// fifoOf makes a named pipe beside file that serves file's bytes once, as
// <(cat file) does; the test is skipped where FIFOs do not exist. The bytes
// are read here, not in the writer goroutine, where t.Fatal must not run.
func fifoOf(t *testing.T, file string) string {
	t.Helper()
	data := readBytes(t, file)
	pipe := file + ".pipe"
	if err := fifo.Make(pipe); err != nil {
		t.Skip("no FIFO:", err)
	}
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(data)
	}()
	return pipe
}
