package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/fifo"
)

func writeString(path, s string) error {
	return Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

// Issue 23: a FIFO (or any non-regular file) at the destination is never
// replaced, by Write or Check.
func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "fifo")
	if err := fifo.Make(pipe); err != nil {
		t.Skip("no FIFO:", err)
	}
	for name, err := range map[string]error{"Write": writeString(pipe, "x"), "Check": Check(pipe)} {
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s onto a FIFO: %v, want ErrNotRegular", name, err)
		}
	}
	if st, err := os.Lstat(pipe); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", st.Mode(), err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("entries %v, want the FIFO only", got)
	}
}

// Issue 23: an input, under another name (a hard link), is not replaced.
func TestWriteRefusesInput(t *testing.T) {
	defer Reset()
	dir := t.TempDir()
	in, link := filepath.Join(dir, "in"), filepath.Join(dir, "link")
	os.WriteFile(in, []byte("input"), 0o644)
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	Protect(in, filepath.Join(dir, "missing"))
	for _, p := range []string{in, link, filepath.Join(dir, ".", "in")} {
		if err := writeString(p, "x"); !errors.Is(err, ErrSameAsInput) {
			t.Errorf("Write onto %s: %v, want ErrSameAsInput", p, err)
		}
		if err := Check(p); !errors.Is(err, ErrSameAsInput) {
			t.Errorf("Check of %s: %v, want ErrSameAsInput", p, err)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "input" {
		t.Errorf("input now %q", b)
	}
	if err := writeString(filepath.Join(dir, "other"), "x"); err != nil {
		t.Errorf("Write to another file: %v", err)
	}
	Reset()
	if err := writeString(in, "x"); err != nil {
		t.Errorf("Write after Reset: %v", err)
	}
}

// Issue 23: a replaced file keeps its mode (0600 stayed 0644 before).
func TestWriteKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(path, []byte("old"), 0o600)
	os.Chmod(path, 0o600) // whatever the umask
	if err := writeString(path, "new"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after replacing a 0600 file", st.Mode().Perm())
	}
	fresh := filepath.Join(filepath.Dir(path), "fresh")
	writeString(fresh, "new")
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
}

// Issue 23: Abort (the signal handler's call) removes the temporary file
// of a Write in progress, which then fails, and later Writes fail.
func TestAbort(t *testing.T) {
	defer func() { state.Lock(); state.aborted = false; state.Unlock() }()
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		if n := len(entries(t, dir)); n != 1 {
			t.Errorf("%d entries while writing", n)
		}
		Abort()
		return nil
	})
	if err == nil {
		t.Error("a Write interrupted by Abort succeeded")
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("entries after Abort: %v", got)
	}
	if err := writeString(path, "x"); !errors.Is(err, ErrAborted) {
		t.Errorf("Write after Abort: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("entries after a Write after Abort: %v", got)
	}
}

// Issue 23: Check finds an unwritable directory before any work.
func TestCheckUnwritable(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "out")); err != nil {
		t.Errorf("writable directory: %v", err)
	}
	if err := Check(dir); err != nil {
		t.Errorf("writable directory as a batch destination: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("Check left %v", got)
	}
	if err := Check(filepath.Join(dir, "new", "sub", "out")); err != nil {
		t.Errorf("missing directories (made by the writer) under a writable one: %v", err)
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o500)
	target := filepath.Join(ro, "out")
	if os.Geteuid() == 0 {
		target = "/proc/spca-out" // root writes anywhere but in read-only file systems
	}
	if err := Check(target); err == nil || !strings.Contains(err.Error(), target) {
		t.Errorf("unwritable directory: %v", err)
	}
}
