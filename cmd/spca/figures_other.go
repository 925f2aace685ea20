//go:build !unix

package main

import "errors"

// execFigures cannot replace the process here; runFigures runs the
// program as a child instead.
func execFigures(string, []string) error { return errors.ErrUnsupported }
