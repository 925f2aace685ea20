package main

import "github.com/spcalab/spca/cmd/internal/cliutil"

// The helpers spca shares with spca-figures live in cmd/internal/cliutil,
// one implementation for both programs; these names keep the commands'
// code as it was.
var (
	exitCode      = cliutil.ExitCode
	commandName   = cliutil.CommandName
	noPositionals = cliutil.NoPositionals
	usageError    = cliutil.UsageError
	quietFlag     = cliutil.QuietFlag
	quiet         = cliutil.Quiet
	jsonFlag      = cliutil.JSONFlag
	writeJSON     = cliutil.WriteJSON
	plural        = cliutil.Plural
	newProgress   = cliutil.NewProgress
	hasFlag       = cliutil.HasFlag
	splitArgs     = cliutil.SplitArgs
)

// fail is cliutil.Fail, declared as a function so that go vet checks the
// format strings of its calls.
func fail(format string, args ...any) error { return cliutil.Fail(format, args...) }
