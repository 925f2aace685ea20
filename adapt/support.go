package adapt

import (
	"fmt"
	"image"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
)

// The training support and the extrapolation of the SPCA map.
//
// SPCA is learnt from the training colours and means nothing far from
// them: beyond the support the equalising metric has no density to
// follow and the lattices of the two models are extrapolated linearly,
// which bends colours into arbitrary hues (a grey beyond B's training
// colours came out magenta). SPCAMap therefore blends, with the distance
// from B's training colours, from the SPCA map to a linear map through
// black (Anchor, the least-squares von Kries (diagonal) fit of the SPCA map on B's
// training colours):
//
//	x̂_A = w·R_A⁻¹(R_B(x)) + (1 − w)·Anchor·x,
//	w   = (1 − smoothstep(0, SupportBand, d(x))) · smoothstep(0, DarkLuminance, Y(x))
//	      · (1 − smoothstep(0, ResidualBand, ρ(x))) · e(R_B(x))
//
// d(x) being the distance (in sRGB-encoded units, the LUT's) from x to the
// cells of a 32³ grid that hold B's training colours, and Y(x) the
// luminance of x. The second factor takes black to black along every ray:
// near black the linear anchor, whose lightness grows with the input's,
// takes over from the SPCA map. ρ(x) is the distance from x to B's
// lattice, and e fades to 0 over the last ResponseBand of each response
// (edgeWeight): the tails of B's colours, where the lattices are least
// determined. The output then takes its luminance from the RayTable
// (lightness never decreasing along rays from black), is adapted near
// white to white's output (adaptHighlight), and the highlight roll-off
// and gamut mapping follow (gamutMap).

// Parameters of the support and of the blend.
const (
	// SupportGrid is the number of cells per axis of the occupancy grid
	// over the sRGB-encoded cube.
	SupportGrid = 32
	// SupportMinCount is the number of training colours a cell must hold
	// to count as support (a lone sample is noise).
	SupportMinCount = 2
	// SupportBand is the distance from the support, in sRGB-encoded
	// units, over which SPCAMap fades from the SPCA map to the linear
	// anchor (about 25 levels of 8 bits).
	SupportBand = 0.04
	// OutsideDistance is the distance from the support beyond which a
	// colour counts as outside it (OutsideShare): one grid cell.
	OutsideDistance = 1.0 / SupportGrid
	// DarkLuminance is the linear luminance Y (white 1) below which the
	// blend fades to the linear anchor, so that black maps exactly to
	// black. Since the bare map sends black to black (it sent it to L*
	// 9.3 before spca.Options.FloorOfMean and ReflectDensity) a narrower
	// band would keep every shape property, but 0.01 measures better.
	// Shared test model, 0.01 / 0.003 (0.001): held-out mean CIEDE2000
	// 8.73 / 8.73, L* W1 3.10 / 3.06, truth 13.69 / 13.74, largest step
	// of the exact map over 60 ramps 3.73 / 3.88 (4.69, over the 4/255
	// target: the bare map itself lifts B's crowded shadows steeply),
	// largest L* drop along rays through the plain 65-node LUT (.cube)
	// 0.000 / 0.317; Kodak 01-12 relit → 13-24 relit: 2.20 / 2.34
	// (shadows 2.22 / 2.78).
	DarkLuminance = 0.01
	// ResidualBand is the distance, in LMS units (D65 white 1), from B's
	// SPCA lattice over which SPCAMap fades to the linear anchor: beyond
	// the lattice the forward transform is a projection onto its curved
	// boundary, which switches between branches (a jump of up to 107/255
	// on a grey ramp).
	ResidualBand = 0.02
	// ResponseBand is the share of each of B's responses, at its ends,
	// over which SPCAMap fades to the linear anchor (edgeWeight). The ends
	// of the responses are the tails of B's colours, where A's lattice is
	// least determined and sheared: near the top corner of A's lattice its
	// inverse swings red from 0 to 0.5 within 0.02 of a response, and the
	// bare map stepped by 55/255 for an input step of 1/1024. On the
	// shared test model, 0.2 (against none) lowers the largest step over
	// 60 ramps from 29 to 13/255, the largest lightness drop along rays
	// through the LUT from 1.52 to 0.63, and the held-out mean CIEDE2000
	// from 9.40 to 8.86 (validation scenes, seed 3: 9.05 to 8.70; 0.1
	// gave 9.25 and 8.98).
	ResponseBand = 0.2
	// KneeShare is where, as a share of the luminance ceiling
	// (Model.Ceiling), the highlight roll-off of SPCAMap starts (gamutMap).
	// On the shared test model, 0.35 is the largest share tried for which
	// no LUT node farther than 2 % from white maps within 0.5/255 of
	// white's output (0.8: 126 nodes, 0.6: 9, 0.5: 3, 0.4: 1); it costs
	// some fidelity of the bright tones: held-out mean CIEDE2000 8.86 ->
	// 8.96, distance of the lightness distributions 2.26 -> 2.99 (still
	// the best of the methods), and lowers the largest step of the exact
	// map over 60 ramps from 13 to 5.6/255 (the steps at the gamut
	// boundary come with the brightest colours). With the slope floor
	// (MinSlopeShare) 0.4 replaced 0.35 (see there).
	KneeShare = 0.4
	// MinSlopeShare is the share of the roll-off's mean slope above the
	// knee, (ceiling − k)/(top − k), below which its slope does not fall
	// up to top (see gamutMap). Measured on the test model (separate
	// geometry / shared geometry), the LUT node farther than 2 % from
	// white that comes closest to white's output, 65 and 97 nodes, and
	// the held-out mean CIEDE2000 and lightness distance (PCA+w 3.27):
	//
	//	knee  share  65 nodes     97 nodes     mean        L* W1
	//	0.35  none   0.53/0.49    0.35/0.32    8.50/8.64   3.21/2.98
	//	0.35  0.3    0.86/0.86    0.57/0.57    8.51/8.65   3.25/3.04
	//	0.35  0.5    1.09/1.10    0.71/0.71    8.57/8.70   3.47/3.25
	//	0.35  0.8    1.24/1.24    0.81/0.81    8.94/9.05   4.48/4.32
	//	0.3   0.5    1.11/1.11    0.72/0.72    8.63/8.70   3.94/3.62
	//	0.4   0.5    1.08/1.08    0.70/0.70    8.53/8.71   3.14/3.06
	//	0.45  0.6    1.10/1.10    0.72/0.72    8.53/8.76   3.02/3.09
	//	0.5   0.7    1.12/1.12    0.73/0.73    8.52/8.79   2.92/3.14
	//
	// (in 1/255; "none": 3 and 5 nodes within 0.5/255 of white's output
	// at 97 nodes, 1 at 65 with shared geometry). The 97-node margin
	// levels off near 0.73/255: the closest node then differs from white
	// in blue, which the gamut compression holds at the boundary.
	MinSlopeShare = 0.5
	// GamutKnee is the relative chroma (1 on the sRGB gamut boundary,
	// at constant luminance) above which gamutMap compresses chroma. On
	// the shared test model 0.6 (against a hard desaturation at the
	// boundary) lowers the largest step over 60 ramps from 5.6 to 3.5/255
	// and leaves the held-out mean CIEDE2000 at 8.96; 0.4 gave 9.02.
	GamutKnee = 0.6
	// HighlightFrom and HighlightTo bound the smallest sRGB-encoded
	// component of an input over which adaptHighlight's adaptation to the
	// output of white grows from none to full (with the luminance above
	// the ceiling, see there). On the Kodak-relit model (Mallett-Yuksel,
	// exposure 1), the LUT node farther than 2 % from white that comes
	// closest to white's output, at 65 and 97 nodes, and the largest
	// step of the exact map over 300 ramps:
	//
	//	from  to    65 nodes  97 nodes  step
	//	none        0.42      0.28      2.79   (no adaptation)
	//	0     0     1.61      1.07      8.13   (luminance factor alone)
	//	0.9   1     0.59      0.42      2.79
	//	0.75  1     0.77      0.57      2.79
	//	0.5   1     1.10      0.82      2.79
	//	0.5   0.9   1.61      1.07      2.79
	//	0.5   0.95  1.61      1.07      2.79
	//	0.3   0.95  1.61      1.07      2.79
	//
	// (in 1/255). Near white the adaptation must be complete: the room
	// for chroma at the gamut's tip shrinks with 1 − Y, so a residue of
	// the white's hue still fills it (to = 1). Without the component
	// factor, bright yellows (B's (1, 1, 0.1), far brighter than A's
	// white) were adapted too, and their chroma, compressed against the
	// little room above them, stepped by 8/255.
	HighlightFrom = 0.5
	HighlightTo   = 0.95
	// anchorSamples bounds the training colours the anchor is fitted on.
	anchorSamples = 20000
)

// Support is the set of colours of a training environment: the distance
// from a colour to the grid cells holding its training colours.
type Support struct {
	// Dist holds the distance of every node of the (SupportGrid+1)³ grid
	// of the sRGB-encoded cube to the nearest occupied cell, red fastest.
	Dist []float32
}

// occupancy counts the rows of x (LMS colours) in each cell of the
// SupportGrid³ grid of the sRGB cube, red fastest.
func occupancy(x mat.Matrix) []int32 {
	const g = SupportGrid
	n, _ := x.Dims()
	count := make([]int32, g*g*g)
	for i := range n {
		s := LMSToSRGB(colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)})
		var idx [3]int
		for k := range 3 {
			idx[k] = min(g-1, max(0, int(s[k]*g)))
		}
		count[idx[0]+g*(idx[1]+g*idx[2])]++
	}
	return count
}

// NewSupport returns the support of the LMS colours in the rows of x.
func NewSupport(x mat.Matrix) *Support {
	const g = SupportGrid
	var occ [][3]int
	for c, v := range occupancy(x) {
		if v >= SupportMinCount {
			occ = append(occ, [3]int{c % g, c / g % g, c / (g * g)})
		}
	}
	const nn = g + 1
	s := &Support{Dist: make([]float32, nn*nn*nn)}
	for b := range nn {
		for gg := range nn {
			for r := range nn {
				node := [3]int{r, gg, b}
				best := math.Inf(1)
				for _, c := range occ {
					// Distance from the node to the cell [c, c+1]³ in grid units.
					d2 := 0.0
					for k := range 3 {
						if e := c[k] - node[k]; e > 0 {
							d2 += float64(e * e)
						} else if e := node[k] - (c[k] + 1); e > 0 {
							d2 += float64(e * e)
						}
					}
					best = min(best, d2)
				}
				if math.IsInf(best, 1) {
					best = 3 * g * g
				}
				s.Dist[r+nn*(gg+nn*b)] = float32(math.Sqrt(best) / g)
			}
		}
	}
	return s
}

// Distance returns the distance, in sRGB-encoded units, from the colour c
// to the support: 0 within cells holding training colours, interpolated
// trilinearly between grid nodes, and growing with the distance beyond
// the sRGB cube for colours outside it.
func (s *Support) Distance(c colorspace.LMS) float64 {
	const g = SupportGrid
	const nn = g + 1
	l := mul3(&lmsToRGB, [3]float64(c))
	var idx [3]int
	var f [3]float64
	outside := 0.0
	for k, v := range l {
		e := 0.0
		if v > 0 {
			e = colorspace.LinearToSRGB(min(v, 1))
			if v > 1 {
				outside += sq(colorspace.LinearToSRGB(v) - 1)
			}
		} else if !(v == 0) {
			outside += sq(v) // linear and encoded slopes differ; any growth will do
		}
		t := e * g
		i := min(g-1, int(t))
		idx[k], f[k] = i, t-float64(i)
	}
	d := 0.0
	for corner := range 8 {
		w := 1.0
		off := 0
		stride := 1
		for k := range 3 {
			i := idx[k]
			if corner>>k&1 == 1 {
				w *= f[k]
				i++
			} else {
				w *= 1 - f[k]
			}
			off += i * stride
			stride *= nn
		}
		if w != 0 {
			d += w * float64(s.Dist[off])
		}
	}
	return d + math.Sqrt(outside)
}

func sq(v float64) float64 { return v * v }

// gamutMap brings the linear sRGB colour v (in place) into the gamut
// below the luminance ceiling: its luminance Y is rolled off, above the
// knee k = KneeShare × ceiling, along
//
//	f(Y) = k + a·u/(1 + u),  u = (Y − k)/a,
//
// continuous with its first derivative (1) at the knee and increasing. If
// top > ceiling is the largest luminance the map reaches on the sRGB cube
// (RayTable.Top), f(top) = ceiling: the brightest input reaches A's
// brightest training luminance. The slope of the hyperbola through that
// point falls to (a/(a + top − k))² at top (0.02 on the test model),
// which left inputs 2 % from B's white (far outside the support, mapped
// by the anchor to 4.8 × the ceiling) within 0.35/255 of white's output
// on a 97-node LUT; so the slope is kept above s = MinSlopeShare × (ceiling
// − k)/(top − k): f follows the hyperbola (with the a that makes it
// reach the ceiling) until its slope is s, then a line of slope s up to
// top. Colours of the LMS interface beyond the cube roll off from there
// with the same slope, towards f(top) + s·(ceiling − k). Otherwise (top ≤
// ceiling or unknown) a = ceiling − k, the asymptote. Then the chroma is compressed
// at constant luminance, instead of clipped channel by channel (which
// changes lightness and merges colours): with p the chroma of the colour
// relative to the gamut boundary (along the line from the grey of its
// luminance through it; 1 on the boundary), p above GamutKnee becomes
//
//	q(p) = p₀ + (1 − p₀)·(1 − exp(−(p − p₀)/(1 − p₀))),  p₀ = GamutKnee,
//
// continuous with its first derivative at p₀, increasing and below 1:
// colours beyond the gamut stay distinct, and the compression starts
// gradually instead of at the boundary (where a hard desaturation lifted
// a very negative channel above 0 at a steep rate, which sRGB encoding
// steepens further near 0: steps of 5.6/255 for 1/1024 of input).
func gamutMap(v *[3]float64, ceiling, top float64) {
	y := 0.2126*v[0] + 0.7152*v[1] + 0.0722*v[2]
	if !(y > 0) {
		*v = [3]float64{}
		return
	}
	if f := rollOff(y, ceiling, top); f != y {
		for i := range v {
			v[i] *= f / y
		}
		y = f
	}
	y = min(y, 1)
	// p is the chroma of v relative to the gamut boundary along the line
	// from the grey of luminance y through v (1 on the boundary).
	p := 0.0
	for _, c := range v {
		if c < y && y > 0 {
			p = max(p, (y-c)/y)
		} else if c > y && y < 1 {
			p = max(p, (c-y)/(1-y))
		}
	}
	a := 1.0
	if y >= 1 {
		a = 0
	} else if p0 := GamutKnee; p > p0 {
		a = (p0 + (1-p0)*(1-math.Exp(-(p-p0)/(1-p0)))) / p
	}
	for i := range v {
		v[i] = y + a*(v[i]-y)
	}
}

// The output of white and its neighbours.
//
// The brightest input, sRGB white, lies far beyond B's training colours
// (B's white is the yellow of illuminant A), and the blend's output for
// it is the anchor's extrapolation: on the Kodak-relit photographs, linear
// RGB (0.78, 2.09, 6.67), twice as bright as A's white and deep blue. The
// roll-off brings its luminance to the ceiling, 1 when A's brightest
// training colour is white, where the gamut is one point: gamutMap
// compresses the chroma at constant luminance, towards the grey, into the
// room left at that luminance, which shrinks with 1 − Y. So every input
// near white came out near white whatever its hue: its output, as blue as
// white's, kept only its difference in luminance, and an input 3 % less
// red than white (sRGB (0.969, 1, 1), linear R 7 % less) came out
// 0.42-0.48/255 from white's output (linear (0.996, 0.997, 1.000)), the
// red difference lost in the blue. The map's Jacobian degenerates at the
// corner: all of its neighbourhood is squeezed along the hue of white's
// output.
//
// adaptHighlight therefore adapts, von Kries style, the blended colour
// of an input near white to the output of white: its cones are scaled by
// HighlightGains^h, the gains that make white's output grey, at constant
// luminance, before the roll-off and gamut mapping. White then maps to
// grey without its chroma being compressed away, and its neighbours keep
// their difference from it as chroma (less red: cyan). The weight h is
// smoothstep(ceiling, top, Y) · smoothstep(HighlightFrom, HighlightTo,
// min_k e_k), Y the blended luminance (from the RayTable) and e the
// sRGB-encoded input: only colours brighter than any of A's training
// colours, which no training pair constrains, and near the corner of the
// cube. Lightness is unchanged (the scaling keeps the luminance) and the
// training colours are untouched (their luminance is at most A's
// brightest).

// adaptHighlight returns the blended colour c of the input in adapted to
// the output of white with the gains (see above), for a map with the
// ceiling and the RayTable's top.
func adaptHighlight(c, in colorspace.LMS, gains [3]float64, ceiling, top float64) colorspace.LMS {
	y := luminance(c)
	h := smoothstep(ceiling, top, y)
	if !(h > 0) {
		return c
	}
	l := mul3(&lmsToRGB, [3]float64(in))
	m := min(l[0], l[1], l[2])
	if !(m > 0) {
		return c
	}
	if h *= smoothstep(HighlightFrom, HighlightTo, colorspace.LinearToSRGB(min(m, 1))); !(h > 0) {
		return c
	}
	a := scaleCones(c, gains, 1, h)
	y1 := luminance(a)
	if !(y1 > 0) || math.IsInf(y1, 1) {
		// Gains so large or small that the scaled cones overflow or
		// vanish (a crafted file: Read takes any positive finite gains;
		// near the largest float64, white came out unadapted, or black with
		// a tiny gain beside a huge one): the same
		// adaptation with the gains over the largest, which the
		// luminance's renormalisation below cancels.
		a = scaleCones(c, gains, max(gains[0], gains[1], gains[2]), h)
		y1 = luminance(a)
	}
	if y1 > 0 && !math.IsInf(y1, 1) {
		f := y / y1
		return colorspace.LMS{f * a[0], f * a[1], f * a[2]}
	}
	return c
}

// scaleCones returns c with each cone k scaled by (gains[k]/unit)^h.
func scaleCones(c colorspace.LMS, gains [3]float64, unit, h float64) colorspace.LMS {
	var a colorspace.LMS
	for k := range c {
		a[k] = c[k] * math.Pow(gains[k]/unit, h)
	}
	return a
}

// highlightGains returns the cone gains that take the output of f (a
// blend, SPCAMap without rays or ceiling) for the sRGB white input to the
// grey of its luminance (SPCAMap.HighlightGains), or zero gains if some
// cone of that output is not positive.
func highlightGains(f func(dst, src []colorspace.LMS) error) ([3]float64, error) {
	var w [1]colorspace.LMS
	if err := f(w[:], []colorspace.LMS{SRGBToLMS(colorspace.SRGB{1, 1, 1})}); err != nil {
		return [3]float64{}, err
	}
	y := luminance(w[0])
	var g [3]float64
	for k, v := range w[0] {
		if !(v > 0 && y > 0) || math.IsInf(v, 0) || math.IsInf(y, 0) {
			return [3]float64{}, nil
		}
		g[k] = y / v
	}
	return g, nil
}

// rollOff returns the luminance y > 0 rolled off as gamutMap does
// (unchanged below the knee or without a ceiling).
func rollOff(y, ceiling, top float64) float64 {
	k := KneeShare * ceiling
	if !(y > k && ceiling > 0) {
		return y
	}
	x := y - k
	b, s, x1, d := rollOffShape(ceiling, top)
	if x <= x1 {
		return k + b*x/(b+x)
	}
	f := k + b*x1/(b+x1) + s*(min(x, d)-x1)
	if x > d {
		// Beyond the cube (colours of the LMS interface only): the same
		// slope s, rolling off towards f(top) + s·(ceiling − k).
		r := ceiling - k
		f += s * r * (x - d) / (r + x - d)
	}
	return f
}

// rollOffShape returns the parameters of gamutMap's roll-off above the
// knee k (x = Y − k): the hyperbola's scale b, used up to x1, where its
// slope has fallen to s, and the line of slope s from there to d = top
// − k (x1 = d = +Inf: the hyperbola alone).
func rollOffShape(ceiling, top float64) (b, s, x1, d float64) {
	k := KneeShare * ceiling
	r := ceiling - k
	inf := math.Inf(1)
	if !(top > ceiling) {
		return r, 0, inf, inf
	}
	d = top - k
	b = r * d / (d - r) // the hyperbola through (d, r)
	s = MinSlopeShare * r / d
	if sq(b/(b+d)) >= s {
		return b, 0, inf, inf
	}
	// b·x1/(b + x1) + s·(d − x1) = r with (b/(b + x1))² = s.
	rs := math.Sqrt(s)
	b = (r - s*d) / sq(1-rs)
	return b, s, b * (1/rs - 1), d
}

// rollOffLimit returns the luminance that gamutMap's roll-off approaches
// for ever brighter colours (the ceiling unless top > ceiling).
func rollOffLimit(ceiling, top float64) float64 {
	k := KneeShare * ceiling
	b, s, _, d := rollOffShape(ceiling, top)
	if math.IsInf(d, 1) {
		if top > ceiling {
			return k + b
		}
		return ceiling
	}
	return ceiling + s*(ceiling-k)
}

// maxLuminance returns the largest luminance Y (D65 white 1) of the LMS
// colours in the rows of x.
func maxLuminance(x mat.Matrix) float64 {
	n, _ := x.Dims()
	m := 0.0
	for i := range n {
		m = max(m, luminance(colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)}))
	}
	return min(m, 1)
}

// smoothstep is 0 below a, 1 above b and a cubic with zero end slopes
// between them.
func smoothstep(a, b, x float64) float64 {
	t := min(1, max(0, (x-a)/(b-a)))
	return t * t * (3 - 2*t)
}

// luminance returns the luminance Y (D65 white 1) of an LMS colour.
func luminance(c colorspace.LMS) float64 {
	m := &colorspace.LMSToXYZ
	return m[3]*c[0] + m[4]*c[1] + m[5]*c[2]
}

// blendWeight returns the weight of the SPCA map in SPCAMap's blend at the
// colour c (see the comment at the top of the file).
func (s *Support) blendWeight(c colorspace.LMS) float64 {
	return (1 - smoothstep(0, SupportBand, s.Distance(c))) * smoothstep(0, DarkLuminance, luminance(c))
}

// OutsideShare returns the share of the colours farther than
// OutsideDistance from the support: the colours a trained mapping
// extrapolates to rather than knows. It is 0 for no colours.
func (s *Support) OutsideShare(c []colorspace.LMS) float64 {
	if len(c) == 0 {
		return 0
	}
	out := 0
	for _, v := range c {
		if s.Distance(v) > OutsideDistance {
			out++
		}
	}
	return float64(out) / float64(len(c))
}

// Coverage returns the share of the SupportGrid³ cells of the sRGB cube
// that hold training colours.
func (s *Support) Coverage() float64 {
	return coverage(func(i int) bool { return s.Dist[i] == 0 })
}

// coverage is the share of the SupportGrid³ cells whose 8 corners are
// nodes at distance 0 (zero(node index)).
func coverage(zero func(i int) bool) float64 {
	const g = SupportGrid
	const nn = g + 1
	in := 0
	for b := range g {
		for gg := range g {
			for r := range g {
				// A cell is occupied iff its 8 corners are at distance 0.
				occ := true
				for corner := range 8 {
					i := (r + corner&1) + nn*((gg+corner>>1&1)+nn*(b+corner>>2&1))
					if !zero(i) {
						occ = false
						break
					}
				}
				if occ {
					in++
				}
			}
		}
	}
	return float64(in) / float64(g*g*g)
}

// coverageOf returns NewSupport(x).Coverage() without the distances,
// whose search over the occupied cells for each of the 35,937 nodes cost
// adapt train about 0.3 s per environment (Kodak relit): a node is at
// distance 0 exactly when it is a corner of an occupied cell.
func coverageOf(x mat.Matrix) float64 {
	const g = SupportGrid
	const nn = g + 1
	touched := make([]bool, nn*nn*nn)
	for c, v := range occupancy(x) {
		if v < SupportMinCount {
			continue
		}
		r, gg, b := c%g, c/g%g, c/(g*g)
		for corner := range 8 {
			touched[(r+corner&1)+nn*((gg+corner>>1&1)+nn*(b+corner>>2&1))] = true
		}
	}
	return coverage(func(i int) bool { return touched[i] })
}

// fitAnchor returns the diagonal map D (a von Kries scaling of each
// cone, no offset: black stays black) that fits f, the SPCA map without
// the blend, best in weighted least squares over at most anchorSamples
// rows of x (evenly spaced): d_k = Σ w y_k x_k / Σ w x_k², with f's
// weights w (edgeWeight: 0 where a response leaves [0, 1] and the map
// clamps it). A full 3×3 fit follows the SPCA map a little more closely on
// the support but sends some colours beyond it to negative luminance;
// positive cone gains keep every colour's luminance positive and growing
// along rays from black. Unweighted, the fit followed the clamped map of
// the brightest colours (R_B's first response above 1 for 7 % of the
// Kodak-relit training colours): the anchor came out 15 % darker than the
// gains and the map darkened every colour it blends towards it.
func fitAnchor(x mat.Matrix, f func(dst []colorspace.LMS, w []float64, src []colorspace.LMS) error) (colorspace.Mat3, error) {
	n, _ := x.Dims()
	step := max(1, n/anchorSamples)
	var src []colorspace.LMS
	for i := 0; i < n; i += step {
		src = append(src, colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)})
	}
	dst := make([]colorspace.LMS, len(src))
	w := make([]float64, len(src))
	if err := f(dst, w, src); err != nil {
		return colorspace.Mat3{}, err
	}
	var xx, yx [3]float64
	for i, s := range src {
		for k := range 3 {
			xx[k] += w[i] * s[k] * s[k]
			yx[k] += w[i] * dst[i][k] * s[k]
		}
	}
	var d [3]float64
	for k := range 3 {
		if !(xx[k] > 0) || !(yx[k] > 0) {
			return colorspace.Mat3{}, fmt.Errorf("adapt: cannot fit the linear anchor: cone %d of B's training colours is never positive inside B's responses", k+1)
		}
		d[k] = yx[k] / xx[k]
	}
	return colorspace.Diag(d), nil
}

// Thresholds of the warnings about training data and inputs.
const (
	// WarnOutsideShare is the share of an image's pixels (or of a list's
	// colours) outside the training support above which the command line
	// warns that the mapping extrapolates.
	WarnOutsideShare = 0.05
	// MinDistinctColours is the number of distinct colours (at 6 bits per
	// sRGB channel) below which Train warns that an environment has too
	// few colours to learn a distribution from.
	MinDistinctColours = 500
	// MinCoverage is the share of the SupportGrid³ cells of the sRGB cube
	// below which Train warns that an environment covers little of the
	// gamut.
	MinCoverage = 0.01
	// shareSamples bounds the pixels OutsideShareImage looks at.
	shareSamples = 1 << 17
)

// OutsideShareImage estimates the share of the pixels of img outside the
// support, on a regular subsample of at most about 131072 pixels (every
// pixel up to 524,287, every second up to 4 times that, ...).
//
// The pixels of 8-bit images (opaque, as image.RGBA and image.NRGBA hold
// them) are judged once per distinct colour: each costs a round trip
// through LMS with five powers, 0.84 µs, and a 768×512 photo's 393,216
// pixels took a quarter of the CPU time of its adapt apply.
func (s *Support) OutsideShareImage(img image.Image) float64 {
	b := img.Bounds()
	n := b.Dx() * b.Dy()
	if n == 0 {
		return 0
	}
	step := max(1, int(math.Sqrt(float64(n)/shareSamples)))
	// outsideLinear judges a colour in linear sRGB.
	outsideLinear := func(l [3]float64) bool {
		return s.Distance(colorspace.LMS(mul3(&rgbToLMS, l))) > OutsideDistance
	}
	// outside judges the 16-bit sRGB-encoded colour (premultiplied by a),
	// decoding opaque ones by table: the same values, as r/0xffff is the
	// table's index over 65535.
	outside := func(r, g, bb, a uint32) bool {
		if a == 0xffff {
			t := lin16Table()
			return outsideLinear([3]float64{t[r], t[g], t[bb]})
		}
		c := colorspace.SRGB{float64(r) / float64(a), float64(g) / float64(a), float64(bb) / float64(a)}
		return s.Distance(SRGBToLMS(c)) > OutsideDistance
	}
	// Bit sets over the 2^24 opaque 8-bit colours: judged, and outside.
	var judged, out []uint64
	opaque8 := func(r, g, bb uint8) bool {
		k := uint32(r)<<16 | uint32(g)<<8 | uint32(bb)
		if judged == nil {
			judged, out = make([]uint64, 1<<18), make([]uint64, 1<<18)
		}
		w, bit := k>>6, uint64(1)<<(k&63)
		if judged[w]&bit == 0 {
			judged[w] |= bit
			// v·0x101/0xffff and v/255 round alike: lin8 is lin16 there.
			if outsideLinear([3]float64{lin8[r], lin8[g], lin8[bb]}) {
				out[w] |= bit
			}
		}
		return out[w]&bit != 0
	}
	total, outs := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			var o bool
			if p, ok := opaque8At(img, x, y); ok {
				o = opaque8(p[0], p[1], p[2])
			} else {
				r, g, bb, a := img.At(x, y).RGBA()
				if a == 0 {
					continue
				}
				o = outside(r, g, bb, a)
			}
			total++
			if o {
				outs++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(outs) / float64(total)
}

// opaque8At returns the bytes of the pixel (x, y) of an 8-bit RGBA or
// NRGBA image and whether it is opaque (so that its 8-bit values, times
// 0x101, are what At gives).
func opaque8At(img image.Image, x, y int) ([]uint8, bool) {
	var p []uint8
	switch m := img.(type) {
	case *image.RGBA:
		p = m.Pix[m.PixOffset(x, y):]
	case *image.NRGBA:
		p = m.Pix[m.PixOffset(x, y):]
	default:
		return nil, false
	}
	return p, p[3] == 0xff
}

// DataReport describes the training colours of one environment.
type DataReport struct {
	// Distinct is the number of distinct colours at 6 bits per sRGB
	// channel; Coverage the share of the SupportGrid³ cells of the sRGB
	// cube that hold at least SupportMinCount colours.
	Distinct int
	Coverage float64
}

// Warnings returns the reasons to distrust a model trained on these
// colours (empty if none).
func (r DataReport) Warnings(env string) []string {
	var w []string
	if r.Distinct < MinDistinctColours {
		w = append(w, fmt.Sprintf("environment %s has only %d distinct colours (at 6 bits per channel; want >= %d): the mapping will follow its particular content", env, r.Distinct, MinDistinctColours))
	}
	if r.Coverage < MinCoverage {
		w = append(w, fmt.Sprintf("environment %s covers %.2f %% of the sRGB gamut (want >= %.0f %%): colours beyond it are extrapolated", env, 100*r.Coverage, 100*MinCoverage))
	}
	return w
}

// reportOf measures the LMS colours in the rows of x.
func reportOf(x mat.Matrix) DataReport {
	n, _ := x.Dims()
	seen := map[uint32]struct{}{}
	for i := range n {
		s := LMSToSRGB(colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)})
		var k uint32
		for c := range 3 {
			k = k<<6 | uint32(min(63, max(0, int(s[c]*64))))
		}
		seen[k] = struct{}{}
	}
	return DataReport{Distinct: len(seen), Coverage: coverageOf(x)}
}
