// Package hugestart backs the Go heap of an `spca encode` or `spca decode`
// process with 2 MB pages from the start, before the heavy package
// initialisations run. The command imports it for that side effect only:
//
//	import _ "github.com/spcalab/spca/cmd/spca/internal/hugestart"
//
// Why: on the machines spca runs on (virtual machines included) a page
// fault costs 15-30 µs, and a process coding one 768×512 image faulted in
// ~750 4 KB pages of Go heap outside the 2 MB pages the command asked for
// later (cmd/spca hugeHeap): the heap mapped at start, which the package
// initialisations of the dependencies (fonts of gonum/plot, tables of
// urfave/cli) and then the model load fill, lowest address first. A 2 MB
// block none of whose pages has been touched yet gets one huge page at
// its first fault instead (transparent huge pages, commonly enabled for
// advised memory only).
//
// The runtime maps the heap in 4 MB steps as it grows, and a mapping made
// after the advice does not carry it, so the runtime is made to map the
// rest of its arena at once: a page mapped just past the arena makes it
// reserve elsewhere for a large allocation and then map the rest of the
// current arena, which is advised (adviseFenced; no collection, GOGC
// raised until the first one). On amd64 that allocation is a goroutine's
// stack of two arenas, never touched, which the runtime frees to the heap
// when the goroutine ends; elsewhere heap allocations, never touched,
// kept for the process's life. Where the runtime does
// otherwise, the heap is grown at once by one large allocation, never
// touched, advised, and handed back by a collection for the later
// allocations to reuse (advise; the collection cost a decode process ~90
// page faults and ~50 context switches more). Packages are initialised
// in import-path order, and this one (github.com/spcalab/spca/cmd/...)
// comes before most of the heavy ones (gonum.org, github.com/urfave); the
// runtime itself has touched the first 2 MB block by then, which is made
// one huge page (MADV_COLLAPSE): its free pages were faulted in 4 KB at a
// time.
//
// Only encode and decode (the first command-line argument that is not a
// flag) do it, and info, whose load time of a codec model is meant to be
// what an encode or decode process pays (without: 30-160 ms instead of
// 5-9 ms for the 8×8 Kodak model): the work costs other commands a
// few milliseconds for nothing. Errors (no transparent huge pages) are
// ignored: the pages stay ordinary ones.
package hugestart
