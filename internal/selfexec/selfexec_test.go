package selfexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestExecFormatSkips checks that the error of starting a file the kernel
// cannot execute (as an arm64 binary on an amd64 host) skips, and that
// starting this test binary natively does not.
func TestExecFormatSkips(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("execve's ENOEXEC is checked on Linux")
	}
	// Neither ELF nor #!: execve fails with ENOEXEC (Go does not retry with sh).
	bad := filepath.Join(t.TempDir(), "notexec")
	if err := os.WriteFile(bad, []byte("\x7fELF but not really\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := exec.Command(bad).Run()
	if err == nil {
		t.Fatal("started a file of garbage")
	}
	skipped := func(err error) bool {
		var sub bool
		t.Run("sub", func(t *testing.T) {
			defer func() { sub = t.Skipped() }()
			skipOnExecFormat(t, err)
		})
		return sub
	}
	if !skipped(err) {
		t.Errorf("no skip on %v", err)
	}
	if skipped(exec.Command(filepath.Join(t.TempDir(), "absent")).Run()) {
		t.Error("skipped on a missing file: only an exec format error skips")
	}
	SkipIfUnable(t) // under an emulator, this skips: the rest needs a native run
	if probeErr != nil {
		t.Errorf("starting this test binary natively: %v", probeErr)
	}
}
