package cliutil

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// Fail returns the error of a failed command: one line, exit status 1.
func Fail(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), 1)
}

// ExitCode is the status for err: the code of a cli.ExitCoder, else 1.
func ExitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		return ec.ExitCode()
	}
	return 1
}

// Brief returns the message of err without the "spca: " prefix of the
// library's errors, also where the library wrapped one of its errors
// ("model.spca: spca: invalid model file: ..."), for embedding in a
// message of the command.
func Brief(err error) string {
	msg := strings.TrimPrefix(err.Error(), "spca: ")
	return strings.ReplaceAll(msg, ": spca: ", ": ")
}

// CommandName returns the name of the command as typed after the program's
// name: "fit", or "codec train" for a subcommand; "" for the program
// itself (spca-figures has no commands).
func CommandName(c *cli.Context) string {
	if c.Command == nil || c.Command.HelpName == c.App.Name {
		return ""
	}
	if name, ok := strings.CutPrefix(c.Command.HelpName, c.App.Name+" "); ok {
		return name
	}
	return c.Command.Name
}

// HelpCommand is the command line that shows the help of c's command:
// "spca codec train --help".
func HelpCommand(c *cli.Context) string {
	if name := CommandName(c); name != "" {
		return c.App.Name + " " + name + " --help"
	}
	return c.App.Name + " --help"
}

// Failf is Fail with the message prefixed by the command's name ("fit: ")
// and followed by where to find its help.
func Failf(c *cli.Context, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...) + " (see " + HelpCommand(c) + ")"
	if name := CommandName(c); name != "" {
		msg = name + ": " + msg
	}
	return Fail("%s", msg)
}

// UsageError turns a flag parsing error into one line that points to the
// help text, instead of printing the help (cli.OnUsageErrorFunc).
// Go's flag package names the flag with one dash ("flag provided but not
// defined: -input"); the message writes it as the help does, with two
// dashes except the short options -o, -h and -v.
func UsageError(c *cli.Context, err error, isSubcommand bool) error {
	re := flagInError()
	msg := re.ReplaceAllStringFunc(err.Error(), func(m string) string {
		g := re.FindStringSubmatch(m)
		if name := g[2]; name == "o" || name == "h" || name == "v" {
			return m
		}
		return g[1] + "-" + g[2]
	})
	// urfave's "Cannot use two forms of the same flag: o out" (-o x
	// --out y, or -h --help).
	if names, ok := strings.CutPrefix(err.Error(), "Cannot use two forms of the same flag: "); ok {
		if a, b, ok := strings.Cut(names, " "); ok {
			msg = dashed(a) + " and " + dashed(b) + " are the same flag: give it once"
		}
	}
	// A misspelt flag: the nearest of the command's.
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		var flags []cli.Flag
		if c.Command != nil && isSubcommand {
			flags = c.Command.Flags
		} else {
			flags = c.App.Flags
		}
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		if best := Nearest(name, names); best != "" {
			msg += "; did you mean --" + best + "?"
		} else if slices.Contains(rateSynonyms, strings.ToLower(name)) && slices.Contains(names, "bpp") {
			msg += "; the rate is --bpp (bits per pixel)"
			if slices.Contains(names, "step") {
				msg += " or --step (the quantiser step)"
			}
		}
	}
	if isSubcommand {
		return Failf(c, "%s", msg)
	}
	return Fail("%s (see %s --help)", msg, c.App.Name)
}

// rateSynonyms are other encoders' names for their rate or quality knob
// (cjpeg -quality, cwebp -q, ffmpeg -b, -crf, -qp): a command with --bpp
// names it instead of only refusing them.
var rateSynonyms = []string{"quality", "q", "rate", "bitrate", "b", "crf", "qp"}

// Nearest returns the name of names nearest to name: at most two edits
// away (and fewer than its length), one it begins with 3 or more letters
// of, or one of 2 or more letters it begins with; "" if none is.
func Nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(name, n)
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			d = 1
		} else if len(n) >= 2 && strings.HasPrefix(name, n) {
			d = min(d, 2) // --input for --in
		}
		if d < bestD && d < len(name) {
			best, bestD = n, d
		}
	}
	return best
}

// dashed writes a flag name as the help does: -o, --out.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// flagInError matches a flag name in the errors of Go's flag package:
// group 1 what precedes it up to its dash, group 2 the name. It is
// compiled on first use, not by every process (one per image for encode).
var flagInError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`((?:defined: |argument: |flag |value "[^"]*" for )-)([A-Za-z][A-Za-z0-9_-]*)`)
})

// NoPositionals rejects stray arguments of a command that takes none.
func NoPositionals(c *cli.Context) error {
	if !c.Args().Present() {
		return nil
	}
	// The first mistake of a new user: the input as an argument.
	if c.Command != nil && !c.IsSet("in") {
		for _, f := range c.Command.Flags {
			if f.Names()[0] == "in" {
				return Failf(c, "unexpected argument %q: give the input with --in", c.Args().First())
			}
		}
	}
	return Failf(c, "unexpected argument %q", c.Args().First())
}

// Plural returns "1 image", "2 images".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Revision, if set at link time (go build -ldflags "-X
// github.com/spcalab/spca/cmd/internal/cliutil.Revision=$(git rev-parse
// HEAD)"), is the revision Version reports when the build recorded none
// (go build -buildvcs=false, or a build outside the git checkout).
var Revision string

// Version returns the version of the module as built, from the build
// information: the module version ("(devel)" for a build from a
// checkout), the VCS revision and time when go build recorded them (else
// Revision, else "revision unknown"), and the Go version.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information in the binary)"
	}
	return versionOf(info, Revision)
}

// versionOf is Version for the build information info and the link-time
// revision rev.
func versionOf(info *debug.BuildInfo, rev string) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var vcsRev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			vcsRev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+modified"
			}
		}
	}
	switch {
	case vcsRev != "":
		v += fmt.Sprintf(", revision %.12s%s (%s)", vcsRev, dirty, at)
	case rev != "":
		v += fmt.Sprintf(", revision %.12s (set at link time)", rev)
	default:
		v += ", revision unknown (built without VCS information; see the README)"
	}
	return v + ", " + info.GoVersion
}
