package main

import "github.com/spcalab/spca/cmd/internal/cliutil"

// fail is cliutil.Fail, declared as a function so that go vet checks the
// format strings of its calls.
func fail(format string, args ...any) error { return cliutil.Fail(format, args...) }
