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

// huge is the size and alignment of a transparent huge page.
const huge = 2 << 20

// heapArena is the size and alignment of the Go runtime's heap arenas on
// 64-bit Linux (runtime.heapArenaBytes).
const heapArena = 64 << 20

func init() {
	growStack()
	if codingCommand(os.Args) {
		start()
	}
}

// stackFrame is the stack frame of growStack: more than the 32 KB to
// which the main goroutine's stack grew by doubling, so that the runtime
// gives it the 64 KB it ends with in one step.
const stackFrame = 34 << 10

// growStack grows the stack of the main goroutine, on which package
// initialisation and then the command run, from the runtime's 2 KB to its
// working size at once. Without it the stack doubled five times during
// package initialisation (urfave/cli's blackfriday and mpb's stripansi
// compile recursive regular expressions: 2 -> 64 KB), each time copying
// the frames and adjusting their pointers, which the runtime finds by
// decoding each function's stack maps (runtime.newstack 5.3 % of the
// CPU samples of a 16×16 p4b encode). Now one copy of a few frames.
//
//go:noinline
func growStack() byte {
	var frame [stackFrame]byte
	return frame[stackIndex]
}

// stackIndex is the byte growStack reads: a variable, so that the
// compiler keeps the frame.
var stackIndex = 0

// start grows and advises the heap and sets the ballast. Under a memory
// limit the allocations adviseFenced leaves (132 MB) would count against
// it until the first collection: advise frees its own at once, and sets
// no ballast there.
func start() {
	if Limited() || !adviseFenced() {
		advise()
	}
	done = true
}

// codingCommand reports whether the command line runs spca encode,
// decode or info (see the package doc).
func codingCommand(args []string) bool {
	c := Command(args)
	return c == "encode" || c == "decode" || c == "info"
}

// raisedGC is the GOGC setting that holds off the collector after
// adviseFenced: its heap goal before a first collection is 4 MB ×
// raisedGC / 100 = 260 MB, the 132 MB of untouched allocations plus 128
// MB, and the first collection starts 50-115 MB of allocation later
// (the trigger lies at 70-95 % of the goal), as with advise's ballast
// (45-60 MB). Coding a 768×512 image allocates 12-27 MB.
const raisedGC = 6500

// adviseFenced backs the heap with 2 MB pages as advise does, without
// the collection that advise needs to free its allocation: that
// collection cost a decode process ~90 of its ~550 page faults (blocks of
// the collector's span sets, the roots it scans) and ~50 context
// switches (8×8 model, kodim13: 551 -> 464 faults, median CPU 37.4 ->
// 34.6 ms at load 15, interleaved). It reports false, having changed
// nothing but address space and the heap's plugs, when the runtime did
// not place the allocations as this expects (another Go version or
// address-space layout); advise then does the job.
//
// The runtime maps heap memory 4 MB at a time as the heap grows into the
// arena it reserved, and a mapping made after the advice does not carry
// it. But when the heap cannot grow in place, because the address after
// its arena is taken, the runtime reserves an arena elsewhere and maps
// the whole rest of the current one at once (mheap.grow). A PROT_NONE
// page placed just past the arena, then an allocation larger than the
// arena's rest, make it do so; the mapped rest, free, is advised. The
// rest of the first arena is 0-60 MB (the runtime starts the heap at a
// random 4 MB step of it), so the step is taken twice: the first
// allocation, of a page more than an arena, gets a new reservation of two
// arenas (128 MB) and occupies 68 MB of it; a fence past those and the
// ballast (64 MB) make the runtime map the other 60 MB. The two
// allocations are never touched: they cost address space only. They
// count as heap at once, though (advise's collection is what frees
// them), so GOGC is raised to raisedGC until the first collection or
// Release.
func adviseFenced() bool {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return false // heapArena is 4 MB on 32-bit platforms
	}
	gc := setGCPercent(-1)
	plug()
	last := uintptr(unsafe.Pointer(plugs[len(plugs)-1]))
	arena := last &^ (heapArena - 1)
	if !fence(arena + heapArena) {
		setGCPercent(gc)
		return false
	}
	first := make([]byte, heapArena+plugBytes)
	v := uintptr(unsafe.Pointer(unsafe.SliceData(first)))
	if v%heapArena != 0 || v >= arena && v <= arena+heapArena || !fence(v+2*heapArena) {
		setGCPercent(gc) // grown in place: the fence did not hold
		return false
	}
	// The rest of the arena is mapped now. The new arena is mapped where
	// first lies only until the second step; advised after it, or, if it
	// fails, after all the same: advise's collection then frees first's
	// pages and the rest of the arena into advised memory.
	start := (last + huge - 1) &^ (huge - 1)
	syscall.Syscall(syscall.SYS_MADVISE, start, arena+heapArena-start, syscall.MADV_HUGEPAGE)
	ballast = make([]byte, BallastBytes)
	syscall.Syscall(syscall.SYS_MADVISE, v, 2*heapArena, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(first)
	w := uintptr(unsafe.Pointer(unsafe.SliceData(ballast)))
	if w%heapArena != 0 || w >= v && w <= v+2*heapArena {
		ballast = nil
		setGCPercent(gc)
		return false
	}
	if gc < 0 {
		setGCPercent(gc) // GOGC=off stays off
		return true
	}
	setGCPercent(max(gc, raisedGC))
	gcToRestore <- gc
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { Release() })
	return true
}

// sentinel is an object whose finalizer runs after the first collection
// (it has a pointer: the tiny allocator, whose blocks may never be
// finalized, takes pointer-free objects only).
type sentinel struct{ _ *byte }

// fence maps a PROT_NONE page at a, where nothing may be mapped yet, and
// reports whether it did.
func fence(a uintptr) bool {
	const mapFixedNoreplace = 0x100000 // Linux 4.17; older kernels take a for a hint
	p, _, err := syscall.Syscall6(syscall.SYS_MMAP, a, 4096, syscall.PROT_NONE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|mapFixedNoreplace, ^uintptr(0), 0)
	if err != 0 {
		return false
	}
	if p != a {
		syscall.Syscall(syscall.SYS_MUNMAP, p, 4096, 0)
		return false
	}
	return true
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
	if !Limited() {
		ballast = make([]byte, BallastBytes)
	}
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
	if plugs != nil {
		return // done (adviseFenced, then advise)
	}
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
