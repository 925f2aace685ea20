//go:build unix

package main

import (
	"os"
	"syscall"
)

// execFigures replaces the process by the program at path with args
// (execve): the process is then the program's, which receives the
// signals and exits with its own status, and nothing of spca is left
// to outlive or orphan it. It returns only on failure.
func execFigures(path string, args []string) error {
	return syscall.Exec(path, append([]string{figuresProgram}, args...), os.Environ())
}
