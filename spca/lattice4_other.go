//go:build !amd64

package spca

const hasAVX = false

func valueCell4AVX(p *float64, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64) {
	panic("spca: no AVX kernel on this architecture")
}

func valueCell4AVX32(p *float32, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64) {
	panic("spca: no AVX kernel on this architecture")
}

func gradCell4AVX(p *float64, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64) {
	panic("spca: no AVX kernel on this architecture")
}

func gradCell4AVX32(p *float32, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64) {
	panic("spca: no AVX kernel on this architecture")
}

func newtonCell4AVX(u, x, mean *[4]float64, scale float64, k *newton4Consts, z, un *[4]float64, c *[4]float64) (base int, flags int) {
	panic("spca: no AVX kernel on this architecture")
}

func invertLevels4AVX32(p *float32, n int, k *level4, b *[4]int, dst *[4]float64) (ok bool) {
	panic("spca: no AVX kernel on this architecture")
}
