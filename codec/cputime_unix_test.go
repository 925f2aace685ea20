//go:build unix

package codec

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used,
// or 0 where it cannot be read: benchmarks report it beside the wall time,
// which on a loaded machine counts the waits for a processor too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
