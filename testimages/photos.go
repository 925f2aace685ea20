package testimages

import (
	"image"
	"image/color"
	"math"

	"github.com/spcalab/spca/colorspace"
)

// Relit photographs for colour adaptation.
//
// RelightPhoto turns a photograph into a pair of environments with pixel
// correspondence, as Scene does for generated scenes: the photograph,
// taken as sRGB under D65, is environment A; environment B is the same
// surfaces lit by CIE illuminant A. Each pixel's reflectance spectrum is
// estimated from its linear sRGB value by the spectral primary
// decomposition of Mallett and Yuksel (2019), colorspace.ReflectanceFromRGB,
// and rendered under illuminant A with the CIE 1931 observer.
//
// B is exposed like a camera that keeps highlights (the rule of the
// generated scenes): the perfect white's largest linear sRGB channel under
// illuminant A (red) is exposure, so at exposure 1 a white pixel of A
// (sRGB 1, 1, 1) gives red 1 in B and nothing is clipped; exposure 0.5 is
// one stop darker. The colour-only truth is the same surfaces under D65
// with the same exposure rule: the A photograph scaled by exposure in
// linear light (up to the 3e-4 round trip of the upsampling).
//
// Because the upsampled spectrum is linear in the linear sRGB value, B is
// a 3×3 matrix of A in linear light (colorspace.RelightMatrix): the
// relighting has no metamerism beyond what three basis spectra carry, and
// a linear correction can in principle undo it exactly (except where B is
// clipped).

// PhotoWhites returns the tristimulus values, as encoded in RelightPhoto's
// images, of the perfect white in environment B (illuminant A) and in the
// colour-only truth (D65) at the given exposure.
func PhotoWhites(exposure float64) (b, truth colorspace.XYZ) {
	mb, mt := photoMatrices(exposure)
	return mb.Apply(colorspace.XYZ{1, 1, 1}), mt.Apply(colorspace.XYZ{1, 1, 1})
}

// photoMatrices returns the linear sRGB → XYZ matrices of B and of the
// truth, exposure included.
func photoMatrices(exposure float64) (b, truth colorspace.Mat3) {
	scale := func(illum colorspace.Spectrum) colorspace.Mat3 {
		m := colorspace.RelightMatrix(illum)
		w := m.Apply(colorspace.XYZ{1, 1, 1}).LinearRGB()
		k := exposure / max(w[0], w[1], w[2])
		return colorspace.Diag([3]float64{k, k, k}).Mul(m)
	}
	return scale(colorspace.IlluminantA()), scale(colorspace.IlluminantD65())
}

// RelightPhoto returns environment B (illuminant A) and the colour-only
// truth (D65) of the photograph img, taken as environment A, at the given
// exposure (see above), as 16-bit sRGB images the size of img with its
// bounds moved to the origin. Values outside [0, 1] are clipped; alpha is
// kept. exposure must be positive and finite; otherwise RelightPhoto
// panics.
func RelightPhoto(img image.Image, exposure float64) (b, truth *image.NRGBA64) {
	if !(exposure > 0) || math.IsInf(exposure, 0) {
		panic("testimages: exposure must be positive and finite")
	}
	mb, mt := photoMatrices(exposure)
	r := img.Bounds()
	b = image.NewNRGBA64(image.Rect(0, 0, r.Dx(), r.Dy()))
	truth = image.NewNRGBA64(b.Rect)
	var lut [256]float64 // 8-bit fast path
	for i := range lut {
		lut[i] = colorspace.SRGBToLinear(float64(i) / 255)
	}
	dec := func(v uint16) float64 {
		if v&0xff == v>>8 {
			return lut[v&0xff]
		}
		return colorspace.SRGBToLinear(float64(v) / 0xffff)
	}
	for y := range r.Dy() {
		for x := range r.Dx() {
			c := color.NRGBA64Model.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA64)
			lin := colorspace.XYZ{dec(c.R), dec(c.G), dec(c.B)}
			for k := range lin {
				lin[k] = min(max(lin[k], 0), 1)
			}
			b.SetNRGBA64(x, y, encodePixel(mb.Apply(lin), c.A))
			truth.SetNRGBA64(x, y, encodePixel(mt.Apply(lin), c.A))
		}
	}
	return b, truth
}

func encodePixel(c colorspace.XYZ, alpha uint16) color.NRGBA64 {
	s := c.SRGB()
	var v [3]uint16
	for k := range v {
		v[k] = uint16(math.Round(min(max(s[k], 0), 1) * 0xffff))
	}
	return color.NRGBA64{R: v[0], G: v[1], B: v[2], A: alpha}
}

// streamReflectances is the stream constant of Reflectances.
const streamReflectances = 0x5350_4341_0203

// Reflectances returns n reflectance spectra drawn by RandomReflectance,
// the spectra the generated scenes are made of, from a generator seeded
// with seed: the project's own reflectance set, for corresponding-colour
// tests. Equal arguments give equal spectra. It panics if n is negative.
func Reflectances(n int, seed uint64) []colorspace.Spectrum {
	if n < 0 {
		panic("testimages: negative number of reflectances")
	}
	rng := newRand(seed, streamReflectances)
	r := make([]colorspace.Spectrum, n)
	for i := range r {
		r[i] = RandomReflectance(rng)
	}
	return r
}
