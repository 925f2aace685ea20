//go:build !amd64

package codec

// hasAVX is amd64's (pixels_amd64.go): no AVX kernels elsewhere.
const hasAVX = false

func reduce4AVX(p *float32, s0, s1, s2, s3 int, t *[4]float64, u *[4]float64) {
	panic("codec: no AVX kernel on this architecture")
}
