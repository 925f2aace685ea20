package fileio

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errBad = errors.New("bad content")

func readUpper(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	if strings.Contains(string(b), "bad") {
		return "", errBad
	}
	return strings.ToUpper(string(b)), nil
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	os.WriteFile(good, []byte("abc"), 0o644)
	os.WriteFile(bad, []byte("bad"), 0o644)
	if v, err := Read(good, readUpper); err != nil || v != "ABC" {
		t.Errorf("good file: %q, %v", v, err)
	}
	_, err := Read(bad, readUpper)
	if !errors.Is(err, errBad) || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad file: %v, want %q wrapped with the path", err, errBad)
	}
	_, err = Read(filepath.Join(dir, "missing"), readUpper)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadAllSized reads a file (into one buffer of its size), a file with
// a limit below its size and a bytes.Reader as io.ReadAll of the prefix
// and the rest would, and reads nothing of a stream.
func TestReadAllSized(t *testing.T) {
	dir := t.TempDir()
	content := []byte(strings.Repeat("0123456789", 1000))
	path := filepath.Join(dir, "f")
	os.WriteFile(path, content, 0o644)
	open := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		head := make([]byte, 7)
		io.ReadFull(f, head)
		return f
	}
	check := func(name string, got []byte, err error, want []byte) {
		t.Helper()
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %d bytes (%v), want %d", name, len(got), err, len(want))
		}
	}
	b, err := ReadAllSized(open(), 1<<20, content[:7])
	check("file", b, err, content)
	if cap(b) > len(content)+1 {
		t.Errorf("file: buffer of %d bytes for %d", cap(b), len(content))
	}
	b, err = ReadAllSized(open(), 5000, content[:7])
	check("file, limit", b, err, content[:5000])
	b, err = ReadAllSized(bytes.NewReader(content[7:]), 1<<20, content[:7])
	check("bytes.Reader", b, err, content)
	r, w := io.Pipe()
	go func() { w.Write(content); w.Close() }()
	if b, err := ReadAllSized(r, 1<<20, nil); b != nil || err != nil {
		t.Errorf("stream: %d bytes (%v), want none read", len(b), err)
	}
}
