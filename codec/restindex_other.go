//go:build !amd64

package codec

// hasGather is amd64's: no AVX2 kernels elsewhere.
const hasGather = false

func restIndicesAVX(out []int32, row []float64, rt *restTable) {
	panic("codec: no AVX2 kernel on this architecture")
}

func sameCountAVX2(a, b []int32) int {
	panic("codec: no AVX2 kernel on this architecture")
}

func restFarAVX2(q []int32, row []float64, lo, span, at, lenB []int32, levels []float64, limit float64) int {
	panic("codec: no AVX2 kernel on this architecture")
}

func levelsAVX2(y []float64, ix, at, lenB []int32, levels []float64) bool {
	panic("codec: no AVX2 kernel on this architecture")
}

func levelsCentreAVX2(y []float64, ix, ctr []int32, ctrLev []float64, at, lenB []int32, levels []float64) int {
	panic("codec: no AVX2 kernel on this architecture")
}

// restCountsAVX2 is amd64's (hasGather is false elsewhere).
func restCountsAVX2(idx []int32, dims, from int, c, counts []int32, flags []uint8) {
	panic("codec: restCountsAVX2 without AVX2")
}
