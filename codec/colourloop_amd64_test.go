package codec

import "golang.org/x/sys/cpu"

// lumaKernelSwitch is a setting of the switches of the luma loop
// filter's kernels; kernels: its AVX-512 kernels run; target: the
// encoder's lumaTargetKernel runs (AVX-512 or AVX2).
type lumaKernelSwitch struct {
	name    string
	kernels bool
	target  bool
	set     func() (restore func())
}

// lumaKernelSwitches: the AVX-512 kernels (where the CPU has them), the
// AVX paths (quantize8Kernel, widenKernel, the filter's AVX2 rows) and
// pure Go.
func lumaKernelSwitches() []lumaKernelSwitch {
	with := func(avx, avx2, avx512 bool) func() func() {
		return func() func() {
			a, b, c := hasAVX, hasAVX2, hasAVX512
			hasAVX, hasAVX2, hasAVX512 = a && avx, b && avx2, c && avx512
			return func() { hasAVX, hasAVX2, hasAVX512 = a, b, c }
		}
	}
	have := hasAVX512 && hasAVX2 && cpu.X86.HasAVX512F
	return []lumaKernelSwitch{
		{"AVX-512", have, hasAVX2, with(true, true, true)},
		{"AVX", false, hasAVX2, with(true, true, false)},
		{"Go", false, false, with(false, false, false)},
	}
}
