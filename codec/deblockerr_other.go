//go:build !amd64

package codec

// deblockHorizErrKernel reports 0: the AVX2 kernel is amd64's.
func deblockHorizErrKernel(rec, von, kpix, orig []uint8, off, w int, th *[24]int16, h *[maxDeblock]int64) int {
	return 0
}

// maxSSE8 is amd64's chunk (deblockerr_amd64.go), for the tests.
const maxSSE8 = 1 << 16

// sse8 returns Σ (a[i] − b[i])² over a and b (as long).
func sse8(a, b []uint8) int64 {
	b = b[:len(a)]
	var s int64
	for i, v := range a {
		d := int64(v) - int64(b[i])
		s += d * d
	}
	return s
}
