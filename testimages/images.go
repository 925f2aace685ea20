package testimages

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
)

// Stream constants of the image generators (see the data-set streams).
const (
	streamTexture = 0x5350_4341_0101
	streamChroma  = 0x5350_4341_0102
)

// Texture returns a deterministic w×h grey image with some of the
// statistics of natural photographs, for tests and benchmarks of image
// coding: a smooth illumination gradient, fourteen overlapping shapes
// (half-planes, ellipses and rectangles) whose sharp, anti-aliased edges carry
// most of the contrast, a sinusoidal grating inside one of the shapes, and
// fractal value noise whose amplitude spectrum falls as 1/f with spatial
// frequency f, like that of photographs. Shapes and gradients scale with
// the image; the grating period (3 to 8 pixels) and the noise do not.
// Equal arguments give equal images. It panics if w or h is negative.
func Texture(w, h int, seed uint64) *image.Gray {
	s := newScene(w, h, seed)
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Pix[y*img.Stride+x] = clamp8(s.luma(x, y))
		}
	}
	return img
}

// ColorTexture returns a deterministic opaque w×h colour image whose luma
// (BT.601 Y') follows Texture(w, h, seed) up to rounding and clipping: the
// shapes also carry colours, and the chroma adds a slowly varying tint and
// weaker 1/f noise, so that R, G and B are strongly but not perfectly
// correlated, as in photographs. It panics if w or h is negative.
func ColorTexture(w, h int, seed uint64) *image.RGBA {
	s := newScene(w, h, seed)
	rng := newRand(seed, streamChroma)
	tint := [2]planeWave{randomWave(rng, w, h, 12), randomWave(rng, w, h, 12)}
	noise := [2]*fractal{newFractal(rng, w, h, 3), newFractal(rng, w, h, 3)}
	cols := make([][2]float64, len(s.shapes))
	for i := range cols {
		cols[i] = [2]float64{rng.NormFloat64() * 18, rng.NormFloat64() * 18}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			lum := s.luma(x, y)
			var ch [2]float64
			for c := range ch {
				ch[c] = tint[c].at(x, y) + noise[c].at(x, y)
			}
			for i, sh := range s.shapes {
				if cov := sh.cover(x, y); cov > 0 {
					ch[0] = (1-cov)*ch[0] + cov*cols[i][0]
					ch[1] = (1-cov)*ch[1] + cov*cols[i][1]
				}
			}
			// Inverse of Cb = (B'-Y')/1.772, Cr = (R'-Y')/1.402.
			r := lum + 1.402*ch[1]
			b := lum + 1.772*ch[0]
			g := (lum - 0.299*r - 0.114*b) / 0.587
			px := img.Pix[y*img.Stride+4*x:]
			px[0], px[1], px[2], px[3] = clamp8(r), clamp8(g), clamp8(b), 0xff
		}
	}
	return img
}

func clamp8(v float64) uint8 {
	switch {
	case v >= 255:
		return 255
	case v > 0:
		return uint8(math.Round(v))
	}
	return 0
}

// scene is the luminance of Texture.
type scene struct {
	light   planeWave
	shapes  []shape
	grating struct {
		shape      int
		fx, fy, ph float64
		amp        float64
	}
	noise *fractal
}

func newScene(w, h int, seed uint64) *scene {
	if w < 0 || h < 0 {
		panic(fmt.Sprintf("testimages: negative image size %d×%d", w, h))
	}
	rng := newRand(seed, streamTexture)
	s := &scene{light: randomWave(rng, w, h, 35)}
	size := float64(max(w, h, 1))
	// Painter's order: two half-planes as background, then ellipses and
	// rectangles of decreasing size.
	const nShapes = 14
	for i := range nShapes {
		sh := shape{
			cx:     rng.Float64() * float64(w),
			cy:     rng.Float64() * float64(h),
			level:  40 + rng.Float64()*180,
			shadow: 0.3 + 0.5*rng.Float64(),
			kind:   kindHalfPlane,
		}
		if i >= 2 {
			sh.kind = kindEllipse
			if rng.IntN(3) == 0 {
				sh.kind = kindRect
			}
			scale := 0.25 - 0.2*float64(i-2)/(nShapes-3)
			sh.rx = size * scale * (0.6 + 0.4*rng.Float64())
			sh.ry = sh.rx * (0.3 + 0.7*rng.Float64())
			sh.reach = math.Hypot(sh.rx, sh.ry)*(1+0.5/sh.ry) + 1
		}
		a := rng.Float64() * 2 * math.Pi
		sh.cos, sh.sin = math.Cos(a), math.Sin(a)
		s.shapes = append(s.shapes, sh)
	}
	g := &s.grating
	g.shape = 2 + rng.IntN(4) // one of the larger shapes
	a := rng.Float64() * math.Pi
	period := 3 + 5*rng.Float64() // pixels: textures stay fine at any size
	g.fx, g.fy = math.Cos(a)*2*math.Pi/period, math.Sin(a)*2*math.Pi/period
	g.ph = rng.Float64() * 2 * math.Pi
	g.amp = 15 + 20*rng.Float64()
	s.noise = newFractal(rng, w, h, 7)
	return s
}

// luma returns the grey level of the scene at pixel (x, y), unclamped.
func (s *scene) luma(x, y int) float64 {
	light := s.light.at(x, y)
	v := 60 + light
	for i, sh := range s.shapes {
		cov := sh.cover(x, y)
		if cov == 0 {
			continue
		}
		// Inside a shape: its own level, lit like the background but
		// shaded across its extent.
		in := sh.level*(1-sh.shadow*sh.shade(x, y)) + 0.5*light
		if i == s.grating.shape {
			g := &s.grating
			in += g.amp * math.Sin(g.fx*float64(x)+g.fy*float64(y)+g.ph)
		}
		v = (1-cov)*v + cov*in
	}
	return v + s.noise.at(x, y)
}

// Kinds of shape.
const (
	kindHalfPlane = iota
	kindEllipse
	kindRect
)

// shape is a half-plane through (cx, cy) with normal (cos, sin), or an
// ellipse or rectangle centred on (cx, cy) with half-axes rx, ry, rotated
// by the angle of (cos, sin).
type shape struct {
	kind          int
	cx, cy        float64
	rx, ry        float64
	cos, sin      float64
	level, shadow float64
	// reach bounds |x-cx| and |y-cy| where cover can be non-zero (ellipses
	// and rectangles).
	reach float64
}

// dist returns an approximate signed distance in pixels from (x, y) to the
// boundary, negative inside.
func (s shape) dist(x, y int) float64 {
	dx, dy := float64(x)+0.5-s.cx, float64(y)+0.5-s.cy
	u := s.cos*dx + s.sin*dy
	v := -s.sin*dx + s.cos*dy
	switch s.kind {
	case kindHalfPlane:
		return u
	case kindRect:
		return max(math.Abs(u)-s.rx, math.Abs(v)-s.ry)
	}
	u, v = u/s.rx, v/s.ry
	q := math.Sqrt(u*u + v*v)
	return (q - 1) * min(s.rx, s.ry)
}

// cover returns the fraction of pixel (x, y) inside the shape: 1 inside,
// 0 outside, a ramp one pixel wide across the edge.
func (s shape) cover(x, y int) float64 {
	if s.kind != kindHalfPlane &&
		(math.Abs(float64(x)+0.5-s.cx) > s.reach || math.Abs(float64(y)+0.5-s.cy) > s.reach) {
		return 0
	}
	return min(max(0.5-s.dist(x, y), 0), 1)
}

// shade returns a value in [0, 1] varying smoothly across the shape.
func (s shape) shade(x, y int) float64 {
	dx, dy := float64(x)-s.cx, float64(y)-s.cy
	r := s.rx
	if s.kind == kindHalfPlane {
		r = 200
	}
	t := (s.sin*dx - s.cos*dy) / (2 * r)
	return 0.5 + 0.5*math.Tanh(t)
}

// planeWave is a smooth field: a linear ramp plus one cosine of low
// frequency.
type planeWave struct {
	gx, gy, amp, fx, fy, ph float64
}

func randomWave(rng *rand.Rand, w, h int, amp float64) planeWave {
	size := float64(max(w, h, 1))
	a := rng.Float64() * 2 * math.Pi
	b := rng.Float64() * 2 * math.Pi
	f := 2 * math.Pi * (0.5 + rng.Float64()) / size
	return planeWave{
		gx: amp * math.Cos(a) / size, gy: amp * math.Sin(a) / size,
		amp: amp / 2, fx: f * math.Cos(b), fy: f * math.Sin(b),
		ph: rng.Float64() * 2 * math.Pi,
	}
}

func (p planeWave) at(x, y int) float64 {
	fx, fy := float64(x), float64(y)
	return p.gx*fx + p.gy*fy + p.amp*math.Cos(p.fx*fx+p.fy*fy+p.ph)
}

// fractal is value noise summed over octaves of equal amplitude: equal
// variance per octave is an amplitude spectrum falling as 1/f.
type fractal struct {
	octaves []octave
}

type octave struct {
	cell   int
	amp    float64
	nx     int
	values []float64
}

// newFractal returns noise with octaves of cell sizes 1, 2, 4, ... up to a
// quarter of the image size or 64 pixels, each of amplitude unit.
func newFractal(rng *rand.Rand, w, h int, unit float64) *fractal {
	f := &fractal{}
	size := max(w, h, 1)
	for cell := 1; ; cell *= 2 {
		nx, ny := w/cell+2, h/cell+2
		o := octave{cell: cell, amp: unit, nx: nx, values: make([]float64, nx*ny)}
		for i := range o.values {
			o.values[i] = 2*rng.Float64() - 1
		}
		f.octaves = append(f.octaves, o)
		if cell >= size/4 || cell >= 64 {
			break
		}
	}
	return f
}

func (f *fractal) at(x, y int) float64 {
	v := 0.0
	for _, o := range f.octaves {
		cx, cy := x/o.cell, y/o.cell
		tx := smooth((float64(x%o.cell) + 0.5) / float64(o.cell))
		ty := smooth((float64(y%o.cell) + 0.5) / float64(o.cell))
		i := cy*o.nx + cx
		a := o.values[i] + tx*(o.values[i+1]-o.values[i])
		b := o.values[i+o.nx] + tx*(o.values[i+o.nx+1]-o.values[i+o.nx])
		v += o.amp * (a + ty*(b-a))
	}
	return v
}

// smooth is the smoothstep 3t² - 2t³.
func smooth(t float64) float64 { return t * t * (3 - 2*t) }
