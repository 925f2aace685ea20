package adapt

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/spcalab/spca/colorspace"
)

// LightnessLUT is a LUT of the SPCA map followed by the map's lightness
// rule: the LUT gives the chromaticity of the output and the RayTable its
// luminance, as the exact map (SPCAMap) does. Model.ImageMapperFor returns
// one for the SPCA mapping, and `spca adapt apply` uses it; a .cube file
// (WriteCube) carries the LUT alone.
//
// Two departures from a plain LUT, each measured on the shared test model
// (300 generated scenes) and the held-out photos kodim13-24 relit with
// illuminant A:
//
//   - Lightness. A 3-D LUT interpolates between nodes on neighbouring
//     rays from black; where the RayTable holds the luminance over a dip
//     of the blend while the chromaticity changes quickly, the
//     interpolated lightness dips, by up to 0.80 L* along 10,000 random
//     rays. The RayTable is interpolated with weights that do not depend
//     on the radius along a ray, so the luminance it gives never
//     decreases along a ray, and neither does the lightness of a
//     LightnessLUT's output (largest drop 0 over the same rays): the
//     output is the interpolated colour scaled, in linear light, to the
//     luminance min(1, rollOff(Y)) of the exact map (Y from the RayTable,
//     rolled off as gamutMap does), and desaturated towards the grey of
//     that luminance, at constant luminance, where a component would
//     exceed 1.
//   - Interpolation in linear light. The nodes are interpolated after
//     decoding them to linear light: near black the map is close to
//     linear in linear light (the von Kries anchor), but strongly curved
//     in sRGB encoding, whose power law meets the anchor's gain of about
//     9 on the S cone in dark saturated colours. Within 1/255 of the exact
//     map on the whole relit photos: kodim17 87.2 % (sRGB-encoded
//     interpolation) -> 100 %, kodim15 93.3 % -> 99.1 %.
//
// The per-pixel cost is a second small table look-up and a division or
// two (about the cost of the tetrahedral interpolation itself); 8-bit
// images encode the result through a table.
type LightnessLUT struct {
	LUT  *LUT
	Rays *RayTable
	// Ceiling is the SPCA map's luminance ceiling (SPCAMap.Ceiling; 0:
	// none).
	Ceiling float64
	lin     []float32 // LUT.Table decoded to linear light, clipped to [0, 1]
	q       []float32 // Rays.Q
}

// ErrRayTable is returned, wrapped, for a RayTable whose sizes do not
// match its table.
var ErrRayTable = errors.New("adapt: invalid ray table")

// check validates the table's fields.
func (t *RayTable) check() error {
	if t.N < 1 || t.R < 1 || t.N > 1<<10 || t.R > 1<<12 {
		return fmt.Errorf("%w: %d face intervals, %d radii", ErrRayTable, t.N, t.R)
	}
	if want := 3 * (t.N + 1) * (t.N + 1) * (t.R + 1); len(t.Q) != want {
		return fmt.Errorf("%w: %d values, want %d", ErrRayTable, len(t.Q), want)
	}
	for _, v := range t.Q {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: value %v", ErrRayTable, v)
		}
	}
	if !(t.Top >= 0) || math.IsInf(t.Top, 0) {
		return fmt.Errorf("%w: top %v", ErrRayTable, t.Top)
	}
	return nil
}

// NewLightnessLUT returns the LightnessLUT of the LUT l and the RayTable
// rays of an SPCA map with the given ceiling.
func NewLightnessLUT(l *LUT, rays *RayTable, ceiling float64) (*LightnessLUT, error) {
	if l == nil || rays == nil {
		return nil, errors.New("adapt: lightness LUT needs a LUT and a ray table")
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	if err := rays.check(); err != nil {
		return nil, err
	}
	if !(ceiling >= 0 && ceiling <= 1) {
		return nil, fmt.Errorf("adapt: ceiling %v not in [0, 1]", ceiling)
	}
	ll := &LightnessLUT{LUT: l, Rays: rays, Ceiling: ceiling,
		lin: make([]float32, len(l.Table)), q: make([]float32, len(rays.Q))}
	for i, v := range l.Table {
		ll.lin[i] = float32(colorspace.SRGBToLinear(min(1, max(0, float64(v)))))
	}
	for i, v := range rays.Q {
		ll.q[i] = float32(v)
	}
	return ll, nil
}

// luminance returns the output luminance for the sRGB-encoded input e in
// [0, 1]³: the RayTable's (RayTable.onCube, here from the float32 copy)
// rolled off as gamutMap does and capped at 1.
func (l *LightnessLUT) luminance(e [3]float64) float64 {
	k := 0
	if e[1] > e[k] {
		k = 1
	}
	if e[2] > e[k] {
		k = 2
	}
	r := e[k]
	if !(r > 0) {
		return 0
	}
	var u, v float64
	switch k {
	case 0:
		u, v = e[1], e[2]
	case 1:
		u, v = e[0], e[2]
	default:
		u, v = e[0], e[1]
	}
	n, rr := l.Rays.N, l.Rays.R
	inv := 1 / r
	u = min(1, u*inv) * float64(n)
	v = min(1, v*inv) * float64(n)
	r *= float64(rr)
	iu, iv, ir := min(n-1, int(u)), min(n-1, int(v)), min(rr-1, int(r))
	fu, fv, fr := u-float64(iu), v-float64(iv), r-float64(ir)
	su := rr + 1
	sv := (n + 1) * su
	b := ((k*(n+1)+iv)*(n+1)+iu)*su + ir
	q := l.q[b : b+sv+su+2 : b+sv+su+2]
	q00 := (1-fr)*float64(q[0]) + fr*float64(q[1])
	q10 := (1-fr)*float64(q[su]) + fr*float64(q[su+1])
	q01 := (1-fr)*float64(q[sv]) + fr*float64(q[sv+1])
	q11 := (1-fr)*float64(q[sv+su]) + fr*float64(q[sv+su+1])
	y := (1-fv)*((1-fu)*q00+fu*q10) + fv*((1-fu)*q01+fu*q11)
	y = y * y * y
	if !(y > 0) {
		return 0
	}
	return min(rollOff(y, l.Ceiling, l.Rays.Top), 1)
}

// linear returns the linear-light output for the sRGB-encoded input e
// (clamped to the unit cube), before encoding.
func (l *LightnessLUT) linear(e [3]float64) [3]float64 {
	for k, v := range e {
		if !(v > 0) { // also NaN
			v = 0
		}
		e[k] = min(1, v)
	}
	t := l.LUT
	r, fr := t.coord(e[0], 0)
	g, fg := t.coord(e[1], 1)
	b, fb := t.coord(e[2], 2)
	v := tetra(l.lin, t.Size, 3*(r+t.Size*(g+t.Size*b)), fr, fg, fb)
	return scaleLuminance(v, l.luminance(e))
}

// tetra interpolates the table t of n³ RGB nodes tetrahedrally in the
// cell whose first node starts at base, with fractions fr, fg, fb.
func tetra(t []float32, n, base int, fr, fg, fb float64) [3]float64 {
	dr, dg, db := 3, 3*n, 3*n*n
	o1, o2, w1, w2, w3 := tetrahedron(fr, fg, fb, dr, dg, db)
	d111 := dr + dg + db
	var out [3]float64
	for k := range 3 {
		v := (1-w1)*float64(t[base+k]) + (w1-w2)*float64(t[base+o1+k]) + (w2-w3)*float64(t[base+o2+k]) + w3*float64(t[base+d111+k])
		out[k] = min(1, max(0, v))
	}
	return out
}

// Eval returns the sRGB-encoded output for the sRGB-encoded input c
// (clamped to the unit cube).
func (l *LightnessLUT) Eval(c [3]float64) [3]float64 {
	v := l.linear(c)
	for k := range v {
		v[k] = colorspace.LinearToSRGB(v[k])
	}
	return v
}

// scaleLuminance returns the linear sRGB colour v (components in [0, 1])
// scaled to the luminance y in [0, 1] (the grey of luminance y if v is
// black), desaturated towards that grey at constant luminance where a
// component would exceed 1.
func scaleLuminance(v [3]float64, y float64) [3]float64 {
	y0 := 0.2126*v[0] + 0.7152*v[1] + 0.0722*v[2]
	if !(y0 > 0) {
		return [3]float64{y, y, y}
	}
	f := y / y0
	a := 1.0
	for k := range v {
		v[k] *= f
		if v[k] > 1 {
			a = min(a, (1-y)/(v[k]-y))
		}
	}
	if a < 1 {
		for k := range v {
			v[k] = min(1, y+a*(v[k]-y))
		}
	}
	return v
}

// ImageMapper maps images: a LUT, a LightnessLUT.
type ImageMapper interface {
	Apply(img image.Image, workers int) (image.Image, error)
}

// Apply maps every pixel of img like Eval, on workers goroutines (0
// means GOMAXPROCS), and returns a new image of the same size and bit
// depth (see the package documentation); alpha is kept. 8-bit outputs are
// encoded through a table of 2^16 linear steps (within 0.03/255 of
// rounding Eval's output).
func (l *LightnessLUT) Apply(img image.Image, workers int) (image.Image, error) {
	if l.lin == nil || l.q == nil {
		return nil, errors.New("adapt: LightnessLUT not made by NewLightnessLUT")
	}
	return mapImage(img, workers, newLightMapper(l)), nil
}

// lightMapper is the rowMapper of a LightnessLUT, with the LUT cell and
// fraction of every 8-bit input value precomputed.
type lightMapper struct {
	l   *LightnessLUT
	enc *[encSteps + 1]uint8
	off [3][256]int
	f   [3][256]float64
}

func newLightMapper(l *LightnessLUT) *lightMapper {
	m := &lightMapper{l: l, enc: encodeTable8()}
	n := l.LUT.Size
	stride := [3]int{3, 3 * n, 3 * n * n}
	for k := range 3 {
		for v := range 256 {
			i, f := l.LUT.coord(float64(v)/255, k)
			m.off[k][v], m.f[k][v] = i*stride[k], f
		}
	}
	return m
}

// encSteps is the number of linear steps of the 8-bit encoding table.
const encSteps = 1 << 16

// encodeTable8 returns the table of round(255·LinearToSRGB(i/encSteps)),
// built on first use.
var encodeTable8 = sync.OnceValue(func() *[encSteps + 1]uint8 {
	t := new([encSteps + 1]uint8)
	for i := range t {
		t[i] = uint8(math.Round(255 * colorspace.LinearToSRGB(float64(i)/encSteps)))
	}
	return t
})

// encodeTable16 returns the table of 65535·LinearToSRGB(i/encSteps),
// built on first use (by 16-bit images only).
var encodeTable16 = sync.OnceValue(func() *[encSteps + 1]float32 {
	t := new([encSteps + 1]float32)
	for i := range t {
		t[i] = float32(65535 * colorspace.LinearToSRGB(float64(i)/encSteps))
	}
	return t
})

func (m *lightMapper) px8(r, g, b uint8) (uint8, uint8, uint8) {
	l := m.l
	v := tetra(l.lin, l.LUT.Size, m.off[0][r]+m.off[1][g]+m.off[2][b], m.f[0][r], m.f[1][g], m.f[2][b])
	v = scaleLuminance(v, l.luminance([3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}))
	e := m.enc
	return e[int(v[0]*encSteps+0.5)], e[int(v[1]*encSteps+0.5)], e[int(v[2]*encSteps+0.5)]
}

// px16 maps one 16-bit colour; t is encodeTable16's table (fetched once
// per row, not per pixel).
func (m *lightMapper) px16(c [3]uint16, t *[encSteps + 1]float32) [3]uint16 {
	v := m.l.linear([3]float64{float64(c[0]) / 65535, float64(c[1]) / 65535, float64(c[2]) / 65535})
	for k, x := range v {
		// Linear interpolation of the table: within 0.01/65535 of
		// LinearToSRGB (exact on its linear segment near black).
		x *= encSteps
		i := min(encSteps-1, int(x))
		f := x - float64(i)
		c[k] = uint16((1-f)*float64(t[i]) + f*float64(t[i+1]) + 0.5)
	}
	return c
}

func (m *lightMapper) row8(dst, src []uint8, premul bool) {
	for i := 0; i+3 < len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		a := s[3]
		switch {
		case a == 0xff || !premul:
			d[0], d[1], d[2] = m.px8(s[0], s[1], s[2])
		case a == 0:
			d[0], d[1], d[2] = 0, 0, 0
		default:
			r, g, b := m.px8(unpremul8(s[0], a), unpremul8(s[1], a), unpremul8(s[2], a))
			d[0], d[1], d[2] = premul8(r, a), premul8(g, a), premul8(b, a)
		}
		d[3] = a
	}
}

func (m *lightMapper) row16(dst, src []uint8, premul bool) {
	t := encodeTable16()
	for i := 0; i+7 < len(src); i += 8 {
		s := src[i : i+8 : i+8]
		d := dst[i : i+8 : i+8]
		a := get16(s[6:])
		c := [3]uint16{get16(s[0:]), get16(s[2:]), get16(s[4:])}
		switch {
		case a == 0xffff || !premul:
			c = m.px16(c, t)
		case a == 0:
			c = [3]uint16{}
		default:
			for k := range c {
				c[k] = unpremul16(c[k], a)
			}
			c = m.px16(c, t)
			for k := range c {
				c[k] = premul16(c[k], a)
			}
		}
		put16(d[0:], c[0])
		put16(d[2:], c[1])
		put16(d[4:], c[2])
		put16(d[6:], a)
	}
}
