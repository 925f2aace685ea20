package patches

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/mat"
)

// Each amd64 kernel the CPU has gives project's responses to the last
// bit (projectFast tests only the one it picks), at the dimensions it
// takes.
func TestProjectKernels(t *testing.T) {
	kernels := []struct {
		name string
		has  bool
		step int
		f    func(dst, block, basis, shift []float64)
	}{
		{"AVX", hasAVX, 16, projectAVX},
		{"AVX-512", hasAVX512, 64, projectAVX512},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range kernels {
		if !k.has {
			t.Logf("%s: not on this CPU", k.name)
			continue
		}
		for _, d := range []int{k.step, 2 * k.step, 64, 128} {
			if d%k.step == 0 {
				checkProjectKernel(t, k.name, k.f, d, 10, rng)
			}
		}
	}
}

// On a CPU with AVX-512 the other paths of projectTo (the AVX kernel, the
// Go loops, the 8-bit rows left to them) are never taken by the other
// tests: here each is forced in turn and must give the responses of the
// kernels the CPU has, to the last bit, for 4×4 and 8×8 blocks of grey
// images of every width from 1 to 53 (tails of 1 to 15 pixels after the
// 4-block groups, padded blocks) and sub-images with a wider stride.
func TestProjectPathsAgree(t *testing.T) {
	if !hasAVX {
		t.Skip("no AVX: only the Go loops run here")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	full := image.NewGray(image.Rect(0, 0, 61, 19))
	for i := range full.Pix {
		full.Pix[i] = uint8(rng.IntN(256))
	}
	defer func(a, b bool) { hasAVX, hasAVX512 = a, b }(hasAVX, hasAVX512)
	for _, n := range []int{4, 8} {
		pca, err := FitPCA(Sample([]Plane{Luminance(full)}, n, 2000, 3))
		if err != nil {
			t.Fatal(err)
		}
		for w := 1; w <= 53; w++ {
			for _, h := range []int{n, 2*n + 3} {
				g := full.SubImage(image.Rect(w%7, 1, w%7+w, 1+h)).(*image.Gray)
				hasAVX, hasAVX512 = cpu.X86.HasAVX, cpu.X86.HasAVX512F
				want, _ := pca.ProjectGrayTo(nil, g, n)
				for _, p := range []struct{ avx, avx512 bool }{{true, false}, {false, false}} {
					hasAVX, hasAVX512 = p.avx, p.avx512
					got, _ := pca.ProjectGrayTo(nil, g, n)
					if !mat.Equal(got, want) {
						t.Fatalf("%d×%d blocks, %d×%d image: AVX %v, AVX-512 %v differ from the CPU's kernels", n, n, w, h, p.avx, p.avx512)
					}
				}
			}
		}
	}
}

// projectFloat8Row gives, block by block, the responses projectAVX512
// gives the block's samples copied row by row, to the last bit: rows of
// 0 to 6 blocks with a tail of 0 to 7 samples left to the caller, rows
// wider than the blocks (stride), planes starting at any sample, samples
// NaN, ±Inf, ±0 and wide-ranging; the kernel must not write past the
// blocks it reports.
func TestProjectFloat8Row(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	basis, shift := make([]float64, 64*64), make([]float64, 64)
	for i := range basis {
		basis[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	for i := range shift {
		shift[i] = rng.NormFloat64() * 100
	}
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e-300}
	block, want := make([]float64, 64), make([]float64, 64)
	for w := 0; w <= 55; w++ {
		for _, extra := range []int{0, 1, 9} {
			stride, off := w+extra, rng.IntN(5)
			plane := make([]float64, off+7*stride+w)
			for i := range plane {
				if rng.IntN(8) == 0 {
					plane[i] = special[rng.IntN(len(special))]
				} else {
					plane[i] = rng.NormFloat64() * 255
				}
			}
			pix := plane[off:]
			dst := make([]float64, 64*(w/8)+64)
			guard := math.Float64frombits(0x7ff8dead0000beef)
			for i := range dst {
				dst[i] = guard
			}
			n := projectFloat8Row(dst, pix, stride, w, basis, shift)
			if n != w/8 {
				t.Fatalf("width %d: %d blocks, want %d", w, n, w/8)
			}
			for bx := range n {
				for dy := range 8 {
					copy(block[8*dy:8*dy+8], pix[dy*stride+8*bx:])
				}
				projectAVX512(want, block, basis, shift)
				for j, v := range want {
					if got := dst[64*bx+j]; math.Float64bits(got) != math.Float64bits(v) {
						t.Fatalf("width %d, stride %d, block %d: response %d is %v, want %v", w, stride, bx, j, got, v)
					}
				}
			}
			for i, v := range dst[64*n:] {
				if math.Float64bits(v) != math.Float64bits(guard) {
					t.Fatalf("width %d: dst[%d] written past the blocks", w, 64*n+i)
				}
			}
		}
	}
}

// BenchmarkProjectFloat8Row times a 768-sample block row of a float plane
// (96 8×8 blocks) by projectFloat8Row and by the row copies and
// projectAVX512 that projectTo ran before it.
func BenchmarkProjectFloat8Row(b *testing.B) {
	if !hasAVX512 {
		b.Skip("no AVX-512")
	}
	const w = 768
	pix, dst := make([]float64, 8*w), make([]float64, 64*w/8)
	basis, shift, block := make([]float64, 64*64), make([]float64, 64), make([]float64, 64)
	for i := range pix {
		pix[i] = float64(i % 251)
	}
	for i := range basis {
		basis[i] = float64(i%7) - 3.5
	}
	b.Run("kernel", func(b *testing.B) {
		for range b.N {
			projectFloat8Row(dst, pix, w, w, basis, shift)
		}
	})
	b.Run("copies", func(b *testing.B) {
		for range b.N {
			for bx := range w / 8 {
				bl := (*[64]float64)(block)
				for dy := range 8 { // as projectTo copied them
					src, to := (*[8]float64)(pix[dy*w+8*bx:]), (*[8]float64)(bl[8*dy:])
					for i, v := range src {
						to[i] = v
					}
				}
				projectAVX512(dst[64*bx:64*bx+64], block, basis, shift)
			}
		}
	})
}
