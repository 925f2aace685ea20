package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroup checks that grouped Writes appear at their paths only at a
// commit (by the max-th Write or by Commit), with their content and the
// mode of the file they replace, that no temporary file is left, and
// that Group(0) commits what waits and ends the grouping.
func TestGroup(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("b"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Group(3); err != nil {
		t.Fatal(err)
	}
	defer Group(0)
	for _, n := range []string{"a", "b"} {
		if err := writeString(p(n), "new "+n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(p("a")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a exists before the commit: %v", err)
	}
	if b, _ := os.ReadFile(p("b")); string(b) != "old" {
		t.Fatalf("b replaced before the commit: %q", b)
	}
	if err := writeString(p("c"), "new c"); err != nil { // the third: commits
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		if b, err := os.ReadFile(p(n)); err != nil || string(b) != "new "+n {
			t.Fatalf("%s after the commit: %q, %v", n, b, err)
		}
	}
	if st, _ := os.Stat(p("b")); st.Mode().Perm() != 0o600 {
		t.Errorf("b's mode %v, want 0600", st.Mode().Perm())
	}
	if err := writeString(p("d"), "new d"); err != nil {
		t.Fatal(err)
	}
	if err := Group(0); err != nil { // commits d
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p("d")); err != nil || string(b) != "new d" {
		t.Fatalf("d after Group(0): %q, %v", b, err)
	}
	if err := writeString(p("e"), "e"); err != nil { // not grouped
		t.Fatal(err)
	}
	if got := strings.Join(entries(t, dir), " "); got != "a b c d e" {
		t.Errorf("directory holds %q, want a b c d e", got)
	}
}

// TestGroupCommitError checks that a destination turned into a directory
// before the commit fails that file only, by name, removing its temporary
// file, and that the other files of the group are renamed.
func TestGroupCommitError(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := Group(10); err != nil {
		t.Fatal(err)
	}
	defer Group(0)
	for _, n := range []string{"a", "b", "c"} {
		if err := writeString(p(n), n); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(p("b"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Commit()
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p("b")) {
		t.Fatalf("Commit: %v, want ErrNotRegular naming %s", err, p("b"))
	}
	for _, n := range []string{"a", "c"} {
		if b, err := os.ReadFile(p(n)); err != nil || string(b) != n {
			t.Fatalf("%s: %q, %v", n, b, err)
		}
	}
	if got := strings.Join(entries(t, dir), " "); got != "a b c" {
		t.Errorf("directory holds %q, want a b c (no temporary file)", got)
	}
	if err := Commit(); err != nil {
		t.Errorf("second Commit: %v", err)
	}
}
