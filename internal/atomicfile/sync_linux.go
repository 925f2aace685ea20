package atomicfile

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// syncFiles flushes the files to stable storage: one syncfs(2) per
// directory they are in (one file system each, at most), which costs a
// batch about what a single fsync costs. Since Linux 5.8 syncfs reports
// the write-back errors of the file system; before, it returns 0, and a
// failing file of a group goes unreported where an fsync would have
// reported it.
func syncFiles(ps []pending) error {
	done := map[string]bool{}
	for _, p := range ps {
		dir := filepath.Dir(p.tmp)
		if done[dir] {
			continue
		}
		done[dir] = true
		if err := unix.Syncfs(int(p.f.Fd())); err != nil {
			return &os.PathError{Op: "syncfs", Path: dir, Err: err}
		}
	}
	return nil
}
