package main

import "unsafe"

// heapAllocated returns the bytes the process has allocated on the heap
// since it started: the metric "/gc/heap/allocs:bytes" of runtime/metrics
// (no stop of the world), 0 if the runtime does not provide it. It calls
// the runtime's implementation of metrics.Read directly, without
// importing runtime/metrics, whose package initialisation every process
// ran for this one number: ~0.4 ms before internal/hugestart advises the
// heap (GODEBUG=inittrace=1, 95 allocations of 15 KB). runtime.ReadMemStats
// is no substitute: it stops the world and flushes the span caches, and
// in a batch decode of 12 images it cost 160 page faults and 280 context
// switches more.
func heapAllocated() uint64 {
	s := [1]metricSample{{name: "/gc/heap/allocs:bytes"}}
	readMetrics(unsafe.Pointer(&s[0]), len(s), cap(s))
	if s[0].kind != metricKindUint64 {
		return 0
	}
	return s[0].scalar
}

// metricSample has the layout of runtime/metrics.Sample, a name and a
// metrics.Value, which the runtime's readMetrics fills (TestHeapAllocated
// compares the two).
type metricSample struct {
	name    string
	kind    int // metrics.ValueKind
	scalar  uint64
	pointer unsafe.Pointer
}

// metricKindUint64 is metrics.KindUint64.
const metricKindUint64 = 1

// readMetrics is runtime/metrics.Read's implementation in the runtime,
// which provides it to runtime/metrics under this name.
//
//go:linkname readMetrics runtime/metrics.runtime_readMetrics
func readMetrics(samples unsafe.Pointer, len, cap int)
