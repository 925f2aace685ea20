package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFiguresRunsProgram checks that spca figures runs spca-figures from
// PATH with the same arguments (and --quiet given before figures), its
// standard output and error, and exits with its status without a message
// of its own. A shell script stands in for spca-figures.
func TestFiguresRunsProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in program is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\necho \"to stderr\" >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, figuresProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	stdout, stderr, err := run(t, "--quiet", "figures", "--only", "gamma", "--help", "x")
	if want := "args: --quiet --only gamma --help x\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if stderr != "to stderr\n" {
		t.Errorf("stderr %q, want the program's", stderr)
	}
	if err == nil || exitCode(err) != 3 || err.Error() != "" {
		t.Errorf("error %v, want exit status 3 and no message", err)
	}
}

// TestFiguresNotInstalled checks that spca figures without spca-figures
// fails with one line saying how to run it, and that its --help is still
// spca's help of the command.
func TestFiguresNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	wantError(t, []string{"figures", "--quick"}, "spca-figures is not installed", "go run ./cmd/spca-figures", "go install ./cmd/spca-figures")
	stdout, _ := mustRun(t, "figures", "--help")
	if !strings.Contains(stdout, "spca figures [--out results]") || !strings.Contains(stdout, "go run ./cmd/spca-figures") {
		t.Errorf("figures --help printed %q", stdout)
	}
}
