package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/figures"
)

// run runs the app in-process with args (without the program name) and
// returns what it wrote on stdout and stderr and the error main would
// print.
func run(args ...string) (stdout, stderr string, err error) {
	app := newApp()
	var out, errOut bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &errOut
	err = app.Run(append([]string{"spca-figures"}, args...))
	return out.String(), errOut.String(), err
}

// TestQuiet checks that --quiet prints nothing, while without it the
// tables go to stdout and a summary to stderr (the quickest figure, gamma).
func TestQuiet(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, err := run("--quick", "--only", "gamma", "--out", out, "--quiet")
	if err != nil {
		t.Fatal(errorLine(err))
	}
	if stdout != "" || stderr != "" {
		t.Errorf("--quiet printed %q on stdout and %q on stderr", stdout, stderr)
	}
	stdout, stderr, err = run("--quick", "--only", "gamma", "-o", out)
	if err != nil {
		t.Fatal(errorLine(err))
	}
	if !strings.Contains(stdout, "gamma:") {
		t.Errorf("without --quiet printed no table: %q", stdout)
	}
	if !strings.HasPrefix(stderr, "spca-figures: 1 figure in ") {
		t.Errorf("without --quiet the summary is %q", stderr)
	}
}

// TestErrors checks that failures are one line naming the program once,
// with exit status 1 and nothing on stdout.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "nosuch", "--out", t.TempDir()}, `unknown figure "nosuch"`},
		{[]string{"extra"}, `unexpected argument "extra" (see spca-figures --help)`},
		{[]string{"--nosuchflag"}, "-nosuchflag (see spca-figures --help)"},
	} {
		stdout, _, err := run(c.args...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		line := errorLine(err)
		if !strings.HasPrefix(line, "spca-figures: ") || strings.Count(line, "spca-figures:") != 1 ||
			strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%v: error line %q, want one line with %q", c.args, line, c.want)
		}
		if cliutil.ExitCode(err) != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q", c.args, cliutil.ExitCode(err), stdout)
		}
	}
}

// TestHelp checks that the help names every figure and the flags with the
// command line's convention (-o for --out).
func TestHelp(t *testing.T) {
	stdout, _, err := run("--help")
	if err != nil {
		t.Fatal(errorLine(err))
	}
	for _, want := range append(figures.Names(), "--out DIR, -o DIR", "--quick", "--json", "--quiet") {
		if !strings.Contains(stdout, want) {
			t.Errorf("help does not contain %q:\n%s", want, stdout)
		}
	}
}
