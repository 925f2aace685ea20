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

// heapStep is the size and alignment of the steps in which the runtime
// maps heap memory (runtime.pallocChunkBytes).
const heapStep = 4 << 20

func init() {
	coding := codingCommand(os.Args)
	if coding {
		collapseHeap()
	}
	growStack()
	if coding {
		start()
	}
}

// madvCollapse is Linux's MADV_COLLAPSE (6.1; the same number on every
// architecture, golang.org/x/sys/unix), which package syscall lacks.
const madvCollapse = 25

// top is the heap's lowest free page when collapseHeap made the 2 MB
// block holding it (and any written block above) one huge page, nil
// otherwise; never touched.
var top *[plugBytes]byte

// collapseHeap makes the 2 MB block of the heap where the runtime's start
// and the first package initialisations allocated, 4 KB pages at a time
// (a block gets a huge page only at its first fault, and nothing was
// advised then), one huge page: MADV_COLLAPSE, where the kernel copies
// the block's pages into a new 2 MB page (~0.5 ms here). The heap takes
// its lowest free pages first, and the rest of a process filled that
// block's free pages 4 KB a fault: ~100 faults of `spca --version`, ~35
// of a decode after internal/hugestart ran (stacks, spans of small
// objects), 11-20 µs each on the machines spca runs on (virtual ones).
// A block above it that has pages in memory already (the first
// allocations may cross a 2 MB boundary, and another P's page cache may
// hold pages there) is collapsed too. Where it fails (a kernel before
// 6.1, transparent huge pages off, no free 2 MB page) the coding
// commands plug the free pages instead (plug).
//
// Only the coding commands collapse: on a machine where a 4 KB fault
// costs ~1.5 µs (a VM of session 32) the collapse cost `spca --version`
// more than the faults it saved (interleaved, 150 rounds: paired median
// CPU 0.931 without it, of 3.03 ms), and the other commands run long
// enough for ~100 faults not to count. For a coding process it was
// neutral there (paired 0.99-1.01 on 8×8 grey and colour encodes and
// decodes of kodim13) and saves ~35 faults of 11-20 µs where faults cost
// that.
//
// The heap above that block is advised first: its
// first fault then takes a 2 MB page. The command advises it again later
// (adviseFenced), but meanwhile other goroutines (or the runtime on a P
// it took back from a long syscall such as the collapse) may touch the
// next block, which then had 4 KB pages for good: ~350 faults more in 1
// of 40 decode processes.
func collapseHeap() {
	q := new([plugBytes]byte) // the heap's lowest free page
	lo := uintptr(unsafe.Pointer(q)) &^ (huge - 1)
	if unsafe.Sizeof(uintptr(0)) == 8 { // the arena, the runtime's own range
		syscall.Syscall(syscall.SYS_MADVISE, lo, lo&^(heapArena-1)+heapArena-lo, syscall.MADV_HUGEPAGE)
	}
	// Within the runtime's own address range, so that no other mapping is
	// collapsed: the arena on 64-bit platforms (the heap's first 4 MB step
	// may be full: the next one has the runtime's pages then), else the
	// heap's 4 MB step (the runtime maps the heap in aligned steps of 4
	// MB on every platform).
	end := lo&^(heapStep-1) + heapStep
	if unsafe.Sizeof(uintptr(0)) == 8 {
		end = lo&^(heapArena-1) + heapArena
	}
	blk, ok := collapseFrom(lo, end)
	if ok && blk > lo {
		top, collapsedTo = q, blk
	}
	collapseTried = blk > lo || !ok
}

// collapsedTo is the end of the blocks collapseHeap made huge pages.
var collapsedTo uintptr

// collapseTried records whether collapseHeap found pages in memory in the
// block of the heap's lowest free page (else the heap's next pages were a
// fresh block, which needs no collapse): for the tests.
var collapseTried bool

// collapseFrom collapses the blocks from lo up that have pages in memory,
// up to end, and returns the first that has none (or end); ok is false if
// a collapse failed (at the block returned). A block already one huge page
// takes a syscall that changes nothing.
func collapseFrom(lo, end uintptr) (blk uintptr, ok bool) {
	for blk = lo; blk < end && resident(blk); blk += huge {
		if !collapse(blk) {
			return blk, false
		}
	}
	return blk, true
}

// collapse makes the 2 MB block at blk one huge page and reports whether
// it did. A try fails now and then (EAGAIN: a page of the block busy for
// a moment; 1 in 10 here), and the next one succeeds.
func collapse(blk uintptr) bool {
	for range 4 {
		_, _, err := syscall.Syscall(syscall.SYS_MADVISE, blk, huge, madvCollapse)
		if err != syscall.EAGAIN {
			return err == 0
		}
	}
	return false
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

// start grows and advises the heap, and sets the ballast where its steps
// need one (heapSteps, advise; the stack step of amd64 sets none: GOGC,
// raised until the first collection, holds it off as the ballast did).
// Under a memory limit the allocations heapSteps leave (132 MB) would
// count against it until the first collection: advise frees its own at
// once, and sets no ballast there.
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
// adviseFenced took its steps with heap allocations (see heapSteps): its
// heap goal before a first collection is 4 MB × raisedGC / 100 = 260 MB,
// the 132 MB of untouched allocations plus 128 MB, and the first
// collection starts 50-115 MB of allocation later (the trigger lies at
// 70-95 % of the goal), as with advise's ballast (45-60 MB). Coding a
// 768×512 image allocates 12-27 MB.
const raisedGC = 6500

// raisedGCStack is raisedGC where the step was a goroutine stack (see
// stackStep), which leaves nothing allocated: the same goal of 128 MB of
// allocation.
const raisedGCStack = 3200

// adviseFenced backs the heap with 2 MB pages as advise does, without
// the collection that advise needs to free its allocation: that
// collection cost a decode process ~90 of its ~550 page faults (blocks of
// the collector's span sets, the roots it scans) and ~50 context
// switches (8×8 model, kodim13: 551 -> 464 faults, median CPU 37.4 ->
// 34.6 ms at load 15, interleaved). It reports false, having changed
// nothing but address space, the heap's plugs and the advice, when the
// runtime did not place the allocations as this expects (another Go
// version or address-space layout); advise then does the job.
//
// The runtime maps heap memory 4 MB at a time as the heap grows into the
// arena it reserved, and a mapping made after the advice does not carry
// it. But when the heap cannot grow in place, because the address after
// its arena is taken, the runtime reserves an arena elsewhere and maps
// the whole rest of the current one at once (mheap.grow). A PROT_NONE
// page placed just past the arena, then an allocation larger than the
// arena's rest, make it do so; the mapped rest, free, is advised. The
// rest of the first arena is 0-60 MB (the runtime starts the heap at a
// random 4 MB step of it), so more is needed: stackStep's allocation is
// a goroutine stack of two arenas, freed and advised after; heapSteps, where
// stackStep is not available, allocate on the heap twice.
func adviseFenced() bool {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return false // heapArena is 4 MB on 32-bit platforms
	}
	gc := setGCPercent(-1)
	// The goroutine of the stack step starts before the plugs: starting
	// it allocates (its stack, maybe a thread's), which may make the
	// runtime map and touch heap above the plugs before the advice.
	step := newStackStep()
	plug()
	last := uintptr(unsafe.Pointer(plugs[len(plugs)-1]))
	arena := last &^ (heapArena - 1)
	// The heap from the block above the plugs to the arena's end is
	// advised now (the part mapped already) and again after the step,
	// which maps the rest; blocks collapseHeap made huge pages too (the
	// advice changes nothing there but says what they are).
	start := (last + huge - 1) &^ (huge - 1)
	if top != nil {
		start = last &^ (huge - 1)
	}
	adviseRest(start, arena)
	if !fence(arena + heapArena) {
		step.cancel()
		setGCPercent(gc)
		return false
	}
	ok, raised := false, int32(raisedGCStack)
	if step != nil {
		ok = step.run(start, arena)
	} else {
		ok, raised = heapSteps(start, arena), raisedGC
	}
	if !ok {
		setGCPercent(gc)
		return false
	}
	// Until the step, allocations (the stack step's goroutine and thread,
	// growStack's stack) may have made the runtime map and write the next
	// 4 MB of the arena before any advice could apply there (1 decode
	// process in 20-60 then took ~350 faults of 4 KB pages in a block):
	// such blocks are collapsed (from above those collapseHeap did: a
	// block already one huge page costs a syscall of ~40 µs that changes
	// nothing).
	collapseFrom(max(start, collapsedTo), arena+heapArena)
	if gc < 0 {
		setGCPercent(gc) // GOGC=off stays off
		return true
	}
	setGCPercent(max(gc, raised))
	gcToRestore <- gc
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { Release() })
	return true
}

// adviseRest advises the heap from start to the end of the arena at
// arena; parts not mapped yet are not advised (their mapping will not
// carry it).
func adviseRest(start, arena uintptr) {
	syscall.Syscall(syscall.SYS_MADVISE, start, arena+heapArena-start, syscall.MADV_HUGEPAGE)
}

// stackStep makes the runtime map the rest of an arena (fenced) with a
// goroutine whose stack grows to two arenas, 128 MB (bigFrame's frame),
// which the runtime takes from a new reservation: when the goroutine
// ends, the runtime hands the stack back to the heap at once (stacks are
// not garbage collected), advised. Nothing is left allocated, and the
// freed 128 MB are heap for later allocations, where heapSteps keep 132
// MB of untouched allocations for the process's life (their span entries
// are the same ~33 page faults) plus a third reservation, and advise 60
// MB above the arena's rest until the first collection frees 68 MB of
// them. With a stack of 64 MB instead, a 6 Mpx grey encode (8×8 model)
// took 9,200 page faults against 760, a 16×16 decode 19 fewer. The
// pages the goroutine touched, at the top of the stack, are the heap's
// last.
// stackBytes is the stack bigFrame gets: the power of two its frame fits
// in (the runtime doubles a stack until it does).
const stackBytes = 128 << 20

type stackStep struct {
	todo  chan [2]uintptr // start and arena for adviseRest
	ended chan struct{}
	sp    uintptr // bigFrame's stack pointer
}

// newStackStep starts the goroutine of a stack step, which waits for run
// or cancel; nil where bigFrame is not available.
func newStackStep() *stackStep {
	if !haveBigFrame {
		return nil
	}
	s := &stackStep{todo: make(chan [2]uintptr, 1), ended: make(chan struct{})}
	go s.grow()
	return s
}

func (s *stackStep) grow() {
	defer close(s.ended)
	r, ok := <-s.todo
	if !ok {
		return
	}
	s.sp = bigFrame()
	// At once: the heap may take the new pages before run returns.
	adviseRest(r[0], r[1])
	syscall.Syscall(syscall.SYS_MADVISE, s.sp&^(heapArena-1), stackBytes, syscall.MADV_HUGEPAGE)
}

// run takes the step for the arena at arena, fenced, and reports whether
// the stack lay outside it (else the fence did not hold).
func (s *stackStep) run(start, arena uintptr) bool {
	s.todo <- [2]uintptr{start, arena}
	<-s.ended
	v := s.sp &^ (heapArena - 1)
	return v < arena || v > arena+heapArena
}

// cancel ends the goroutine of s without the step; nothing if s is nil.
func (s *stackStep) cancel() {
	if s != nil {
		close(s.todo)
	}
}

// heapSteps makes the runtime map the rest of the arena at arena (fenced)
// and 60 MB of a new one with two allocations, never touched, and
// advises them. The first, of a page more than an arena, gets a new
// reservation of two arenas (128 MB) and occupies 68 MB of it; a fence
// past those and the ballast (64 MB) make the runtime map the other 60 MB.
// The two allocations cost address space only, but they count as heap
// (advise's collection is what frees them), so GOGC is raised to raisedGC
// until the first collection or Release.
func heapSteps(start, arena uintptr) bool {
	first := make([]byte, heapArena+plugBytes)
	v := uintptr(unsafe.Pointer(unsafe.SliceData(first)))
	if v%heapArena != 0 || v >= arena && v <= arena+heapArena || !fence(v+2*heapArena) {
		return false // grown in place: the fence did not hold
	}
	// The rest of the arena is mapped now. The new arena is mapped where
	// first lies only until the second step; advised after it, or, if it
	// fails, after all the same: advise's collection then frees first's
	// pages and the rest of the arena into advised memory.
	adviseRest(start, arena)
	ballast = make([]byte, BallastBytes)
	syscall.Syscall(syscall.SYS_MADVISE, v, 2*heapArena, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(first)
	w := uintptr(unsafe.Pointer(unsafe.SliceData(ballast)))
	if w%heapArena != 0 || w >= v && w <= v+2*heapArena {
		ballast = nil
		return false
	}
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
	if top != nil {
		// The blocks in use are huge pages (collapseHeap): their free
		// pages cost no fault. The one plug is the page above which the
		// advice starts.
		plugs = []*[plugBytes]byte{top}
		return
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
