//go:build !linux

package main

// hugeHeap is a no-op where madvise(MADV_HUGEPAGE) is not available.
func hugeHeap(int) {}
