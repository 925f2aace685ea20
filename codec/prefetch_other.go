//go:build !amd64

package codec

// prefetchLines is amd64's PREFETCHT0 loop; elsewhere the hints are dropped.
func prefetchLines(p *[maxPrefetch]uintptr, n int) {}

// prefetchTwo is prefetchLines for two addresses: dropped here too.
func prefetchTwo(a, b uintptr) {}
