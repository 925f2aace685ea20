//go:build unix

package fifo

import "syscall"

// Make creates a named pipe at path.
func Make(path string) error { return syscall.Mkfifo(path, 0o644) }
