// Package readme holds only a test: that the Go snippets of the README are
// the bodies of example functions, which go test compiles, so that the
// README's code cannot drift from the API.
package readme
