package adapt

import (
	"math"
	"sync"

	"github.com/spcalab/spca/colorspace"
)

// Lightness that never decreases along rays from black.
//
// The blend of SPCAMap is not monotone in lightness: where it fades from
// the SPCA map to the anchor, and the SPCA map is the brighter of the two
// (saturated reds: L* 43 against 32), a brighter input can come out darker
// (by up to 7.5 L*); and the bare SPCA map itself dips by about 1 L* along
// some rays inside the support. SPCAMap therefore takes the luminance of
// its output from a RayTable: the running maximum of the blend's
// luminance along each ray from black in the sRGB-encoded cube, sampled
// on a grid of rays and radii. The blended colour keeps its chromaticity
// and is scaled to that luminance (then rolled off and gamut mapped).
//
// A ray from black through the sRGB-encoded colour e ≠ 0 is the set of
// colours t·e, t > 0; it is given by its direction d = e/r, r = max_k e_k,
// a point of one of the three faces {d_k = 1} of the unit cube, and the
// colours along it by the radius r. The table holds, for every node of an
// N×N grid on each face and every radius j/R, the cube root of the
// largest blend luminance at the radii 0, 1/R, …, j/R of that ray; it is
// interpolated linearly in the two face coordinates and in the radius.
// The weights of the face interpolation do not depend on the radius, so
// along any ray the interpolated value is a positive combination of
// nondecreasing functions of r: the output luminance never decreases
// along a ray from black, exactly, in the exact map, and so at the nodes
// of a LUT built from it. Nodes on the edges shared by two faces are the
// same rays, so the table is continuous across faces. Colours outside the
// cube (of the LMS interface, outside sRGB) take the luminance at the
// cube's nearest point scaled by the ratio of the input luminances
// (RayTable.Luminance).

// Resolution of the RayTable.
const (
	// RayFaceNodes is the number of intervals per axis of the grid of
	// ray directions on each face of the cube.
	RayFaceNodes = 32
	// RayRadii is the number of intervals of the radius along a ray.
	RayRadii = 64
)

// RayTable is the running maximum of a map's luminance along rays from
// black (see the comment at the top of rays.go).
type RayTable struct {
	// N and R are the intervals per face axis and along the radius.
	N, R int
	// Q holds the cube root of the running maximum of the luminance Y
	// (D65 white 1) at node (u, v) of face k and radius j/R, at index
	// ((k·(N+1) + v)·(N+1) + u)·(R+1) + j. Face k is the face where
	// channel k is the largest; u and v are the other two channels in
	// the order R, G, B.
	Q []float64
	// Top is the largest luminance in the table: that of the brightest
	// colour of the cube (at radius 1 of some ray).
	Top float64
}

// faceDir returns the encoded direction of node (u, v) of face k.
func faceDir(k int, u, v float64) [3]float64 {
	switch k {
	case 0:
		return [3]float64{1, u, v}
	case 1:
		return [3]float64{u, 1, v}
	}
	return [3]float64{u, v, 1}
}

// NewRayTable tabulates the running maximum of the luminance of f's
// output along rays from black, with RayFaceNodes and RayRadii.
func NewRayTable(f func(dst, src []colorspace.LMS) error) (*RayTable, error) {
	n, rr := RayFaceNodes, RayRadii
	t := &RayTable{N: n, R: rr, Q: make([]float64, 3*(n+1)*(n+1)*(rr+1))}
	src := make([]colorspace.LMS, 0, 3*(n+1)*(n+1)*rr)
	for k := range 3 {
		for v := 0; v <= n; v++ {
			for u := 0; u <= n; u++ {
				d := faceDir(k, float64(u)/float64(n), float64(v)/float64(n))
				for j := 1; j <= rr; j++ {
					r := float64(j) / float64(rr)
					src = append(src, SRGBToLMS(colorspace.SRGB{r * d[0], r * d[1], r * d[2]}))
				}
			}
		}
	}
	dst := make([]colorspace.LMS, len(src))
	if err := f(dst, src); err != nil {
		return nil, err
	}
	i := 0
	for node := 0; node < 3*(n+1)*(n+1); node++ {
		run := 0.0
		for j := 1; j <= rr; j++ {
			if y := luminance(dst[i]); y > run { // also skips NaN
				run = y
			}
			i++
			t.Q[node*(rr+1)+j] = math.Cbrt(run)
		}
		t.Top = max(t.Top, run)
	}
	return t, nil
}

// Luminance returns the tabulated luminance for the LMS colour c. Colours
// outside the sRGB cube (a linear component below 0 or above 1) take the
// luminance at the cube's nearest point (each encoded component clipped
// to [0, 1]) scaled by the ratio of the input luminances, and black if
// their own luminance is not positive: the rule is continuous at the
// cube's surface.
func (t *RayTable) Luminance(c colorspace.LMS) float64 {
	l := mul3(&lmsToRGB, [3]float64(c))
	var e [3]float64
	inside := true
	for i, v := range l {
		e[i] = colorspace.LinearToSRGB(v)
		if !(e[i] >= 0 && e[i] <= 1) { // also NaN
			inside = false
			e[i] = min(1, max(0, e[i]))
		}
	}
	y := t.onCube(e)
	if !inside {
		y0 := 0.0
		for i, w := range [3]float64{0.2126, 0.7152, 0.0722} {
			y0 += w * colorspace.SRGBToLinear(e[i])
		}
		y1 := 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
		if !(y0 > 0 && y1 > 0) {
			return 0
		}
		y *= y1 / y0
	}
	return y
}

// onCube returns the tabulated luminance at the sRGB-encoded colour e in
// [0, 1]³.
func (t *RayTable) onCube(e [3]float64) float64 {
	k := 0
	for i := range e {
		if e[i] > e[k] {
			k = i
		}
	}
	r := e[k]
	if !(r > 0) {
		return 0
	}
	var uv [2]float64
	j := 0
	for i := range 3 {
		if i != k {
			uv[j] = min(1, e[i]/r)
			j++
		}
	}
	q := t.at(k, uv[0], uv[1], r)
	return q * q * q
}

// at interpolates the table linearly at face k, face coordinates u and v
// in [0, 1] and radius r in [0, 1].
func (t *RayTable) at(k int, u, v, r float64) float64 {
	cell := func(x float64, n int) (int, float64) {
		x *= float64(n)
		i := min(n-1, int(x))
		return i, x - float64(i)
	}
	iu, fu := cell(u, t.N)
	iv, fv := cell(v, t.N)
	ir, fr := cell(r, t.R)
	q := 0.0
	for corner := range 4 {
		du, dv := corner&1, corner>>1
		w := pick(fu, du) * pick(fv, dv)
		if w == 0 {
			continue
		}
		base := ((k*(t.N+1)+iv+dv)*(t.N+1) + iu + du) * (t.R + 1)
		q += w * ((1-fr)*t.Q[base+ir] + fr*t.Q[base+ir+1])
	}
	return q
}

// lazyRays builds a model's RayTable once, on first use.
type lazyRays struct {
	once sync.Once
	t    *RayTable
	err  error
}

func (l *lazyRays) get(f func(dst, src []colorspace.LMS) error) (*RayTable, error) {
	l.once.Do(func() { l.t, l.err = NewRayTable(f) })
	return l.t, l.err
}
