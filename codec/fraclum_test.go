package codec

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
)

// The encoder's paths for an 8-bit grey reconstruction of an original
// in fractions (a grey model coding a colour image codes its luminance):
// the deblocking search (deblockErrorsGray), the loop filter's fit
// (loopFitSums) and its gain (loopFilterGain). Their float64 sums round
// at every addition, so the tests compare them, bit for bit, against the
// straightforward sums in the same order.

// fracLuma returns a w×h reconstruction with n×n blocks (smooth, noisy
// and blocky by trial) and an original near it in fractions, as a
// colour image's luminance is (each sample 0.299 R + 0.587 G + 0.114 B
// of channels around the pixel).
func fracLuma(rng *rand.Rand, w, h, n, trial int) (orig patches.Plane, rec *image.Gray) {
	p := blockyPlane(rng, w, h, n, trial, trial%2 == 1)
	rec = image.NewGray(image.Rect(0, 0, w, h))
	orig = patches.NewPlane(w, h)
	ch := func(v float64) float64 { return math.Max(0, math.Min(255, math.Round(v+rng.NormFloat64()*4))) }
	for i, v := range p.Pix {
		rec.Pix[i] = uint8(math.Max(0, math.Min(255, math.Round(v))))
		o := v + rng.NormFloat64()*float64(1+trial)
		orig.Pix[i] = 0.299*ch(o) + 0.587*ch(o) + 0.114*ch(o)
	}
	return orig, rec
}

// sameBits reports whether a and b hold the same float64s to the bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// refDeblockErrorsFrac is deblockErrorsGray of a fractional original as
// it was written first: the unfiltered error summed pixel by pixel, then
// per strength a filtered copy and the change of every edge it sets
// (deblockErrorsCopies, which it still takes for patches under 4).
func refDeblockErrorsFrac(orig patches.Plane, rec *image.Gray, step float64, n int) []float64 {
	errs, done := newDeblockErrors(sseGrayFloat(rec.Pix, orig.Pix), step, n)
	if !done {
		deblockErrorsCopies(errs, orig.Pix, rec.Pix, rec.Rect.Dx(), rec.Rect.Dy(), n, step)
	}
	return errs
}

// TestDeblockErrorsFrac checks the deblocking search of fractional
// originals by edge (deblockErrorsFrac) against refDeblockErrorsFrac,
// bit for bit, on images of every size around the patch (no edge, one,
// bands cut by the bottom, 1×1 and single rows and columns), patches of
// 2 and 3 pixels (which it leaves to the copies) and of 4, 5, 7 and 8,
// at steps where few and where most edges pass; and that it runs where
// it should and the filter moves pixels.
func TestDeblockErrorsFrac(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 13))
	sc := new(deblockScratch)
	moved, byEdge := 0, 0
	for _, n := range []int{2, 3, 4, 5, 7, 8} {
		sizes := []int{1, 2, n, n + 1, n + 2, n + 3, 2*n + 1, 4*n + 2, 5*n + 3, 9*n + 1}
		for i, w := range sizes {
			for j, h := range sizes {
				trial := (i + j) % 4
				orig, rec := fracLuma(rng, w, h, n, trial)
				step := []float64{4, 15, 60, 200}[(i+2*j)%4]
				want := refDeblockErrorsFrac(orig, rec, step, n)
				got := deblockErrorsGray(orig, rec, step, n)
				if !sameBits(got, want) {
					t.Fatalf("%dx%d, n %d, step %v: errors %v, per strength %v", w, h, n, step, got, want)
				}
				errs := []float64{want[0], 0, 0, 0, 0, 0, 0, 0, 0}
				if deblockErrorsFrac(errs, orig.Pix, rec.Pix, w, h, n, step, sc) != (n >= 4) {
					t.Fatalf("n %d, step %v: the search by edge ran %v", n, step, n < 4)
				}
				if n >= 4 {
					byEdge++
				}
				if want[maxDeblock] != want[0] {
					moved++
				}
			}
		}
	}
	if moved < 150 || byEdge < 300 {
		t.Fatalf("the filter moved pixels in %d searches, %d by edge: the test exercises little", moved, byEdge)
	}
	t.Logf("%d searches moved pixels, %d by edge", moved, byEdge)
}

// TestDeblockErrorsFracLarge checks deblockErrorsFrac against
// refDeblockErrorsFrac on Kodak-sized luminance, every strength, at the
// steps of the default models' files.
func TestDeblockErrorsFracLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	for _, n := range []int{4, 8} {
		for _, step := range []float64{12, 30, 80} {
			orig, rec := fracLuma(rng, 258, 131, n, int(step)%4)
			want := refDeblockErrorsFrac(orig, rec, step, n)
			if got := deblockErrorsGray(orig, rec, step, n); !sameBits(got, want) {
				t.Fatalf("n %d, step %v: errors %v, per strength %v", n, step, got, want)
			}
		}
	}
}

// TestLoopFitSumsFrac checks the loop filter fit's sums (loopFitSums)
// of fractional originals against the pixel-by-pixel sums
// (refLoopFitSums): the products with the errors rounded and added in
// the order of the pixels, to the last bit, the others exact; on every
// shape around the fit's bands and sampling (every pixel under 16 in a
// side), with evenDiff's kernel and without.
func TestLoopFitSumsFrac(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(32, 5))
	shapes := [][2]int{{1, 1}, {1, 9}, {9, 1}, {2, 3}, {7, 5}, {15, 16}, {16, 15}, {16, 16}, {17, 33},
		{33, 31}, {47, 64}, {64, 65}, {95, 97}, {130, 67}}
	for _, s := range shapes {
		w, h := s[0], s[1]
		orig, rec := fracLuma(rng, w, h, 8, (w+h)%4)
		wantA, wantB := refLoopFitSums(orig.Pix, rec.Pix, w, h)
		for _, on := range []bool{kernel, false} {
			hasAVX2 = on
			ata, atb := loopFitSums(orig.Pix, nil, rec.Pix, w, h)
			if !sameBits(atb[:], wantB[:]) {
				t.Fatalf("%dx%d, kernels %v: sums with the errors %v, pixel by pixel %v", w, h, on, atb, wantB)
			}
			for k := range loopTaps {
				for l := k; l < loopTaps; l++ {
					if float64(ata[k][l]) != wantA[k][l] {
						t.Fatalf("%dx%d, kernels %v: sum %d,%d %d, pixel by pixel %v", w, h, on, k, l, ata[k][l], wantA[k][l])
					}
				}
			}
		}
	}
}

// refLoopFilterGain is loopFilterGain written plainly: a filtered copy,
// and each sum pixel by pixel in order, every square rounded.
func refLoopFilterGain(orig []float64, rec []uint8, w, h int, taps *[loopTaps]int8) (before, after float64) {
	f := loopFilterReference(rec, w, h, taps)
	for i, o := range orig[:w*h] {
		d0, d1 := o-float64(rec[i]), o-float64(f[i])
		before += float64(d0 * d0)
		after += float64(d1 * d1)
	}
	return before, after
}

// TestLoopFilterGainFrac checks loopFilterGain of fractional originals
// against refLoopFilterGain, bit for bit, on images smaller than the
// filter's support and of odd sizes, with taps that change pixels, and
// that it leaves the reconstruction as it was.
func TestLoopFilterGainFrac(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 9))
	changed := 0
	for _, s := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 3}, {5, 4}, {8, 9}, {17, 13}, {33, 40}, {100, 37}} {
		w, h := s[0], s[1]
		orig, rec := fracLuma(rng, w, h, 4, (w*h)%4)
		var taps [loopTaps]int8
		for k := range taps {
			taps[k] = int8(rng.IntN(41) - 20)
		}
		kept := slices.Clone(rec.Pix)
		b, a := loopFilterGain(orig.Pix, nil, rec.Pix, w, h, &taps)
		wb, wa := refLoopFilterGain(orig.Pix, rec.Pix, w, h, &taps)
		if !sameBits([]float64{b, a}, []float64{wb, wa}) {
			t.Fatalf("%dx%d: squared error %v -> %v, of a filtered copy %v -> %v", w, h, b, a, wb, wa)
		}
		if !slices.Equal(rec.Pix, kept) {
			t.Fatal("loopFilterGain changed the reconstruction")
		}
		if a != b {
			changed++
		}
	}
	if changed < 6 {
		t.Fatalf("the taps changed the error of %d images only", changed)
	}
	t.Logf("the filter changed the error of %d images", changed)
}

// BenchmarkDeblockErrorsFrac is the deblocking search of a Kodak-sized
// luminance original (fracLuma) for the 8×8 and 4×4 models' patches.
func BenchmarkDeblockErrorsFrac(b *testing.B) {
	for _, n := range []int{8, 4} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			orig, rec := fracLuma(rand.New(rand.NewPCG(1, 2)), 768, 512, n, 1)
			for b.Loop() {
				deblockErrorsGray(orig, rec, 30, n)
			}
		})
	}
}

// TestFracTermsKernel checks fracTermsKernel against fracTermsGo, bit
// for bit, on lists of every length around its steps of 8 (pixels 0 and
// 255 among random ones, fractional originals, every mask: none, one
// strength, all), added onto sums that are not zero, and the search
// against the reference: with the AVX-512 kernel, the AVX2 one and none.
func TestFracTermsKernel(t *testing.T) {
	defer func(a, b bool) { hasAVX2, hasAVX512 = a, b }(hasAVX2, hasAVX512)
	avx2, avx512 := hasAVX2, hasAVX512
	rng := rand.New(rand.NewPCG(32, 77))
	px := func() uint32 {
		var v uint32
		for r := range 4 {
			b := uint32(rng.IntN(256))
			if rng.IntN(8) == 0 {
				b = 255 * uint32(rng.IntN(2))
			}
			v |= b << (8 * r)
		}
		return v
	}
	// The AVX-512 kernel, the AVX2 one, then none.
	for _, on := range [][2]bool{{avx2, avx512}, {avx2, false}, {false, false}} {
		hasAVX2, hasAVX512 = on[0], on[1]
		ran := 0
		for n := range 42 {
			old, mask := make([]uint32, n), make([]uint8, n)
			var o [4][]float64
			for r := range o {
				o[r] = make([]float64, n)
				for i := range o[r] {
					o[r][i] = rng.Float64()*300 - 20
				}
			}
			for i := range old {
				old[i], mask[i] = px(), uint8(rng.IntN(256))
				switch i % 7 {
				case 0:
					mask[i] = 0
				case 1:
					mask[i] = 0xff
				}
			}
			var start [maxDeblock]float64
			for k := range start {
				start[k] = rng.Float64() * 1e6
			}
			want, got := start, start
			fracTermsGo(&want, old, o[0], o[1], o[2], o[3], mask)
			i := fracTermsKernel(&got, old, o[0], o[1], o[2], o[3], mask)
			fracTermsGo(&got, old[i:], o[0][i:], o[1][i:], o[2][i:], o[3][i:], mask[i:])
			if !sameBits(got[:], want[:]) {
				t.Fatalf("kernels %v, %d edges (%d by the kernel): sums %v, the Go loop's %v", on, n, i, got, want)
			}
			ran += i
		}
		if hasAVX2 && ran == 0 {
			t.Fatalf("kernels %v: the kernel took no edge", on)
		}
		for _, n := range []int{4, 8} {
			orig, rec := fracLuma(rng, 77, 45, n, 3)
			if got, want := deblockErrorsGray(orig, rec, 40, n), refDeblockErrorsFrac(orig, rec, 40, n); !sameBits(got, want) {
				t.Fatalf("n %d, kernels %v: errors %v, per strength %v", n, on, got, want)
			}
		}
	}
}
