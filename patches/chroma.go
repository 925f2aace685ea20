package patches

import (
	"image"

	"github.com/spcalab/spca/internal/rgbrows"
)

// HasChroma reports whether some pixel of img has unequal red, green and
// blue: whether the image is in colour rather than grey, whatever its
// colour model. Grey image types answer without reading pixels; RGBA and
// NRGBA images (PNG's colour types) are scanned in their bytes, as a
// grey photo saved in colour is read whole (At took 0.3 s for 12
// megapixels) whenever encode checks an image against its model.
func HasChroma(img image.Image) bool {
	switch m := img.(type) {
	case *image.Gray, *image.Gray16, *image.Alpha, *image.Alpha16:
		return false
	case *image.RGBA:
		return chromaInPix(m.Pix, m.Stride, m.Rect, func(x, y int) bool { return true })
	case *rgbrows.Image:
		for y := range m.Rect.Dy() {
			row := m.Row(y)
			for i := 0; i < len(row); i += 3 {
				if row[i] != row[i+1] || row[i+1] != row[i+2] {
					return true
				}
			}
		}
		return false
	case *image.NRGBA:
		// Unequal bytes may still premultiply to equal values (a low
		// alpha): such a pixel is decided as At would.
		return chromaInPix(m.Pix, m.Stride, m.Rect, func(x, y int) bool { return pixelHasChroma(m, x, y) })
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pixelHasChroma(img, x, y) {
				return true
			}
		}
	}
	return false
}

// chromaInPix scans 4-byte-per-pixel rows (R, G, B, A) of the rectangle r
// and calls decide for the first pixel whose bytes differ, and the next,
// until decide reports chroma.
func chromaInPix(pix []uint8, stride int, r image.Rectangle, decide func(x, y int) bool) bool {
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := pix[(y-r.Min.Y)*stride : (y-r.Min.Y)*stride+4*w]
		for i := 0; i < len(row); i += 4 {
			if (row[i] != row[i+1] || row[i+1] != row[i+2]) && decide(r.Min.X+i/4, y) {
				return true
			}
		}
	}
	return false
}

// pixelHasChroma reports whether the pixel (x, y) of img has unequal red,
// green and blue.
func pixelHasChroma(img image.Image, x, y int) bool {
	r, g, bl, _ := img.At(x, y).RGBA()
	return r != g || g != bl
}
