package fence

import (
	"os"
	"sync"
	"syscall"
	"testing"
)

// Size is the most bytes a fence holds.
const Size = 256 << 10

// A Fence is Size bytes of memory followed by a page the process may not
// touch: a slice placed at its end makes a kernel that reads or writes a
// byte past the slice fault (assembly is not bounds checked, and the
// bytes after a Go slice are readable). One fence serves one call at a
// time.
type Fence struct {
	once sync.Once
	mem  []byte // the bytes before the forbidden page
	err  error
}

// At returns n bytes (n <= Size) ending where the forbidden page begins,
// or nil for a larger n.
func (f *Fence) At(tb testing.TB, n int) []byte {
	f.once.Do(func() {
		page := os.Getpagesize()
		size := (Size+page-1)/page*page + page
		m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			f.err = err
			return
		}
		if err := syscall.Mprotect(m[size-page:], syscall.PROT_NONE); err != nil {
			f.err = err
			return
		}
		f.mem = m[:size-page]
	})
	if f.err != nil {
		tb.Fatalf("fence: %v", f.err)
	}
	if n > Size {
		return nil
	}
	return f.mem[len(f.mem)-n : len(f.mem) : len(f.mem)]
}
