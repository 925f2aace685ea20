package testimages

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/spcalab/spca/colorspace"
)

// Spectral scenes for colour adaptation.
//
// A scene is a floor seen from straight above (orthographic camera) with
// spheres and boxes standing on it and flat patches lying on it. Every
// surface is Lambertian with a smooth reflectance spectrum; the floor and
// some objects mix two spectra with a smooth spatial pattern, so that the
// colours form continuous clouds as in photographs. The scene is rendered
// twice with exactly the same geometry and reflectances, so pixel (x, y)
// shows the same surface point in both:
//
//   - environment A: CIE D65, a directional light at elevation
//     SceneElevationA and a uniform ambient (sky) term SceneAmbientA;
//   - environment B: CIE illuminant A, a directional light at the lower
//     elevation SceneElevationB from another azimuth, so cast shadows are
//     longer, and the smaller ambient term SceneAmbientB.
//
// The light reaching a point is S(λ)·(direct·max(0, n·l) + ambient), with
// direct = 0 where another object casts a shadow; the ambient light has
// the spectrum of the environment's illuminant. The tristimulus value of a
// pixel is colorspace.Render(reflectance, S) times that factor, times the
// environment's exposure, averaged over 3×3 samples per pixel
// (anti-aliasing).
//
// Exposure: each environment is exposed like a camera that keeps
// highlights, by the same rule: the brightest diffuse white (reflectance
// SceneMaxReflectance, facing the light, unshadowed) has its largest
// linear sRGB channel at sRGB value SceneWhiteLevel (0.9), so nothing is
// clipped except rare saturated colours outside the sRGB gamut. Under
// illuminant A the red channel of white is 2.2 times its luminance, so B
// renderings are darker and orange, as a daylight-balanced camera shows a
// tungsten scene; SceneWhites gives the two exposed whites.

// Parameters of the scene renderings.
const (
	// SceneElevationA and SceneElevationB are the elevations of the
	// directional light above the floor, in degrees.
	SceneElevationA = 60.0
	SceneElevationB = 25.0
	// SceneTurnB is the largest difference in azimuth between the lights
	// of A and B, in degrees.
	SceneTurnB = 20.0
	// SceneAmbientA and SceneAmbientB are the ambient light, relative to
	// the direct light on a surface facing it.
	SceneAmbientA = 0.2
	SceneAmbientB = 0.1
	// SceneMinReflectance and SceneMaxReflectance bound every reflectance
	// spectrum.
	SceneMinReflectance = 0.02
	SceneMaxReflectance = 0.95
	// SceneWhiteLevel is the sRGB-encoded value of the largest channel of
	// the brightest diffuse white in both environments.
	SceneWhiteLevel = 0.9
	// MaxSceneSize is the largest width or height Scene accepts.
	MaxSceneSize = 1 << 15
)

// Stream constants of the scene generators.
const (
	streamScene    = 0x5350_4341_0201
	streamSceneSet = 0x5350_4341_0202
)

// SceneRender is a scene rendered in both environments as linear CIE XYZ
// (white Y = 1 before exposure, sRGB white at Y = 1 after the sRGB
// encoding), with per-pixel ground truth. Slices are row-major, W·H long.
type SceneRender struct {
	W, H int
	// A and B are the exposed tristimulus values under environments A and
	// B, before the sRGB encoding clips anything.
	A, B []colorspace.XYZ
	// ShadowA and ShadowB are the fraction of each pixel in a cast shadow
	// (0 to 1) in environment A and B.
	ShadowA, ShadowB []float32
	// LightA and LightB are the light factors max(0, n·l)·(1 - shadow) +
	// ambient, averaged over each pixel (1 + ambient on a surface facing
	// the light).
	LightA, LightB []float32
}

// SceneWhites returns the tristimulus values, as exposed in the
// renderings, of the brightest diffuse white (reflectance
// SceneMaxReflectance facing the light, unshadowed) in environments A and
// B: what a von Kries transform with the true illuminants maps between.
func SceneWhites() (a, b colorspace.XYZ) {
	ea, eb := sceneEnvs()
	return ea.white, eb.white
}

// sceneEnv is one environment: illuminant, light direction (azimuth per
// scene), ambient and exposure.
type sceneEnv struct {
	illum     colorspace.Spectrum
	elevation float64 // radians
	ambient   float64
	exposure  float64        // multiplies Render(reflectance, illum)·light
	white     colorspace.XYZ // exposed brightest diffuse white
}

var (
	envOnce      sync.Once
	envA, envB   sceneEnv
	linearWhiteT = colorspace.SRGBToLinear(SceneWhiteLevel)
)

func sceneEnvs() (sceneEnv, sceneEnv) {
	envOnce.Do(func() {
		envA = newSceneEnv(colorspace.IlluminantD65(), SceneElevationA, SceneAmbientA)
		envB = newSceneEnv(colorspace.IlluminantA(), SceneElevationB, SceneAmbientB)
	})
	return envA, envB
}

func newSceneEnv(s colorspace.Spectrum, elevationDeg, ambient float64) sceneEnv {
	e := sceneEnv{illum: s, elevation: elevationDeg * math.Pi / 180, ambient: ambient}
	w := colorspace.Render(colorspace.Constant(SceneMaxReflectance), s)
	rgb := w.LinearRGB()
	m := max(rgb[0], rgb[1], rgb[2])
	// The brightest white gets light factor 1 + ambient.
	e.exposure = linearWhiteT / (m * (1 + ambient))
	k := e.exposure * (1 + ambient)
	e.white = colorspace.XYZ{w[0] * k, w[1] * k, w[2] * k}
	return e
}

// Scene returns a w×h spectral scene rendered under environment A (D65)
// and environment B (illuminant A, lower light, more shadow), as 16-bit
// sRGB-encoded opaque images (*image.NRGBA64) with pixel correspondence:
// the same pixel shows the same surface point in both. Equal arguments
// give equal images; the same seed at another size gives the same scene
// scaled. It panics if w or h is negative or larger than MaxSceneSize.
func Scene(w, h int, seed uint64) (a, b image.Image) {
	r := RenderScene(w, h, seed)
	return r.Images()
}

// Images encodes the renderings as 16-bit sRGB images, clipping values
// outside [0, 1].
func (r *SceneRender) Images() (a, b *image.NRGBA64) {
	return encodeXYZ(r.A, r.W, r.H), encodeXYZ(r.B, r.W, r.H)
}

func encodeXYZ(px []colorspace.XYZ, w, h int) *image.NRGBA64 {
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := range h {
		row := img.Pix[y*img.Stride:]
		for x := range w {
			s := px[y*w+x].SRGB()
			p := row[8*x:]
			for c := range 3 {
				v := uint16(math.Round(min(max(s[c], 0), 1) * 0xffff))
				p[2*c], p[2*c+1] = uint8(v>>8), uint8(v)
			}
			p[6], p[7] = 0xff, 0xff
		}
	}
	return img
}

// SceneSet returns n scenes of size w×h for training or evaluation: scene
// i uses seed SceneSeed(seed, i), so sets with different seeds do not
// share scenes (with overwhelming probability).
func SceneSet(n, w, h int, seed uint64) (a, b []image.Image) {
	if n < 0 {
		panic("testimages: negative number of scenes")
	}
	a = make([]image.Image, n)
	b = make([]image.Image, n)
	for i := range n {
		a[i], b[i] = Scene(w, h, SceneSeed(seed, i))
	}
	return a, b
}

// SceneSeed returns the seed of scene i of the set with the given seed.
func SceneSeed(seed uint64, i int) uint64 {
	rng := newRand(seed, streamSceneSet^uint64(i)<<20)
	return rng.Uint64()
}

// RenderScene renders a w×h scene in both environments as linear XYZ with
// ground truth; see Scene.
func RenderScene(w, h int, seed uint64) *SceneRender {
	ea, eb := sceneEnvs()
	return renderScene(w, h, seed, ea, eb)
}

// SceneTruth returns the colour-only truth of Scene(w, h, seed): the scene
// of environment B, with B's geometry (light direction, cast shadows,
// ambient) and B's exposure rule, but lit by D65 instead of illuminant A.
// It is what B would look like if only the colour of the light were
// corrected, and equals B except for the illuminant's colour: a correction
// of B towards it must change colours without relighting the shadows. The
// image is encoded as Scene's are; it panics as Scene does.
func SceneTruth(w, h int, seed uint64) image.Image {
	ea, _ := sceneEnvs()
	r := renderScene(w, h, seed, ea, truthEnv())
	return encodeXYZ(r.B, r.W, r.H)
}

// SceneTruthSet returns the colour-only truths (SceneTruth) of the scenes
// of SceneSet(n, w, h, seed), in the same order.
func SceneTruthSet(n, w, h int, seed uint64) []image.Image {
	if n < 0 {
		panic("testimages: negative number of scenes")
	}
	t := make([]image.Image, n)
	for i := range n {
		t[i] = SceneTruth(w, h, SceneSeed(seed, i))
	}
	return t
}

var (
	truthOnce sync.Once
	envTruth  sceneEnv
)

// truthEnv is environment B with D65 as its illuminant.
func truthEnv() sceneEnv {
	truthOnce.Do(func() {
		envTruth = newSceneEnv(colorspace.IlluminantD65(), SceneElevationB, SceneAmbientB)
	})
	return envTruth
}

func renderScene(w, h int, seed uint64, ea, eb sceneEnv) *SceneRender {
	if w < 0 || h < 0 || w > MaxSceneSize || h > MaxSceneSize {
		panic(fmt.Sprintf("testimages: scene size %d×%d not in [0, %d]", w, h, MaxSceneSize))
	}
	sc := newSpectralScene(w, h, seed, ea, eb)
	n := w * h
	r := &SceneRender{
		W: w, H: h,
		A: make([]colorspace.XYZ, n), B: make([]colorspace.XYZ, n),
		ShadowA: make([]float32, n), ShadowB: make([]float32, n),
		LightA: make([]float32, n), LightB: make([]float32, n),
	}
	if n == 0 {
		return r
	}
	scale := 1 / float64(max(w, h))
	const ss = 3 // samples per pixel along each axis
	for y := range h {
		for x := range w {
			var pa, pb colorspace.XYZ
			var sha, shb, la, lb float64
			for j := range ss {
				for i := range ss {
					px := (float64(x) + (float64(i)+0.5)/ss) * scale
					py := (float64(y) + (float64(j)+0.5)/ss) * scale
					s := sc.sample(px, py)
					for c := range 3 {
						pa[c] += s.a[c]
						pb[c] += s.b[c]
					}
					sha += s.shadowA
					shb += s.shadowB
					la += s.lightA
					lb += s.lightB
				}
			}
			const k = 1.0 / (ss * ss)
			i := y*w + x
			for c := range 3 {
				pa[c] *= k
				pb[c] *= k
			}
			r.A[i], r.B[i] = pa, pb
			r.ShadowA[i], r.ShadowB[i] = float32(sha*k), float32(shb*k)
			r.LightA[i], r.LightB[i] = float32(la*k), float32(lb*k)
		}
	}
	return r
}

// sceneSphere stands on the floor: centre (cx, cy, r).
type sceneSphere struct {
	cx, cy, r float64
	mat       sceneMaterial
}

// sceneBox is an axis-aligned box on the floor.
type sceneBox struct {
	x0, y0, x1, y1, h float64
	mat               sceneMaterial
}

// scenePatch is a flat ellipse lying on the floor.
type scenePatch struct {
	cx, cy, rx, ry, cos, sin float64
	mat                      sceneMaterial
}

// sceneMaterial mixes two reflectances with weight m(p) = 0.5 + 0.5·
// sin(f·p + phase) (a smooth stripe pattern) raised to a sharpness; a
// uniform material has mix 0. xyz holds the exposed tristimulus values of
// both reflectances under both illuminants.
type sceneMaterial struct {
	mix        float64 // 0: uniform (first reflectance only)
	fx, fy, ph float64
	// xyzA[k], xyzB[k]: reflectance k under A and B (exposed, light 1).
	xyzA, xyzB [2]colorspace.XYZ
}

func (m *sceneMaterial) at(px, py float64) (a, b colorspace.XYZ) {
	if m.mix == 0 {
		return m.xyzA[0], m.xyzB[0]
	}
	t := m.mix * (0.5 + 0.5*math.Sin(m.fx*px+m.fy*py+m.ph))
	for c := range 3 {
		a[c] = m.xyzA[0][c] + t*(m.xyzA[1][c]-m.xyzA[0][c])
		b[c] = m.xyzB[0][c] + t*(m.xyzB[1][c]-m.xyzB[0][c])
	}
	return a, b
}

type spectralScene struct {
	spheres  []sceneSphere
	boxes    []sceneBox
	patches  []scenePatch
	floor    sceneMaterial
	la, lb   [3]float64 // unit vectors towards the lights
	ambA     float64
	ambB     float64
	floorMod [3]struct{ fx, fy, ph float64 } // slow floor mix modulation
}

// RandomReflectance returns a natural-like smooth reflectance spectrum
// with values in [SceneMinReflectance, SceneMaxReflectance]: a logistic
// function of a constant plus one to three Gaussian bumps or sigmoid
// edges in wavelength, or (one time in five) a near-neutral grey.
func RandomReflectance(rng *rand.Rand) colorspace.Spectrum {
	var f colorspace.Spectrum
	if rng.IntN(5) == 0 {
		level := -3 + 5.5*rng.Float64()
		tilt := 0.6 * (rng.Float64() - 0.5)
		for i := range f {
			f[i] = level + tilt*(colorspace.Wavelength(i)-580)/200
		}
	} else {
		c0 := -2.5 + 3.5*rng.Float64()
		for i := range f {
			f[i] = c0
		}
		for range 1 + rng.IntN(3) {
			amp := (0.8 + 2.2*rng.Float64())
			if rng.IntN(3) == 0 {
				amp = -amp
			}
			mu := 400 + 300*rng.Float64()
			if rng.IntN(2) == 0 {
				sd := 25 + 65*rng.Float64()
				for i := range f {
					d := (colorspace.Wavelength(i) - mu) / sd
					f[i] += amp * math.Exp(-0.5*d*d)
				}
			} else {
				s := 10 + 25*rng.Float64()
				for i := range f {
					f[i] += amp / (1 + math.Exp(-(colorspace.Wavelength(i)-mu)/s))
				}
			}
		}
	}
	var r colorspace.Spectrum
	for i, v := range f {
		r[i] = SceneMinReflectance + (SceneMaxReflectance-SceneMinReflectance)/(1+math.Exp(-v))
	}
	return r
}

func newSceneMaterial(rng *rand.Rand, ea, eb sceneEnv, pattern bool, size float64) sceneMaterial {
	var m sceneMaterial
	r0 := RandomReflectance(rng)
	r1 := r0
	if pattern {
		r1 = RandomReflectance(rng)
		m.mix = 0.3 + 0.7*rng.Float64()
		a := rng.Float64() * 2 * math.Pi
		f := 2 * math.Pi / (size * (0.3 + 0.7*rng.Float64()))
		m.fx, m.fy, m.ph = f*math.Cos(a), f*math.Sin(a), rng.Float64()*2*math.Pi
	}
	for k, r := range []colorspace.Spectrum{r0, r1} {
		xa := colorspace.Render(r, ea.illum)
		xb := colorspace.Render(r, eb.illum)
		for c := range 3 {
			m.xyzA[k][c] = xa[c] * ea.exposure
			m.xyzB[k][c] = xb[c] * eb.exposure
		}
	}
	return m
}

func newSpectralScene(w, h int, seed uint64, ea, eb sceneEnv) *spectralScene {
	rng := newRand(seed, streamScene)
	W := float64(w) / float64(max(w, h, 1))
	H := float64(h) / float64(max(w, h, 1))
	s := &spectralScene{ambA: ea.ambient, ambB: eb.ambient}
	// Light directions: A from a random azimuth, B lower and turned by up
	// to SceneTurnB.
	az := rng.Float64() * 2 * math.Pi
	azB := az + (2*rng.Float64()-1)*SceneTurnB*math.Pi/180
	s.la = lightDir(ea.elevation, az)
	s.lb = lightDir(eb.elevation, azB)
	s.floor = newSceneMaterial(rng, ea, eb, true, 0.8)
	for k := range s.floorMod {
		a := rng.Float64() * 2 * math.Pi
		f := 2 * math.Pi * (0.5 + rng.Float64())
		s.floorMod[k].fx, s.floorMod[k].fy = f*math.Cos(a), f*math.Sin(a)
		s.floorMod[k].ph = rng.Float64() * 2 * math.Pi
	}
	margin := 0.1
	pos := func() (float64, float64) {
		return -margin + (W+2*margin)*rng.Float64(), -margin + (H+2*margin)*rng.Float64()
	}
	for range 3 + rng.IntN(4) {
		p := scenePatch{rx: 0.06 + 0.14*rng.Float64()}
		p.ry = p.rx * (0.4 + 0.6*rng.Float64())
		p.cx, p.cy = pos()
		a := rng.Float64() * math.Pi
		p.cos, p.sin = math.Cos(a), math.Sin(a)
		p.mat = newSceneMaterial(rng, ea, eb, rng.IntN(3) == 0, p.rx)
		s.patches = append(s.patches, p)
	}
	for range 1 + rng.IntN(3) {
		b := sceneBox{h: 0.05 + 0.2*rng.Float64()}
		cx, cy := pos()
		sx, sy := 0.04+0.12*rng.Float64(), 0.04+0.12*rng.Float64()
		b.x0, b.x1, b.y0, b.y1 = cx-sx/2, cx+sx/2, cy-sy/2, cy+sy/2
		b.mat = newSceneMaterial(rng, ea, eb, rng.IntN(3) == 0, max(sx, sy))
		s.boxes = append(s.boxes, b)
	}
	for range 5 + rng.IntN(6) {
		sp := sceneSphere{r: 0.035 + 0.1*rng.Float64()}
		sp.cx, sp.cy = pos()
		sp.mat = newSceneMaterial(rng, ea, eb, rng.IntN(3) == 0, sp.r*2)
		s.spheres = append(s.spheres, sp)
	}
	return s
}

func lightDir(elevation, azimuth float64) [3]float64 {
	c := math.Cos(elevation)
	return [3]float64{c * math.Cos(azimuth), c * math.Sin(azimuth), math.Sin(elevation)}
}

// sceneSample is what one ray from the camera sees.
type sceneSample struct {
	a, b             colorspace.XYZ
	shadowA, shadowB float64
	lightA, lightB   float64
}

// sample traces the vertical ray through floor point (px, py).
func (s *spectralScene) sample(px, py float64) sceneSample {
	// The highest surface hit by the ray from above.
	z := 0.0
	n := [3]float64{0, 0, 1}
	var mat *sceneMaterial
	for i := range s.boxes {
		b := &s.boxes[i]
		if px >= b.x0 && px <= b.x1 && py >= b.y0 && py <= b.y1 && b.h > z {
			z, mat, n = b.h, &b.mat, [3]float64{0, 0, 1}
		}
	}
	for i := range s.spheres {
		sp := &s.spheres[i]
		dx, dy := px-sp.cx, py-sp.cy
		d2 := dx*dx + dy*dy
		if d2 >= sp.r*sp.r {
			continue
		}
		dz := math.Sqrt(sp.r*sp.r - d2)
		if top := sp.r + dz; top > z {
			z, mat = top, &sp.mat
			n = [3]float64{dx / sp.r, dy / sp.r, dz / sp.r}
		}
	}
	var ra, rb colorspace.XYZ
	if mat != nil {
		ra, rb = mat.at(px, py)
	} else {
		mat = &s.floor
		for i := range s.patches {
			p := &s.patches[i]
			dx, dy := px-p.cx, py-p.cy
			u := (p.cos*dx + p.sin*dy) / p.rx
			v := (-p.sin*dx + p.cos*dy) / p.ry
			if u*u+v*v < 1 {
				mat = &p.mat
			}
		}
		if mat == &s.floor {
			// The floor's stripes are modulated by slow waves.
			t := 0.0
			for _, m := range s.floorMod {
				t += math.Sin(m.fx*px + m.fy*py + m.ph)
			}
			ph := s.floor.ph
			s2 := *mat
			s2.ph = ph + 1.5*t
			ra, rb = s2.at(px, py)
		} else {
			ra, rb = mat.at(px, py)
		}
	}
	p := [3]float64{px, py, z}
	var out sceneSample
	la, shA := s.light(p, n, s.la)
	lb, shB := s.light(p, n, s.lb)
	la += s.ambA
	lb += s.ambB
	for c := range 3 {
		out.a[c] = ra[c] * la
		out.b[c] = rb[c] * lb
	}
	out.shadowA, out.shadowB = shA, shB
	out.lightA, out.lightB = la, lb
	return out
}

// light returns the direct light factor max(0, n·l) at p with normal n,
// 0 in a cast shadow, and 1 if p is in a cast shadow (0 otherwise).
func (s *spectralScene) light(p, n, l [3]float64) (float64, float64) {
	c := n[0]*l[0] + n[1]*l[1] + n[2]*l[2]
	if c <= 0 {
		return 0, 0 // facing away: attached shadow, not cast
	}
	// Start slightly off the surface.
	const eps = 1e-6
	o := [3]float64{p[0] + eps*n[0], p[1] + eps*n[1], p[2] + eps*n[2]}
	if s.occluded(o, l) {
		return 0, 1
	}
	return c, 0
}

// occluded reports whether the ray o + t·l, t > 0, hits an object.
func (s *spectralScene) occluded(o, l [3]float64) bool {
	for i := range s.spheres {
		sp := &s.spheres[i]
		d := [3]float64{o[0] - sp.cx, o[1] - sp.cy, o[2] - sp.r}
		b := d[0]*l[0] + d[1]*l[1] + d[2]*l[2]
		c := d[0]*d[0] + d[1]*d[1] + d[2]*d[2] - sp.r*sp.r
		disc := b*b - c
		if disc <= 0 {
			continue
		}
		// Both roots of t² + 2bt + c have the sign of -b when the origin
		// is outside (c > 0); inside, the ray leaves through the sphere.
		if c <= 0 || b < 0 {
			return true
		}
	}
	for i := range s.boxes {
		if rayBox(o, l, &s.boxes[i]) {
			return true
		}
	}
	return false
}

// rayBox reports whether the ray o + t·l, t > 0, hits box b (slab test).
func rayBox(o, l [3]float64, b *sceneBox) bool {
	lo := [3]float64{b.x0, b.y0, 0}
	hi := [3]float64{b.x1, b.y1, b.h}
	t0, t1 := 1e-9, math.Inf(1)
	for k := range 3 {
		if l[k] == 0 {
			if o[k] < lo[k] || o[k] > hi[k] {
				return false
			}
			continue
		}
		a := (lo[k] - o[k]) / l[k]
		c := (hi[k] - o[k]) / l[k]
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
		if t0 > t1 {
			return false
		}
	}
	return true
}
