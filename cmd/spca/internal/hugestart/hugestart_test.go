//go:build linux

package hugestart

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlug$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "HUGESTART_PLUG_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPlug") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func checkPlug(t *testing.T) {
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
