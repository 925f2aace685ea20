package testimages

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

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
	_, b, truth = RelightPhotoWith(img, exposure, MallettYuksel2019)
	return b, truth
}

// Upsampling names a published spectral upsampling of sRGB reflectances
// for RelightPhotoWith.
type Upsampling int

const (
	// MallettYuksel2019 is the spectral primary decomposition of Mallett
	// and Yuksel (2019), colorspace.ReflectanceFromRGB: linear in the
	// colour, so B is a 3×3 matrix of A.
	MallettYuksel2019 Upsampling = iota
	// Smits1999 is the seven-spectrum method of Smits (1999),
	// colorspace.SmitsReflectance: linear only within each of the six
	// orderings of the colour's components, so B is not one matrix of A
	// (a relative residual of 0.14 % for the best 3×3 matrix from D65 to
	// illuminant A, colorspace TestSmits). The basis was fitted for an
	// equal-energy white and does not render the sRGB primaries back
	// exactly under D65 (within 0.1 in linear sRGB).
	Smits1999
	// JakobHanika2019 is the sigmoid-quadratic spectra of Jakob and
	// Hanika (2019), colorspace.JakobHanikaReflectance: smooth, non-linear
	// in the colour, fitted per colour to render it back under D65 (within
	// 0.006 ΔE00 on the faces of the cube).
	JakobHanika2019
)

var upsamplingNames = [...]string{MallettYuksel2019: "mallett2019", Smits1999: "smits1999", JakobHanika2019: "jakob2019"}

// String returns the name ParseUpsampling accepts.
func (u Upsampling) String() string {
	if u >= 0 && int(u) < len(upsamplingNames) {
		return upsamplingNames[u]
	}
	return fmt.Sprintf("Upsampling(%d)", int(u))
}

// Upsamplings lists the upsamplings, the default first.
func Upsamplings() []Upsampling {
	return []Upsampling{MallettYuksel2019, Smits1999, JakobHanika2019}
}

// ParseUpsampling returns the upsampling called name (see
// Upsampling.String).
func ParseUpsampling(name string) (Upsampling, error) {
	var known []string
	for _, u := range Upsamplings() {
		if name == u.String() {
			return u, nil
		}
		known = append(known, u.String())
	}
	return 0, fmt.Errorf("testimages: unknown spectral upsampling %q (known: %s)", name, strings.Join(known, ", "))
}

// renderers returns the linear sRGB → XYZ renderings of environment A, B
// and the truth with the upsampling, exposures included.
func (u Upsampling) renderers(exposure float64) (a, b, truth func(colorspace.XYZ) colorspace.XYZ) {
	switch u {
	case Smits1999:
		return spectralRenderers(exposure, colorspace.SmitsRenderer)
	case JakobHanika2019:
		// One fit per distinct colour (a photo has about 10⁵), shared by
		// the three renderings.
		coef := map[colorspace.LinearRGB][3]float64{}
		return spectralRenderers(exposure, func(illum colorspace.Spectrum) func(colorspace.LinearRGB) colorspace.XYZ {
			return func(c colorspace.LinearRGB) colorspace.XYZ {
				k, ok := coef[c]
				if !ok {
					k = colorspace.JakobHanikaCoefficients(c)
					coef[c] = k
				}
				return colorspace.Render(colorspace.JakobHanikaSpectrum(k), illum)
			}
		})
	}
	mb, mt := photoMatrices(exposure)
	return func(c colorspace.XYZ) colorspace.XYZ { return colorspace.LinearRGB(c).XYZ() },
		mb.Apply, mt.Apply
}

// spectralRenderers returns renderers as Upsampling.renderers does for an
// upsampling whose rendering under an illuminant is renderer(illuminant):
// A is the spectra under D65, B and the truth are exposed so that the
// white's largest linear sRGB component is the exposure.
func spectralRenderers(exposure float64, renderer func(colorspace.Spectrum) func(colorspace.LinearRGB) colorspace.XYZ) (a, b, truth func(colorspace.XYZ) colorspace.XYZ) {
	exposed := func(illum colorspace.Spectrum) func(colorspace.XYZ) colorspace.XYZ {
		r := renderer(illum)
		w := r(colorspace.LinearRGB{1, 1, 1}).LinearRGB()
		k := exposure / max(w[0], w[1], w[2])
		return func(c colorspace.XYZ) colorspace.XYZ {
			x := r(colorspace.LinearRGB(c))
			return colorspace.XYZ{k * x[0], k * x[1], k * x[2]}
		}
	}
	d65 := renderer(colorspace.IlluminantD65())
	return func(c colorspace.XYZ) colorspace.XYZ { return d65(colorspace.LinearRGB(c)) },
		exposed(colorspace.IlluminantA()), exposed(colorspace.IlluminantD65())
}

// PhotoWhitesWith is PhotoWhites for the given upsampling.
func PhotoWhitesWith(exposure float64, u Upsampling) (b, truth colorspace.XYZ) {
	_, rb, rt := u.renderers(exposure)
	return rb(colorspace.XYZ{1, 1, 1}), rt(colorspace.XYZ{1, 1, 1})
}

// RelightPhotoWith is RelightPhoto with the given spectral upsampling,
// and returns environment A too. With MallettYuksel2019, A is the
// photograph (its 3e-4 round trip is below 16-bit precision); with
// Smits1999, A is the photograph's upsampled spectra rendered under D65,
// not the photograph itself, so that A, B and the truth differ only by
// the light and the exposure.
func RelightPhotoWith(img image.Image, exposure float64, u Upsampling) (a, b, truth *image.NRGBA64) {
	if !(exposure > 0) || math.IsInf(exposure, 0) {
		panic("testimages: exposure must be positive and finite")
	}
	ra, rb, rt := u.renderers(exposure)
	r := img.Bounds()
	a = image.NewNRGBA64(image.Rect(0, 0, r.Dx(), r.Dy()))
	b = image.NewNRGBA64(a.Rect)
	truth = image.NewNRGBA64(a.Rect)
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
			if u != Smits1999 && u != JakobHanika2019 {
				a.SetNRGBA64(x, y, c)
			} else {
				a.SetNRGBA64(x, y, encodePixel(ra(lin), c.A))
			}
			b.SetNRGBA64(x, y, encodePixel(rb(lin), c.A))
			truth.SetNRGBA64(x, y, encodePixel(rt(lin), c.A))
		}
	}
	return a, b, truth
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
