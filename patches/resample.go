package patches

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
	if p.W != (w+1)/2 || p.H != (h+1)/2 {
		panic("patches: Double of a plane not half the size")
	}
	q := NewPlane(w, h)
	// Sample x of q sits at x/2 - 1/4 in p's coordinates: between
	// samples x/2 and its neighbour towards x's side, at distances 1/4
	// and 3/4.
	near := func(x, n int) (a, b int) {
		a = x / 2
		b = a - 1
		if x%2 == 1 {
			b = a + 1
		}
		return a, min(max(b, 0), n-1)
	}
	for y := 0; y < h; y++ {
		ya, yb := near(y, p.H)
		ra, rb := p.Pix[ya*p.W:(ya+1)*p.W], p.Pix[yb*p.W:(yb+1)*p.W]
		for x := 0; x < w; x++ {
			xa, xb := near(x, p.W)
			q.Pix[y*w+x] = (9*ra[xa] + 3*ra[xb] + 3*rb[xa] + rb[xb]) / 16
		}
	}
	return q
}
