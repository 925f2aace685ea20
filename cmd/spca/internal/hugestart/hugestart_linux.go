package hugestart

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// This package imports only os, runtime, syscall and unsafe
// (TestEarlyImports). The linker orders package initialisation by
// dependencies and, among the packages ready, by import path; a package
// whose path sorts late (runtime/debug, strings) is ready early but waits
// behind every ready package that sorts before it, and so did this one:
// importing runtime/debug, it ran after urfave/cli's blackfriday,
// stripansi, go-runewidth and gonum/mat (GODEBUG=inittrace=1), whose
// ~250 KB of allocations took 4 KB pages before the advice.

// setGCPercent is runtime/debug.SetGCPercent without importing
// runtime/debug (see above): the runtime provides it to runtime/debug
// under this name.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

// huge is the size and alignment of a transparent huge page.
const huge = 2 << 20

// heapArena is the size and alignment of the Go runtime's heap arenas on
// 64-bit Linux (runtime.heapArenaBytes).
const heapArena = 64 << 20

func init() {
	if codingCommand(os.Args) {
		advise()
		done = true
	}
}

// codingCommand reports whether the command line runs spca encode,
// decode or info (see the package doc).
func codingCommand(args []string) bool {
	c := Command(args)
	return c == "encode" || c == "decode" || c == "info"
}

// advise grows the heap by Bytes, asks for 2 MB pages from the start of
// its arena to the end of the allocation, allocates the ballast, and frees
// the Bytes. The collector is
// off meanwhile so that the allocation does not start a cycle of its own:
// one collection in all.
func advise() {
	gc := setGCPercent(-1)
	plug()
	b := make([]byte, Bytes)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	// From the arena start: the heap mapped before b still has free pages,
	// which later allocations take first (lowest address first). Parts of
	// the arena not mapped yet are the runtime's reservation (PROT_NONE),
	// harmless to advise; a range with unmapped holes is advised where it
	// is mapped (the ENOMEM is ignored).
	lo := p &^ (heapArena - 1)
	hi := (p + uintptr(len(b))) &^ (huge - 1)
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_HUGEPAGE)
	}
	// The ballast is allocated while b is live, so that it lies elsewhere
	// than b's pages: on them the runtime would clear it (they were used),
	// touching 64 MB of pages.
	ballast = make([]byte, BallastBytes)
	runtime.KeepAlive(b)
	b = nil
	setGCPercent(gc)
	// The collection runs on one P: on two it started mark workers on both
	// and stopped the world longer (gctrace: ~3.0 -> 1.35 ms CPU). Then
	// the setting is restored: the GOMAXPROCS variable's value if it is
	// set, else the runtime's default, which keeps following the CPU limit
	// (SetDefaultGOMAXPROCS ignores the variable).
	prev := runtime.GOMAXPROCS(1)
	runtime.GC()
	if os.Getenv("GOMAXPROCS") != "" {
		runtime.GOMAXPROCS(prev)
	} else {
		runtime.SetDefaultGOMAXPROCS()
	}
}

// plugBytes is the size of a plug: one runtime page (8 KB), the smallest
// span the heap hands out, in a size class of one object per span.
const plugBytes = 8192

// plugs hold the pages plug allocated, for the life of the process.
var plugs []*[plugBytes]byte

// plug allocates every free page of the heap below the next 2 MB
// boundary above the pages in use, and keeps them, never touched. The
// 2 MB block holding the heap the runtime and the first package
// initialisations used has 4 KB pages already (a block gets a huge page
// only at its first fault), and the heap takes the lowest free pages
// first: without the plugs, the first 0.5-1.5 MB of the run's
// allocations (the model's packed section, spans of small objects,
// stacks) faulted there 4 KB at a time, ~250 page faults of the ~750 of
// a decode process. A fresh page is not cleared when allocated, so a
// plug costs address space only.
func plug() {
	plugs = make([]*[plugBytes]byte, 0, 2*huge/plugBytes)
	for len(plugs) < cap(plugs) {
		q := new([plugBytes]byte)
		plugs = append(plugs, q)
		if a := uintptr(unsafe.Pointer(q)); a%huge == 0 && !resident(a) {
			return // the pages below it are in use, its block is clean: b starts in it
		}
	}
}

// resident reports whether a page of the 2 MB block at a is in memory
// (mincore), i.e. whether the block has 4 KB pages already: the runtime's
// first allocations may cross a 2 MB boundary. Errors (ENOMEM: a part of
// the block not mapped) count as not in memory.
func resident(a uintptr) bool {
	var vec [huge / 4096]byte
	_, _, err := syscall.Syscall(syscall.SYS_MINCORE, a, huge, uintptr(unsafe.Pointer(&vec[0])))
	if err != 0 {
		return false
	}
	for _, v := range vec {
		if v&1 != 0 {
			return true
		}
	}
	return false
}
