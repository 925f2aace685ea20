package codec

import (
	"runtime"
	"testing"

	"github.com/spcalab/spca/patches"
)

// keptPool keeps up to maxKept accepted values across collections (which
// empty a sync.Pool) and hands them back before making new ones.
func TestKeptPool(t *testing.T) {
	made := 0
	p := keptPool{New: func() any { made++; return new(int) }, keep: func(x any) bool { return *x.(*int) >= 0 }}
	var held []*int
	for i := range maxKept + 2 {
		v := p.Get().(*int)
		*v = i
		held = append(held, v)
	}
	rejected := new(int)
	*rejected = -1
	p.Put(rejected)
	for _, v := range held {
		p.Put(v)
	}
	runtime.GC()
	runtime.GC()
	seen := map[*int]bool{}
	for range maxKept {
		v := p.Get().(*int)
		if v == rejected || seen[v] {
			t.Fatalf("got the rejected or a repeated value")
		}
		seen[v] = true
	}
	if made != maxKept+2 {
		t.Fatalf("made %d values, want %d (kept ones reused)", made, maxKept+2)
	}
	if p.Get(); made != maxKept+3 {
		t.Errorf("pool kept more than maxKept values")
	}
}

// ReleaseBuffers empties the kept pools: the next Get makes a new value.
func TestReleaseBuffers(t *testing.T) {
	kept := new(planeBuffer)
	planeBuffers.Put(kept)
	if len(planeBuffers.kept) == 0 {
		t.Fatal("planeBuffers did not keep a small buffer")
	}
	loopScratches.Put(new(loopScratch))
	ReleaseBuffers()
	for _, p := range []*keptPool{&planeBuffers, &lumaBuffers, &deblockScratches, &loopScratches} {
		if n := len(p.kept); n != 0 {
			t.Errorf("a pool still keeps %d values after ReleaseBuffers", n)
		}
	}
	if planeBuffers.Get() == any(kept) {
		t.Error("Get returned a buffer kept before ReleaseBuffers")
	}
}

// takePlaneBuffer hands each channel of a colour image the kept buffer
// that fits its patches: the luma plane the large one even where a chroma
// channel's small one was kept last (Get's choice).
func TestTakePlaneBufferFits(t *testing.T) {
	ReleaseBuffers()
	defer ReleaseBuffers()
	large := &planeBuffer{y: make([]float64, 64*64)} // 64 8×8 patches of 64 responses
	small := &planeBuffer{y: make([]float64, 16*64)}
	planeBuffers.Put(large)
	planeBuffers.Put(small)
	if b := takePlaneBuffer(patches.Plane{W: 64, H: 60}, 8); b != large {
		t.Fatalf("a 64×60 plane took a buffer of %d values, want the kept %d", cap(b.y), cap(large.y))
	}
	if b := takePlaneBuffer(patches.Plane{W: 32, H: 32}, 8); b != small {
		t.Fatalf("a 32×32 plane took a buffer of %d values, want the kept %d", cap(b.y), cap(small.y))
	}
}
