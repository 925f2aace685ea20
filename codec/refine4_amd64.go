package codec

// search4 is search4Go in assembly (refine4_amd64.s): the state in
// registers, the 8 moves of a round unrolled (TestSearch4).
//
//go:noescape
func search4(p *refine4Run) (miss bool)

// hintLines4 writes hint4's addresses into pf from n on and asks for the
// lines at all of pf's first ones (PREFETCHT0), as prefetchLines does,
// in assembly, each slot's as it is found: hint4 and prefetchLines were
// ~330 instructions a patch (TestCellCacheHint). It returns the count.
//
//go:noescape
func hintLines4(p *refine4Run, pf *[maxPrefetch]uintptr, n int, key uint64, cell *[4]int32) (count int)
