package rgbrows

import (
	"image"
	"image/color"
)

// Image is an opaque 8-bit RGB image in the rows its file stores them:
// pixel (x, y) at Pix[y*Stride+3x:], 3 bytes, red, green and blue, with
// its bounds at the origin. The PNG reader leaves a file's rows where it
// unfiltered them (Stride 3w+1: each row after its filter byte) and the
// PPM reader reads its raster as it is, with no RGBA copy: the encoder
// converts the rows to its planes as they are (a copy to *image.RGBA
// wrote 1.5 MB a 768×512 image, read back by the conversion, and was
// fresh memory in a process that codes one image).
//
// Mem is the memory the pixels are in, from its start (Pix is a part of
// it): a reader handed the image back (patches.Into) reads the next
// file's rows into it.
type Image struct {
	Pix    []byte
	Stride int
	Rect   image.Rectangle
	Mem    []byte
}

// ColorModel returns color.RGBAModel: the pixels are *image.RGBA's.
func (p *Image) ColorModel() color.Model { return color.RGBAModel }

// Bounds returns the image's bounds.
func (p *Image) Bounds() image.Rectangle { return p.Rect }

// At returns the pixel at (x, y) as color.RGBA, alpha 0xff, or zero
// outside the bounds.
func (p *Image) At(x, y int) color.Color { return p.RGBAAt(x, y) }

// RGBAAt is At as color.RGBA.
func (p *Image) RGBAAt(x, y int) color.RGBA {
	if !(image.Point{x, y}.In(p.Rect)) {
		return color.RGBA{}
	}
	i := p.PixOffset(x, y)
	s := p.Pix[i : i+3 : i+3]
	return color.RGBA{s[0], s[1], s[2], 0xff}
}

// PixOffset returns the index of the first byte of pixel (x, y) in Pix.
func (p *Image) PixOffset(x, y int) int {
	return (y-p.Rect.Min.Y)*p.Stride + 3*(x-p.Rect.Min.X)
}

// Row returns the 3w bytes of row y (0 is the first).
func (p *Image) Row(y int) []byte {
	w := p.Rect.Dx()
	return p.Pix[y*p.Stride:][:3*w]
}

// Opaque reports true: every pixel is.
func (p *Image) Opaque() bool { return true }
