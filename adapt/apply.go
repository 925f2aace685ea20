package adapt

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"runtime"
	"sync"

	"github.com/spcalab/spca/colorspace"
)

// Images are mapped in their own bit depth: *image.NRGBA and *image.RGBA
// give the same type back, *image.NRGBA64 and *image.RGBA64 likewise,
// *image.Gray16 gives *image.NRGBA64, and every other type (JPEG's
// *image.YCbCr, *image.Gray, paletted images, ...) is read as 8-bit and
// gives *image.NRGBA. Sizes and bounds are kept, and so is alpha: the
// colour of a translucent pixel is un-premultiplied, mapped and
// premultiplied again where the type is premultiplied.

// normalised returns img as one of *image.NRGBA, *image.RGBA,
// *image.NRGBA64 and *image.RGBA64, converting other types (sharing
// pixels when no conversion is needed).
func normalised(img image.Image) image.Image {
	switch img.(type) {
	case *image.NRGBA, *image.RGBA, *image.NRGBA64, *image.RGBA64:
		return img
	}
	b := img.Bounds()
	if BitDepth(img) == 16 {
		out := image.NewNRGBA64(b)
		draw.Draw(out, b, img, b.Min, draw.Src)
		return out
	}
	out := image.NewNRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

// rowMapper maps rows of pixels: 4 bytes per pixel (8-bit RGBA) or 8 bytes
// per pixel (16-bit big-endian RGBA), premultiplied or not.
type rowMapper interface {
	row8(dst, src []uint8, premul bool)
	row16(dst, src []uint8, premul bool)
}

// mapImage maps img row by row on workers goroutines.
func mapImage(img image.Image, workers int, m rowMapper) image.Image {
	img = normalised(img)
	var srcPix, dstPix []uint8
	var stride, rowBytes, h int
	var out image.Image
	premul, wide := false, false
	b := img.Bounds()
	switch im := img.(type) {
	case *image.NRGBA:
		o := image.NewNRGBA(b)
		srcPix, dstPix, stride, out = im.Pix, o.Pix, im.Stride, o
	case *image.RGBA:
		o := image.NewRGBA(b)
		srcPix, dstPix, stride, out, premul = im.Pix, o.Pix, im.Stride, o, true
	case *image.NRGBA64:
		o := image.NewNRGBA64(b)
		srcPix, dstPix, stride, out, wide = im.Pix, o.Pix, im.Stride, o, true
	case *image.RGBA64:
		o := image.NewRGBA64(b)
		srcPix, dstPix, stride, out, premul, wide = im.Pix, o.Pix, im.Stride, o, true, true
	}
	h = b.Dy()
	rowBytes = 4 * b.Dx()
	if wide {
		rowBytes *= 2
	}
	// The output of image.New* has the minimal stride; the source may
	// have a larger one (a SubImage).
	outStride := rowBytes
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, h))
	var wg sync.WaitGroup
	for w := range workers {
		y0, y1 := h*w/workers, h*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := y0; y < y1; y++ {
				src := srcPix[y*stride : y*stride+rowBytes]
				dst := dstPix[y*outStride : y*outStride+rowBytes]
				if wide {
					m.row16(dst, src, premul)
				} else {
					m.row8(dst, src, premul)
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// Un-premultiplication and premultiplication of one component.
func unpremul8(c, a uint8) uint8 {
	return uint8(min(255, (uint32(c)*255+uint32(a)/2)/uint32(a)))
}

func premul8(c, a uint8) uint8 { return uint8((uint32(c)*uint32(a) + 127) / 255) }

func unpremul16(c, a uint16) uint16 {
	return uint16(min(65535, (uint32(c)*65535+uint32(a)/2)/uint32(a)))
}

func premul16(c, a uint16) uint16 { return uint16((uint32(c)*uint32(a) + 32767) / 65535) }

func get16(p []uint8) uint16 { return uint16(p[0])<<8 | uint16(p[1]) }

func put16(p []uint8, v uint16) { p[0], p[1] = uint8(v>>8), uint8(v) }

// Fixed-point arithmetic of the 8-bit LUT path: weights in units of
// 1/4096, table values in units of 1/256 of an 8-bit step, so a weighted
// sum fits in int32 (4096 · 255 · 256 < 2^31) and the result is
// (sum + 2^19) >> 20.
const (
	wBits   = 12
	wOne    = 1 << wBits
	tBits   = 8
	outBits = wBits + tBits
)

// lut8 is a LUT prepared for 8-bit input and output.
type lut8 struct {
	off  [3][256]int32 // offset of the cell's first node, in table entries
	w    [3][256]int32 // fraction within the cell, in 1/wOne
	t    []int32       // values, 3 per node, fixed point
	dr   int32         // offsets of the neighbouring nodes
	dg   int32
	db   int32
	d111 int32
}

// lut16 is a LUT prepared for 16-bit input and output.
type lut16 struct {
	l   *LUT
	t   []float32 // values scaled to 65535
	s   [3]float32
	o   [3]float32
	max float32
	n   int
}

type lutMapper struct {
	p8  *lut8
	p16 *lut16
}

func prepare(l *LUT) *lutMapper {
	n := l.Size
	p := &lut8{
		t:  make([]int32, len(l.Table)),
		dr: 3, dg: int32(3 * n), db: int32(3 * n * n),
	}
	p.d111 = p.dr + p.dg + p.db
	stride := [3]int32{p.dr, p.dg, p.db}
	for k := range 3 {
		for v := range 256 {
			i, f := l.coord(float64(v)/255, k)
			p.off[k][v] = int32(i) * stride[k]
			p.w[k][v] = int32(math.Round(f * wOne))
		}
	}
	q := &lut16{l: l, t: make([]float32, len(l.Table)), max: float32(n - 1), n: n}
	for i, v := range l.Table {
		c := min(max(float64(v), 0), 1)
		p.t[i] = int32(math.Round(c * 255 * (1 << tBits)))
		q.t[i] = float32(c * 65535)
	}
	for k := range 3 {
		span := l.DomainMax[k] - l.DomainMin[k]
		q.s[k] = float32(float64(n-1) / (65535 * span))
		q.o[k] = float32(-l.DomainMin[k] / span * float64(n-1))
	}
	return &lutMapper{p8: p, p16: q}
}

// px maps one 8-bit colour by tetrahedral interpolation.
func (p *lut8) px(r, g, b uint8) (uint8, uint8, uint8) {
	base := p.off[0][r] + p.off[1][g] + p.off[2][b]
	fr, fg, fb := p.w[0][r], p.w[1][g], p.w[2][b]
	var o1, o2, w1, w2, w3 int32
	if fr >= fg {
		switch {
		case fg >= fb:
			o1, o2, w1, w2, w3 = p.dr, p.dr+p.dg, fr, fg, fb
		case fr >= fb:
			o1, o2, w1, w2, w3 = p.dr, p.dr+p.db, fr, fb, fg
		default:
			o1, o2, w1, w2, w3 = p.db, p.dr+p.db, fb, fr, fg
		}
	} else {
		switch {
		case fr >= fb:
			o1, o2, w1, w2, w3 = p.dg, p.dr+p.dg, fg, fr, fb
		case fg >= fb:
			o1, o2, w1, w2, w3 = p.dg, p.dg+p.db, fg, fb, fr
		default:
			o1, o2, w1, w2, w3 = p.db, p.dg+p.db, fb, fg, fr
		}
	}
	t := p.t
	c0 := t[base : base+3 : base+3]
	c1 := t[base+o1 : base+o1+3 : base+o1+3]
	c2 := t[base+o2 : base+o2+3 : base+o2+3]
	c3 := t[base+p.d111 : base+p.d111+3 : base+p.d111+3]
	a0, a1, a2 := wOne-w1, w1-w2, w2-w3
	const half = 1 << (outBits - 1)
	or := (a0*c0[0] + a1*c1[0] + a2*c2[0] + w3*c3[0] + half) >> outBits
	og := (a0*c0[1] + a1*c1[1] + a2*c2[1] + w3*c3[1] + half) >> outBits
	ob := (a0*c0[2] + a1*c1[2] + a2*c2[2] + w3*c3[2] + half) >> outBits
	return uint8(or), uint8(og), uint8(ob)
}

func (m *lutMapper) row8(dst, src []uint8, premul bool) {
	p := m.p8
	for i := 0; i+3 < len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		a := s[3]
		switch {
		case a == 0xff || !premul:
			d[0], d[1], d[2] = p.px(s[0], s[1], s[2])
		case a == 0:
			d[0], d[1], d[2] = 0, 0, 0
		default:
			r, g, b := p.px(unpremul8(s[0], a), unpremul8(s[1], a), unpremul8(s[2], a))
			d[0], d[1], d[2] = premul8(r, a), premul8(g, a), premul8(b, a)
		}
		d[3] = a
	}
}

// px maps one 16-bit colour by tetrahedral interpolation in float32.
func (p *lut16) px(c [3]uint16) [3]uint16 {
	var idx [3]int
	var f [3]float32
	for k := range 3 {
		t := float32(c[k])*p.s[k] + p.o[k]
		switch {
		case !(t > 0):
			idx[k], f[k] = 0, 0
		case t >= p.max:
			idx[k], f[k] = p.n-2, 1
		default:
			i := int(t)
			idx[k], f[k] = i, t-float32(i)
		}
	}
	n := p.n
	dr, dg, db := 3, 3*n, 3*n*n
	base := 3*idx[0] + dg*idx[1] + db*idx[2]
	fr, fg, fb := f[0], f[1], f[2]
	o1, o2, w1, w2, w3 := tetrahedron(fr, fg, fb, dr, dg, db)
	t := p.t
	d111 := dr + dg + db
	var out [3]uint16
	for k := range 3 {
		v := (1-w1)*t[base+k] + (w1-w2)*t[base+o1+k] + (w2-w3)*t[base+o2+k] + w3*t[base+d111+k]
		out[k] = uint16(min(max(v+0.5, 0), 65535))
	}
	return out
}

func (m *lutMapper) row16(dst, src []uint8, premul bool) {
	for i := 0; i+7 < len(src); i += 8 {
		s := src[i : i+8 : i+8]
		d := dst[i : i+8 : i+8]
		a := get16(s[6:])
		c := [3]uint16{get16(s[0:]), get16(s[2:]), get16(s[4:])}
		switch {
		case a == 0xffff || !premul:
			c = m.p16.px(c)
		case a == 0:
			c = [3]uint16{}
		default:
			for k := range c {
				c[k] = unpremul16(c[k], a)
			}
			c = m.p16.px(c)
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

// Apply maps every pixel of img through the LUT by tetrahedral
// interpolation on workers goroutines (0 means GOMAXPROCS) and returns a
// new image of the same size and bit depth (see the package
// documentation); alpha is kept. 8-bit images use precomputed decode
// tables and integer arithmetic, 16-bit images float32.
func (l *LUT) Apply(img image.Image, workers int) (image.Image, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	return mapImage(img, workers, prepare(l)), nil
}

// exactMapper maps the distinct colours of an image with a Mapper.
type exactMapper struct {
	m8  map[uint32]uint32
	m16 map[uint64]uint64
}

func key8(r, g, b uint8) uint32 { return uint32(r)<<16 | uint32(g)<<8 | uint32(b) }

func key16(c [3]uint16) uint64 { return uint64(c[0])<<32 | uint64(c[1])<<16 | uint64(c[2]) }

func (e *exactMapper) row8(dst, src []uint8, premul bool) {
	for i := 0; i+3 < len(src); i += 4 {
		s, d := src[i:i+4], dst[i:i+4]
		a := s[3]
		r, g, b := s[0], s[1], s[2]
		if premul && a != 0xff {
			if a == 0 {
				d[0], d[1], d[2], d[3] = 0, 0, 0, 0
				continue
			}
			r, g, b = unpremul8(r, a), unpremul8(g, a), unpremul8(b, a)
		}
		v := e.m8[key8(r, g, b)]
		r, g, b = uint8(v>>16), uint8(v>>8), uint8(v)
		if premul && a != 0xff {
			r, g, b = premul8(r, a), premul8(g, a), premul8(b, a)
		}
		d[0], d[1], d[2], d[3] = r, g, b, a
	}
}

func (e *exactMapper) row16(dst, src []uint8, premul bool) {
	for i := 0; i+7 < len(src); i += 8 {
		s, d := src[i:i+8], dst[i:i+8]
		a := get16(s[6:])
		c := [3]uint16{get16(s[0:]), get16(s[2:]), get16(s[4:])}
		pm := premul && a != 0xffff
		if pm {
			if a == 0 {
				clear(d)
				continue
			}
			for k := range c {
				c[k] = unpremul16(c[k], a)
			}
		}
		v := e.m16[key16(c)]
		c = [3]uint16{uint16(v >> 32), uint16(v >> 16), uint16(v)}
		if pm {
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

// ApplyExact maps every pixel of img with the exact mapper m (no LUT):
// each distinct colour is decoded to LMS, mapped and encoded back to sRGB
// (LMSToSRGB), then rounded to the image's bit depth. The result has the
// same size, bit depth and alpha as with LUT.Apply. Fully transparent
// pixels of premultiplied images stay (0, 0, 0, 0).
func ApplyExact(img image.Image, m Mapper) (image.Image, error) {
	img = normalised(img)
	b := img.Bounds()
	e := &exactMapper{}
	var src []colorspace.LMS
	wide := BitDepth(img) == 16
	if wide {
		e.m16 = map[uint64]uint64{}
	} else {
		e.m8 = map[uint32]uint32{}
	}
	var keys8 []uint32
	var keys16 []uint64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c, a := unpremulPixel(img, x, y)
			if a == 0 && isPremul(img) {
				continue
			}
			if wide {
				k := key16(c)
				if _, ok := e.m16[k]; !ok {
					e.m16[k] = 0
					keys16 = append(keys16, k)
					src = append(src, srgb16ToLMS(c))
				}
			} else {
				k := key8(uint8(c[0]), uint8(c[1]), uint8(c[2]))
				if _, ok := e.m8[k]; !ok {
					e.m8[k] = 0
					keys8 = append(keys8, k)
					src = append(src, srgb8ToLMS(k))
				}
			}
		}
	}
	dst := make([]colorspace.LMS, len(src))
	if err := m.MapLMS(dst, src); err != nil {
		return nil, fmt.Errorf("adapt: %w", err)
	}
	for i, c := range dst {
		s := LMSToSRGB(c)
		if wide {
			var v uint64
			for k := range 3 {
				v = v<<16 | uint64(math.Round(s[k]*65535))
			}
			e.m16[keys16[i]] = v
		} else {
			var v uint32
			for k := range 3 {
				v = v<<8 | uint32(math.Round(s[k]*255))
			}
			e.m8[keys8[i]] = v
		}
	}
	return mapImage(img, 0, e), nil
}

func isPremul(img image.Image) bool {
	switch img.(type) {
	case *image.RGBA, *image.RGBA64:
		return true
	}
	return false
}

// unpremulPixel returns the un-premultiplied colour of a pixel of a
// normalised image in its own bit depth, and its alpha.
func unpremulPixel(img image.Image, x, y int) ([3]uint16, uint16) {
	switch im := img.(type) {
	case *image.NRGBA:
		p := im.Pix[im.PixOffset(x, y):]
		return [3]uint16{uint16(p[0]), uint16(p[1]), uint16(p[2])}, uint16(p[3])
	case *image.RGBA:
		p := im.Pix[im.PixOffset(x, y):]
		a := p[3]
		if a == 0xff || a == 0 {
			return [3]uint16{uint16(p[0]), uint16(p[1]), uint16(p[2])}, uint16(a)
		}
		return [3]uint16{uint16(unpremul8(p[0], a)), uint16(unpremul8(p[1], a)), uint16(unpremul8(p[2], a))}, uint16(a)
	case *image.NRGBA64:
		p := im.Pix[im.PixOffset(x, y):]
		return [3]uint16{get16(p[0:]), get16(p[2:]), get16(p[4:])}, get16(p[6:])
	case *image.RGBA64:
		p := im.Pix[im.PixOffset(x, y):]
		a := get16(p[6:])
		c := [3]uint16{get16(p[0:]), get16(p[2:]), get16(p[4:])}
		if a != 0xffff && a != 0 {
			for k := range c {
				c[k] = unpremul16(c[k], a)
			}
		}
		return c, a
	}
	panic("adapt: image not normalised")
}

func srgb8ToLMS(k uint32) colorspace.LMS {
	return linearToLMS([3]float64{lin8[k>>16&0xff], lin8[k>>8&0xff], lin8[k&0xff]})
}

func srgb16ToLMS(c [3]uint16) colorspace.LMS {
	t := lin16Table()
	return linearToLMS([3]float64{t[c[0]], t[c[1]], t[c[2]]})
}

// tetrahedron picks, for the fractions fr, fg, fb of a point in a cell
// of a 3-D LUT whose axes step by dr, dg, db, the tetrahedron of the
// cell's six holding it: the offsets o1, o2 of its two middle corners
// from the cell's first node and the sorted fractions w1 >= w2 >= w3
// weighting them (the first corner weighs 1-w1, the far corner w3).
func tetrahedron[F float32 | float64](fr, fg, fb F, dr, dg, db int) (o1, o2 int, w1, w2, w3 F) {
	if fr >= fg {
		switch {
		case fg >= fb:
			return dr, dr + dg, fr, fg, fb
		case fr >= fb:
			return dr, dr + db, fr, fb, fg
		default:
			return db, dr + db, fb, fr, fg
		}
	}
	switch {
	case fr >= fb:
		return dg, dr + dg, fg, fr, fb
	case fg >= fb:
		return dg, dg + db, fg, fb, fr
	default:
		return db, dg + db, fb, fg, fr
	}
}
