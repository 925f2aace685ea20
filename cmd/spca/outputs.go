package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/spcalab/spca/internal/atomicfile"
)

// Output safety (issue 23). Every file the commands write goes through
// internal/atomicfile, which refuses to replace an input (compared by
// device and inode) or anything but a regular file, keeps the mode of a
// replaced file and removes its temporary file on failure. withOutputGuard
// registers each command's inputs and checks its output before the work
// starts; removeTempsOnSignal removes temporary files on SIGINT/SIGTERM.

// inputFlags name the flags whose values are files (or directories of
// files) a command reads; positional arguments are inputs too.
var inputFlags = []string{flagIn, flagModel, flagImages, flagPairs, flagEnvA, flagEnvB}

// maxProtected bounds the files registered from input directories.
const maxProtected = 100000

// withOutputGuard gives cmd a Before that registers its inputs with
// atomicfile.Protect and checks its --out with atomicfile.Check: an
// output that is an input, a FIFO or a device, or in a directory that
// cannot be written, fails before any work.
func withOutputGuard(cmd *cli.Command) {
	if cmd.Action == nil {
		return
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		atomicfile.Reset()
		pos, late := splitArgs(c)
		outs := late[flagOut]
		var inputs []string
		for _, f := range c.Command.Flags {
			name := f.Names()[0]
			if !slices.Contains(inputFlags, name) {
				continue
			}
			if _, ok := f.(*cli.StringSliceFlag); ok {
				inputs = append(inputs, c.StringSlice(name)...)
			} else if v := c.String(name); v != "" {
				inputs = append(inputs, v)
			}
		}
		protect(append(inputs, pos...))
		if hasFlag(c.Command, flagOut) && c.String(flagOut) != "" {
			outs = append(outs, c.String(flagOut))
		}
		for _, out := range outs {
			if out == stdio {
				continue
			}
			if err := atomicfile.Check(out); errors.Is(err, atomicfile.ErrSameAsInput) {
				return fail("%s: refusing to overwrite the input %s with its output (the same file as an input)", commandName(c), out)
			} else if err != nil {
				return fail("%s: %s", commandName(c), strings.TrimPrefix(err.Error(), "write "))
			}
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// protect registers paths, and the files in those that are directories
// (two levels down: image directories and pairs directories), as inputs.
func protect(paths []string) {
	n := 0
	var walk func(p string, depth int)
	walk = func(p string, depth int) {
		if n >= maxProtected || p == stdio || p == "" {
			return
		}
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			atomicfile.Protect(p)
			n++
		case st.IsDir() && depth < 2:
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				walk(filepath.Join(p, e.Name()), depth+1)
			}
		}
	}
	for _, p := range paths {
		for _, q := range strings.Split(p, ",") {
			walk(q, 0)
		}
	}
}

func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// splitArgs returns the positional arguments of c and the flags given
// after them (which positionalArgs applies later), by primary name: their
// values are not taken for inputs, and -o/--out there is checked too.
func splitArgs(c *cli.Context) (pos []string, late map[string][]string) {
	late = map[string][]string{}
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), late
		}
		if a == stdio || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f cli.Flag
		for _, g := range c.Command.Flags {
			if slices.Contains(g.Names(), name) {
				f = g
			}
		}
		if f == nil {
			continue
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		late[f.Names()[0]] = append(late[f.Names()[0]], value)
	}
	return pos, late
}

// removeTempsOnSignal makes SIGINT and SIGTERM remove the temporary files
// of the writes in progress before the process exits (with 130 or 143, as
// a shell reports a process killed by them).
func removeTempsOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		atomicfile.Abort()
		fmt.Fprintf(os.Stderr, "spca: %v: stopped\n", s)
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}
