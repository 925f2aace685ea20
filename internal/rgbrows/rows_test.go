package rgbrows

import (
	"bytes"
	"testing"
)

// TestToRGB checks ToRGB against a byte loop for rows of 0 to 69 pixels
// and destinations of every spare length from 0 to 5 bytes: the pixels
// it reports done are right, no byte beyond the destination's slice
// changes, and it does every group it can.
func TestToRGB(t *testing.T) {
	if !hasSSSE3 {
		t.Skip("no SSSE3: ToRGB converts nothing")
	}
	for w := range 70 {
		src := make([]byte, 4*w)
		for i := range src {
			src[i] = byte(7*i + 3)
		}
		for spare := range 6 {
			buf := bytes.Repeat([]byte{0xee}, 3*w+spare+8)
			dst := buf[:3*w+spare]
			n := ToRGB(dst, src)
			if want := max(0, min(w, (3*w+spare-4)/12*4)&^3); n != want && len(dst) >= 16 {
				t.Errorf("%d pixels, %d spare: did %d, want %d", w, spare, n, want)
			}
			for x := range n {
				if !bytes.Equal(dst[3*x:3*x+3], src[4*x:4*x+3]) {
					t.Fatalf("%d pixels, %d spare: pixel %d is %v, want %v", w, spare, x, dst[3*x:3*x+3], src[4*x:4*x+3])
				}
			}
			if !bytes.Equal(buf[len(dst):], bytes.Repeat([]byte{0xee}, 8)) {
				t.Fatalf("%d pixels, %d spare: wrote beyond the destination", w, spare)
			}
		}
	}
}

// TestToRGBA checks ToRGBA against a byte loop for rows of 0 to 69
// pixels, apart and in place (dst = row[:4w], src = row[w:]).
func TestToRGBA(t *testing.T) {
	if !hasSSSE3 {
		t.Skip("no SSSE3: ToRGBA converts nothing")
	}
	for w := range 70 {
		rgb := make([]byte, 3*w)
		for i := range rgb {
			rgb[i] = byte(11*i + 5)
		}
		want := make([]byte, 4*w)
		for x := range w {
			copy(want[4*x:4*x+3], rgb[3*x:3*x+3])
			want[4*x+3] = 0xff
		}
		dst := make([]byte, 4*w)
		n := ToRGBA(dst, rgb)
		if w >= 6 && n < w-5 {
			t.Errorf("%d pixels apart: did only %d", w, n)
		}
		if !bytes.Equal(dst[:4*n], want[:4*n]) || !bytes.Equal(dst[4*n:], make([]byte, 4*(w-n))) {
			t.Errorf("%d pixels apart: %v, want %v for the first %d", w, dst, want, n)
		}
		row := make([]byte, 4*w)
		copy(row[w:], rgb)
		n = ToRGBA(row[:4*w], row[w:])
		if !bytes.Equal(row[:4*n], want[:4*n]) {
			t.Errorf("%d pixels in place: %v, want %v for the first %d", w, row[:4*n], want[:4*n], n)
		}
	}
}
