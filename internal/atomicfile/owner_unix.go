//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// keepOwner gives the file at tmp the owner and group of old, where the
// process may (root may; others only keep their own group).
func keepOwner(tmp string, old os.FileInfo) {
	if s, ok := old.Sys().(*syscall.Stat_t); ok {
		os.Chown(tmp, int(s.Uid), int(s.Gid)) // not permitted: the file stays the writer's
	}
}
