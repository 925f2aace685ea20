//go:build !amd64

package codec

// loopRowKernel filters nothing: the AVX2 pass is amd64's.
func loopRowKernel(out []uint8, rows *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32) int {
	return 0
}

// hasAVX2 is amd64's (loopfilter_amd64.go): no AVX2 kernel elsewhere.
var hasAVX2 = false

const dotChunk = 16 * 1024

func dot4Kernel(a []int16, b *[4][]int16, s *[4]int64) int { return 0 }

func dotKernelLen(n int) int { return 0 }

// dotKernel is the dot product of a and b (as long).
func dotKernel(a, b []int16) int64 {
	var s int64
	for i, v := range a {
		s += int64(v) * int64(b[i])
	}
	return s
}

// evenDiffKernel does nothing: the AVX2 pass is amd64's.
func evenDiffKernel(d []int16, a, b, r []uint8) int { return 0 }

// widenKernel does nothing: the AVX2 pass is amd64's.
func widenKernel(dst []int32, src []uint8) int { return 0 }

// loopAVX512 is amd64's switch (loopfilter_amd64.go), off elsewhere.
var loopAVX512 = false

// roundLumaKernel does nothing: the AVX-512 pass is amd64's.
func roundLumaKernel(dst []int32, src []float64) int { return 0 }

// moveLumaKernel does nothing: the AVX-512 pass is amd64's.
func moveLumaKernel(row []float64, out []uint8, in []int32) int { return 0 }

// lumaTargetKernel does nothing: the AVX-512 pass is amd64's.
func lumaTargetKernel(y8, t8 []uint8, rec, orig []float64) int { return 0 }
