package patches

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Each amd64 kernel the CPU has gives project's responses to the last
// bit (projectFast tests only the one it picks): dimensions the kernel
// takes, samples of both signs and zeros, a basis of large and tiny
// entries.
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
			if d%k.step != 0 {
				continue
			}
			for trial := range 10 {
				block := make([]float64, d)
				basis := make([]float64, d*d)
				shift := make([]float64, d)
				for i := range block {
					block[i] = []float64{0, math.Copysign(0, -1), float64(rng.IntN(256)), -float64(rng.IntN(256))}[rng.IntN(4)]
				}
				for i := range basis {
					basis[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
				}
				for i := range shift {
					shift[i] = rng.NormFloat64() * 100
				}
				want, got := make([]float64, d), make([]float64, d)
				project(want, block, basis, shift)
				k.f(got, block, basis, shift)
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%s, d=%d, trial %d: response %d is %v, project's %v", k.name, d, trial, j, got[j], want[j])
					}
				}
			}
		}
	}
}
