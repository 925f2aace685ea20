//go:build linux

package hugestart

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/spcalab/spca/internal/selfexec"
)

func TestCodingCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"spca", "decode", "--model", "m", "x.spc"}, true},
		{[]string{"spca", "--quiet", "encode", "a.png"}, true},
		{[]string{"spca", "info", "m.model"}, true}, // its load time is a coding process's
		{[]string{"spca", "fit", "encode"}, false},  // a file named encode
		{[]string{"spca", "codec", "train"}, false},
		{[]string{"spca", "--version"}, false},
		{[]string{"spca"}, false},
		{nil, false},
	} {
		if got := codingCommand(c.args); got != c.want {
			t.Errorf("codingCommand(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// A test binary is not an encode or decode command: nothing is done at
// start, and the command falls back to its own advice (cmd/spca hugeHeap).
func TestNotDoneInTests(t *testing.T) {
	if Done() || TakeBallast() != nil {
		t.Fatal("heap advised at start of a test binary")
	}
}

// TestLimitedStart checks that under a memory limit (GOMEMLIMIT) the start
// sets no ballast and leaves GOGC as it was: the ballast and the never-
// touched allocations count against the limit, and with them a decode
// under GOMEMLIMIT=64MiB took 2-4× the CPU (8×8 model, kodim13 grey). In
// a child process: the start grows this process's heap.
func TestLimitedStart(t *testing.T) {
	if os.Getenv("HUGESTART_LIMITED_CHILD") == "1" {
		if !Limited() {
			t.Fatalf("Limited() = false with GOMEMLIMIT=%q", os.Getenv("GOMEMLIMIT"))
		}
		start()
		if b := TakeBallast(); b != nil {
			t.Errorf("a ballast of %d bytes under a memory limit", len(b))
		}
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("GOGC is %d after the start under a memory limit, want 100 as it was", p)
		}
		return
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOGC=") && !strings.HasPrefix(e, "GOMEMLIMIT=") {
			env = append(env, e)
		}
	}
	selfexec.SkipIfUnable(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitedStart$", "-test.count=1", "-test.v")
	cmd.Env = append(env, "HUGESTART_LIMITED_CHILD=1", "GOMEMLIMIT=64MiB")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestLimitedStart") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, c := range []struct {
		v    string
		want bool
	}{{"", false}, {"off", false}, {"64MiB", true}, {"1GiB", true}} {
		t.Setenv("GOMEMLIMIT", c.v)
		if got := Limited(); got != c.want {
			t.Errorf("Limited() = %v with GOMEMLIMIT=%q, want %v", got, c.v, c.want)
		}
	}
}

// TestEarlyImports checks that the package imports only packages that the
// linker initialises early (see hugestart_linux.go): one more import of a
// late-sorting package (runtime/debug, strings, ...) moves the advice
// after heavy package initialisations again.
func TestEarlyImports(t *testing.T) {
	allowed := map[string]bool{"os": true, "runtime": true, "syscall": true, "unsafe": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); !allowed[path] {
				t.Errorf("%s imports %s; only %v initialise early enough", name, path, allowed)
			}
		}
	}
}

// TestSetGCPercent checks that setGCPercent is runtime/debug.SetGCPercent.
func TestSetGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(37)
	defer debug.SetGCPercent(prev)
	if got := setGCPercent(-1); got != 37 {
		t.Errorf("setGCPercent returned %d, want the 37 set by debug.SetGCPercent", got)
	}
	if got := debug.SetGCPercent(37); got != -1 {
		t.Errorf("after setGCPercent(-1), debug.SetGCPercent returned %d", got)
	}
}

// TestPlug checks that plug leaves no free page below a 2 MB block with
// no page in memory: the last plug starts that block, and a large
// allocation made next lies above it. It fails if plug stops at the first
// 2 MB boundary it reaches whatever the block holds, or not at all. The
// check runs in a child process, whose heap is as fresh as a command's:
// in this one, earlier tests (or -count) leave touched blocks above the
// heap that plug would have to pass.
func TestPlug(t *testing.T) {
	if os.Getenv("HUGESTART_PLUG_CHILD") == "1" {
		checkPlug(t)
		return
	}
	selfexec.SkipIfUnable(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlug$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "HUGESTART_PLUG_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPlug") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func checkPlug(t *testing.T) {
	top = nil // the plugs are what the start falls back on where collapseHeap fails
	plug()
	defer func() { plugs = nil }()
	last := uintptr(unsafe.Pointer(plugs[len(plugs)-1]))
	if last%huge != 0 {
		t.Fatalf("%d plugs, the last at %#x: not on a 2 MB boundary", len(plugs), last)
	}
	if resident(last) {
		t.Fatalf("the block at %#x has pages in memory", last)
	}
	b := make([]byte, 1<<20)
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p < last {
		t.Errorf("a 1 MB allocation at %#x, below the last plug %#x: free pages left", p, last)
	}
	// resident sees a touched page.
	b[len(b)/2] = 1
	if p := uintptr(unsafe.Pointer(&b[len(b)/2])) &^ (huge - 1); !resident(p) {
		t.Errorf("resident(%#x) = false after a write in the block", p)
	}
}

// TestFenced checks adviseFenced in a fresh process (as TestPlug): that
// it succeeds (on 64-bit Linux it must: a failure means the runtime no
// longer maps the rest of an arena when it cannot grow in place, and
// every coding process pays advise's collection again), that the memory
// the heap hands out next, 42 MB of it (a coding process uses 12-27 MB
// for a 768×512 image), lies in
// mappings advised for 2 MB pages, that GOGC is raised meanwhile, and
// that Release restores it, once.
func TestFenced(t *testing.T) {
	if os.Getenv("HUGESTART_FENCED_CHILD") == "1" {
		checkFenced(t)
		return
	}
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("adviseFenced is for 64-bit platforms")
	}
	selfexec.SkipIfUnable(t)
	// A process whose heap already reaches the next arena when the fence
	// is placed (the runtime starts the heap at a random 4 MB step of its
	// arena, and the last one leaves no room) finds the fence's address
	// taken: adviseFenced reports false there and advise does the job. It
	// happened to 2 of ~800 child processes under load (session 25), so
	// the child runs up to three times before that counts as a failure; a
	// runtime that no longer maps an arena's rest fails every time.
	for try := 1; ; try++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFenced$", "-test.count=1", "-test.v")
		// One P: the page cache of another P may hold free pages below the
		// plugs (plug allocates on its own P), which small allocations made on
		// that P take, in a test binary whose other goroutines ran there.
		cmd.Env = append(os.Environ(), "HUGESTART_FENCED_CHILD=1", "GOGC=100", "GOMAXPROCS=1")
		out, err := cmd.CombinedOutput()
		if err == nil && strings.Contains(string(out), "--- PASS: TestFenced") {
			return
		}
		if try == 3 || !strings.Contains(string(out), errNotFenced) {
			t.Fatalf("child (run %d): %v\n%s", try, err, out)
		}
		t.Logf("child run %d: %s; again", try, errNotFenced)
	}
}

// errNotFenced is what checkFenced reports when adviseFenced fails.
const errNotFenced = "adviseFenced reported false"

func checkFenced(t *testing.T) {
	if !adviseFenced() {
		t.Fatal(errNotFenced + ": the heap is not advised without a collection")
	}
	defer func() { plugs, ballast = nil, nil }()
	want := raisedGC
	if haveBigFrame {
		want = raisedGCStack
		// The stack step leaves nothing allocated: no ballast, no 128 MB
		// stack (its goroutine ended), and the arena it took is free heap.
		if ballast != nil {
			t.Errorf("a ballast of %d bytes after the stack step", len(ballast))
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.StackInuse > 16<<20 || m.HeapIdle < stackBytes {
			t.Errorf("stacks in use %d bytes, free heap %d bytes after the stack step: the 128 MB stack was not freed", m.StackInuse, m.HeapIdle)
		}
	}
	if got := debug.SetGCPercent(int(want)); got != int(want) {
		t.Errorf("GOGC %d after adviseFenced, want %d", got, want)
	}
	// Allocations as a coding process makes them: large buffers and small
	// objects, all written.
	var bufs [][]byte
	for _, n := range []int{8 << 20, 3 << 20, 512 << 10, 64 << 10, 4 << 10, 256} {
		for range max(1, (7<<20)/n) {
			b := make([]byte, n)
			for i := range b {
				b[i] = 1
			}
			bufs = append(bufs, b)
		}
	}
	// Small objects may still take free slots of spans the runtime
	// started before the advice, in blocks of 4 KB pages: a few KB.
	vmas := advisedMappings(t)
	outside, total := 0, 0
	for _, b := range bufs {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		total += len(b)
		if !within(vmas, p, p+uintptr(len(b))) {
			outside += len(b)
			t.Logf("a %d-byte allocation at %#x lies outside the mappings advised for 2 MB pages %x", len(b), p, vmas)
		}
	}
	if outside > 64<<10 {
		t.Errorf("%d of the %d bytes allocated lie outside the mappings advised for 2 MB pages", outside, total)
	}
	Release()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after Release, want the 100 of the environment", got)
	}
	debug.SetGCPercent(50)
	Release() // a second call changes nothing
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("a second Release set GOGC to %d, want the 50 set after the first", got)
	}
}

// smapsMapping is one mapping of /proc/self/smaps: its address range,
// whether it has the hugepage advice (VmFlags hg) and its AnonHugePages.
type smapsMapping struct {
	lo, hi  uintptr
	advised bool
	hugeKB  int
}

// smapsMappings reads this process's mappings from /proc/self/smaps.
func smapsMappings(t *testing.T) []smapsMapping {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var ms []smapsMapping
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			lo, hi, _ := strings.Cut(f[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("smaps line %q", line)
			}
			ms = append(ms, smapsMapping{lo: uintptr(a), hi: uintptr(b)})
		case len(ms) > 0 && len(f) >= 2 && f[0] == "AnonHugePages:":
			ms[len(ms)-1].hugeKB, _ = strconv.Atoi(f[1])
		case len(ms) > 0 && len(f) > 0 && f[0] == "VmFlags:":
			ms[len(ms)-1].advised = slices.Contains(f[1:], "hg")
		}
	}
	return ms
}

// advisedMappings returns the address ranges of this process's mappings
// with the hugepage advice.
func advisedMappings(t *testing.T) [][2]uintptr {
	var vmas [][2]uintptr
	for _, m := range smapsMappings(t) {
		if m.advised {
			vmas = append(vmas, [2]uintptr{m.lo, m.hi})
		}
	}
	return vmas
}

// within reports whether [lo, hi) lies in the union of the ranges vmas
// (adjacent mappings count as one).
func within(vmas [][2]uintptr, lo, hi uintptr) bool {
	for lo < hi {
		next := lo
		for _, v := range vmas {
			if v[0] <= lo && lo < v[1] {
				next = v[1]
			}
		}
		if next == lo {
			return false
		}
		lo = next
	}
	return true
}

// TestCollapse checks in a fresh process (as TestPlug) that collapseHeap
// makes the heap's block in use one huge page: the mapping holding top
// has a 2 MB page (AnonHugePages in /proc/self/smaps), which nothing else
// gives it in a test binary (not a coding command: nothing is advised or
// collapsed at start; the child calls collapseHeap itself, as a coding
// command's start does). It fails without the collapse.
func TestCollapse(t *testing.T) {
	if os.Getenv("HUGESTART_COLLAPSE_CHILD") == "1" {
		checkCollapse(t)
		return
	}
	// A child whose heap's next pages began a fresh block has nothing to
	// collapse (it skips), and a collapse may fail for want of a free 2 MB
	// page: a few children are tried.
	selfexec.SkipIfUnable(t)
	var out []byte
	for range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCollapse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HUGESTART_COLLAPSE_CHILD=1")
		var err error
		out, err = cmd.CombinedOutput()
		if err == nil && strings.Contains(string(out), "--- PASS: TestCollapse") {
			return
		}
	}
	if strings.Contains(string(out), "--- SKIP: TestCollapse") {
		t.Skipf("child: %s", out)
	}
	t.Fatalf("child:\n%s", out)
}

func checkCollapse(t *testing.T) {
	if top != nil || collapseTried {
		t.Fatal("collapseHeap ran at the start of a test binary (not a coding command)")
	}
	collapseHeap()
	if top == nil {
		if thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(thp), "[never]") {
			t.Skip("no transparent huge pages")
		}
		if !collapseTried {
			t.Skip("the heap's lowest free page began a fresh block: nothing to collapse")
		}
		t.Fatal("collapseHeap made no huge page (a kernel before 6.1?)")
	}
	a := uintptr(unsafe.Pointer(top))
	for _, m := range smapsMappings(t) {
		if m.lo <= a && a < m.hi {
			if m.hugeKB < huge>>10 {
				t.Errorf("the mapping holding top %#x has %d kB in huge pages, want at least %d", a, m.hugeKB, huge>>10)
			}
			return
		}
	}
	t.Errorf("no mapping holds top %#x", a)
}
