package adapt

import (
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// streamSample is combined with the seed of the pixel subsample.
const streamSample = 0x4144_4150_0001

// ErrNoPixels is returned, wrapped, when a set of images holds no usable
// pixel (no image, empty images, or only fully transparent pixels).
var ErrNoPixels = errors.New("adapt: no pixels")

// SampleLMS draws up to n pixels uniformly at random, without
// replacement, from all the pixels of imgs (every pixel equally likely,
// so the sample follows the colour distribution of the set, shadows
// included) and returns their LMS colours as the rows of an n×3 matrix.
// Fully transparent pixels are skipped, and the colour of the others is
// taken un-premultiplied. If the images hold n pixels or fewer, all are
// used. Equal arguments give equal samples.
func SampleLMS(imgs []image.Image, n int, seed uint64) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("adapt: sample size %d: must be positive", n)
	}
	// Cumulative pixel counts.
	cum := make([]int64, len(imgs)+1)
	for i, img := range imgs {
		b := img.Bounds()
		cum[i+1] = cum[i] + int64(b.Dx())*int64(b.Dy())
	}
	total := cum[len(imgs)]
	if total == 0 {
		return nil, fmt.Errorf("%w: %d images, all empty", ErrNoPixels, len(imgs))
	}
	var idx []int64
	if total <= int64(n) {
		idx = make([]int64, total)
		for i := range idx {
			idx[i] = int64(i)
		}
	} else {
		// Floyd's algorithm: n distinct indices.
		rng := rand.New(rand.NewPCG(seed, streamSample))
		seen := make(map[int64]struct{}, n)
		for j := total - int64(n); j < total; j++ {
			t := rng.Int64N(j + 1)
			if _, ok := seen[t]; ok {
				t = j
			}
			seen[t] = struct{}{}
			idx = append(idx, t)
		}
		slices.Sort(idx)
	}
	out := make([]float64, 0, 3*len(idx))
	im := 0
	for _, k := range idx {
		for cum[im+1] <= k {
			im++
		}
		img := imgs[im]
		b := img.Bounds()
		off := k - cum[im]
		x := b.Min.X + int(off%int64(b.Dx()))
		y := b.Min.Y + int(off/int64(b.Dx()))
		l, a := pixelLinear(img, x, y)
		if a == 0 {
			continue
		}
		c := linearToLMS(l)
		out = append(out, c[0], c[1], c[2])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: every sampled pixel is fully transparent", ErrNoPixels)
	}
	return mat.NewDense(len(out)/3, 3, out), nil
}

// subsample returns k sorted distinct indices in [0, n), seeded.
func subsample(n, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, streamSample+1))
	p := rng.Perm(n)[:k]
	slices.Sort(p)
	return p
}
