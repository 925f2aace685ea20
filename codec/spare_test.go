package codec

import (
	"bytes"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/spcalab/spca/testimages"
)

// TestSpareSection0 checks the lifetimes that make a model's inflated
// section 0, its packed bytes and the SPCA models' integer scratch the
// spare (donate): nothing the model keeps may refer to them, and the
// first image's buffers then overwrite them. A model loaded from a file
// codes and decodes an image with its buffers in each of the donated
// regions alone as it does with no spare, the same files and pixels; and
// no section reads into the spare later (its reader's buffer is not in
// the spare).
func TestSpareSection0(t *testing.T) {
	path := filepath.Join(t.TempDir(), "colour.model")
	trained := smallColorModel(t, true)
	if err := trained.Save(path); err != nil {
		t.Fatal(err)
	}
	img := testimages.ColorTexture(64, 48, 9)
	// The model as trained has no sections and donates nothing: the
	// file and pixels with no spare at all.
	ReleaseBuffers()
	fWant, pWant := codeAndDecode(t, img, trained)
	// left returns the values left in the spare's first region.
	left := func() int {
		spare.mu.Lock()
		defer spare.mu.Unlock()
		if len(spare.regions) == 0 {
			return 0
		}
		return len(spare.regions[0])
	}
	// code codes with the spare's region keep alone (-1: none; else the
	// fast paths are decoded before, their sections not kept) and returns
	// how many of its values the buffers took, how many regions were
	// donated by the load, and how many while coding (the fast paths'
	// sections, storedFast.release).
	code := func(keep int) (file, pix []byte, took, regions, later int) {
		ReleaseBuffers() // no kept buffers and no spare
		m, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		spare.mu.Lock()
		regions = len(spare.regions)
		spare.mu.Unlock()
		if keep >= 0 {
			// The fast paths decoded first, so that the sections they
			// donate (smaller regions, which the planes would take) are
			// dropped with the others: the region kept is the only one.
			for _, c := range m.Channels {
				if _, err := c.loadFast(); err != nil {
					t.Fatal(err)
				}
			}
		}
		spare.mu.Lock()
		for _, c := range m.Channels {
			for _, s := range []*section{c.sampleSec, c.fastSec, c.basisSec} {
				if s == nil || s.src.spare == nil {
					continue
				}
				b := s.src.spare[:cap(s.src.spare)]
				lo, hi := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))+uintptr(len(b))
				for i, r := range spare.regions {
					p := uintptr(unsafe.Pointer(unsafe.SliceData(r)))
					if p < hi && lo < p+uintptr(len(r))*8 {
						t.Errorf("the sections' reader would read into the spare's region %d", i)
					}
				}
			}
		}
		if keep < 0 || keep >= regions {
			spare.regions = nil
		} else {
			spare.regions = spare.regions[keep : keep+1]
		}
		kept := len(spare.regions)
		spare.mu.Unlock()
		before := left()
		file, pix = codeAndDecode(t, img, m)
		spare.mu.Lock()
		later = len(spare.regions) - kept
		spare.mu.Unlock()
		return file, pix, before - left(), regions, later
	}
	f0, p0, _, regions, later := code(-1)
	defer ReleaseBuffers()
	if !bytes.Equal(f0, fWant) || !bytes.Equal(p0, pWant) {
		t.Error("the model loaded codes or decodes otherwise than the model trained")
	}
	// One fast path section a channel, donated once decoded.
	if later != len(trained.Channels) {
		t.Errorf("%d regions donated while coding, want %d (the fast paths' sections)", later, len(trained.Channels))
	}
	// Section 0 with its packed bytes (one region: openJoined) and the
	// integer scratch (which its sync.Pool may have dropped: -race drops
	// some at random).
	if regions < 1 || regions > 2 {
		t.Errorf("%d regions donated by a model load, want 2", regions)
	}
	// The encoder's three planes and the decoder's (64×48 and twice 32×24).
	planes := 2 * (64*48 + 2*32*24)
	for keep := range regions {
		f1, p1, took, _, _ := code(keep)
		if keep == 0 && took < planes {
			t.Errorf("the buffers took %d values of section 0, want %d at least (the planes)", took, planes)
		}
		if !bytes.Equal(f0, f1) {
			t.Errorf("another file with buffers in the spare's region %d", keep)
		}
		if !bytes.Equal(p0, p1) {
			t.Errorf("other pixels with buffers in the spare's region %d", keep)
		}
	}
}

// TestSpareRegions checks takeSpare's choice: the smallest region that
// holds the values asked for, pieces that do not overlap, nothing where
// no region holds them, the oldest regions dropped past maxSpareRegions.
func TestSpareRegions(t *testing.T) {
	defer dropSpare()
	dropSpare()
	base := func(f []float64) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(f))) }
	bufs := [][]byte{make([]byte, 8*100), make([]byte, 8*30), make([]byte, 8*60)}
	for _, b := range bufs {
		donate(b)
	}
	in := func(f []float64, b []byte) bool {
		p, lo := base(f), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return p >= lo && p+uintptr(len(f))*8 <= lo+uintptr(len(b))
	}
	var got [][]float64
	for _, c := range []struct{ n, region int }{
		{25, 1},  // 30 is the smallest that holds 25: 5 left
		{40, 2},  // 60: 20 left
		{20, 2},  // 20 of 60 (before the 100): 0 left
		{6, 0},   // the 5 left of 30 no longer hold 6
		{5, 1},   // they hold 5
		{95, -1}, // 94 left of 100
		{0, -1},
	} {
		f := takeSpare(c.n)
		if c.region < 0 {
			if f != nil {
				t.Errorf("takeSpare(%d) = %d values, want nil", c.n, len(f))
			}
			continue
		}
		if len(f) != c.n || cap(f) != c.n {
			t.Fatalf("takeSpare(%d): len %d cap %d", c.n, len(f), cap(f))
		}
		if !in(f, bufs[c.region]) {
			t.Errorf("takeSpare(%d) not from region %d", c.n, c.region)
		}
		for _, g := range got {
			if base(f) < base(g)+uintptr(len(g))*8 && base(g) < base(f)+uintptr(len(f))*8 {
				t.Errorf("takeSpare(%d) overlaps an earlier piece", c.n)
			}
		}
		got = append(got, f)
	}
	if s := takeSpareInt32(187); len(s) != 187 || !in(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), 94), bufs[0]) {
		t.Errorf("takeSpareInt32(187): %d values, not the 94 left of region 0", len(s))
	}
	if s := takeSpareBytes(1); s != nil {
		t.Errorf("takeSpareBytes(1) from an empty spare: %d bytes", len(s))
	}
	dropSpare()
	var small [][]byte
	for i := range maxSpareRegions + 1 {
		small = append(small, make([]byte, 8*(i+1)))
		donate(small[i])
	}
	spare.mu.Lock()
	n := len(spare.regions)
	spare.mu.Unlock()
	if n != maxSpareRegions {
		t.Errorf("%d regions kept, want %d", n, maxSpareRegions)
	}
	// The oldest, of 1 value, was dropped: 1 value from the one of 2.
	if f := takeSpare(1); len(f) != 1 || !in(f, small[1]) {
		t.Error("takeSpare(1) not from the smallest region kept")
	}
}

// TestSpareGiveBack checks giveBack: the piece takeSpareBytes handed out
// last goes back to the front of its region, whole again for a larger
// buffer; any other buffer, a piece taken before another, or a piece
// after a donation (the regions may have moved) is refused, the spare
// unchanged.
func TestSpareGiveBack(t *testing.T) {
	defer dropSpare()
	dropSpare()
	region := make([]byte, 8*100)
	donate(region)
	total := func() int {
		spare.mu.Lock()
		defer spare.mu.Unlock()
		n := 0
		for _, r := range spare.regions {
			n += len(r)
		}
		return n
	}
	a := takeSpareBytes(8*30 - 3) // 30 values
	if a == nil || !giveBack(a) || total() != 100 {
		t.Fatalf("the last piece not given back whole: %d values in the spare, want 100", total())
	}
	if f := takeSpare(100); f == nil || unsafe.SliceData(f) != (*float64)(unsafe.Pointer(unsafe.SliceData(region))) {
		t.Fatal("the region given back does not hold 100 values from its start")
	}
	dropSpare()
	donate(region)
	a, b := takeSpareBytes(80), takeSpareBytes(80)
	if giveBack(a) || giveBack(make([]byte, 80)) || total() != 80 {
		t.Fatalf("an earlier piece or another buffer given back: %d values in the spare, want 80", total())
	}
	if !giveBack(b) || total() != 90 || giveBack(b) {
		t.Fatalf("the last piece: %d values in the spare, want 90, and once only", total())
	}
	c := takeSpareBytes(80)
	donate(make([]byte, 8*5))
	if giveBack(c) || total() != 85 {
		t.Fatalf("a piece given back after a donation: %d values in the spare, want 85", total())
	}
}
