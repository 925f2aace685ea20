// Package cliutil holds what the commands spca and spca-figures share, so
// that both follow one convention without a copy of it: the names of the
// common flags, --quiet and --json, progress bars on a terminal's stderr,
// one-line errors with their exit status, the output guard of atomic
// writes and the version string.
//
// It exists because figure generation is its own program (cmd/spca-figures):
// the spca binary, started once per image by encode and decode, does not
// link or initialise the plotting and LaTeX packages the figures need.
package cliutil
