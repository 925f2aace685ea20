package patches

import "fmt"

// Halve returns p at half resolution in both directions, each sample the
// mean of a 2×2 block ((w+1)/2 × (h+1)/2 samples; a block cut by an odd
// edge averages the samples it has). It is the chroma subsampling of
// JPEG's 4:2:0, with samples centred between the full-resolution ones.
func Halve(p Plane) Plane {
	w, h := (p.W+1)/2, (p.H+1)/2
	q := NewPlane(w, h)
	for y := 0; y < h; y++ {
		y0, y1 := 2*y, min(2*y+1, p.H-1)
		for x := 0; x < w; x++ {
			x0, x1 := 2*x, min(2*x+1, p.W-1)
			s := p.Pix[y0*p.W+x0] + p.Pix[y0*p.W+x1] + p.Pix[y1*p.W+x0] + p.Pix[y1*p.W+x1]
			// An odd edge repeats its samples, which keeps the mean of
			// the ones there.
			q.Pix[y*w+x] = s / 4
		}
	}
	return q
}

// Double returns the w×h plane interpolated from p, a plane at half its
// resolution as Halve makes it: each sample is the bilinear interpolation
// of p's four nearest samples, at weights 9/16, 3/16, 3/16, 1/16 (JPEG
// decoders' "fancy" upsampling), and the edges repeat p's outer samples.
// It panics unless p is (w+1)/2 × (h+1)/2.
func Double(p Plane, w, h int) Plane {
	checkHalf("Double", p, w, h)
	q := NewPlane(w, h)
	for y := 0; y < h; y++ {
		doubledRow(q.Pix[y*w:(y+1)*w], p, y)
	}
	return q
}

func checkHalf(what string, p Plane, w, h int) {
	if p.W != (w+1)/2 || p.H != (h+1)/2 {
		panic(fmt.Sprintf("patches: %s: a %d×%d plane is not half of %d×%d", what, p.W, p.H, w, h))
	}
}

// doubledRow writes row y of Double(p, len(dst), ...) into dst.
func doubledRow(dst []float64, p Plane, y int) {
	ya, yb := halfNeighbours(y, p.H)
	ra, rb := p.Pix[ya*p.W:(ya+1)*p.W], p.Pix[yb*p.W:(yb+1)*p.W]
	// Samples 2a and 2a+1 share their nearer neighbour a (halfNeighbours);
	// the farther is a-1 and a+1, clamped. The same sums in the same order
	// as per sample (rounded products: no FMA, same pixels on every
	// GOARCH), the nearer products once.
	for a := 0; 2*a < len(dst); a++ {
		var pair [2]float64
		doubledPair(&pair, ra, rb, a)
		dst[2*a] = pair[0]
		if 2*a+1 < len(dst) {
			dst[2*a+1] = pair[1]
		}
	}
}

// doubledPair sets pair to the doubled samples 2a and 2a+1 of the
// half-resolution rows ra (the nearer) and rb.
func doubledPair(pair *[2]float64, ra, rb []float64, a int) {
	ra9, rb3 := float64(9*ra[a]), float64(3*rb[a])
	b := max(a-1, 0)
	pair[0] = (ra9 + float64(3*ra[b]) + rb3 + rb[b]) / 16
	b = min(a+1, len(ra)-1)
	pair[1] = (ra9 + float64(3*ra[b]) + rb3 + rb[b]) / 16
}

// halfNeighbours returns the two samples of a half-resolution axis of n
// samples around full-resolution sample x, the nearer first: x sits at
// x/2 - 1/4 in half-resolution coordinates, 1/4 from sample x/2 and 3/4
// from its neighbour on x's side (clamped at the edges).
func halfNeighbours(x, n int) (a, b int) {
	a = x / 2
	b = a - 1
	if x%2 == 1 {
		b = a + 1
	}
	return a, min(max(b, 0), n-1)
}
