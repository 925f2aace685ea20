package patches

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/spcalab/spca/internal/parallel"
	"github.com/spcalab/spca/internal/rgbrows"
)

// Plane is one channel of an image as float64 samples in row-major order:
// the sample at column x and row y is Pix[y*W+x].
//
// Samples are on the 0..255 scale whatever the bit depth of the source: an
// 8-bit value v is v and a 16-bit value v is v/257, so that 0 and 65535 map
// to 0 and 255 and errors measured on planes (RMSE, PSNR) are in the usual
// 8-bit units. Values outside 0..255 are allowed (chroma of saturated
// colours after a transform, reconstructions); FromPlane and FromYCbCr clamp
// them when they build an image.
type Plane struct {
	W, H int
	Pix  []float64
}

// NewPlane returns a zero plane of w×h samples. It panics if w or h is
// negative.
func NewPlane(w, h int) Plane {
	if w < 0 || h < 0 {
		panic(fmt.Sprintf("patches: negative plane size %d×%d", w, h))
	}
	return Plane{W: w, H: h, Pix: make([]float64, w*h)}
}

// At returns the sample at column x and row y.
func (p Plane) At(x, y int) float64 { return p.Pix[y*p.W+x] }

// Set sets the sample at column x and row y.
func (p Plane) Set(x, y int, v float64) { p.Pix[y*p.W+x] = v }

// Clone returns a copy of p that shares no memory with it.
func (p Plane) Clone() Plane {
	return Plane{W: p.W, H: p.H, Pix: append([]float64(nil), p.Pix...)}
}

// The luma weights of ITU-R BT.601, used by JPEG (JFIF) on gamma-encoded
// R'G'B'.
const (
	kr = 0.299
	kg = 0.587
	kb = 0.114
	// The chroma scales 2(1-kb) and 2(1-kr): Cb = (B'-Y')/cbScale + 128,
	// Cr = (R'-Y')/crScale + 128, which are JFIF's
	// Cb = 128 - 0.168736 R' - 0.331264 G' + 0.5 B' and
	// Cr = 128 + 0.5 R' - 0.418688 G' - 0.081312 B' written so that the
	// inverse below is exact.
	cbScale = 2 * (1 - kb) // 1.772
	crScale = 2 * (1 - kr) // 1.402
	// chromaZero is the chroma value of grey.
	chromaZero = 128
)

// luma returns Y' of a gamma-encoded colour. Grey (r == g == b) gives its
// value exactly.
func luma(r, g, b float64) float64 {
	if r == g && g == b {
		return r
	}
	return float64(kr*r) + float64(kg*g) + float64(kb*b) // rounded products: no FMA (same on every GOARCH)
}

// visitRGB calls f with the index in raster order and the gamma-encoded
// R'G'B' of every pixel of img on the 0..255 scale. Alpha is ignored:
// the non-premultiplied colour is used.
func visitRGB(img image.Image, f func(i int, r, g, b float64)) {
	bd := img.Bounds()
	w := bd.Dx()
	switch m := img.(type) {
	case *image.RGBA:
		for y := range bd.Dy() {
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):]
			for x := range w {
				px := row[4*x : 4*x+4]
				if a := px[3]; a == 0xff {
					f(y*w+x, float64(px[0]), float64(px[1]), float64(px[2]))
				} else {
					c := color.NRGBAModel.Convert(color.RGBA{px[0], px[1], px[2], a}).(color.NRGBA)
					f(y*w+x, float64(c.R), float64(c.G), float64(c.B))
				}
			}
		}
	case *image.NRGBA:
		for y := range bd.Dy() {
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):]
			for x := range w {
				px := row[4*x : 4*x+3]
				f(y*w+x, float64(px[0]), float64(px[1]), float64(px[2]))
			}
		}
	case *rgbrows.Image:
		for y := range bd.Dy() {
			row := m.Row(y)
			for x := range w {
				px := row[3*x : 3*x+3]
				f(y*w+x, float64(px[0]), float64(px[1]), float64(px[2]))
			}
		}
	case *image.NRGBA64:
		for y := range bd.Dy() {
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):]
			for x := range w {
				px := row[8*x : 8*x+6]
				f(y*w+x, from16(px[0], px[1]), from16(px[2], px[3]), from16(px[4], px[5]))
			}
		}
	default:
		for y := range bd.Dy() {
			for x := range w {
				c := color.NRGBA64Model.Convert(img.At(bd.Min.X+x, bd.Min.Y+y)).(color.NRGBA64)
				f(y*w+x, float64(c.R)/257, float64(c.G)/257, float64(c.B)/257)
			}
		}
	}
}

// from16 converts a big-endian 16-bit sample to the 0..255 scale.
func from16(hi, lo uint8) float64 { return float64(uint16(hi)<<8|uint16(lo)) / 257 }

// grey returns the plane of a grey image and true, or false if img is not
// one of the grey image types.
func grey(img image.Image) (Plane, bool) { return greyTo(nil, img) }

// greyTo is grey with the samples in buf where its capacity holds them
// (every sample is written).
func greyTo(buf []float64, img image.Image) (Plane, bool) {
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	newPlane := func() Plane {
		if cap(buf) >= w*h {
			return Plane{W: w, H: h, Pix: buf[:w*h]}
		}
		return NewPlane(w, h)
	}
	switch m := img.(type) {
	case *image.Gray:
		p := newPlane()
		for y := range h {
			dst := p.Pix[y*w:][:w]
			for x, v := range m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):][:len(dst)] {
				dst[x] = float64(v)
			}
		}
		return p, true
	case *image.Gray16:
		p := newPlane()
		for y := range h {
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):]
			for x := range w {
				p.Pix[y*w+x] = from16(row[2*x], row[2*x+1])
			}
		}
		return p, true
	}
	return Plane{}, false
}

// storedYCbCr returns the Y'CbCr planes stored in a JPEG-decoded image,
// replicating subsampled chroma to full size.
func storedYCbCr(m *image.YCbCr) [3]Plane {
	bd := m.Bounds()
	w, h := bd.Dx(), bd.Dy()
	ps := [3]Plane{NewPlane(w, h), NewPlane(w, h), NewPlane(w, h)}
	for y := range h {
		for x := range w {
			i := y*w + x
			yi := m.YOffset(bd.Min.X+x, bd.Min.Y+y)
			ci := m.COffset(bd.Min.X+x, bd.Min.Y+y)
			ps[0].Pix[i] = float64(m.Y[yi])
			ps[1].Pix[i] = float64(m.Cb[ci])
			ps[2].Pix[i] = float64(m.Cr[ci])
		}
	}
	return ps
}

// Luminance returns the grey-level plane of img on the 0..255 scale.
//
// For grey images (*image.Gray, *image.Gray16) it is the grey value. For a
// *image.YCbCr (a decoded JPEG) it is the stored Y' plane. For other colour
// images it is the BT.601 luma Y' = 0.299 R' + 0.587 G' + 0.114 B'
// computed on the gamma-encoded values, as JPEG does; pixels with
// R' = G' = B' give that value exactly. It is not the CIE luminance of
// linear light. Alpha is ignored.
func Luminance(img image.Image) Plane { return LuminanceTo(nil, img) }

// LuminanceTo is Luminance with the samples in buf where its capacity
// holds them, so that an encoder of many images can reuse one plane (3 MB
// for 768×512; a grey model's batch of colour PNGs took a new plane, fresh
// memory, for each image); a *image.YCbCr gets a new plane.
func LuminanceTo(buf []float64, img image.Image) Plane {
	if p, ok := greyTo(buf, img); ok {
		return p
	}
	if m, ok := img.(*image.YCbCr); ok {
		return storedYCbCr(m)[0]
	}
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	p := Plane{W: w, H: h, Pix: buf[:0]}
	if cap(buf) >= w*h {
		p.Pix = buf[:w*h]
	} else {
		p = NewPlane(w, h)
	}
	if m, ok := img.(*image.RGBA); ok {
		// visitRGB's opaque pixels without its call of f a pixel.
		for y := range h {
			dst := p.Pix[y*w:][:w]
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):][:4*w]
			for x := range dst {
				px := row[4*x : 4*x+4]
				if px[3] != 0xff {
					c := color.NRGBAModel.Convert(color.RGBA{px[0], px[1], px[2], px[3]}).(color.NRGBA)
					dst[x] = luma(float64(c.R), float64(c.G), float64(c.B))
					continue
				}
				dst[x] = luma(float64(px[0]), float64(px[1]), float64(px[2]))
			}
		}
		return p
	}
	if m, ok := img.(*rgbrows.Image); ok {
		for y := range h {
			dst, row := p.Pix[y*w:][:w], m.Row(y)
			for x := range dst {
				px := row[3*x : 3*x+3]
				dst[x] = luma(float64(px[0]), float64(px[1]), float64(px[2]))
			}
		}
		return p
	}
	visitRGB(img, func(i int, r, g, b float64) { p.Pix[i] = luma(r, g, b) })
	return p
}

// YCbCr returns the Y', Cb and Cr planes of img on the 0..255 scale, the
// full-range BT.601 transform of JPEG (JFIF):
//
//	Y' = 0.299 R' + 0.587 G' + 0.114 B'
//	Cb = 128 + (B' - Y')/1.772
//	Cr = 128 + (R' - Y')/1.402
//
// on gamma-encoded R'G'B'. Grey images give Cb = Cr = 128; a *image.YCbCr
// gives its stored planes, chroma replicated to full size if subsampled.
// FromYCbCr inverts the transform exactly up to floating-point rounding.
func YCbCr(img image.Image) [3]Plane {
	if p, ok := grey(img); ok {
		cb, cr := NewPlane(p.W, p.H), NewPlane(p.W, p.H)
		for i := range cb.Pix {
			cb.Pix[i], cr.Pix[i] = chromaZero, chromaZero
		}
		return [3]Plane{p, cb, cr}
	}
	if m, ok := img.(*image.YCbCr); ok {
		return storedYCbCr(m)
	}
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	ps := [3]Plane{NewPlane(w, h), NewPlane(w, h), NewPlane(w, h)}
	visitRGB(img, func(i int, r, g, b float64) {
		y := luma(r, g, b)
		ps[0].Pix[i] = y
		ps[1].Pix[i] = chromaZero + (b-y)/cbScale
		ps[2].Pix[i] = chromaZero + (r-y)/crScale
	})
	return ps
}

// YCbCr420To returns the Y' plane of img and its Cb and Cr planes
// halved, the values of YCbCr followed by Halve of its chroma to the last
// bit, without the full-size chroma planes (two planes of 8 bytes a pixel
// of fresh memory per image), each plane in the memory of the buffer of
// the same index where its capacity holds it (every sample is written).
func YCbCr420To(bufs [3][]float64, img image.Image) [3]Plane {
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	plane := func(buf []float64, w, h int) Plane {
		if cap(buf) >= w*h {
			return Plane{W: w, H: h, Pix: buf[:w*h]}
		}
		return NewPlane(w, h)
	}
	switch img.(type) {
	case *image.Gray, *image.Gray16, *image.YCbCr:
		ycc := YCbCr(img)
		return [3]Plane{ycc[0], Halve(ycc[1]), Halve(ycc[2])}
	}
	ps := [3]Plane{plane(bufs[0], w, h), plane(bufs[1], (w+1)/2, (h+1)/2), plane(bufs[2], (w+1)/2, (h+1)/2)}
	// Two full-size rows of each chroma plane, halved into the plane's
	// row when the second (or the image's last) is done.
	rows := make([]float64, 4*w)
	cbRows, crRows := rows[:2*w], rows[2*w:]
	halve := func(dst []float64, src []float64, y int) {
		r0, r1 := src[:w], src[w:2*w]
		if 2*y+1 > h-1 {
			r1 = r0
		}
		halveRows(dst, r0, r1)
	}
	hw := ps[1].W
	if m, ok := img.(*image.RGBA); ok {
		// By rows (the decoders' type for opaque colour): visitRGB's
		// call per pixel and the two divisions of each were 11 % of the
		// instructions of a colour encode.
		for y := range h {
			j := (y & 1) * w
			yccRowFast(ps[0].Pix[y*w:][:w], cbRows[j:j+w], crRows[j:j+w], m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):][:4*w])
			if y&1 == 1 || y == h-1 {
				halve(ps[1].Pix[y/2*hw:][:hw], cbRows, y/2)
				halve(ps[2].Pix[y/2*hw:][:hw], crRows, y/2)
			}
		}
		return ps
	}
	if m, ok := img.(*rgbrows.Image); ok {
		// The same by the file's rows (PackedRGB): each converted to
		// RGBA in a row of scratch first where no kernel reads RGB.
		var rgba []uint8
		for y := range h {
			j := (y & 1) * w
			rgba = yccRGBRow(ps[0].Pix[y*w:][:w], cbRows[j:j+w], crRows[j:j+w], m.Row(y), rgba)
			if y&1 == 1 || y == h-1 {
				halve(ps[1].Pix[y/2*hw:][:hw], cbRows, y/2)
				halve(ps[2].Pix[y/2*hw:][:hw], crRows, y/2)
			}
		}
		return ps
	}
	x, y := 0, 0
	visitRGB(img, func(i int, r, g, b float64) {
		yy := luma(r, g, b)
		ps[0].Pix[i] = yy
		j := (y&1)*w + x
		cbRows[j] = chromaZero + (b-yy)/cbScale
		crRows[j] = chromaZero + (r-yy)/crScale
		if x++; x == w {
			if y&1 == 1 || y == h-1 {
				halve(ps[1].Pix[y/2*hw:][:hw], cbRows, y/2)
				halve(ps[2].Pix[y/2*hw:][:hw], crRows, y/2)
			}
			x, y = 0, y+1
		}
	})
	return ps
}

// yccRow writes the Y', Cb and Cr of the RGBA pixels pix (4 bytes each,
// alpha ignored as visitRGB ignores it) to y, cb and cr, as YCbCr.
func yccRow(y, cb, cr []float64, pix []uint8) {
	for x := range y {
		px := pix[4*x : 4*x+4]
		c := color.NRGBA{px[0], px[1], px[2], px[3]}
		if px[3] != 0xff {
			c = color.NRGBAModel.Convert(color.RGBA{px[0], px[1], px[2], px[3]}).(color.NRGBA)
		}
		r, g, b := float64(c.R), float64(c.G), float64(c.B)
		yy := luma(r, g, b)
		y[x] = yy
		cb[x] = chromaZero + (b-yy)/cbScale
		cr[x] = chromaZero + (r-yy)/crScale
	}
}

// yccRGBRow is yccRowFast of the RGB pixels rgb (3 bytes each): by the
// RGB kernel where the CPU has it, the rest through rgba, scratch it
// returns (grown to 4 bytes a pixel where short), as RGBA.
func yccRGBRow(y, cb, cr []float64, rgb, rgba []uint8) []uint8 {
	n := yccRGBKernel(y, cb, cr, rgb)
	y, cb, cr, rgb = y[n:], cb[n:], cr[n:], rgb[3*n:]
	w := len(y)
	if cap(rgba) < 4*w {
		rgba = make([]uint8, 4*w)
	}
	px := rgba[:4*w]
	x := rgbrows.ToRGBA(px, rgb)
	for ; x < w; x++ {
		px[4*x], px[4*x+1], px[4*x+2], px[4*x+3] = rgb[3*x], rgb[3*x+1], rgb[3*x+2], 0xff
	}
	yccRowFast(y, cb, cr, px)
	return rgba
}

// toRGB inverts the Y'CbCr transform of YCbCr.
func toRGB(y, cb, cr float64) (r, g, b float64) {
	// Products rounded (float64(...)): no FMA, the same pixels on
	// every GOARCH.
	r = y + float64(crScale*(cr-chromaZero))
	b = y + float64(cbScale*(cb-chromaZero))
	g = (y - float64(kr*r) - float64(kb*b)) / kg
	return r, g, b
}

// Quantize8 rounds v on the 0..255 scale to 8 bits, clamping; NaN gives 0.
// It is the rounding of FromPlane and FromYCbCr.
func Quantize8(v float64) uint8 {
	switch {
	case v >= 255:
		return 255
	case v > 0:
		return uint8(roundPositive(v))
	}
	return 0
}

// roundPositive is math.Round for 0 < v < 2^52, without its bit
// manipulation and without a branch on the fraction, which is as often
// above a half as below (decoders round every pixel). The fraction
// v - trunc(v) is exact (Sterbenz), and so is the sign of fraction - 1/2.
func roundPositive(v float64) int {
	t := int(v)
	f := v - float64(t)
	return t + int(1^math.Float64bits(f-0.5)>>63)
}

// Quantize16 rounds v on the 0..255 scale to 16 bits, clamping; NaN gives
// 0. It is the rounding of FromPlane and FromYCbCr.
func Quantize16(v float64) uint16 {
	v = float64(v * 257) // rounded: fused into roundPositive's v - trunc(v) by FMA it could round the other way
	switch {
	case v >= 65535:
		return 65535
	case v > 0:
		return uint16(roundPositive(v))
	}
	return 0
}

func checkSame(what string, a, b Plane) {
	if a.W != b.W || a.H != b.H {
		panic(fmt.Sprintf("patches: %s: plane sizes differ: %d×%d and %d×%d", what, a.W, a.H, b.W, b.H))
	}
	checkPlane(what, a)
	checkPlane(what, b)
}

func checkPlane(what string, p Plane) {
	if p.W < 0 || p.H < 0 || len(p.Pix) != p.W*p.H {
		panic(fmt.Sprintf("patches: %s: malformed plane: %d×%d with %d samples", what, p.W, p.H, len(p.Pix)))
	}
}

// FromPlane returns p as a grey image: *image.Gray, or *image.Gray16 if
// sixteenBit, with bounds starting at (0, 0). Samples are rounded to the
// nearest level and clamped to 0..255 (NaN becomes 0).
func FromPlane(p Plane, sixteenBit bool) image.Image {
	checkPlane("FromPlane", p)
	r := image.Rect(0, 0, p.W, p.H)
	if sixteenBit {
		m := image.NewGray16(r)
		for i, v := range p.Pix {
			q := Quantize16(v)
			m.Pix[2*i], m.Pix[2*i+1] = uint8(q>>8), uint8(q)
		}
		return m
	}
	m := image.NewGray(r)
	for i, v := range p.Pix {
		m.Pix[i] = Quantize8(v)
	}
	return m
}

// FromYCbCr inverts YCbCr and returns an opaque colour image: *image.RGBA,
// or *image.RGBA64 if sixteenBit, with bounds starting at (0, 0). The
// R'G'B' values are rounded and clamped as in FromPlane. It panics if the
// three planes differ in size.
func FromYCbCr(ps [3]Plane, sixteenBit bool) image.Image {
	checkSame("FromYCbCr", ps[0], ps[1])
	checkSame("FromYCbCr", ps[0], ps[2])
	return fromYCbCr(ps[0], sixteenBit, false, func(y int, _ []float64) (cb, cr []float64) {
		w := ps[0].W
		return ps[1].Pix[y*w : (y+1)*w], ps[2].Pix[y*w : (y+1)*w]
	})
}

// FromYCbCr420 is FromYCbCr with the chroma planes at half resolution, as
// Halve makes them: the result is FromYCbCr of the luma and the doubled
// chroma (Double), to the last bit, without the full-size chroma planes.
// It panics unless cb and cr are half of y.
func FromYCbCr420(y, cb, cr Plane, sixteenBit bool) image.Image {
	checkPlane("FromYCbCr420", y)
	checkHalf("FromYCbCr420", cb, y.W, y.H)
	checkHalf("FromYCbCr420", cr, y.W, y.H)
	if !sixteenBit {
		return FromYCbCr420Into(nil, y, cb, cr)
	}
	return fromYCbCr(y, sixteenBit, true, func(row int, buf []float64) (cbRow, crRow []float64) {
		cbRow, crRow = buf[:y.W], buf[y.W:]
		doubledRow(cbRow, cb, row)
		doubledRow(crRow, cr, row)
		return cbRow, crRow
	})
}

// halveRows writes into dst ((len(r0)+1)/2 samples) the means of the
// 2×2 samples of the rows r0 and r1 (as long), the last column taken twice
// where their length is odd: Halve's sums, in its order, without its
// bound on each pair's second column in the loop (the halving was 2 % of
// the instructions of a colour encode), 4 means a step by AVX2 where the
// CPU has it (21 instructions a mean in Go).
func halveRows(dst, r0, r1 []float64) {
	w := len(r0)
	r1 = r1[:w]
	n := min(w/2, len(dst))
	for x := halveKernel(dst[:n], r0, r1); x < n; x++ {
		a, b := r0[2*x:2*x+2:2*x+2], r1[2*x:2*x+2:2*x+2]
		dst[x] = (a[0] + a[1] + b[0] + b[1]) / 4
	}
	if n < len(dst) && w > 0 { // odd length: the last column twice
		a, b := r0[w-1], r1[w-1]
		dst[n] = (a + a + b + b) / 4
	}
}

// FromYCbCr420Into is FromYCbCr420 of 8-bit pixels written into m and
// returned, if m is a whole image (at the origin, with contiguous rows,
// its Pix exactly its pixels, as NewRGBA makes it) with room for them:
// m is then made a y.W×y.H image at the origin with contiguous rows on
// that buffer, and every pixel is set; otherwise they go into a new
// image. Only m.Pix[:len] is written: a sub-image's Pix runs on over its
// parent's other pixels, so a sub-image is never whole unless it is all
// of its parent. A
// batch that hands each decoded image, once written out, to the next
// saves the fresh memory of an image per file (1.5 MB for 768×512:
// clearing its fresh pages was 5 % of the CPU of a colour batch decode),
// also when it turns from landscape to portrait (kodim17 and kodim20 of
// kodim13-24 took a new image each).
// wholeRGBA reports whether m's Pix holds exactly its pixels, at the
// origin, in contiguous rows.
func wholeRGBA(m *image.RGBA) bool {
	return m != nil && m.Rect.Min == (image.Point{}) && m.Stride == 4*m.Rect.Dx() && len(m.Pix) == m.Stride*m.Rect.Dy()
}

func FromYCbCr420Into(m *image.RGBA, y, cb, cr Plane) *image.RGBA {
	checkPlane("FromYCbCr420", y)
	checkHalf("FromYCbCr420", cb, y.W, y.H)
	checkHalf("FromYCbCr420", cr, y.W, y.H)
	w, hw := y.W, cb.W
	if !wholeRGBA(m) || len(m.Pix) < 4*w*y.H {
		m = image.NewRGBA(image.Rect(0, 0, y.W, y.H))
	} else {
		m.Pix, m.Stride, m.Rect = m.Pix[:4*w*y.H], 4*w, image.Rect(0, 0, y.W, y.H)
	}
	// The doubled chroma of each pixel pair as it is converted, without
	// rows of doubled chroma: doubling them was 8 % of a colour decode.
	parallel.For(y.H, func(row int) {
		a, b := halfNeighbours(row, cb.H)
		rgba420RowFast(m.Pix[4*row*w:4*(row+1)*w], y.Pix[row*w:(row+1)*w],
			cb.Pix[a*hw:(a+1)*hw], cb.Pix[b*hw:(b+1)*hw], cr.Pix[a*hw:(a+1)*hw], cr.Pix[b*hw:(b+1)*hw])
	})
	return m
}

// fromYCbCr converts the rows of luma yp and the chroma rows that chroma
// gives (in scratch of 2·width values of its own, if needScratch; nil
// otherwise) to an 8- or 16-bit RGB image, rows in parallel: this
// conversion was 9 % of the CPU of decoding a colour .spc file.
func fromYCbCr(yp Plane, sixteenBit, needScratch bool, chroma func(y int, scratch []float64) (cb, cr []float64)) image.Image {
	w, h := yp.W, yp.H
	rect := image.Rect(0, 0, w, h)
	scratch := sync.Pool{New: func() any { return make([]float64, 2*w) }}
	row := func(y int) (cb, cr []float64, done func()) {
		if !needScratch {
			cb, cr = chroma(y, nil)
			return cb, cr, func() {}
		}
		buf := scratch.Get().([]float64)
		cb, cr = chroma(y, buf)
		return cb, cr, func() { scratch.Put(buf) }
	}
	if sixteenBit {
		m := image.NewRGBA64(rect)
		parallel.For(h, func(y int) {
			cb, cr, done := row(y)
			defer done()
			for x, v := range yp.Pix[y*w : (y+1)*w] {
				r, g, b := toRGB(v, cb[x], cr[x])
				px := m.Pix[8*(y*w+x) : 8*(y*w+x)+8]
				for c, v := range [3]float64{r, g, b} {
					q := Quantize16(v)
					px[2*c], px[2*c+1] = uint8(q>>8), uint8(q)
				}
				px[6], px[7] = 0xff, 0xff
			}
		})
		return m
	}
	m := image.NewRGBA(rect)
	parallel.For(h, func(y int) {
		cb, cr, done := row(y)
		defer done()
		rgbaRowFast(m.Pix[4*y*w:4*(y+1)*w], yp.Pix[y*w:(y+1)*w], cb, cr)
	})
	return m
}

// rgba420Row writes the pixels 2a and 2a+1 (if within y) for a0 ≤ a < a1
// of rgbaRow of y and the chroma of the half-resolution rows cbA, cbB and
// crA, crB (the nearer first) doubled as doubledRow doubles them.
func rgba420Row(dst []uint8, y, cbA, cbB, crA, crB []float64, a0, a1 int) {
	var cb, cr [2]float64
	for a := a0; a < a1; a++ {
		doubledPair(&cb, cbA, cbB, a)
		doubledPair(&cr, crA, crB, a)
		n := min(2, len(y)-2*a)
		rgbaRow(dst[8*a:], y[2*a:2*a+n], cb[:n], cr[:n])
	}
}

// rgbaRow writes the opaque 8-bit RGBA pixels of the Y'CbCr samples y, cb,
// cr (toRGB, then Quantize8) to dst.
func rgbaRow(dst []uint8, y, cb, cr []float64) {
	for x, v := range y {
		r, g, b := toRGB(v, cb[x], cr[x])
		px := dst[4*x : 4*x+4]
		px[0], px[1], px[2], px[3] = Quantize8(r), Quantize8(g), Quantize8(b), 0xff
	}
}
