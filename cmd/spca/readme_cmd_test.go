package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestReadmeCommandLines checks the command lines of the README (indented
// lines starting with "spca "): each names an existing command, and each
// flag it writes (before any # comment) is a flag of that command, so the
// README's examples cannot drift from the flags. spca figures passes its
// flags to spca-figures, whose own tests check them.
func TestReadmeCommandLines(t *testing.T) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Skipf("README: %v", err)
	}
	defer f.Close()
	app := newApp()
	flagRE := regexp.MustCompile(`^[\[(|]*--?([a-z][a-z0-9-]*)`)
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "    spca ")
		if !ok {
			continue
		}
		lines++
		line, _, _ = strings.Cut(line, " #")
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
			t.Errorf("README: spca %s: no such command", line)
			continue
		}
		if cmd.Name == "figures" {
			continue
		}
		for _, w := range words {
			m := flagRE.FindStringSubmatch(w)
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
				t.Errorf("README: spca %s: spca %s has no flag --%s", line, strings.Join(path, " "), m[1])
			}
		}
	}
	if lines < 30 {
		t.Errorf("README: found %d command lines, want 30 or more", lines)
	}
}
