package colorspace

import "math"

// The package's spectral domain: 380 nm to 780 nm in steps of 5 nm, the
// range and interval of the abridged CIE tables.
const (
	MinWavelength  = 380 // nm, first sample
	MaxWavelength  = 780 // nm, last sample
	WavelengthStep = 5   // nm, sampling interval

	// NumWavelengths is the number of samples, 81.
	NumWavelengths = (MaxWavelength-MinWavelength)/WavelengthStep + 1
)

// Spectrum is a spectral function sampled on the package's wavelength grid:
// element i is the value at Wavelength(i). It holds a reflectance factor
// (0 to 1), a relative spectral power distribution or a colour-matching
// function.
type Spectrum [NumWavelengths]float64

// Wavelength returns the wavelength in nm of sample i,
// MinWavelength + i·WavelengthStep.
func Wavelength(i int) float64 {
	return float64(MinWavelength + i*WavelengthStep)
}

// Wavelengths returns the wavelengths in nm of the samples of a Spectrum:
// 380, 385, …, 780.
func Wavelengths() [NumWavelengths]float64 {
	var w [NumWavelengths]float64
	for i := range w {
		w[i] = Wavelength(i)
	}
	return w
}

// Constant returns the spectrum with every sample equal to v; Constant(1)
// is the perfect reflecting diffuser and the equal-energy illuminant E.
func Constant(v float64) Spectrum {
	var s Spectrum
	for i := range s {
		s[i] = v
	}
	return s
}

// CMF1931 returns the colour-matching functions x̄, ȳ, z̄ of the CIE 1931
// 2° standard colorimetric observer at the package's wavelengths, as
// tabulated at 5 nm by CIE 15:2004 (ȳ peaks at 1 at 555 nm).
func CMF1931() (xbar, ybar, zbar Spectrum) {
	for i, v := range cmf1931 {
		xbar[i], ybar[i], zbar[i] = v[0], v[1], v[2]
	}
	return xbar, ybar, zbar
}

// IlluminantA returns the relative spectral power distribution of CIE
// standard illuminant A, a Planckian radiator at 2856 K, computed from the
// formula by which CIE 15:2004 and ISO 11664-2 define it,
//
//	S_A(λ) = 100 (560/λ)⁵ (exp(c₂/(2848·560)) − 1) / (exp(c₂/(2848 λ)) − 1)
//
// with λ in nm and c₂ = 1.435×10⁷ nm·K, the second radiation constant as
// it was when A was defined (2848 K with that c₂ is the 2856 K of A with
// today's c₂ = 1.4388×10⁷ nm·K). It is normalised to S_A(560 nm) = 100.
func IlluminantA() Spectrum {
	const (
		c2 = 1.435e7 // nm·K
		t  = 2848    // K
	)
	num := math.Expm1(c2 / (t * 560))
	var s Spectrum
	for i := range s {
		l := Wavelength(i)
		r := 560 / l
		s[i] = 100 * r * r * r * r * r * num / math.Expm1(c2/(t*l))
	}
	return s
}

// IlluminantD65 returns the relative spectral power distribution of CIE
// standard illuminant D65 at the package's wavelengths, as tabulated at 5 nm
// by CIE 15:2004 and ISO 11664-2, normalised to 100 at 560 nm.
func IlluminantD65() Spectrum {
	return d65SPD
}

// Render returns the tristimulus value of a surface with spectral
// reflectance factor reflectance lit by illuminant, for the CIE 1931 2°
// observer:
//
//	X = Σ R(λ) S(λ) x̄(λ) / Σ S(λ) ȳ(λ)
//
// and likewise Y and Z, summed over the package's wavelengths. The
// normalisation gives the perfect white, Constant(1), Y = 1 under any
// illuminant, so the result is relative to WhitePoint(illuminant). For an
// illuminant with Σ S ȳ = 0 the result is NaN or infinite.
func Render(reflectance, illuminant Spectrum) XYZ {
	var x, y, z, k float64
	for i, v := range cmf1931 {
		s := illuminant[i]
		rs := reflectance[i] * s
		x += rs * v[0]
		y += rs * v[1]
		z += rs * v[2]
		k += s * v[1]
	}
	return XYZ{x / k, y / k, z / k}
}

// WhitePoint returns the tristimulus value, with Y = 1, of the perfect
// reflecting diffuser lit by illuminant: Render(Constant(1), illuminant).
// With the 5 nm tables it gives for D65 (x, y) = (0.31272, 0.32903) and
// for A (0.44758, 0.40745), the CIE 15:2004 values to within 1e-5.
func WhitePoint(illuminant Spectrum) XYZ {
	return Render(Constant(1), illuminant)
}
