package patches

import (
	"math/rand/v2"
	"testing"
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
