//go:build !amd64

package spca

const hasSolve4Kernel = false

func solve4AVX(a *[16]float64, b *[4]float64, x *[4]float64) (det, scale float64) {
	panic("spca: no solve4 kernel on this architecture")
}

func newtonSolve4AVX(jac *[16]float64, z, xx, un *[4]float64, scale float64, u *[4]float64) (step float64, ok bool) {
	panic("spca: no solve4 kernel on this architecture")
}
