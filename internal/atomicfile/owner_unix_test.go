//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Issue 23: as root, a replaced file keeps its owner and group.
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "owned")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if err := writeString(path, "new"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if s := st.Sys().(*syscall.Stat_t); s.Uid != 1234 || s.Gid != 5678 {
		t.Errorf("owner %d:%d after replacing a file of 1234:5678", s.Uid, s.Gid)
	}
}
