package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/urfave/cli/v2"
)

// figuresProgram is the program that spca figures runs. Figure generation
// is a program of its own so that spca does not link the plotting and
// LaTeX packages (gonum/plot, go-latex and their fonts): their package
// initialisation was about a third of the start-up of every spca process,
// paid once per image by encode and decode.
const figuresProgram = "spca-figures"

// figuresHowTo says how to run figuresProgram when it is not installed.
// It named go install github.com/spcalab/spca/cmd/spca-figures@latest too,
// which the module proxy refuses: the module is not published.
const figuresHowTo = "run go run ./cmd/spca-figures in the source tree, or install it beside spca " +
	"with go install ./cmd/spca-figures there"

func figuresCommand() *cli.Command {
	return &cli.Command{
		Name:  "figures",
		Usage: "rebuild the figures and tables of the SPCA method in a results directory (runs spca-figures)",
		UsageText: "spca figures [-o results] [--images DIR] [--only NAME...] [--quick] [--seed S] [--json]\n\n" +
			"Runs the program spca-figures with the same arguments, standard input and output: " +
			"spca-figures beside spca, else on PATH. Where it is found, spca figures --help prints its own help, " +
			"with every flag and figure; this summary is shown when it is not. Without it, " + figuresHowTo + ".",
		// Every argument, --help included, is spca-figures'.
		SkipFlagParsing: true,
		Action:          runFigures,
	}
}

// runFigures runs figuresProgram with the same arguments and standard
// streams, and exits with its exit status; figuresProgram prints its own
// errors.
func runFigures(c *cli.Context) error {
	args := c.Args().Slice()
	if cliutil.Quiet(c) { // spca --quiet figures
		args = append([]string{"--" + flagQuiet}, args...)
	}
	path, err := findFigures()
	if err != nil {
		if slices.ContainsFunc(args, isHelpFlag) {
			return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
		}
		return fail("figures: %s is not installed beside spca or on PATH: %s", figuresProgram, figuresHowTo)
	}
	if c.App.Reader == os.Stdin && c.App.Writer == os.Stdout && c.App.ErrWriter == os.Stderr {
		// As main runs it: become the program (execve, Unix), which then
		// gets the signals itself and leaves no spca process waiting.
		// Tests, which give the app other streams, and other systems run
		// it as a child below.
		if err := execFigures(path, args); !errors.Is(err, errors.ErrUnsupported) {
			return fail("figures: %s: %v", path, err)
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.App.Reader, c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code := exit.ExitCode()
			if code <= 0 { // killed by a signal
				code = 1
			}
			return cli.Exit("", code)
		}
		return fail("figures: %v", err)
	}
	return nil
}

// findFigures returns the path of figuresProgram: in the directory of the
// running spca (installed together), else on PATH.
func findFigures() (string, error) {
	if exe, err := os.Executable(); err == nil {
		name := figuresProgram
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return exec.LookPath(figuresProgram)
}

func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "--h"
}
