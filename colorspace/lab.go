package colorspace

import "math"

// Lab is a CIE 1976 L*a*b* (CIELAB) value (L*, a*, b*), with L* in
// [0, 100] for colours not brighter than the reference white.
type Lab [3]float64

// CIELAB constants of CIE 15:2004 in exact form: the cube-root and linear
// pieces of f meet at t = (6/29)³ = 216/24389, where the slope of the
// linear piece is (29/6)²/3 = 841/108.
const (
	labDelta   = 6.0 / 29
	labEpsilon = labDelta * labDelta * labDelta // 216/24389
	labSlope   = 1 / (3 * labDelta * labDelta)  // 841/108
	labOffset  = 4.0 / 29
)

func labF(t float64) float64 {
	if t > labEpsilon {
		return math.Cbrt(t)
	}
	return labSlope*t + labOffset
}

func labFInv(f float64) float64 {
	if f > labDelta {
		return f * f * f
	}
	return (f - labOffset) / labSlope
}

// Lab returns the CIELAB value of c relative to the reference white white
// (for example WhiteD65), following CIE 15:2004:
//
//	L* = 116 f(Y/Yn) − 16
//	a* = 500 (f(X/Xn) − f(Y/Yn))
//	b* = 200 (f(Y/Yn) − f(Z/Zn))
//
// with f(t) = t^(1/3) for t > (6/29)³ and f(t) = t/(3 (6/29)²) + 4/29
// otherwise.
func (c XYZ) Lab(white XYZ) Lab {
	fx := labF(c[0] / white[0])
	fy := labF(c[1] / white[1])
	fz := labF(c[2] / white[2])
	return Lab{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// XYZ returns the tristimulus value of c relative to the reference white
// white; it is the inverse of XYZ.Lab.
func (c Lab) XYZ(white XYZ) XYZ {
	fy := (c[0] + 16) / 116
	fx := fy + c[1]/500
	fz := fy - c[2]/200
	return XYZ{white[0] * labFInv(fx), white[1] * labFInv(fy), white[2] * labFInv(fz)}
}

// DeltaE2000 returns the CIEDE2000 colour difference ΔE00 between a and b
// with the parametric factors kL = kC = kH = 1 (CIE 142-2001). The
// implementation follows the equations and the hue conventions of
// G. Sharma, W. Wu and E. N. Dalal, "The CIEDE2000 color-difference
// formula: implementation notes, supplementary test data, and mathematical
// observations", Color Res. Appl. 30(1), 21–30 (2005), and reproduces
// their 34 test pairs. ΔE00 is symmetric in a and b.
func DeltaE2000(a, b Lab) float64 {
	const pow25to7 = 6103515625 // 25⁷

	l1, a1, b1 := a[0], a[1], a[2]
	l2, a2, b2 := b[0], b[1], b[2]

	// Chroma-dependent stretch of the a* axis.
	cab := (math.Hypot(a1, b1) + math.Hypot(a2, b2)) / 2
	cab7 := pow7(cab)
	g := 0.5 * (1 - math.Sqrt(cab7/(cab7+pow25to7)))
	a1p := (1 + g) * a1
	a2p := (1 + g) * a2
	c1p := math.Hypot(a1p, b1)
	c2p := math.Hypot(a2p, b2)
	h1p := hueDegrees(b1, a1p)
	h2p := hueDegrees(b2, a2p)

	// Differences.
	dL := l2 - l1
	dC := c2p - c1p
	chroma := c1p * c2p
	// Exactly opposite hues, |h1' − h2'| = 180°, lie on the discontinuity
	// of the mean hue and are what test pairs 10 and 14 probe. The hue
	// angles, rounded separately, can miss it by an ulp either way, so it is
	// detected exactly from the vectors (zero cross product, negative dot
	// product) and resolved as the paper does: Δh' = h2' − h1' = ±180° and
	// h̄' = (h1' + h2')/2.
	opposite := a1p*b2 == b1*a2p && a1p*a2p+b1*b2 < 0
	var dh float64
	if chroma != 0 {
		dh = h2p - h1p
		switch {
		case opposite:
			dh = math.Copysign(180, dh)
		case dh > 180:
			dh -= 360
		case dh < -180:
			dh += 360
		}
	}
	dH := 2 * math.Sqrt(chroma) * math.Sin(radians(dh/2))

	// Means.
	lBar := (l1 + l2) / 2
	cBar := (c1p + c2p) / 2
	hBar := h1p + h2p
	if chroma != 0 {
		switch {
		case opposite || math.Abs(h1p-h2p) <= 180:
			hBar /= 2
		case hBar < 360:
			hBar = (hBar + 360) / 2
		default:
			hBar = (hBar - 360) / 2
		}
	}

	t := 1 - 0.17*math.Cos(radians(hBar-30)) +
		0.24*math.Cos(radians(2*hBar)) +
		0.32*math.Cos(radians(3*hBar+6)) -
		0.20*math.Cos(radians(4*hBar-63))
	hh := (hBar - 275) / 25
	dTheta := 30 * math.Exp(-hh*hh)
	cBar7 := pow7(cBar)
	rC := 2 * math.Sqrt(cBar7/(cBar7+pow25to7))
	l50 := (lBar - 50) * (lBar - 50)
	sL := 1 + 0.015*l50/math.Sqrt(20+l50)
	sC := 1 + 0.045*cBar
	sH := 1 + 0.015*cBar*t
	rT := -math.Sin(radians(2*dTheta)) * rC

	tl := dL / sL
	tc := dC / sC
	th := dH / sH
	return math.Sqrt(tl*tl + tc*tc + th*th + rT*tc*th)
}

// hueDegrees returns atan2(b, a) in degrees in [0, 360), and 0 for a = b = 0.
func hueDegrees(b, a float64) float64 {
	if a == 0 && b == 0 {
		return 0
	}
	h := math.Atan2(b, a) * (180 / math.Pi)
	if h < 0 {
		h += 360
		if h >= 360 { // h was a tiny negative angle
			h = 0
		}
	}
	return h
}

func radians(deg float64) float64 { return deg * (math.Pi / 180) }

func pow7(x float64) float64 {
	x2 := x * x
	return x2 * x2 * x2 * x
}
