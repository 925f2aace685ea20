package fifo

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p")
	err := Make(path)
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Make on %s: %v, want errors.ErrUnsupported", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s: mode %v, want a named pipe", path, fi.Mode())
	}
}
