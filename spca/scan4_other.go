//go:build !amd64

package spca

var hasScan4Kernel = false // a var, as on amd64: tests switch it

func scan4AVX2(xs []float64, stride, n int, z *[4]float64, best *[4]float64, idx *[4]int64) {
	panic("spca: no scan kernel on this architecture")
}
