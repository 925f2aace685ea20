package codec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
)

// TestSearchDeblockAtRandom checks the deblocking search (searchDeblockAt,
// with its kernels: the kmin rows and columns, edgeRunAVX2's rows and
// its columns of one or several states) against the reference written
// before them (searchDeblockAtRef), kernels on and off, bit for bit, on
// random planes of any size up to 90×60: smooth, blocks saturated at 0
// and 255 (moves that clip), integer blocks, 16-bit-like values and noise;
// steps from 1 to 600 with deblockParams's thresholds, or linear ones
// that clip (half the planes). 3,000 planes by default (~1 s), 60,000 with SPCA_LONG=1.
func TestSearchDeblockAtRandom(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	planes := 3000
	if os.Getenv("SPCA_LONG") != "" {
		planes = 60000
	}
	rng := rand.New(rand.NewPCG(23, 15))
	bits := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	moved := 0
	for it := range planes {
		n := []int{4, 5, 8}[rng.IntN(3)]
		w, h := 1+rng.IntN(90), 1+rng.IntN(60)
		kind := rng.IntN(5)
		rec := patches.NewPlane(w, h)
		for i := range rec.Pix {
			x, y := i%w, i/w
			var v float64
			switch kind {
			case 0: // smooth, with a step at each block
				v = 128 + 90*math.Sin(float64(x)/7)*math.Cos(float64(y)/5) + float64((x/n*7+y/n*13)%11)*5
			case 1: // blocks saturated at either end
				v = rng.Float64() * 4
				if (x/n+y/n)%2 == 0 {
					v = 255 - v
				}
			case 2: // integer blocks
				v = math.Round(float64((x/n*37+y/n*91)%256) + rng.NormFloat64()*2)
			case 3: // a 16-bit image's values
				v = math.Round((128+60*math.Sin(float64(x+y)/3)+float64((x/n*7+y/n*13)%11)*3)*257) / 257
			default:
				v = rng.Float64() * 255
			}
			rec.Pix[i] = v
		}
		orig := rec.Clone()
		for i := range orig.Pix {
			orig.Pix[i] += rng.NormFloat64() * float64(1+rng.IntN(8))
		}
		step := math.Exp(rng.Float64() * math.Log(600))
		what := fmt.Sprintf("plane %d: %d×%d, n %d, kind %d, step %v", it, w, h, n, kind, step)
		params := func(k int) (alpha, beta, tc float64) { return deblockParams(k, step, n) }
		if rng.IntN(2) == 0 {
			a, b, c := 2+8*rng.Float64(), 1+4*rng.Float64(), rng.Float64()
			what = fmt.Sprintf("plane %d: %d×%d, n %d, kind %d, thresholds %vk %vk %vk", it, w, h, n, kind, a, b, c)
			params = func(k int) (alpha, beta, tc float64) { kf := float64(k); return a * kf, b * kf, c * kf }
		}
		want := searchDeblockAtRef(orig, rec, n, params)
		for _, on := range []bool{kernel, false} {
			hasAVX2 = on
			got := searchDeblockAt(orig, rec, n, params, 1)
			if !bits(got.errs, want.errs) || !bits(got.bound, want.bound) || !slices.Equal(got.same, want.same) {
				t.Fatalf("%s, kernels %v: errors %v bounds %v same %v, the reference gives %v %v %v",
					what, on, got.errs, got.bound, got.same, want.errs, want.bound, want.same)
			}
		}
		if !want.same[maxDeblock] {
			moved++
		}
	}
	if moved < planes/4 {
		t.Fatalf("the deblocking moved samples in only %d of %d planes", moved, planes)
	}
}
