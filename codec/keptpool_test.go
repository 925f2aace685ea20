package codec

import (
	"runtime"
	"testing"
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
