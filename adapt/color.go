package adapt

import (
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/spcalab/spca/colorspace"
)

// Matrices between linear sRGB and the package's LMS space.
var (
	rgbToLMS = colorspace.XYZToLMS.Mul(colorspace.LinearRGBToXYZ)
	lmsToRGB = colorspace.XYZToLinearRGB.Mul(colorspace.LMSToXYZ)
)

// lin8 decodes 8-bit sRGB values to linear light.
var lin8 = func() (t [256]float64) {
	for i := range t {
		t[i] = colorspace.SRGBToLinear(float64(i) / 255)
	}
	return t
}()

var (
	lin16Once sync.Once
	lin16     []float64
)

// lin16Table returns the decoding table of 16-bit sRGB values.
func lin16Table() []float64 {
	lin16Once.Do(func() {
		lin16 = make([]float64, 65536)
		for i := range lin16 {
			lin16[i] = colorspace.SRGBToLinear(float64(i) / 65535)
		}
	})
	return lin16
}

func mul3(m *colorspace.Mat3, v [3]float64) [3]float64 {
	return [3]float64{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// SRGBToLMS returns the LMS colour of the sRGB-encoded colour c (IEC
// 61966-2-1 decoding, linear sRGB → XYZ → Hunt–Pointer–Estévez LMS
// normalised to D65, as in package colorspace).
func SRGBToLMS(c colorspace.SRGB) colorspace.LMS {
	return colorspace.LMS(mul3(&rgbToLMS, [3]float64(c.Linear())))
}

// LMSToSRGB returns the sRGB encoding of the LMS colour c, with the linear
// components clipped to [0, 1] first (so out-of-gamut colours are clipped
// per channel).
func LMSToSRGB(c colorspace.LMS) colorspace.SRGB {
	l := mul3(&lmsToRGB, [3]float64(c))
	var s colorspace.SRGB
	for k, v := range l {
		if !(v > 0) { // also NaN
			v = 0
		}
		s[k] = colorspace.LinearToSRGB(min(v, 1))
	}
	return s
}

// linearToLMS converts linear sRGB to LMS.
func linearToLMS(l [3]float64) colorspace.LMS {
	return colorspace.LMS(mul3(&rgbToLMS, l))
}

// BitDepth returns 16 for images with 16 bits per sample
// (*image.RGBA64, *image.NRGBA64, *image.Gray16) and 8 for all others.
func BitDepth(img image.Image) int {
	switch img.(type) {
	case *image.RGBA64, *image.NRGBA64, *image.Gray16:
		return 16
	}
	return 8
}

// pixelLinear returns the linear sRGB colour of pixel (x, y) (absolute
// coordinates), un-premultiplied, and its alpha in [0, 1].
func pixelLinear(img image.Image, x, y int) ([3]float64, float64) {
	switch im := img.(type) {
	case *image.NRGBA:
		p := im.Pix[im.PixOffset(x, y):]
		return [3]float64{lin8[p[0]], lin8[p[1]], lin8[p[2]]}, float64(p[3]) / 255
	case *image.RGBA:
		p := im.Pix[im.PixOffset(x, y):]
		switch a := p[3]; a {
		case 0xff:
			return [3]float64{lin8[p[0]], lin8[p[1]], lin8[p[2]]}, 1
		case 0:
			return [3]float64{}, 0
		}
	case *image.NRGBA64:
		p := im.Pix[im.PixOffset(x, y):]
		t := lin16Table()
		return [3]float64{
			t[uint16(p[0])<<8|uint16(p[1])],
			t[uint16(p[2])<<8|uint16(p[3])],
			t[uint16(p[4])<<8|uint16(p[5])],
		}, float64(uint16(p[6])<<8|uint16(p[7])) / 65535
	case *image.Gray:
		v := lin8[im.Pix[im.PixOffset(x, y)]]
		return [3]float64{v, v, v}, 1
	case *image.Gray16:
		p := im.Pix[im.PixOffset(x, y):]
		v := lin16Table()[uint16(p[0])<<8|uint16(p[1])]
		return [3]float64{v, v, v}, 1
	}
	c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
	if c.A == 0 {
		return [3]float64{}, 0
	}
	t := lin16Table()
	return [3]float64{t[c.R], t[c.G], t[c.B]}, float64(c.A) / 65535
}

func finite3(v [3]float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// mul3s returns m·v as a slice.
func mul3s(m *colorspace.Mat3, v [3]float64) []float64 {
	r := mul3(m, v)
	return r[:]
}
