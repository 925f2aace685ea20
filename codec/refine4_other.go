//go:build !amd64

package codec

// search4 is search4Go off amd64.
func search4(p *refine4Run) bool { return search4Go(p) }

// hintLines4 is hint4's addresses, then prefetchLines of pf's first
// ones, off amd64 (where prefetchLines drops them). It returns the count.
func hintLines4(p *refine4Run, pf *[maxPrefetch]uintptr, n int, key uint64, cell *[4]int32) int {
	n = hint4(p, pf, n, key, cell)
	prefetchLines(pf, n)
	return n
}
