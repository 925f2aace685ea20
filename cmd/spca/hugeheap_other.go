//go:build !linux

package main

import "runtime/debug"

// hugeHeap only sets the heap ballast where madvise(MADV_HUGEPAGE) is not
// available.
func hugeHeap(int) {
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	setBallast()
}
