package colorspace

// Spectral upsampling and reference reflectances.

// MallettBasis returns the three sRGB basis spectra of the spectral primary
// decomposition of I. Mallett and C. Yuksel, "Spectral Primary
// Decomposition for Rendering with sRGB Reflectance", Eurographics
// Symposium on Rendering 2019 (doi:10.2312/sr.20191216), as published with
// the paper and tabulated at 5 nm from 380 nm to 780 nm by colour-science
// (DATA_BASIS_FUNCTIONS_sRGB_MALLETT2019). Each basis spectrum is a
// reflectance in [0, 1], and the three sum to 1 within 1e-5 at every wavelength, so the
// sRGB white (1, 1, 1) upsamples to the perfect reflecting diffuser.
func MallettBasis() (r, g, b Spectrum) {
	for i, v := range mallett2019 {
		r[i], g[i], b[i] = v[0], v[1], v[2]
	}
	return r, g, b
}

// ReflectanceFromRGB estimates a reflectance spectrum from a linear sRGB
// colour with the spectral primary decomposition of Mallett and Yuksel
// (2019): R(λ) = r·B_r(λ) + g·B_g(λ) + b·B_b(λ) with the basis spectra of
// MallettBasis, after clipping each component to [0, 1]. The result is a
// reflectance in [0, 1] (to 1e-6) that Render under D65 takes back to the
// colour within 3e-4 in linear sRGB (the basis was fitted for the CIE 1931
// observer and D65).
//
// Because the spectrum is linear in (r, g, b), so is its rendering under
// any illuminant: RelightMatrix gives it as one 3×3 matrix.
func ReflectanceFromRGB(c LinearRGB) Spectrum {
	var w [3]float64
	for k, v := range c {
		w[k] = min(max(v, 0), 1)
	}
	var s Spectrum
	for i, b := range mallett2019 {
		s[i] = w[0]*b[0] + w[1]*b[1] + w[2]*b[2]
	}
	return s
}

// RelightMatrix returns the matrix M with M·c = Render(ReflectanceFromRGB(c),
// illuminant) for every linear sRGB colour c in [0, 1]³: column k is the
// tristimulus value of basis spectrum k of MallettBasis under illuminant.
// It renders a whole image of upsampled reflectances at the cost of a
// matrix product per pixel.
func RelightMatrix(illuminant Spectrum) Mat3 {
	r, g, b := MallettBasis()
	var m Mat3
	for k, s := range []Spectrum{r, g, b} {
		x := Render(s, illuminant)
		for j := range 3 {
			m[3*j+k] = x[j]
		}
	}
	return m
}

// Patch is a named reflectance sample.
type Patch struct {
	Name        string
	Reflectance Spectrum
}

// ColorChecker returns the 24 patches of the X-Rite (Macbeth) ColorChecker
// Classic in chart order, dark skin to black, with the reflectance factors
// measured by N. Ohta (1997, "The basis of color reproduction engineering";
// the same data as ISO 17321-1), 380 nm to 780 nm at 5 nm, as published by
// colour-science (DATA_COLORCHECKER_N_OHTA). The slice is a new copy.
func ColorChecker() []Patch {
	p := make([]Patch, len(colorChecker))
	for i, c := range colorChecker {
		p[i] = Patch{Name: c.name, Reflectance: c.r}
	}
	return p
}
