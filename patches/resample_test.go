package patches

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// TestHalveDouble checks the 4:2:0 resampling: Halve takes block means
// (odd edges included), Double keeps constants, reproduces a linear ramp
// away from the edges, and the round trip of a smooth plane stays close.
func TestHalveDouble(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range [][2]int{{1, 1}, {2, 2}, {5, 3}, {8, 7}, {33, 20}} {
		w, h := size[0], size[1]
		p := NewPlane(w, h)
		for i := range p.Pix {
			p.Pix[i] = 255 * rng.Float64()
		}
		q := Halve(p)
		if q.W != (w+1)/2 || q.H != (h+1)/2 {
			t.Fatalf("%d×%d halves to %d×%d", w, h, q.W, q.H)
		}
		for y := 0; y < q.H; y++ {
			for x := 0; x < q.W; x++ {
				s, n := 0.0, 0
				for dy := 0; dy < 2; dy++ {
					for dx := 0; dx < 2; dx++ {
						if 2*x+dx < w && 2*y+dy < h {
							s += p.At(2*x+dx, 2*y+dy)
							n++
						}
					}
				}
				if math.Abs(q.At(x, y)-s/float64(n)) > 1e-12 {
					t.Fatalf("%d×%d: sample (%d, %d) = %v, block mean %v", w, h, x, y, q.At(x, y), s/float64(n))
				}
			}
		}
		c := NewPlane(q.W, q.H)
		for i := range c.Pix {
			c.Pix[i] = 77.25
		}
		for _, v := range Double(c, w, h).Pix {
			if v != 77.25 {
				t.Fatalf("%d×%d: a constant doubles to %v", w, h, v)
			}
		}
	}
	// A ramp sampled at the half-resolution centres (2x+1/2) doubles to
	// the ramp at the full-resolution ones, away from the edges.
	const w, h = 40, 30
	ramp := func(x, y float64) float64 { return 3*x - 2*y + 50 }
	q := NewPlane(w/2, h/2)
	for y := 0; y < q.H; y++ {
		for x := 0; x < q.W; x++ {
			q.Set(x, y, ramp(2*float64(x)+0.5, 2*float64(y)+0.5))
		}
	}
	d := Double(q, w, h)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			if math.Abs(d.At(x, y)-ramp(float64(x), float64(y))) > 1e-9 {
				t.Fatalf("ramp at (%d, %d): %v, want %v", x, y, d.At(x, y), ramp(float64(x), float64(y)))
			}
		}
	}
	// Halving the full-resolution ramp gives the same samples.
	full := NewPlane(w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			full.Set(x, y, ramp(float64(x), float64(y)))
		}
	}
	for i, v := range Halve(full).Pix {
		if math.Abs(v-q.Pix[i]) > 1e-9 {
			t.Fatalf("halved ramp sample %d: %v, want %v", i, v, q.Pix[i])
		}
	}
}

// TestFromYCbCr420 checks that converting with half-resolution chroma is
// FromYCbCr of the doubled chroma to the last bit, at 8 and 16 bits.
func TestFromYCbCr420(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range [][2]int{{1, 1}, {6, 4}, {31, 17}} {
		w, h := size[0], size[1]
		y := NewPlane(w, h)
		cb, cr := NewPlane((w+1)/2, (h+1)/2), NewPlane((w+1)/2, (h+1)/2)
		for _, p := range []Plane{y, cb, cr} {
			for i := range p.Pix {
				p.Pix[i] = 300*rng.Float64() - 20
			}
		}
		for _, sixteen := range []bool{false, true} {
			want := FromYCbCr([3]Plane{y, Double(cb, w, h), Double(cr, w, h)}, sixteen)
			got := FromYCbCr420(y, cb, cr, sixteen)
			var a, b []uint8
			if sixteen {
				a, b = want.(*image.RGBA64).Pix, got.(*image.RGBA64).Pix
			} else {
				a, b = want.(*image.RGBA).Pix, got.(*image.RGBA).Pix
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%d×%d, 16-bit %v: FromYCbCr420 differs from FromYCbCr of the doubled chroma", w, h, sixteen)
			}
		}
	}
}

// TestYCbCr420To checks YCbCr420To against YCbCr and Halve bit for bit
// on RGBA, NRGBA, 16-bit and grey images of odd and even sizes, with
// fresh planes and with buffers to reuse (larger, smaller, dirty).
func TestYCbCr420To(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 20))
	dirty := [3][]float64{make([]float64, 40*30), make([]float64, 3), make([]float64, 20*15)}
	for i := range dirty[0] {
		dirty[0][i] = -1
	}
	for _, size := range [][2]int{{1, 1}, {2, 1}, {1, 3}, {6, 4}, {7, 5}, {31, 17}} {
		w, h := size[0], size[1]
		r := image.Rect(3, 2, 3+w, 2+h) // not at the origin
		rgba, nrgba, rgba64, gray := image.NewRGBA(r), image.NewNRGBA(r), image.NewRGBA64(r), image.NewGray(r)
		for i := range rgba.Pix {
			rgba.Pix[i] = uint8(rng.IntN(256))
			if i%4 == 3 {
				rgba.Pix[i] = 255
			}
		}
		copy(nrgba.Pix, rgba.Pix)
		for i := range rgba64.Pix {
			rgba64.Pix[i] = uint8(rng.IntN(256))
			if i%8 >= 6 {
				rgba64.Pix[i] = 255
			}
		}
		for i := range gray.Pix {
			gray.Pix[i] = uint8(rng.IntN(256))
		}
		for _, img := range []image.Image{rgba, nrgba, rgba64, gray} {
			ycc := YCbCr(img)
			want := [3]Plane{ycc[0], Halve(ycc[1]), Halve(ycc[2])}
			for _, bufs := range [][3][]float64{{}, dirty} {
				got := YCbCr420To(bufs, img)
				for c := range got {
					if got[c].W != want[c].W || got[c].H != want[c].H || len(got[c].Pix) != len(want[c].Pix) {
						t.Fatalf("%T %d×%d plane %d: %d×%d, want %d×%d", img, w, h, c, got[c].W, got[c].H, want[c].W, want[c].H)
					}
					for i, v := range got[c].Pix {
						if math.Float64bits(v) != math.Float64bits(want[c].Pix[i]) {
							t.Fatalf("%T %d×%d plane %d sample %d: %v, want %v", img, w, h, c, i, v, want[c].Pix[i])
						}
					}
				}
			}
		}
	}
}

// TestDoubledRow checks doubledRow, which computes samples in pairs,
// against the bilinear definition per sample (halfNeighbours), bit for
// bit, on odd and even sizes.
func TestDoubledRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 21))
	for _, size := range [][2]int{{1, 1}, {2, 2}, {3, 1}, {5, 4}, {8, 7}, {33, 20}} {
		w, h := size[0], size[1]
		p := NewPlane((w+1)/2, (h+1)/2)
		for i := range p.Pix {
			p.Pix[i] = 300*rng.Float64() - 20
		}
		got := make([]float64, w)
		for y := range h {
			doubledRow(got, p, y)
			ya, yb := halfNeighbours(y, p.H)
			for x := range w {
				xa, xb := halfNeighbours(x, p.W)
				ra, rb := p.Pix[ya*p.W:], p.Pix[yb*p.W:]
				want := (float64(9*ra[xa]) + float64(3*ra[xb]) + float64(3*rb[xa]) + rb[xb]) / 16
				if math.Float64bits(got[x]) != math.Float64bits(want) {
					t.Fatalf("%d×%d row %d sample %d: %v, want %v", w, h, y, x, got[x], want)
				}
			}
		}
	}
}
