package cliutil

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// runApp runs a two-level app (prog, prog cmd sub) whose actions reject
// positional arguments, and returns the one line a main would print.
func runApp(t *testing.T, args ...string) string {
	t.Helper()
	action := func(c *cli.Context) error { return NoPositionals(c) }
	app := &cli.App{
		Name:           "prog",
		Flags:          []cli.Flag{QuietFlag()},
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   UsageError,
		Action:         action,
		Commands: []*cli.Command{{
			Name:         "cmd",
			OnUsageError: UsageError,
			Subcommands: []*cli.Command{{
				Name: "sub", Action: action, OnUsageError: UsageError,
				Flags: []cli.Flag{&cli.StringFlag{Name: FlagOut, Aliases: []string{FlagO}},
					&cli.IntFlag{Name: "max-iter"}, &cli.BoolFlag{Name: "exact"}},
			}},
		}},
	}
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	err := app.Run(append([]string{"prog"}, args...))
	if err == nil {
		return ""
	}
	if ExitCode(err) != 1 {
		t.Errorf("%v: exit code %d, want 1", args, ExitCode(err))
	}
	return err.Error()
}

// TestMessages checks that errors name the command once, and point to the
// help of the command they come from: the program's own for a program
// without commands (spca-figures).
func TestMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"x"}, `unexpected argument "x" (see prog --help)`},
		{[]string{"cmd", "sub", "x"}, `cmd sub: unexpected argument "x" (see prog cmd sub --help)`},
		{[]string{"--nosuch"}, "flag provided but not defined: --nosuch (see prog --help)"},
		{[]string{"cmd", "sub", "--nosuch"}, "cmd sub: flag provided but not defined: --nosuch (see prog cmd sub --help)"},
		// Flags as the help writes them: two dashes but for -o, -h, -v.
		{[]string{"cmd", "sub", "--max-iter", "x"}, `cmd sub: invalid value "x" for flag --max-iter: parse error (see prog cmd sub --help)`},
		{[]string{"cmd", "sub", "-max-iter"}, `cmd sub: flag needs an argument: --max-iter (see prog cmd sub --help)`},
		{[]string{"cmd", "sub", "--exact=maybe"}, `cmd sub: invalid boolean value "maybe" for --exact: parse error (see prog cmd sub --help)`},
		{[]string{"cmd", "sub", "-o"}, `cmd sub: flag needs an argument: -o (see prog cmd sub --help)`},
		// A misspelt flag: the nearest of the command's.
		{[]string{"cmd", "sub", "--max-itre", "3"}, `cmd sub: flag provided but not defined: --max-itre; did you mean --max-iter? (see prog cmd sub --help)`},
		{[]string{"cmd", "sub", "--output", "x"}, `cmd sub: flag provided but not defined: --output; did you mean --out? (see prog cmd sub --help)`},
		{[]string{"--quite"}, `flag provided but not defined: --quite; did you mean --quiet? (see prog --help)`},
		{[]string{"--quiet"}, ""},
		// urfave said "Cannot use two forms of the same flag: o out".
		{[]string{"cmd", "sub", "-o", "a", "--out", "b"}, `cmd sub: -o and --out are the same flag: give it once (see prog cmd sub --help)`},
		{[]string{"cmd", "sub", "--out", "a", "-o", "b"}, `cmd sub: -o and --out are the same flag: give it once (see prog cmd sub --help)`},
	} {
		if got := runApp(t, c.args...); got != c.want {
			t.Errorf("%v: error %q, want %q", c.args, got, c.want)
		}
	}
}

// TestFlagStringer checks the help's spelling of flags: two dashes except
// for the short options, hidden aliases left out.
func TestFlagStringer(t *testing.T) {
	str := FlagStringer(map[string]bool{"old": true})
	for _, c := range []struct {
		flag cli.Flag
		want string
	}{
		{&cli.StringFlag{Name: FlagOut, Aliases: []string{FlagO}, Usage: "output `DIR`"}, "--out DIR, -o DIR"},
		{&cli.IntFlag{Name: "k", Aliases: []string{"old"}, Usage: "k"}, "--k value"},
		{&cli.BoolFlag{Name: FlagQuick}, "--quick"},
	} {
		got, _, _ := strings.Cut(str(c.flag), "\t")
		if got != c.want {
			t.Errorf("%v: help names %q, want %q", c.flag.Names(), got, c.want)
		}
	}
}

func TestBrief(t *testing.T) {
	err := Fail("spca: model.spca: spca: invalid model file: short")
	if got, want := Brief(err), "model.spca: invalid model file: short"; got != want {
		t.Errorf("Brief = %q, want %q", got, want)
	}
}

// TestVersionWithoutVCS checks that --version says what it knows when
// the build recorded no revision (GOFLAGS=-buildvcs=false on the build
// machine of session 11 printed only "(devel) go1.26.8"): the module
// version, "revision unknown" and why, or the revision set at link
// time, and the Go version.
func TestVersionWithoutVCS(t *testing.T) {
	bare := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/spcalab/spca", Version: "(devel)"}}
	vcs := *bare
	vcs.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-27T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		info *debug.BuildInfo
		rev  string
		want string
	}{
		{bare, "", "(devel), revision unknown (built without VCS information; see the README), go1.26.8"},
		{bare, "fedcba9876543210", "(devel), revision fedcba987654 (set at link time), go1.26.8"},
		{&vcs, "fedcba9876543210", "(devel), revision 0123456789ab+modified (2026-11-27T10:00:00Z), go1.26.8"},
	} {
		if got := versionOf(c.info, c.rev); got != c.want {
			t.Errorf("versionOf(%v, %q) = %q, want %q", c.info.Settings, c.rev, got, c.want)
		}
	}
}
