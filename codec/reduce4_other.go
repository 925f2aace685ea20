//go:build !amd64

package codec

// hasAVX is amd64's (pixels_amd64.go): no AVX kernels elsewhere.
var hasAVX = false // a variable, as on amd64: tests turn the kernels off

func reduce4AVX(p *float32, s0, s1, s2, s3 int, t *[4]float64, u *[4]float64) {
	panic("codec: no AVX kernel on this architecture")
}
