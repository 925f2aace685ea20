// Package selfexec is for tests that start their own test binary again as
// a child process (os.Args[0]): a fresh heap, a signal, a panic or exit
// that would end the test binary itself.
package selfexec

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

var (
	probeOnce sync.Once
	probeErr  error
)

// SkipIfUnable skips t where this test binary cannot start itself. A test
// binary built for another architecture and run through a user-mode
// emulator (GOARCH=arm64 go test -exec qemu-aarch64-static) on a host
// without binfmt_misc gets "exec format error" from every exec of
// os.Args[0]: that is the emulation, not the code under test, and the
// test runs where the binary is native. Any other failure to start is
// left to the test to report.
func SkipIfUnable(t testing.TB) {
	t.Helper()
	probeOnce.Do(func() {
		// -test.list with a pattern matching nothing: starts and exits.
		probeErr = exec.Command(os.Args[0], "-test.list=^$").Run()
	})
	skipOnExecFormat(t, probeErr)
}

// skipOnExecFormat skips t if err (from starting os.Args[0]) is an exec
// format error.
func skipOnExecFormat(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("this test binary cannot start itself as a child process (%v): "+
			"a foreign-architecture run through an emulator; the test needs a native run", err)
	}
}
