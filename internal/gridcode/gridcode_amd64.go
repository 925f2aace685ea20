package gridcode

import "golang.org/x/sys/cpu"

// hasAVX2 and hasAVX512 select the kernels (tests switch them off).
var (
	hasAVX2   = cpu.X86.HasAVX2
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL
)

// joinAVX2 sets v[i], i < len(v)&^3, to the unzigzagged value of width w
// (1 to 3) in the planes (w planes starting stride bytes apart).
//
//go:noescape
func joinAVX2(v []int64, planes []byte, w, stride int)

// addLagAVX2 adds v[i-s] to v[i] in order of i, s <= i < s+(len(v)-s)&^3
// (s >= 4).
//
//go:noescape
func addLagAVX2(v []int64, s int)

// joinKernel sets the first values of v as joinAVX2 and returns how many
// (none without AVX2 or for widths above 3).
func joinKernel(v []int64, planes []byte, w, stride int) int {
	if !hasAVX2 || w < 1 || w > 3 || len(v) < 4 || stride < len(v) || len(planes) < (w-1)*stride+len(v) {
		return 0
	}
	joinAVX2(v, planes, w, stride)
	return len(v) &^ 3
}

// addLagKernel adds v[i-s] to v[i] for the first i >= s, as addLagAVX2,
// and returns the first index it did not (s: none).
func addLagKernel(v []int64, s int) int {
	if !hasAVX2 || s < 4 || len(v)-s < 4 {
		return s
	}
	addLagAVX2(v, s)
	return s + (len(v)-s)&^3
}

// scaleAVX512 sets dst[i*stride] to float64(v[i])*res, i < len(v)&^3.
//
//go:noescape
func scaleAVX512(dst []float64, v []int64, stride int, res float64)

// scale32AVX512 sets dst[i*stride] to float32(float64(v[i])*res), i <
// len(v)&^3, and returns the OR of those |v[i]| (abs64's).
//
//go:noescape
func scale32AVX512(dst []float32, v []int64, stride int, res float64) (mag uint64)

// scaleKernel does the first values of Scale by scaleAVX512 and returns
// how many (none without AVX-512).
func scaleKernel(dst []float64, v []int64, stride int, res float64) int {
	if !hasAVX512 || len(v) < 4 || stride < 1 {
		return 0
	}
	scaleAVX512(dst, v, stride, res)
	return len(v) &^ 3
}

// scale32Kernel is scaleKernel for Scale32, returning also the OR of
// the magnitudes it converted.
func scale32Kernel(dst []float32, v []int64, stride int, res float64) (int, uint64) {
	if !hasAVX512 || len(v) < 4 || stride < 1 {
		return 0, 0
	}
	return len(v) &^ 3, scale32AVX512(dst, v, stride, res)
}
