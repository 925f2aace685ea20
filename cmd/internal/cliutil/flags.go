package cliutil

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// Names of the flags that spca and spca-figures share.
const (
	FlagQuiet  = "quiet"
	FlagOut    = "out"
	FlagO      = "o" // alias of --out
	FlagJSON   = "json"
	FlagSeed   = "seed"
	FlagImages = "images"
	FlagOnly   = "only"
	FlagQuick  = "quick"
)

// DefaultSeed is the default of --seed in every command, so that a command
// run twice without --seed, or two commands, draw the same random choices.
const DefaultSeed = 1

// Stdio is the file name that stands for standard input or output.
const Stdio = "-"

// QuietFlag is --quiet.
func QuietFlag() cli.Flag {
	return &cli.BoolFlag{Name: FlagQuiet, Usage: "print no progress or summary on stderr"}
}

// Quiet reports whether --quiet was given before or after the command name.
func Quiet(c *cli.Context) bool {
	for _, x := range c.Lineage() {
		if x.Bool(FlagQuiet) {
			return true
		}
	}
	return false
}

// JSONFlag is --json.
func JSONFlag() cli.Flag {
	return &cli.BoolFlag{Name: FlagJSON, Usage: "print JSON on stdout instead of text"}
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ShortOptions are the one-letter aliases of longer flags, the only flags
// written with one dash in the help. One-letter parameter names of the
// method (k, q, n) are written --k, as in the README; Go's flag parsing
// accepts one or two dashes for every flag.
var ShortOptions = map[string]bool{FlagO: true, "h": true, "v": true}

// defaultFlagString is cli's own formatting of a flag for the help.
var defaultFlagString = cli.FlagStringer

// FlagStringer returns the formatting of a flag for the help
// (cli.FlagStringer): as cli does, with every name written with two dashes
// except ShortOptions, and without the aliases in hidden (old spellings,
// still accepted; keyed by alias, so a flag whose own name is one of them
// is shown).
func FlagStringer(hidden map[string]bool) cli.FlagStringFunc {
	return func(f cli.Flag) string {
		s := defaultFlagString(f)
		df, ok := f.(cli.DocGenerationFlag)
		_, usage, cut := strings.Cut(s, "\t")
		if !ok || !cut {
			return s
		}
		placeholder := ""
		if df.TakesValue() {
			placeholder = "value"
			if _, after, ok := strings.Cut(df.GetUsage(), "`"); ok {
				if p, _, ok := strings.Cut(after, "`"); ok {
					placeholder = p
				}
			}
		}
		names := flagNames(df.Names(), placeholder, hidden)
		if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() {
			names += " [ " + names + " ]"
		}
		return names + "\t" + usage
	}
}

// flagNames formats the names of a flag for the help: hidden aliases left
// out, two dashes except for short options.
func flagNames(names []string, placeholder string, hidden map[string]bool) string {
	var b strings.Builder
	for i, name := range names {
		if name == "" || (i > 0 && hidden[name]) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if ShortOptions[name] {
			b.WriteString("-")
		} else {
			b.WriteString("--")
		}
		b.WriteString(name)
		if placeholder != "" {
			b.WriteString(" " + placeholder)
		}
	}
	return b.String()
}
