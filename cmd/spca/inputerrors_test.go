package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputErrorsNameCommand checks that a command's input that cannot
// be read, or an output into a directory that does not exist, gives an
// error naming the command, the file (or the flag and the file) and the
// problem, without Go's operation word: "spca: fit:
// d.csv: no samples", not "spca: d.csv: no samples"; "spca: adapt eval:
// --pairs DIR: no such file or directory", not "spca: environment A:
// DIR/a: no such file or directory"; "spca: synth: --out: DIR: no such
// file or directory", not "spca: write DIR/s.csv: open
// DIR/.s.csv.tmp-1234: no such file or directory".
func TestInputErrorsNameCommand(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	samples := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(samples, []byte("1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"fit", "--in", empty, "--out", out}, []string{"spca: fit: " + empty + ": no samples"}},
		{[]string{"fit", "--in", missing, "--out", out}, []string{"spca: fit: " + missing + ": no such file"}},
		{[]string{"tune", "--in", empty}, []string{"spca: tune: " + empty + ": no samples"}},
		{[]string{"classify", "train", "--in", empty, "--out", out}, []string{"spca: classify train: " + empty + ": no samples"}},
		{[]string{"transform", "--model", missing, "--in", empty}, []string{"spca: " + missing + ": no such file"}},
		{[]string{"adapt", "eval", "--pairs", missing}, []string{"spca: adapt eval: --pairs " + missing + ": no such file"}},
		{[]string{"adapt", "train", "--pairs", missing, "--out", out}, []string{"spca: adapt train: --pairs " + missing + ": no such file"}},
		{[]string{"adapt", "train", "--pairs", empty, "--out", out}, []string{"spca: adapt train: --pairs " + empty + " is not a directory", filepath.Join(empty, "a")}},
		{[]string{"adapt", "train", "--env-a", missing, "--env-b", dir, "--out", out}, []string{"spca: adapt train: --env-a, environment A: " + missing + ": no such file"}},
		// Outputs into a directory that does not exist.
		{[]string{"fit", "--in", samples, "--out", filepath.Join(missing, "m.spca")}, []string{"spca: fit: --out: " + missing + ": no such file"}},
		{[]string{"synth", "spiral", "--n", "50", "--out", filepath.Join(missing, "s.csv")}, []string{"spca: synth: --out: " + missing + ": no such file"}},
		{[]string{"synth", "spirals", "--n", "50", "--out", filepath.Join(missing, "s.csv")}, []string{"spca: synth: --out: " + missing + ": no such file"}},
		{[]string{"adapt", "map", "--model", missing, "--in", samples}, []string{"spca: adapt map: " + samples + ": colours have 3 values per line, got 2"}},
	} {
		wantError(t, c.args, c.wants...)
		if _, _, err := run(t, c.args...); err != nil && strings.Contains(errorLine(err), "open ") {
			t.Errorf("spca %s: %q names Go's operation", strings.Join(c.args, " "), errorLine(err))
		}
	}
}
