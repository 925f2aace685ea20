//go:build !linux

package atomicfile

// syncFiles flushes the files to stable storage, each by its own fsync.
func syncFiles(ps []pending) error {
	for _, p := range ps {
		if err := p.f.Sync(); err != nil {
			return err
		}
	}
	return nil
}
