package main

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// hugeHeap asks the kernel to back the next n bytes of Go heap with 2 MB
// pages (madvise MADV_HUGEPAGE: transparent huge pages are commonly
// enabled for advised memory only). A fresh encode or decode process
// touches 12-27 MB of new heap, and each 4 KB page of it costs a page
// fault: measured ~16 us a fault, a third of the CPU of a decode process
// and more of an encode. The runtime maps the heap in 4 MB steps as it
// grows, and a mapping made after the advice does not carry it, so the
// heap is grown at once by one large allocation, never touched, advised,
// and handed back (runtime.GC) for the run's allocations to reuse. Errors
// (no THP support) are ignored: the pages are then ordinary ones.
//
// The heap ballast (see setBallast) is allocated in the same step, and
// the collector is off until the one collection that frees the advised heap:
// the allocation used to start a collection of its own (2 in all, ~300
// page faults; now 1, ~200).
func hugeHeap(n int) {
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	b := make([]byte, n)
	const huge = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((p+huge-1)&^(huge-1) - p)
	hi := int((p+uintptr(n))&^(huge-1) - p)
	if hi > lo {
		syscall.Madvise(b[lo:hi], syscall.MADV_HUGEPAGE)
	}
	setBallast() // while b is live: elsewhere than the advised pages
	b = nil
	runtime.GC()
}
