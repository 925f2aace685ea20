//go:build !amd64

package codec

// prefetchLines is amd64's PREFETCHT0 loop; elsewhere the hints are dropped.
func prefetchLines(p *[maxPrefetch]uintptr, n int) {}
