package opacity

import (
	"image"
	"testing"
)

// TestImage checks Image against image.RGBA's and image.RGBA64's Opaque:
// one alpha byte off at a time (either byte of a 16-bit alpha), in whole
// images and sub-images of odd and even widths that hold it or not (rows
// of 8-pixel groups and of the pixels after them).
func TestImage(t *testing.T) {
	for _, w := range []int{1, 2, 3, 5, 8, 9, 16, 19} {
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

// TestOf checks Of against each image's Opaque: RGBA and RGBA64 images
// and sub-images, opaque and with one alpha byte off, an NRGBA image
// (its own Opaque), a grey image (no alpha: opaque) and empty images.
func TestOf(t *testing.T) {
	r := image.Rect(0, 0, 11, 4)
	m8, m16, n := image.NewRGBA(r), image.NewRGBA64(r), image.NewNRGBA(r)
	for _, pix := range [][]byte{m8.Pix, m16.Pix, n.Pix} {
		for i := range pix {
			pix[i] = 0xff
		}
	}
	type opaquer interface {
		image.Image
		Opaque() bool
		SubImage(image.Rectangle) image.Image
	}
	for _, off := range []bool{false, true} {
		if off {
			m8.Pix[4*(2*11+9)+3], m16.Pix[8*(1*11+3)+7], n.Pix[4*5+3] = 0x7f, 0xfe, 0
		}
		for _, m := range []opaquer{m8, m16, n} {
			for _, s := range []image.Rectangle{r, image.Rect(1, 1, 10, 3), image.Rect(0, 2, 11, 4), image.Rect(2, 0, 2, 4)} {
				sub := m.SubImage(s)
				if got, want := Of(sub), sub.(opaquer).Opaque(); got != want {
					t.Errorf("%T %v, alpha off %v: Of %v, Opaque %v", m, s, off, got, want)
				}
			}
		}
	}
	if !Of(image.NewGray(r)) {
		t.Error("a grey image is not opaque")
	}
}
