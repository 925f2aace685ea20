package colorspace

import (
	"math"
	"sync"
)

// Jakob and Hanika (2019), "A Low-Dimensional Function Space for
// Efficient Spectral Upsampling", Computer Graphics Forum 38(2): a
// reflectance is a sigmoid of a quadratic in wavelength,
//
//	s(λ) = S(c₀λ² + c₁λ + c₂),  S(x) = ½ + x / (2√(1 + x²)),
//
// smooth, strictly inside (0, 1), and non-linear in the colour (unlike
// Mallett and Yuksel's three primaries and Smits's seven piecewise
// combinations). The three coefficients of a colour are found by
// minimising its CIELAB difference under D65 (the paper's objective,
// there tabulated on a grid; here solved per colour). λ is normalised to
// [0, 1] over the package's wavelengths.

// jhMaxIter bounds the Levenberg-Marquardt iterations of a fit.
const jhMaxIter = 200

// jhTables holds, per wavelength, the D65-weighted colour matching
// functions normalised as Render does (weights), and the D65 white,
// computed on first use: every process linking the package (the spca
// binary's encode and decode) computed them at start.
type jhTables struct {
	weights [NumWavelengths][3]float64
	white   XYZ
}

var jhTab = sync.OnceValue(func() *jhTables {
	t := &jhTables{}
	d65 := IlluminantD65()
	k := 0.0
	for i, v := range cmf1931 {
		k += d65[i] * v[1]
	}
	for i, v := range cmf1931 {
		for j := range 3 {
			t.weights[i][j] = d65[i] * v[j] / k
		}
	}
	t.white = WhitePoint(d65)
	return t
})

func jhT(i int) float64 { return float64(i) / (NumWavelengths - 1) }

// JakobHanikaSpectrum returns the reflectance of the sigmoid-quadratic
// coefficients c (see JakobHanikaCoefficients).
func JakobHanikaSpectrum(c [3]float64) Spectrum {
	var s Spectrum
	for i := range s {
		t := jhT(i)
		s[i] = sigmoid(c[0]*t*t + c[1]*t + c[2])
	}
	return s
}

func sigmoid(x float64) float64 { return 0.5 + x/(2*math.Sqrt(1+x*x)) }

// JakobHanikaReflectance returns the Jakob-Hanika (2019) reflectance of a
// linear sRGB colour: JakobHanikaSpectrum(JakobHanikaCoefficients(c)).
func JakobHanikaReflectance(c LinearRGB) Spectrum {
	return JakobHanikaSpectrum(JakobHanikaCoefficients(c))
}

// JakobHanikaCoefficients returns the coefficients of the sigmoid
// quadratic whose spectrum, rendered under D65 (Render), is closest in
// CIELAB to the linear sRGB colour c (components clamped to [0, 1]),
// by Levenberg-Marquardt from the flat 50 % grey. Colours with a
// component at 0 or 1 need infinite coefficients and are approached to
// within a fraction of a CIELAB unit (colorspace TestJakobHanika).
func JakobHanikaCoefficients(c LinearRGB) [3]float64 {
	for k := range c {
		c[k] = min(max(c[k], 0), 1)
	}
	tab := jhTab()
	target := c.XYZ().Lab(tab.white)
	var coef [3]float64
	lab, jac := tab.eval(coef)
	cost := jhCost(lab, target)
	mu := 1e-3
	for it := 0; it < jhMaxIter && cost > 1e-12; it++ {
		// Normal equations (JᵀJ + μ·diag(JᵀJ)) δ = −Jᵀr.
		var a [3][3]float64
		var g [3]float64
		for r := range 3 {
			res := lab[r] - target[r]
			for i := range 3 {
				g[i] -= jac[r][i] * res
				for j := range 3 {
					a[i][j] += jac[r][i] * jac[r][j]
				}
			}
		}
		improved := false
		for range 12 {
			m := a
			for i := range 3 {
				m[i][i] += mu * max(a[i][i], 1e-12)
			}
			d, ok := solve3(m, g)
			if !ok {
				mu *= 10
				continue
			}
			next := [3]float64{coef[0] + d[0], coef[1] + d[1], coef[2] + d[2]}
			nl, nj := tab.eval(next)
			if nc := jhCost(nl, target); nc < cost {
				coef, lab, jac, cost = next, nl, nj, nc
				mu = max(mu/10, 1e-9)
				improved = true
				break
			}
			mu *= 10
		}
		if !improved {
			break
		}
	}
	return coef
}

func jhCost(lab, target Lab) float64 {
	return sqr(lab[0]-target[0]) + sqr(lab[1]-target[1]) + sqr(lab[2]-target[2])
}

func sqr(x float64) float64 { return x * x }

// eval returns the CIELAB colour (D65) of the coefficients' spectrum
// and its Jacobian with respect to them.
func (tab *jhTables) eval(c [3]float64) (Lab, [3][3]float64) {
	var xyz XYZ
	var dxyz [3][3]float64 // dxyz[channel][coefficient]
	for i, w := range tab.weights {
		t := jhT(i)
		x := c[0]*t*t + c[1]*t + c[2]
		q := 1 + x*x
		s := 0.5 + x/(2*math.Sqrt(q))
		ds := 1 / (2 * q * math.Sqrt(q))
		dc := [3]float64{ds * t * t, ds * t, ds}
		for j := range 3 {
			xyz[j] += s * w[j]
			for k := range 3 {
				dxyz[j][k] += dc[k] * w[j]
			}
		}
	}
	var f, df [3]float64
	for j := range 3 {
		f[j], df[j] = labFDeriv(xyz[j] / tab.white[j])
		df[j] /= tab.white[j]
	}
	lab := Lab{116*f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])}
	var jac [3][3]float64
	for k := range 3 {
		fx, fy, fz := df[0]*dxyz[0][k], df[1]*dxyz[1][k], df[2]*dxyz[2][k]
		jac[0][k] = 116 * fy
		jac[1][k] = 500 * (fx - fy)
		jac[2][k] = 200 * (fy - fz)
	}
	return lab, jac
}

// labFDeriv returns CIELAB's f(t) and its derivative.
func labFDeriv(t float64) (float64, float64) {
	const d = 6.0 / 29
	if t > d*d*d {
		c := math.Cbrt(t)
		return c, 1 / (3 * c * c)
	}
	return t/(3*d*d) + 4.0/29, 1 / (3 * d * d)
}

// solve3 solves m·x = b by Cramer's rule; ok is false for a singular m.
func solve3(m [3][3]float64, b [3]float64) (x [3]float64, ok bool) {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return x, false
	}
	for k := range 3 {
		mk := m
		for r := range 3 {
			mk[r][k] = b[r]
		}
		x[k] = (mk[0][0]*(mk[1][1]*mk[2][2]-mk[1][2]*mk[2][1]) -
			mk[0][1]*(mk[1][0]*mk[2][2]-mk[1][2]*mk[2][0]) +
			mk[0][2]*(mk[1][0]*mk[2][1]-mk[1][1]*mk[2][0])) / det
	}
	return x, true
}
