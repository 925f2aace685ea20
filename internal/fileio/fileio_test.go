package fileio

import (
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
