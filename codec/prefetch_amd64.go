package codec

// prefetchLines asks the processor to bring the cache lines at the first n
// addresses of p towards its caches (PREFETCHT0), without waiting for them:
// the addresses are hints only, never dereferenced by Go, and a prefetch
// of any address is harmless.
//
//go:noescape
func prefetchLines(p *[maxPrefetch]uintptr, n int)

// prefetchTwo is prefetchLines for two addresses, without the array.
//
//go:noescape
func prefetchTwo(a, b uintptr)
