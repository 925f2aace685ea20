//go:build !amd64

package spca

const hasSolve4Kernel = false

func solve4AVX(a *[16]float64, b *[4]float64, x *[4]float64) (det, scale float64) {
	panic("spca: no solve4 kernel on this architecture")
}
