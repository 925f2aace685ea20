//go:build !amd64

package codec

// hasVert4Err: no deblockVert4ErrKernel here.
func hasVert4Err() bool { return false }

// deblockVert4ErrKernel reports 0: the AVX-512 and AVX2 kernels are amd64's.
func deblockVert4ErrKernel(rec, orig, von, kpix []uint8, n int, th *[16]int32, h *[maxDeblock]int64) int {
	return 0
}

// hasAVX512 and hasAVX512BW are amd64's (pixels_amd64.go, deblockerr_amd64.go):
// no AVX-512 kernel elsewhere.
var hasAVX512, hasAVX512BW = false, false

// moveEdges8Kernel reports false: the AVX-512 kernel is amd64's.
func moveEdges8Kernel(g, row []uint8, m int, back bool) bool { return false }
