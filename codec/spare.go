package codec

import (
	"sync"
	"unsafe"
)

// spare is memory nothing refers to any more, handed out to the first
// planes a process codes (takeSpare): a model's inflated section 0 (4.2
// MB for the colour Kodak model), which the model's parse copies
// everything it keeps out of (the lattice, the quantisers), and which was
// left to the collector, that a batch process of a few images never
// runs. Its float64 view (the section's buffer is a large allocation,
// aligned to pages) then takes the place of fresh memory that the
// process's first image would fault in and the kernel clear (two 2 MB
// pages of the ~17 a colour batch decode touches). TestSpareSection0
// checks the section's lifetime: a model reading from the spare after
// its planes wrote into it would code differently.
var spare struct {
	mu sync.Mutex
	f  []float64
}

// donate makes b, which nothing may use after, the spare (the last one
// donated; the one before is left to the collector).
func donate(b []byte) {
	b = b[:cap(b)]
	if len(b) < 8 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(float64(0)) != 0 {
		return
	}
	f := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
	spare.mu.Lock()
	spare.f = f
	spare.mu.Unlock()
}

// takeSpare returns n values of the spare, whatever they hold (the
// caller writes every one), or nil if it has fewer left.
func takeSpare(n int) []float64 {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	if n <= 0 || len(spare.f) < n {
		return nil
	}
	s := spare.f[:n:n]
	spare.f = spare.f[n:]
	return s
}

// dropSpare forgets the spare (ReleaseBuffers).
func dropSpare() {
	spare.mu.Lock()
	spare.f = nil
	spare.mu.Unlock()
}
