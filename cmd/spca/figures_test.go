package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/internal/selfexec"
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
	if err == nil || cliutil.ExitCode(err) != 3 || err.Error() != "" {
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
	if !strings.Contains(stdout, "spca figures [-o results]") || !strings.Contains(stdout, "go run ./cmd/spca-figures") {
		t.Errorf("figures --help printed %q", stdout)
	}
}

// figuresExecEnv runs TestFiguresExecHelper as the child of
// TestFiguresExecs.
const figuresExecEnv = "SPCA_TEST_FIGURES_EXEC"

// TestFiguresExecHelper is the child of TestFiguresExecs: it runs spca
// figures as main does, with the process's own standard streams.
func TestFiguresExecHelper(t *testing.T) {
	if os.Getenv(figuresExecEnv) == "" {
		t.Skip("run by TestFiguresExecs")
	}
	argv := []string{"spca", "figures", "--only", "gamma"}
	err := appFor(argv).Run(argv)
	t.Fatalf("spca figures returned (%v) instead of becoming spca-figures", err)
}

// TestFiguresExecs checks that spca figures, run as main runs it on Unix,
// becomes spca-figures (execve: the same process id), so that signals
// reach the program and nothing is left waiting for it.
func TestFiguresExecs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no execve")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"pid $$ args: $*\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, figuresProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	selfexec.SkipIfUnable(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFiguresExecHelper$")
	cmd.Env = append(os.Environ(), figuresExecEnv+"=1", "PATH="+dir)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("exit %v, want status 3 from the program; output %q", err, out)
	}
	if want := fmt.Sprintf("pid %d args: --only gamma\n", cmd.Process.Pid); string(out) != want {
		t.Errorf("output %q, want %q (the same process)", out, want)
	}
}
