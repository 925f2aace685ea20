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

// heapArena is the size and alignment of the Go runtime's heap arenas on
// 64-bit Linux (runtime.heapArenaBytes).
const heapArena = 64 << 20

func init() {
	if codingCommand(os.Args) {
		advise()
		done = true
	}
}

// codingCommand reports whether the command line runs spca encode or
// decode.
func codingCommand(args []string) bool {
	c := Command(args)
	return c == "encode" || c == "decode"
}

// advise grows the heap by Bytes, asks for 2 MB pages from the start of
// its arena to the end of the allocation, allocates the ballast, and frees
// the Bytes. The collector is
// off meanwhile so that the allocation does not start a cycle of its own:
// one collection in all.
func advise() {
	gc := setGCPercent(-1)
	b := make([]byte, Bytes)
	const huge = 2 << 20
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
