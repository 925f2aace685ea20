package hugestart

import (
	"os"
	_ "unsafe" // go:linkname
)

// Bytes is the heap the process grows to and advises at start. A batch
// encode of 12 768×512 images grows its heap to ~50 MB before its first
// collection (the ballast holds that off), and with 32 MB advised the
// rest took ~190 faults of 4 KB pages per image, ~16 µs each (8×8 model,
// kodim13-24 grey: 256-278 -> 69-81 faults per image with 64 MB). An
// advised page costs nothing until touched.
const Bytes = 64 << 20

// Limited reports whether the user set a soft memory limit (GOMEMLIMIT,
// other than off). The start's never-touched allocations and the
// ballast count as heap against such a limit, and under a limit of less
// than ~200 MB the collector ran again and again to stay below it (8×8
// model, kodim13 grey, GOMEMLIMIT=64MiB: a decode took 2-4× the CPU):
// under a limit the start advises the heap with a collection that frees
// what it allocated (advise, not adviseFenced) and sets no ballast, and
// the limit governs the collector as the user asked.
func Limited() bool {
	v := os.Getenv("GOMEMLIMIT")
	return v != "" && v != "off"
}

// done is set when the heap was grown and advised at start.
var done bool

// Done reports whether the heap was grown and advised at start; the
// command then need not do it again.
func Done() bool { return done }

// BallastBytes is the size of the heap ballast allocated at start.
const BallastBytes = 64 << 20

// ballast is allocated at start where the way the heap was advised needs
// it (heapSteps, advise) and never touched: it takes address space but no
// memory (see TakeBallast).
var ballast []byte

// TakeBallast returns the heap ballast allocated at start, nil if none,
// and forgets it: the caller keeps it live as long as it wants the
// collector to count it (cmd/spca heapBallast).
func TakeBallast() []byte {
	b := ballast
	ballast = nil
	return b
}

// setGCPercent is runtime/debug.SetGCPercent without importing
// runtime/debug (see hugestart_linux.go): the runtime provides it to
// runtime/debug under this name.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

// gcToRestore holds the GOGC value to restore when the start raised it
// (adviseFenced), until Release or the first collection takes it.
var gcToRestore = make(chan int32, 1)

// Release restores the collector's GOGC setting if the start raised it
// to hold off collections (see adviseFenced), at once; the first
// collection does it otherwise. The command calls it when it drops its
// ballast: after the first image of a batch. It does nothing after the
// first call, and nothing if the start did not raise the setting.
func Release() {
	select {
	case p := <-gcToRestore:
		setGCPercent(p)
	default:
	}
}

// Command returns the command args run: the first argument after the
// program name that is not a flag (spca's own flags, --quiet, --help and
// --version, take no value), "" if none.
func Command(args []string) string {
	for _, a := range args[min(1, len(args)):] {
		if a == "" || a[0] != '-' { // not strings.HasPrefix: see early

			return a
		}
	}
	return ""
}
