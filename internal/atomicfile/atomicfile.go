package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces the file at path with the bytes produced by write.
//
// write receives a buffered writer on a temporary file created in the same
// directory as path; Write flushes it, syncs the file, sets its mode to
// 0644 and renames it over path. If write or any of these steps fails, the
// temporary file is removed, the file at path is left untouched and the
// error is returned wrapped with path.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the error is moot then
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()

	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
