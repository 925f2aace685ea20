package opacity

import (
	"image"
	"testing"
)

// TestImage checks Image against image.RGBA's and image.RGBA64's Opaque:
// one alpha byte off at a time (either byte of a 16-bit alpha), in whole
// images and sub-images of odd and even widths that hold it or not.
func TestImage(t *testing.T) {
	for _, w := range []int{1, 2, 3, 5, 8} {
		r := image.Rect(0, 0, w, 3)
		m8, m16 := image.NewRGBA(r), image.NewRGBA64(r)
		for i := range m8.Pix {
			m8.Pix[i] = 0xff
		}
		for i := range m16.Pix {
			m16.Pix[i] = 0xff
		}
		subs := []image.Rectangle{r, image.Rect(0, 1, w, 2), image.Rect(w/2, 0, w, 3), image.Rect(0, 0, (w+1)/2, 2)}
		for bps, pix := range map[int][]byte{1: m8.Pix, 2: m16.Pix} {
			for i := range pix {
				if i%(4*bps) < 3*bps {
					continue // a colour byte
				}
				pix[i] = 0xfe
				for _, s := range subs {
					var want, got bool
					if bps == 1 {
						m := m8.SubImage(s).(*image.RGBA)
						want, got = m.Opaque(), Image(m.Pix, m.Stride, 0, s.Dx(), s.Dy(), 1)
					} else {
						m := m16.SubImage(s).(*image.RGBA64)
						want, got = m.Opaque(), Image(m.Pix, m.Stride, 0, s.Dx(), s.Dy(), 2)
					}
					if got != want {
						t.Fatalf("width %d, %d bytes a sample, byte %d off, %v: %v, Opaque %v", w, bps, i, s, got, want)
					}
				}
				pix[i] = 0xff
			}
		}
	}
}
