package patches

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFromYCbCr420Paths checks FromYCbCr420's 8-bit rows (on amd64 CPUs
// with AVX: the kernel that doubles the chroma as it converts, 8 pixels at
// a time from the third, the Go loop for the rest) against FromYCbCr of
// the chroma doubled by Double, with the kernels off, to the last bit: for
// every width from 1 to 41 (none to 4 kernel groups, tails of 0 to 7
// pixels, odd widths whose last pixel pair is half outside), 1 to 3 rows,
// samples from -70 to 330 with NaN and infinities among them.
func TestFromYCbCr420Paths(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 42))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 255, 254.5, 127.5, -0.5}
	defer func(a bool) { hasAVX = a }(hasAVX)
	for w := 1; w <= 41; w++ {
		for h := 1; h <= 3; h++ {
			y := NewPlane(w, h)
			cb, cr := NewPlane((w+1)/2, (h+1)/2), NewPlane((w+1)/2, (h+1)/2)
			for _, p := range []Plane{y, cb, cr} {
				for i := range p.Pix {
					p.Pix[i] = 400*rng.Float64() - 70
					if rng.IntN(30) == 0 {
						p.Pix[i] = special[rng.IntN(len(special))]
					}
				}
			}
			fast := hasAVX
			hasAVX = false
			want := FromYCbCr([3]Plane{y, Double(cb, w, h), Double(cr, w, h)}, false).(*image.RGBA).Pix
			slow := FromYCbCr420(y, cb, cr, false).(*image.RGBA).Pix
			hasAVX = fast
			got := FromYCbCr420(y, cb, cr, false).(*image.RGBA).Pix
			if !bytes.Equal(slow, want) {
				t.Fatalf("%d×%d: FromYCbCr420's Go rows differ from FromYCbCr of the doubled chroma", w, h)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%d×%d: pixel (%d, %d) channel %d: %d, want %d", w, h, i/4%w, i/4/w, i%4, got[i], want[i])
				}
			}
		}
	}
}
