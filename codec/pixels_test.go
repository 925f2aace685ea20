package codec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/spcalab/spca/patches"
)

// recon16Kernel is recon16 on slices, their lengths checked: false
// where they are short.
func recon16Kernel(dst []uint8, stride int, start, w0 []float64, levels [][]float64, ix []int32) bool {
	if len(levels) < len(ix) || len(start) < 16 || len(w0) < 16*len(ix) || stride < 4 || len(dst) < 3*stride+4 {
		return false
	}
	return recon16(&dst[0], stride, &start[0], unsafe.SliceData(w0), unsafe.SliceData(levels), unsafe.SliceData(ix), len(ix))
}

// kernelTestPatch returns a dims×dims weight matrix and a start of
// dims values drawn from value, in that order (the kernels' tests' draws).
func kernelTestPatch(dims int, value func() float64) (weights, start []float64) {
	weights = make([]float64, dims*dims)
	for i := range weights {
		weights[i] = value()
	}
	start = make([]float64, dims)
	for i := range start {
		start[i] = value()
	}
	return weights, start
}

// kernelTestValue returns a weight, start or coefficient for the pixel
// kernels' tests: often exactly 0 (skipped), −0, subnormal, or far apart
// in magnitude (where an FMA or another order would round differently);
// with nonFinite, now and then NaN or an infinity.
func kernelTestValue(rng *rand.Rand, nonFinite bool) float64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return 5e-324 * float64(rng.IntN(100)-50) // subnormal
	case 3:
		return (rng.Float64() - 0.5) * 1e12
	case 4:
		if nonFinite && rng.IntN(20) == 0 {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)]
		}
	}
	return (rng.Float64() - 0.5) * 600
}

// nonzeroIndices lists the places of y's nonzero values in order (zeros
// of both signs left out, NaN kept): the list pixelsFrom's sums go over,
// written out as the tests' reference.
func nonzeroIndices(y []float64) []int {
	var nz []int
	for j, v := range y {
		if v != 0 {
			nz = append(nz, j)
		}
	}
	return nz
}

// TestPixelsKernel checks that the assembly kernel of pixelsFrom (where
// the processor has one) gives its Go loop's sums to the last bit: the
// same products, rounded, added in the same order, on coefficients that
// are often exactly 0 (skipped), ±0 and subnormal weights and starts, and
// values far apart in magnitude (where an FMA or another order would round
// differently).
func TestPixelsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	value := func() float64 { return kernelTestValue(rng, false) }
	ran := false
	for _, dims := range []int{16, 32, 64} {
		for trial := 0; trial < 200; trial++ {
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
			if !pixelsKernel(got, start, w0, y, nz) {
				t.Skip("no assembly kernel for pixelsFrom on this processor")
			}
			ran = true
			pixelsFromGo(want, start, y, w0, nz)
			for p := range want {
				if math.Float64bits(got[p]) != math.Float64bits(want[p]) && !(math.IsNaN(got[p]) && math.IsNaN(want[p])) {
					t.Fatalf("dims %d, trial %d, pixel %d: kernel %v, Go %v", dims, trial, p, got[p], want[p])
				}
			}
		}
	}
	if !ran {
		t.Fatal("kernel never ran")
	}
}

// TestPixels16Kernel checks that the 4×4 kernel, which finds the nonzero
// coefficients itself, gives the Go loop's sums over the list pixelsFrom
// makes to the last bit (zeros of both signs skipped, NaN and infinities
// kept), and that pixelsFrom gives the same pixels with and without the
// assembly kernels (the Go fallback of processors without AVX).
func TestPixels16Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 16))
	value := func() float64 { return kernelTestValue(rng, true) }
	const dims = 16
	c := &Channel{}
	for trial := 0; trial < 2000; trial++ {
		from := rng.IntN(dims)
		weights, start := kernelTestPatch(dims, value)
		y := make([]float64, rng.IntN(dims-from+1))
		for i := range y {
			y[i] = value()
		}
		nz := nonzeroIndices(y)
		w0 := weights[from*dims:]
		got, want := make([]float64, dims), make([]float64, dims)
		pixelsFromGo(want, start, y, w0, nz)
		same := func(what string, got []float64) {
			t.Helper()
			for p := range want {
				if math.Float64bits(got[p]) != math.Float64bits(want[p]) && !(math.IsNaN(got[p]) && math.IsNaN(want[p])) {
					t.Fatalf("trial %d (from %d, %d coefficients), pixel %d: %s %v, Go %v", trial, from, len(y), p, what, got[p], want[p])
				}
			}
		}
		if pixels16Kernel(got, start, w0, y) {
			same("kernel", got)
		}
		scratch := make([]int, dims)
		c.pixelsFrom(got, start, y, from, weights, scratch)
		same("pixelsFrom", got)
		func() {
			defer func(had bool) { hasAVX = had }(hasAVX)
			hasAVX = false
			clear(got)
			c.pixelsFrom(got, start, y, from, weights, scratch)
			same("pixelsFrom without AVX", got)
		}()
	}
}

// BenchmarkPixels times the inverse PCA of one patch (pixelsFrom's sums
// over the nonzero coefficients) in Go and through the assembly kernel,
// for 4×4 and 8×8 patches with a quarter of their coefficients nonzero,
// about what the default model's files hold.
func BenchmarkPixels(b *testing.B) {
	rng := rand.New(rand.NewPCG(24, 8))
	for _, dims := range []int{16, 64} {
		weights := make([]float64, dims*dims)
		for i := range weights {
			weights[i] = rng.Float64() - 0.5
		}
		start, y := make([]float64, dims), make([]float64, dims)
		for i := range start {
			start[i] = 128 * rng.Float64()
		}
		var nz []int
		for j := 0; j < dims; j += 4 {
			y[j] = 30 * (rng.Float64() - 0.5)
			nz = append(nz, j)
		}
		pix := make([]float64, dims)
		name := "4x4"
		if dims == 64 {
			name = "8x8"
		}
		b.Run(name+"-go", func(b *testing.B) {
			for range b.N {
				pixelsFromGo(pix, start, y, weights, nz)
			}
		})
		b.Run(name+"-kernel", func(b *testing.B) {
			if !pixelsKernel(pix, start, weights, y, nz) {
				b.Skip("no kernel")
			}
			for range b.N {
				pixelsKernel(pix, start, weights, y, nz)
			}
		})
	}
}

// TestQuantize8Kernel checks that the assembly rounding of whole patches
// (where the processor has one) gives patches.Quantize8's bytes for every
// value, writes only its patch's bytes and skips the stride between
// rows: halves and their neighbours one ulp away (round half up), 0, −0,
// negative values, subnormals, 255 and beyond, infinities, NaN and
// values past 2^52. n = 4 is a 4×4 patch: quantize4x4AVX's unrolled rows.
func TestQuantize8Kernel(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 0.49999999999999994, 0.5, -0.5, 254.49999999999997,
		254.5, 254.50000000000003, 255, 255.5, 256, -1, -255.5, 1e300, -1e300, 1 << 52, 1<<53 + 2,
		math.Inf(1), math.Inf(-1), math.NaN()}
	for k := -2; k <= 257; k++ {
		h := float64(k) + 0.5
		special = append(special, float64(k), h, math.Nextafter(h, -1000), math.Nextafter(h, 1000))
	}
	rng := rand.New(rand.NewPCG(24, 9))
	for _, n := range []int{4, 8, 12} {
		for trial := 0; trial < 50; trial++ {
			stride := n + rng.IntN(9)
			src := make([]float64, n*n)
			for i := range src {
				if rng.IntN(2) == 0 {
					src[i] = special[rng.IntN(len(special))]
				} else {
					src[i] = rng.Float64()*280 - 12
				}
			}
			dst := make([]uint8, (n-1)*stride+n+3)
			for i := range dst {
				dst[i] = 0xA5
			}
			if !quantize8Kernel(dst, stride, src, n) {
				t.Skip("no assembly rounding on this processor")
			}
			for i := range dst {
				r, c := i/stride, i%stride
				want := uint8(0xA5)
				if r < n && c < n {
					want = patches.Quantize8(src[r*n+c])
				}
				if dst[i] != want {
					t.Fatalf("n %d, stride %d, byte %d (row %d, column %d): kernel %d, want %d", n, stride, i, r, c, dst[i], want)
				}
			}
		}
	}
}

// TestNonzeroKernel checks the kernel's list of nonzero coefficients
// against Go's y[j] != 0 (NaN kept, ±0 skipped) on 0-70 values of which
// none, some or all are zero.
func TestNonzeroKernel(t *testing.T) {
	if !hasAVX {
		t.Log("no AVX: the Go loop only")
	}
	rng := rand.New(rand.NewPCG(24, 17))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, -1}
	for trial := range 2000 {
		y := make([]float64, trial%71)
		for i := range y {
			switch r := rng.IntN(10); {
			case r < trial%11:
				y[i] = special[rng.IntN(len(special))]
			default:
				y[i] = rng.NormFloat64()
			}
		}
		var want []int
		for j, v := range y {
			if v != 0 {
				want = append(want, j)
			}
		}
		nz := make([]int, len(y))
		n, done := nonzeroKernel(y, nz)
		for j := done; j < len(y); j++ {
			if y[j] != 0 {
				nz[n] = j
				n++
			}
		}
		if !slices.Equal(nz[:n], want) {
			t.Fatalf("%v: listed %v, want %v", y, nz[:n], want)
		}
	}
}

// TestRecon16Kernel checks the one-call reconstruction of a 4×4 patch
// against decoding's Go sums (pixelsFromGo of the gathered levels'
// nonzero coefficients, then patches.Quantize8 of each pixel): the same bytes, only
// the patch's, for 0-60 coefficients after the leading ones whose levels
// hold zeros, −0, NaN, infinities and values that round near the
// halves; and false, nothing written, for an index out of its levels'
// range (negative ones too); starts at exact halves and weights that are
// infinite or NaN (added only where their coefficient is not 0). It checks each kernel set with AVX (the
// AVX-512 kernel, then the AVX one as on a machine without AVX-512).
func TestRecon16Kernel(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX: the kernel does not run")
	}
	for _, k := range decodeKernelConfigs() {
		if k.avx {
			t.Run(k.name, func(t *testing.T) {
				defer useKernels(k)()
				checkRecon16Kernel(t)
			})
		}
	}
}

func checkRecon16Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 21))
	special := []float64{0, 0, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 0.5, -0.5}
	for trial := range 3000 {
		n := trial % 61
		levels := make([][]float64, n)
		ix := make([]int32, n)
		y := make([]float64, n)
		for j := range levels {
			levels[j] = make([]float64, 1+rng.IntN(40))
			for b := range levels[j] {
				if rng.IntN(4) == 0 {
					levels[j][b] = special[rng.IntN(len(special))]
				} else {
					levels[j][b] = rng.NormFloat64() * 30
				}
			}
			ix[j] = int32(rng.IntN(len(levels[j])))
			y[j] = levels[j][ix[j]]
		}
		start, w0 := make([]float64, 16), make([]float64, 16*n)
		for i := range start {
			start[i] = 128 + rng.NormFloat64()*60
			if trial%3 == 0 {
				// Exact halves (rounded up), also past 0 and 255.
				start[i] = float64(rng.IntN(300)-20) + 0.5
			}
		}
		for i := range w0 {
			w0[i] = rng.NormFloat64() * 0.3
			if trial%5 == 0 && rng.IntN(20) == 0 {
				// A weight times a zero coefficient must not be added
				// (Inf·0 is NaN).
				w0[i] = []float64{math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(3)]
			}
		}
		stride := 4 + rng.IntN(9)
		dst := make([]uint8, 3*stride+4+3)
		for i := range dst {
			dst[i] = 0xA5
		}
		bad := n > 0 && trial%7 == 0
		if bad {
			j := rng.IntN(n)
			ix[j] = []int32{-1, int32(len(levels[j])), math.MaxInt32, math.MinInt32}[rng.IntN(4)]
		}
		ok := recon16Kernel(dst, stride, start, w0, levels, ix)
		if ok == bad {
			t.Fatalf("trial %d: kernel %v with an index out of range %v", trial, ok, bad)
		}
		nz := nonzeroIndices(y)
		pix := make([]float64, 16)
		pixelsFromGo(pix, start, y, w0, nz)
		for i := range dst {
			r, col := i/stride, i%stride
			want := uint8(0xA5)
			if !bad && r < 4 && col < 4 {
				want = patches.Quantize8(pix[4*r+col])
			}
			if dst[i] != want {
				t.Fatalf("trial %d (%d coefficients), stride %d, byte %d: kernel %d, want %d", trial, n, stride, i, dst[i], want)
			}
		}
	}
}

// TestRecon16Decode decodes the 4×4 test model's files of images of odd
// sizes (patches across the right and lower edges, outliers) with the
// AVX kernels, whose eachPatch writes most patches by recon16Kernel, and
// without them: the same pixels.
func TestRecon16Decode(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX: the kernel does not run")
	}
	m := reuseTestModels(t)[1]
	if m.Channels[0].Dims() != 16 {
		t.Fatalf("test model of %d dimensions, want 4×4", m.Channels[0].Dims())
	}
	for _, c := range reuseCases() {
		var b bytes.Buffer
		if err := Encode(&b, c.img, m, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		decode := func(avx bool) []byte {
			defer func(had bool) { hasAVX = had }(hasAVX)
			hasAVX = avx
			img, err := Decode(bytes.NewReader(b.Bytes()), m)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return pixelBytesOf(img)
		}
		if !bytes.Equal(decode(true), decode(false)) {
			t.Fatalf("%s: the pixels differ without AVX", c.name)
		}
	}
}

// TestCopy8x8Kernel checks the 8×8 patch copy against its Go twin
// (copyPatchRows), bit for bit: random bit patterns (NaN payloads, ±0,
// ±Inf, subnormals), patches at every corner and inside planes of
// strides 8 to 40, the values around the patch untouched.
func TestCopy8x8Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 8))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8dead0000beef), 5e-324, -5e-324, 255.5}
	for _, w := range []int{8, 9, 16, 23, 40} {
		for _, h := range []int{8, 13, 24} {
			for trial := 0; trial < 20; trial++ {
				pix := make([]float64, 64)
				for i := range pix {
					if rng.IntN(3) == 0 {
						pix[i] = special[rng.IntN(len(special))]
					} else {
						pix[i] = math.Float64frombits(rng.Uint64())
					}
				}
				by, bx := rng.IntN(h/8), rng.IntN(w/8)
				fill := math.Float64frombits(rng.Uint64())
				got := patches.Plane{W: w, H: h, Pix: make([]float64, w*h)}
				want := patches.Plane{W: w, H: h, Pix: make([]float64, w*h)}
				for i := range got.Pix {
					got.Pix[i], want.Pix[i] = fill, fill
				}
				if !copy8x8Kernel(got.Pix[by*8*w+bx*8:], w, pix) {
					t.Skip("no assembly copy on this processor")
				}
				copyPatchRows(want, 8, by, bx, pix)
				for i := range got.Pix {
					if math.Float64bits(got.Pix[i]) != math.Float64bits(want.Pix[i]) {
						t.Fatalf("%d×%d plane, block (%d, %d), value %d (row %d, column %d): kernel %x, want %x",
							w, h, by, bx, i, i/w, i%w, math.Float64bits(got.Pix[i]), math.Float64bits(want.Pix[i]))
					}
				}
			}
		}
	}
	// Where there is no room the kernel declines and writes nothing.
	dst := make([]float64, 7*8+7)
	if copy8x8Kernel(dst, 8, make([]float64, 64)) || copy8x8Kernel(make([]float64, 64), 7, make([]float64, 64)) ||
		copy8x8Kernel(make([]float64, 64), 8, make([]float64, 63)) {
		t.Error("copy8x8Kernel ran without room")
	}
}
