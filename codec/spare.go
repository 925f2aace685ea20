package codec

import (
	"sync"
	"unsafe"
)

// spare is memory nothing refers to any more, handed out to the first
// buffers a process codes into (takeSpare): a model's inflated section 0
// (4.2 MB for the colour Kodak model), which the model's parse copies
// everything it keeps out of (the lattice, the quantisers), the packed
// bytes the sections were read into (1.4 MB) and the SPCA models' integer
// scratch (spca.TakeScratch, 0.9 MB), all left to the collector, that a
// batch process of a few images never runs. Their float64 views (each an
// allocation of its own, aligned to 8 bytes at least) then take the
// place of fresh memory that the process's first image would fault in
// and the kernel clear (2 MB pages, ~17 of which a colour batch decode
// touches). TestSpareSection0 checks section 0's lifetime: a model
// reading from the spare after its planes wrote into it would code
// differently; TestSpareRegions the pieces' choice.
var spare struct {
	mu      sync.Mutex
	regions [][]float64
	// last is the piece takeSpare handed out last, from regions[from]
	// (nil once anything else changed the regions): giveBack returns it.
	last []float64
	from int
}

// maxSpareRegions bounds the regions kept: a process that loads models
// one after another keeps the last ones' (the older ones are left to the
// collector). A colour model donates 3 at its load and one per channel
// as its first image decodes its fast paths (storedFast.release), before
// the image's planes take section 0.
const maxSpareRegions = 8

// donate adds b, which nothing may use after, to the spare.
func donate(b []byte) {
	b = b[:cap(b)]
	if len(b) < 8 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(float64(0)) != 0 {
		return
	}
	f := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
	spare.mu.Lock()
	defer spare.mu.Unlock()
	if len(spare.regions) == maxSpareRegions {
		spare.regions = append(spare.regions[:0], spare.regions[1:]...)
	}
	spare.regions = append(spare.regions, f)
	spare.last = nil
}

// donateInts is donate of an integer buffer.
func donateInts(b []int64) {
	b = b[:cap(b)]
	if len(b) == 0 {
		return
	}
	donate(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*8))
}

// takeSpare returns n values of the spare, whatever they hold (the
// caller writes every one), or nil if no region has that many left. They
// come from the smallest region that holds them (the first of equals),
// so that the larger ones stay whole for larger buffers: a 768×512
// colour image's luma plane (3 MB) fits section 0 only, its chroma planes
// (0.8 MB) the integer scratch or what the luma left of section 0.
func takeSpare(n int) []float64 {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	if n <= 0 {
		return nil
	}
	best := -1
	for i, r := range spare.regions {
		if len(r) >= n && (best < 0 || len(r) < len(spare.regions[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	r := spare.regions[best]
	spare.regions[best] = r[n:]
	spare.last, spare.from = r[:n:n], best
	return r[:n:n]
}

// giveBack returns b to the spare if it is the piece takeSpareBytes
// handed out last and nothing was taken from its region since, so that
// the region is whole again, and reports whether it did. A lazy section's
// packed bytes, garbage once inflated, are given back so: a grey encode's
// fast path (0.39 MB packed, taken from section 0's region) left that
// region too short for the image's indices, which took fresh pages.
func giveBack(b []byte) bool {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	l := spare.last
	if l == nil || len(b) == 0 || unsafe.SliceData(b) != (*byte)(unsafe.Pointer(unsafe.SliceData(l))) || len(b) > 8*len(l) {
		return false
	}
	// Nothing was taken since (takeSpare sets last), so the region is
	// what followed the piece in the allocation they were cut from.
	r := spare.regions[spare.from]
	spare.regions[spare.from] = unsafe.Slice(unsafe.SliceData(l), len(l)+len(r))
	spare.last = nil
	return true
}

// takeSpareInt32 is takeSpare of n int32 values.
func takeSpareInt32(n int) []int32 {
	f := takeSpare((n + 1) / 2)
	if f == nil {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f))), n)
}

// takeSpareBytes is takeSpare of n bytes.
func takeSpareBytes(n int) []byte {
	f := takeSpare((n + 7) / 8)
	if f == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), n)
}

// dropSpare forgets the spare (ReleaseBuffers).
func dropSpare() {
	spare.mu.Lock()
	spare.regions, spare.last = nil, nil
	spare.mu.Unlock()
}
