package colorspace

// smits1999 holds the seven basis spectra of B. Smits, "An RGB-to-Spectrum
// Conversion for Reflectances", Journal of Graphics Tools 4(4):11-22,
// 1999 (doi:10.1080/10867651.1999.10487511), Table 1: white, cyan,
// magenta, yellow, red, green and blue, at ten equally spaced wavelengths
// from 380 nm to 720 nm.
var smits1999 = [7][10]float64{
	{1.0000, 1.0000, 0.9999, 0.9993, 0.9992, 0.9998, 1.0000, 1.0000, 1.0000, 1.0000},
	{0.9710, 0.9426, 1.0007, 1.0007, 1.0007, 1.0007, 0.1564, 0.0000, 0.0000, 0.0000},
	{1.0000, 1.0000, 0.9685, 0.2229, 0.0000, 0.0458, 0.8369, 1.0000, 1.0000, 0.9959},
	{0.0001, 0.0000, 0.1088, 0.6651, 1.0000, 1.0000, 0.9996, 0.9586, 0.9685, 0.9840},
	{0.1012, 0.0515, 0.0000, 0.0000, 0.0000, 0.0000, 0.8325, 1.0149, 1.0149, 1.0149},
	{0.0000, 0.0000, 0.0273, 0.7937, 1.0000, 0.9418, 0.1719, 0.0000, 0.0000, 0.0025},
	{1.0000, 1.0000, 0.8916, 0.3323, 0.0000, 0.0000, 0.0003, 0.0369, 0.0483, 0.0496},
}

// Indices of the Smits basis spectra.
const (
	smitsWhite = iota
	smitsCyan
	smitsMagenta
	smitsYellow
	smitsRed
	smitsGreen
	smitsBlue
)

// SmitsBasis returns the seven basis spectra of Smits (1999), white, cyan,
// magenta, yellow, red, green and blue in that order, on the package's
// wavelength grid: linearly interpolated between the ten published
// samples (380 nm to 720 nm) and held at the 720 nm value beyond.
func SmitsBasis() [7]Spectrum {
	var out [7]Spectrum
	const lo, hi = 380.0, 720.0
	step := (hi - lo) / 9
	for k, t := range smits1999 {
		for i := range out[k] {
			l := Wavelength(i)
			if l >= hi {
				out[k][i] = t[9]
				continue
			}
			f := (l - lo) / step
			j := int(f)
			f -= float64(j)
			out[k][i] = (1-f)*t[j] + f*t[j+1]
		}
	}
	return out
}

// smitsWeights returns the weights of the seven basis spectra for the
// linear sRGB colour c, clipped to [0, 1], by Smits's rule: the smallest
// component times white, then the difference of the two others' smaller
// one to it times the complementary colour (cyan, magenta or yellow) of
// the smallest, then the remaining difference times the largest
// component's primary.
func smitsWeights(c LinearRGB) [7]float64 {
	r, g, b := min(max(c[0], 0), 1), min(max(c[1], 0), 1), min(max(c[2], 0), 1)
	var w [7]float64
	switch {
	case r <= g && r <= b:
		w[smitsWhite] = r
		if g <= b {
			w[smitsCyan], w[smitsBlue] = g-r, b-g
		} else {
			w[smitsCyan], w[smitsGreen] = b-r, g-b
		}
	case g <= r && g <= b:
		w[smitsWhite] = g
		if r <= b {
			w[smitsMagenta], w[smitsBlue] = r-g, b-r
		} else {
			w[smitsMagenta], w[smitsRed] = b-g, r-b
		}
	default:
		w[smitsWhite] = b
		if r <= g {
			w[smitsYellow], w[smitsGreen] = r-b, g-r
		} else {
			w[smitsYellow], w[smitsRed] = g-b, r-g
		}
	}
	return w
}

// SmitsReflectance estimates a reflectance spectrum from a linear sRGB
// colour by the method of Smits (1999), after clipping each component to
// [0, 1]: the colour is decomposed into white, one of cyan, magenta and
// yellow, and one of red, green and blue (SmitsBasis), which one depending
// on the order of its components. Unlike ReflectanceFromRGB, the spectrum
// is linear in the colour only within each of the six orderings, so its
// rendering under another illuminant is not one 3×3 matrix of the colour:
// colours of one rendering that a matrix maps together may render apart
// (metamerism beyond three basis spectra). The basis was fitted for an
// equal-energy white: rendered under D65 the sRGB primaries come back
// within a few per cent, white within 1e-3. Values can exceed 1 by 1.5 %
// (the published red).
func SmitsReflectance(c LinearRGB) Spectrum {
	w := smitsWeights(c)
	basis := SmitsBasis()
	var s Spectrum
	for k, wk := range w {
		if wk == 0 {
			continue
		}
		for i := range s {
			s[i] += wk * basis[k][i]
		}
	}
	return s
}

// SmitsRenderer returns the function that gives
// Render(SmitsReflectance(c), illuminant) for a linear sRGB colour c at the
// cost of a weighted sum of seven tristimulus values (the rendering is
// linear in the weights of the basis spectra).
func SmitsRenderer(illuminant Spectrum) func(c LinearRGB) XYZ {
	var xyz [7]XYZ
	for k, s := range SmitsBasis() {
		xyz[k] = Render(s, illuminant)
	}
	return func(c LinearRGB) XYZ {
		var out XYZ
		for k, wk := range smitsWeights(c) {
			out[0] += wk * xyz[k][0]
			out[1] += wk * xyz[k][1]
			out[2] += wk * xyz[k][2]
		}
		return out
	}
}
