package colorspace

import (
	"math"
	"sort"
	"sync"
)

// LocusTolerance is the distance in CIE 1931 (x, y) by which a chromaticity
// may lie outside the spectral locus and still count as physical: measured
// colours of narrow-band lights fall on the locus up to rounding and
// measurement error.
const LocusTolerance = 1e-3

// Physical reports whether c is the colour of some light: black, or a
// tristimulus value whose chromaticity lies within LocusTolerance of the
// region the spectral locus and the purple line enclose (the convex hull
// of the chromaticities of CMF1931, 380 to 780 nm). Every light is a sum
// of spectral lights, so its chromaticity lies in that hull; values
// outside it (negative X, Y or Z, or (1, 0, 0)) are imaginary colours.
// The luminance is not bounded.
func (c XYZ) Physical() bool {
	s := c[0] + c[1] + c[2]
	if c[0] == 0 && c[1] == 0 && c[2] == 0 {
		return true
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	x, y := c[0]/s, c[1]/s
	hull := locusHull()
	for i := range hull {
		a, b := hull[i], hull[(i+1)%len(hull)]
		ex, ey := b[0]-a[0], b[1]-a[1]
		// Signed distance of (x, y) to the left of the edge a→b (the
		// hull runs counter-clockwise).
		if (ex*(y-a[1])-ey*(x-a[0]))/math.Hypot(ex, ey) < -LocusTolerance {
			return false
		}
	}
	return true
}

var locusOnce = sync.OnceValue(func() [][2]float64 {
	xb, yb, zb := CMF1931()
	pts := make([][2]float64, 0, NumWavelengths)
	for i := range xb {
		x, y := XYZ{xb[i], yb[i], zb[i]}.Chromaticity()
		pts = append(pts, [2]float64{x, y})
	}
	return convexHull(pts)
})

// locusHull returns the convex hull of the spectral locus, counter-clockwise.
func locusHull() [][2]float64 { return locusOnce() }

// convexHull returns the convex hull of pts counter-clockwise (Andrew's
// monotone chain), without collinear points.
func convexHull(pts [][2]float64) [][2]float64 {
	p := append([][2]float64(nil), pts...)
	sort.Slice(p, func(i, j int) bool {
		if p[i][0] != p[j][0] {
			return p[i][0] < p[j][0]
		}
		return p[i][1] < p[j][1]
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	h := make([][2]float64, 0, 2*len(p))
	for _, q := range p { // lower hull
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lower := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- { // upper hull
		q := p[i]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1]
}
