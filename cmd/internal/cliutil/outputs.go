package cliutil

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
// replaced file and removes its temporary file on failure. GuardOutputs
// registers a command's inputs and checks its output before the work
// starts; RemoveTempsOnSignal removes temporary files on SIGINT/SIGTERM.

// maxProtected bounds the files registered from input directories.
const maxProtected = 100000

// GuardOutputs registers the inputs of c's command with atomicfile.Protect
// (its positional arguments and the values of its flags named in
// inputFlags) and checks its --out with atomicfile.Check: an output that
// is an input, a FIFO or a device, or in a directory that cannot be
// written, fails before any work. Commands call it from their Before.
func GuardOutputs(c *cli.Context, inputFlags []string) error {
	atomicfile.Reset()
	pos, late := SplitArgs(c)
	outs := late[FlagOut]
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
	if HasFlag(c.Command, FlagOut) && c.String(FlagOut) != "" {
		outs = append(outs, c.String(FlagOut))
	}
	for _, out := range outs {
		if out == Stdio {
			continue
		}
		if err := atomicfile.Check(out); errors.Is(err, atomicfile.ErrSameAsInput) {
			return Fail("%srefusing to overwrite the input %s with its output (the same file as an input)", namePrefix(c), out)
		} else if err != nil {
			return Fail("%s%s%s", namePrefix(c), strings.TrimPrefix(err.Error(), "write "), discardHint(out, err))
		}
	}
	return nil
}

// discardHint tells a user who gave -o /dev/null (a device or FIFO,
// refused: a rename as root would replace the device) how to discard
// the output instead; "" for other errors and for directories.
func discardHint(out string, err error) string {
	if !errors.Is(err, atomicfile.ErrNotRegular) {
		return ""
	}
	if st, serr := os.Stat(out); serr == nil && st.IsDir() {
		return ""
	}
	return "; to discard the output, give -o - and redirect it (-o - > /dev/null) where the command writes standard output"
}

// namePrefix is "fit: " for the command fit, "" for a program without
// commands.
func namePrefix(c *cli.Context) string {
	if name := CommandName(c); name != "" {
		return name + ": "
	}
	return ""
}

// protect registers paths, and the files in those that are directories
// (two levels down: image directories and pairs directories), as inputs.
func protect(paths []string) {
	n := 0
	var walk func(p string, depth int)
	walk = func(p string, depth int) {
		if n >= maxProtected || p == Stdio || p == "" {
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

// HasFlag reports whether cmd has a flag called name.
func HasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// SplitArgs returns the positional arguments of c and the flags given
// after them (which the commands parse later), by primary name: their
// values are not taken for inputs, and -o/--out there is checked too.
func SplitArgs(c *cli.Context) (pos []string, late map[string][]string) {
	late = map[string][]string{}
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), late
		}
		if a == Stdio || !strings.HasPrefix(a, "-") {
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

// RemoveTempsOnSignal makes SIGINT and SIGTERM remove the temporary files
// of the writes in progress before the process exits (with 130 or 143, as
// a shell reports a process killed by them); program names the process in
// the message.
func RemoveTempsOnSignal(program string) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		atomicfile.Abort()
		fmt.Fprintf(os.Stderr, "%s: %v: stopped\n", program, s)
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}
