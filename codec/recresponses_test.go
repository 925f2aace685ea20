package codec

import (
	"bytes"
	"image"
	"testing"
	"unsafe"

	"github.com/spcalab/spca/testimages"
)

// TestRecOverResponses checks the lifetime of a colour channel's
// reconstruction, which encodeInputVersion writes over the channel's
// responses: when the deblocking strength is chosen (which may read the
// reconstructions, deblockSearch.exact), no reconstruction may be in a
// pool, where another encode could take it; and the reconstructions are
// in the responses' buffers (no buffer of recBuffers), with the same
// file as before. Two images, so that the second codes with the first's
// buffers handed back.
func TestRecOverResponses(t *testing.T) {
	o := DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution = 200, 256
	// 4×4 patches: from 4 samples on the search keeps the planes for
	// the exact errors (searchDeblockFloat).
	o.Patch, o.Step, o.Color, o.Subsample = 4, 12, true, true
	m, err := Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	pooled := func(p *keptPool, pix []float64) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, x := range p.kept {
			var bufs [][]float64
			switch b := x.(type) {
			case *planeBuffer:
				bufs = [][]float64{b.y}
			case *[3][]float64:
				bufs = b[:]
			}
			for _, b := range bufs {
				if overlap(b, pix) {
					return true
				}
			}
		}
		return false
	}
	ReleaseBuffers() // the pools of the tests before
	searched := 0
	deblockChoiceHook = func(ss []deblockSearch) {
		for ci, s := range ss {
			if len(s.rec.Pix) == 0 {
				continue
			}
			searched++
			if pooled(&planeBuffers, s.rec.Pix) || pooled(&recBuffers, s.rec.Pix) {
				t.Errorf("channel %d: its reconstruction is in a pool before the strength's choice", ci)
			}
		}
	}
	defer func() { deblockChoiceHook = nil }()
	var files [][]byte
	for i, img := range []image.Image{testimages.ColorTexture(61, 45, 7), testimages.ColorTexture(64, 48, 8)} {
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatal(err)
		}
		files = append(files, b.Bytes())
		if searched != 3*(i+1) {
			t.Fatalf("image %d: %d channels' searches kept their reconstructions, want 3 an image", i, searched-3*i)
		}
	}
	recBuffers.mu.Lock()
	for _, x := range recBuffers.kept {
		for ci, b := range x.(*[3][]float64) {
			if cap(b) != 0 {
				t.Errorf("recBuffers holds a buffer of %d values for channel %d: the reconstructions did not go into the responses", cap(b), ci)
			}
		}
	}
	recBuffers.mu.Unlock()
	// The same files without the hook and from fresh pools.
	deblockChoiceHook = nil
	ReleaseBuffers()
	for i, img := range []image.Image{testimages.ColorTexture(61, 45, 7), testimages.ColorTexture(64, 48, 8)} {
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), files[i]) {
			t.Errorf("image %d: another file from fresh pools", i)
		}
	}
}

// overlap reports whether a and b share memory.
func overlap(a, b []float64) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(cap(b))*8 && b0 < a0+uintptr(cap(a))*8
}
