package codec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/patches"
)

// TestPixelsAVXWidths checks both assembly kernels of pixelsFrom's sums
// against its Go loop to the last bit, each at every width it takes:
// pixelsAVX at 1 to 8 groups of 16 pixels (pairs of groups and a last
// odd one), pixelsAVX512 at 1 and 2 groups of 64, on the values of
// TestPixelsKernel (zeros skipped, ±0, subnormals, magnitudes far apart,
// NaN and infinities).
func TestPixelsAVXWidths(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX")
	}
	rng := rand.New(rand.NewPCG(24, 64))
	value := func() float64 { return kernelTestValue(rng, true) }
	type kernel struct {
		name string
		run  func(pix, start, w0, y []float64, nz []int)
		dims []int
		ok   bool
	}
	for _, k := range []kernel{
		{"pixelsAVX", pixelsAVX, []int{16, 32, 48, 64, 80, 96, 112, 128}, true},
		{"pixelsAVX512", pixelsAVX512, []int{64, 128}, hasAVX512},
	} {
		if !k.ok {
			t.Logf("%s: no AVX-512, not run", k.name)
			continue
		}
		for _, dims := range k.dims {
			for trial := 0; trial < 100; trial++ {
				from := rng.IntN(dims / 2)
				weights, start := kernelTestPatch(dims, value)
				y := make([]float64, dims-from)
				for i := range y {
					if rng.IntN(3) > 0 {
						y[i] = value()
					}
				}
				nz := nonzeroIndices(y)
				w0 := weights[from*dims:]
				got, want := make([]float64, dims), make([]float64, dims)
				k.run(got, start, w0, y, nz)
				pixelsFromGo(want, start, y, w0, nz)
				for p := range want {
					if math.Float64bits(got[p]) != math.Float64bits(want[p]) && !(math.IsNaN(got[p]) && math.IsNaN(want[p])) {
						t.Fatalf("%s, dims %d, trial %d, pixel %d: kernel %v, Go %v", k.name, dims, trial, p, got[p], want[p])
					}
				}
			}
		}
	}
}

// BenchmarkPixelsAVX times the kernels of pixelsFrom's sums on an 8×8
// patch of 16 nonzero coefficients after 4 leading ones (about the
// colour batch decode's mean).
func BenchmarkPixelsAVX(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	const dims, from = 64, 4
	weights, start := kernelTestPatch(dims, func() float64 { return rng.Float64() - 0.5 })
	y := make([]float64, dims-from)
	var nz []int
	for i := range 16 {
		j := 3 * i
		y[j] = rng.Float64()
		nz = append(nz, j)
	}
	w0 := weights[from*dims:]
	pix := make([]float64, dims)
	b.Run("AVX2", func(b *testing.B) {
		for range b.N {
			pixelsAVX(pix, start, w0, y, nz)
		}
	})
	if hasAVX512 {
		b.Run("AVX512", func(b *testing.B) {
			for range b.N {
				pixelsAVX512(pix, start, w0, y, nz)
			}
		})
	}
}

// TestPixels64Kernel checks that the 8×8 AVX-512 kernel, which finds the
// nonzero coefficients itself (a mask of 8 compares), gives the Go loop's
// sums over the list pixelsFrom makes to the last bit (zeros of both
// signs skipped, NaN and infinities kept) for 0 to 64 coefficients (short
// last groups of 8), and that pixelsFrom gives the same pixels with it,
// with the AVX kernels alone and in Go; pixels64Into gives them in a
// plane's rows.
func TestPixels64Kernel(t *testing.T) {
	if !hasAVX || !hasAVX512 {
		t.Skip("no AVX-512")
	}
	defer func(a, b bool) { hasAVX, hasAVX512 = a, b }(hasAVX, hasAVX512)
	rng := rand.New(rand.NewPCG(24, 65))
	value := func() float64 { return kernelTestValue(rng, true) }
	const dims = 64
	c := &Channel{}
	for trial := 0; trial < 1000; trial++ {
		from := rng.IntN(dims)
		weights, start := kernelTestPatch(dims, value)
		y := make([]float64, rng.IntN(dims-from+1))
		for j := range y {
			if rng.IntN(4) > 0 {
				y[j] = value()
			}
		}
		nz := nonzeroIndices(y)
		w0 := weights[from*dims:]
		want := make([]float64, dims)
		pixelsFromGo(want, start, y, w0, nz)
		same := func(what string, got []float64) {
			t.Helper()
			for p := range want {
				if math.Float64bits(got[p]) != math.Float64bits(want[p]) && !(math.IsNaN(got[p]) && math.IsNaN(want[p])) {
					t.Fatalf("trial %d (from %d, %d coefficients), pixel %d: %s %v, Go %v", trial, from, len(y), p, what, got[p], want[p])
				}
			}
		}
		got := make([]float64, dims)
		hasAVX, hasAVX512 = true, true
		if !pixels64Kernel(got, start, w0, y) {
			t.Fatal("pixels64Kernel did not run")
		}
		same("kernel", got)
		// Into a plane's rows (stride 8 to 20): the same pixels, the
		// values between the patch's rows untouched.
		stride := 8 + rng.IntN(13)
		plane := make([]float64, 7*stride+8)
		for p := range plane {
			plane[p] = -1
		}
		if !pixels64Into(plane, stride, start, w0, y) {
			t.Fatal("pixels64Into did not run")
		}
		for p := range plane {
			r, x := p/stride, p%stride
			if x < 8 {
				got[r*8+x] = plane[p]
			} else if plane[p] != -1 {
				t.Fatalf("trial %d: pixels64Into wrote %v at column %d of row %d (stride %d)", trial, plane[p], x, r, stride)
			}
		}
		same("kernel into a plane", got)
		scratch := make([]int, dims)
		for _, k := range []struct {
			what        string
			avx, avx512 bool
		}{{"pixelsFrom", true, true}, {"pixelsFrom by AVX", true, false}, {"pixelsFrom in Go", false, false}} {
			hasAVX, hasAVX512 = k.avx, k.avx512
			clear(got)
			c.pixelsFrom(got, start, y, from, weights, scratch)
			same(k.what, got)
		}
	}
}

// TestPixels64Gray8 checks that pixels64Gray8 writes into an 8-bit
// image's rows what quantize8Kernel makes of pixels64Into's sums (and
// patches.Quantize8 of each), the bytes between the rows untouched: on
// TestPixels64Kernel's values (NaN, infinities, magnitudes far apart,
// clamped at 0 and 255) and on sums within 0-255 (small weights and
// coefficients; with no coefficient, starts on whole numbers and halves:
// the rounding's ties).
func TestPixels64Gray8(t *testing.T) {
	if !hasAVX || !hasAVX512 {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(34, 8))
	const dims = 64
	for trial := 0; trial < 2000; trial++ {
		value := func() float64 { return kernelTestValue(rng, true) }
		if trial%2 == 1 {
			value = func() float64 { return rng.Float64() - 0.5 }
		}
		from := rng.IntN(dims)
		weights, start := kernelTestPatch(dims, value)
		if trial%2 == 1 {
			for p := range start {
				start[p] = rng.Float64()*280 - 10
				if trial%4 == 3 {
					start[p] = float64(rng.IntN(600)-100) / 2
				}
			}
		}
		y := make([]float64, rng.IntN(dims-from+1))
		if trial%4 == 3 {
			y = y[:0]
		}
		for j := range y {
			if rng.IntN(4) > 0 {
				y[j] = value()
			}
		}
		w0 := weights[from*dims:]
		sums := make([]float64, dims)
		if !pixels64Into(sums, 8, start, w0, y) {
			t.Fatal("pixels64Into did not run")
		}
		want := make([]uint8, dims)
		if !quantize8Kernel(want, 8, sums, 8) {
			t.Fatal("quantize8Kernel did not run")
		}
		for p, v := range sums {
			if q := patches.Quantize8(v); q != want[p] {
				t.Fatalf("trial %d, pixel %d: quantize8Kernel %d, Quantize8 %d of %v", trial, p, want[p], q, v)
			}
		}
		stride := 8 + rng.IntN(13)
		img := make([]uint8, 7*stride+8)
		for p := range img {
			img[p] = 0xA5
		}
		if !pixels64Gray8(img, stride, start, w0, y) {
			t.Fatal("pixels64Gray8 did not run")
		}
		for p, v := range img {
			r, x := p/stride, p%stride
			if x >= 8 {
				if v != 0xA5 {
					t.Fatalf("trial %d: pixels64Gray8 wrote %d at column %d of row %d (stride %d)", trial, v, x, r, stride)
				}
				continue
			}
			if v != want[r*8+x] {
				t.Fatalf("trial %d (from %d, %d coefficients), pixel %d: pixels64Gray8 %d, want %d (sum %v)", trial, from, len(y), r*8+x, v, want[r*8+x], sums[r*8+x])
			}
		}
	}
}
