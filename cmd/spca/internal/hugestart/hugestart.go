package hugestart

// Bytes is the heap the process grows to and advises at start. A batch
// encode of 12 768×512 images grows its heap to ~50 MB before its first
// collection (the ballast holds that off), and with 32 MB advised the
// rest took ~190 faults of 4 KB pages per image, ~16 µs each (8×8 model,
// kodim13-24 grey: 256-278 -> 69-81 faults per image with 64 MB). An
// advised page costs nothing until touched.
const Bytes = 64 << 20

// done is set when the heap was grown and advised at start.
var done bool

// Done reports whether the heap was grown and advised at start; the
// command then need not do it again.
func Done() bool { return done }

// BallastBytes is the size of the heap ballast allocated at start.
const BallastBytes = 64 << 20

// ballast is allocated at start and never touched: it takes address space
// but no memory (see TakeBallast).
var ballast []byte

// TakeBallast returns the heap ballast allocated at start, nil if none,
// and forgets it: the caller keeps it live as long as it wants the
// collector to count it (cmd/spca heapBallast).
func TakeBallast() []byte {
	b := ballast
	ballast = nil
	return b
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
