package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestReadmeCommandLines checks the command lines of the README (indented
// lines starting with "spca "): each names an existing command, and each
// flag it writes (before any # comment) is a flag of that command, so the
// README's examples cannot drift from the flags, and -o is spelt -o. spca figures passes its
// flags to spca-figures, whose own tests check them.
func TestReadmeCommandLines(t *testing.T) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Skipf("README: %v", err)
	}
	defer f.Close()
	app := newApp()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "    spca ")
		if !ok {
			continue
		}
		lines++
		line, _, _ = strings.Cut(line, " #")
		for _, e := range checkCommandLine(app, line) {
			t.Errorf("README: %s", e)
		}
		// One spelling, as in the usage lines (TestUsageLines): the
		// README's command lines mixed --out FILE and -o FILE.
		if strings.Contains(line, "--out ") {
			t.Errorf("README: spca %s writes --out, the others -o", line)
		}
	}
	if lines < 30 {
		t.Errorf("README: found %d command lines, want 30 or more", lines)
	}
}

// goBuildCmd matches the packages ./cmd/NAME a go build line builds.
var goBuildCmd = regexp.MustCompile(`\./cmd/([a-z0-9-]+)`)

// TestReadmeGoBuild checks that no go build line of the README builds
// ./cmd/NAME into ./NAME where the repository root has a folder NAME:
// "go build ./cmd/spca" failed there ("build output "spca" already
// exists and is a directory"), as the README told a new user to run it.
func TestReadmeGoBuild(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skipf("README: %v", err)
	}
	for _, line := range strings.Split(string(readme), "\n") {
		_, build, ok := strings.Cut(line, "go build ")
		build, _, _ = strings.Cut(build, "`") // the command ends with its code span
		if !ok || strings.Contains(build, "-o ") || strings.Contains(line, "cd ") {
			continue
		}
		for _, m := range goBuildCmd.FindAllStringSubmatch(build, -1) {
			if st, err := os.Stat("../../" + m[1]); err == nil && st.IsDir() {
				t.Errorf("README: %q builds %s into the folder %s/ (give -o, or go install)", strings.TrimSpace(line), m[0], m[1])
			}
		}
	}
}

// TestUsageLines checks the usage lines of the help (spca CMD --help) as
// TestReadmeCommandLines checks the README's.
func TestUsageLines(t *testing.T) {
	app := newApp()
	var walk func(cmds []*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			usage, _, _ := strings.Cut(c.UsageText, "\n\n")
			for _, line := range strings.Split(usage, "\n") {
				if line, ok := strings.CutPrefix(line, "spca "); ok {
					for _, e := range checkCommandLine(app, line) {
						t.Errorf("usage of %s: %s", c.Name, e)
					}
					// One spelling in the usage lines: half wrote --out
					// FILE, half -o FILE.
					if strings.Contains(line, "--out ") {
						t.Errorf("usage of %s writes --out, the others -o: %s", c.Name, line)
					}
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

var flagInLine = regexp.MustCompile(`^[\[(|]*--?([a-z][a-z0-9-]*)`)

// checkCommandLine returns what is wrong with the command line "spca
// line": a command that does not exist, flags it does not have.
func checkCommandLine(app *cli.App, line string) []string {
	var errs []string
	words := strings.Fields(line)
	cmds, path := app.Commands, []string{}
	var cmd *cli.Command
	for len(words) > 0 {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(words[0]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd, cmds, path, words = next, next.Subcommands, append(path, words[0]), words[1:]
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return append(errs, "spca "+line+": no such command")
	}
	if cmd.Name == "figures" {
		return nil
	}
	for _, w := range words {
		m := flagInLine.FindStringSubmatch(w)
		if m == nil {
			continue
		}
		found := false
		for _, fl := range cmd.Flags {
			for _, n := range fl.Names() {
				found = found || n == m[1]
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("spca %s: spca %s has no flag --%s", line, strings.Join(path, " "), m[1]))
		}
	}
	return errs
}
