//go:build !amd64

package codec

// loopRowKernel filters nothing: the AVX2 pass is amd64's.
func loopRowKernel(out []uint8, rows *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32) int {
	return 0
}

// hasAVX2 is amd64's (loopfilter_amd64.go): no AVX2 kernel elsewhere.
var hasAVX2 = false
