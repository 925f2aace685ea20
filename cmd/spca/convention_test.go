package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
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
}
