package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	for _, content := range []string{"first\n", "second, longer content\n", ""} {
		err := Write(path, func(w io.Writer) error {
			_, err := io.WriteString(w, content)
			return err
		})
		if err != nil {
			t.Fatalf("Write(%q): %v", content, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
		}
		if names := entries(t, dir); len(names) != 1 || names[0] != "out.txt" {
			t.Errorf("directory holds %v, want only out.txt", names)
		}
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		// More than the bufio buffer, so part of it reaches the temp file.
		if _, err := io.WriteString(w, strings.Repeat("x", 10000)); err != nil {
			return err
		}
		return boom
	})
	// The producer's error is its own, not the output's: unchanged, so
	// that a caller names what is at fault (a corrupt model read lazily
	// was reported as "write OUT.spc: invalid model file").
	if err != boom {
		t.Fatalf("err = %v, want boom unchanged", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "old" {
		t.Errorf("old file changed to %d bytes", len(got))
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "keep.txt" {
		t.Errorf("directory holds %v, want only keep.txt", names)
	}
}

func TestWriteFailureNoFileCreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.txt")
	err := Write(path, func(io.Writer) error { return errors.New("nope") })
	if err == nil {
		t.Fatal("no error")
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v, want nothing", names)
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "f.txt")
	called := false
	err := Write(path, func(io.Writer) error { called = true; return nil })
	if err == nil {
		t.Fatal("no error for missing directory")
	}
	if called {
		t.Error("write called although the temp file could not be created")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the path", err)
	}
}

func TestWriteRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := Write("rel.txt", func(w io.Writer) error {
		_, err := io.WriteString(w, "hi")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "rel.txt"))
	if err != nil || string(got) != "hi" {
		t.Fatalf("got %q, %v", got, err)
	}
}
