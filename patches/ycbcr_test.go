package patches

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRGBARowFast checks the row conversion of FromYCbCr's 8-bit images
// (the AVX kernel on amd64 CPUs that have it, 4 pixels at a time, and the
// Go loop for the rest) against rgbaRow pixel by pixel, to the last bit:
// rows of every length 0 to 19, random samples well outside 0..255, NaN
// and infinities, and grey samples (Cb = Cr = 128, so R' = B' = Y') at,
// just below and just above every half-integer, where the rounding ties.
func TestRGBARowFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 16))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 255, 254.5, 1e300, -1e300, math.SmallestNonzeroFloat64}
	var ys, cbs, crs []float64
	for k := 0; k <= 256; k++ {
		for _, v := range []float64{float64(k), float64(k) + 0.5} {
			for _, w := range []float64{math.Nextafter(v, math.Inf(-1)), v, math.Nextafter(v, math.Inf(1))} {
				ys, cbs, crs = append(ys, w), append(cbs, chromaZero), append(crs, chromaZero)
			}
		}
	}
	for range 4000 {
		pick := func() float64 {
			if rng.IntN(20) == 0 {
				return special[rng.IntN(len(special))]
			}
			return 400*rng.Float64() - 70
		}
		ys, cbs, crs = append(ys, pick()), append(cbs, pick()), append(crs, pick())
	}
	for n := 0; n <= 19; n++ {
		for start := 0; start+n <= len(ys); start += 1 + n + rng.IntN(7) {
			y, cb, cr := ys[start:start+n], cbs[start:start+n], crs[start:start+n]
			want, got := make([]uint8, 4*n), make([]uint8, 4*n)
			rgbaRow(want, y, cb, cr)
			rgbaRowFast(got, y, cb, cr)
			if !bytes.Equal(got, want) {
				for x := range n {
					if !bytes.Equal(got[4*x:4*x+4], want[4*x:4*x+4]) {
						t.Fatalf("Y'CbCr (%v, %v, %v): RGBA %v, want %v", y[x], cb[x], cr[x], got[4*x:4*x+4], want[4*x:4*x+4])
					}
				}
			}
		}
	}
}

// TestYCbCr420ToRows checks YCbCr420To's rows of *image.RGBA (on amd64
// CPUs with AVX: the kernel, 4 opaque pixels at a time, the Go loop for
// the tail and from a group with a transparent pixel on) against YCbCr, which
// visits each pixel, and Halve, to the last bit: every width from 1 to 41,
// 1 to 4 rows, random colours, grey pixels (R = G = B: luma is R itself)
// and now and then a pixel with alpha below 0xff (non-premultiplied).
func TestYCbCr420ToRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 43))
	for w := 1; w <= 41; w++ {
		for h := 1; h <= 4; h++ {
			m := image.NewRGBA(image.Rect(2, 1, 2+w, 1+h))
			for i := 0; i < len(m.Pix); i += 4 {
				px := m.Pix[i : i+4]
				px[0], px[1], px[2], px[3] = uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 0xff
				switch rng.IntN(8) {
				case 0:
					px[1], px[2] = px[0], px[0]
				case 1:
					if rng.IntN(10) == 0 {
						px[3] = uint8(rng.IntN(255))
						px[0], px[1], px[2] = min(px[0], px[3]), min(px[1], px[3]), min(px[2], px[3])
					}
				}
			}
			ycc := YCbCr(m)
			want := [3]Plane{ycc[0], Halve(ycc[1]), Halve(ycc[2])}
			got := YCbCr420To([3][]float64{}, m)
			for c := range got {
				for i, v := range got[c].Pix {
					if math.Float64bits(v) != math.Float64bits(want[c].Pix[i]) {
						t.Fatalf("%d×%d plane %d sample %d: %v, want %v", w, h, c, i, v, want[c].Pix[i])
					}
				}
			}
		}
	}
}

// BenchmarkFromYCbCr420 converts a 768×512 image's decoded planes (4:2:0)
// to 8-bit RGBA, as a colour decode ends.
func BenchmarkFromYCbCr420(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	y, cb, cr := NewPlane(768, 512), NewPlane(384, 256), NewPlane(384, 256)
	for _, p := range []Plane{y, cb, cr} {
		for i := range p.Pix {
			p.Pix[i] = 40 + 180*rng.Float64()
		}
	}
	for range b.N {
		if _, ok := FromYCbCr420(y, cb, cr, false).(*image.RGBA); !ok {
			b.Fatal("not RGBA")
		}
	}
}

// TestFromYCbCr420Into checks that FromYCbCr420Into sets every pixel of
// a whole image (at the origin, contiguous rows, its Pix exactly its
// pixels) with room for the planes' size (the same size, a larger one,
// the size turned by a quarter), holding other pixels, to FromYCbCr420's,
// in FromYCbCr420's layout on that buffer, and leaves alone an image too
// small, of a wider stride, with room only beyond its Pix's length, or a
// sub-image whose Pix runs on over its parent's other pixels.
func TestFromYCbCr420Into(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	const w, h = 37, 21
	y, cb, cr := NewPlane(w, h), NewPlane((w+1)/2, (h+1)/2), NewPlane((w+1)/2, (h+1)/2)
	for _, p := range []Plane{y, cb, cr} {
		for i := range p.Pix {
			p.Pix[i] = 300*rng.Float64() - 20
		}
	}
	want := FromYCbCr420(y, cb, cr, false).(*image.RGBA)
	// The top rows of a taller image: its Pix runs on over the parent's
	// other rows, which the decode must not write.
	parent := image.NewRGBA(image.Rect(0, 0, w, 2*h))
	top := parent.SubImage(image.Rect(0, 0, w, h/2)).(*image.RGBA)
	for _, c := range []struct {
		into *image.RGBA
		use  bool
	}{
		{image.NewRGBA(image.Rect(0, 0, w, h)), true},
		{image.NewRGBA(image.Rect(0, 0, w, h+1)), true},
		{image.NewRGBA(image.Rect(0, 0, h, w)), true},
		{image.NewRGBA(image.Rect(0, 0, w, h-1)), false},
		{&image.RGBA{Pix: make([]uint8, 4*(w+1)*h), Stride: 4 * (w + 1), Rect: image.Rect(0, 0, w, h)}, false},
		{&image.RGBA{Pix: make([]uint8, 4*w*(h-1), 4*w*h), Stride: 4 * w, Rect: image.Rect(0, 0, w, h-1)}, false},
		{top, false},
	} {
		into := c.into
		for i := range into.Pix {
			into.Pix[i] = uint8(rng.Uint32())
		}
		before := bytes.Clone(into.Pix)
		rect, stride := into.Rect, into.Stride
		got := FromYCbCr420Into(into, y, cb, cr)
		if used := got == into && &got.Pix[0] == &into.Pix[0]; used != c.use || !c.use && (!bytes.Equal(into.Pix, before) || into.Rect != rect || into.Stride != stride) {
			t.Errorf("into a %v image of stride %d and %d bytes: used %v, want %v", rect, stride, len(before), used, c.use)
		}
		if !bytes.Equal(got.Pix, want.Pix) || got.Rect != want.Rect || got.Stride != want.Stride {
			t.Errorf("into a %v image of stride %d: pixels or layout differ from FromYCbCr420's", rect, stride)
		}
	}
}
