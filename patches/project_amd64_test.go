package patches

import (
	"image"
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
