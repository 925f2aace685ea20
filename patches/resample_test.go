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
