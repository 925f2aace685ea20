package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileErrorWrapped makes the temporary file's own writes fail (EFBIG
// past a file size limit of 1 MB) and checks that Write reports them as
// write errors naming the path, whether the producer returns the failed
// write's error as it is, wrapped, or replaced by one of its own, or
// leaves it to the final flush, and that nothing is left behind.
func TestFileErrorWrapped(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	// Past the limit a write fails with EFBIG once SIGXFSZ is ignored.
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	// 1 MB: far above what the test binary's own files (go test's test
	// log) reach meanwhile.
	const limit = 1 << 20
	lim := old
	lim.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)

	big := strings.Repeat("x", 2*limit)
	for _, tc := range []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"as is", func(w io.Writer) error {
			_, err := io.WriteString(w, big)
			return err
		}},
		{"wrapped", func(w io.Writer) error {
			_, err := io.WriteString(w, big)
			return fmt.Errorf("encode: %w", err)
		}},
		{"replaced", func(w io.Writer) error {
			if _, err := io.WriteString(w, big); err != nil {
				return errors.New("short write")
			}
			return nil
		}},
		{"at flush", func(w io.Writer) error {
			// Up to just below the limit straight to the file, then
			// 100 bytes the buffer holds until the final flush.
			if _, err := io.WriteString(w, big[:limit-10]); err != nil {
				return err
			}
			_, err := io.WriteString(w, big[:100])
			return err
		}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.bin")
		err := Write(path, tc.write)
		if err == nil {
			t.Fatalf("%s: no error writing past the file size limit", tc.name)
		}
		if !strings.HasPrefix(err.Error(), "write "+path+": ") {
			t.Errorf("%s: %q, want a write error naming %s", tc.name, err, path)
		}
		if tc.name != "replaced" && !errors.Is(err, syscall.EFBIG) {
			t.Errorf("%s: %v does not wrap EFBIG", tc.name, err)
		}
		if strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("%s: %q names the temporary file", tc.name, err)
		}
		if names := entries(t, dir); len(names) != 0 {
			t.Errorf("%s: directory holds %v, want nothing", tc.name, names)
		}
	}
}
