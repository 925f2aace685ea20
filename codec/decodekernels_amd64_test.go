package codec

// decodeKernelConfigs are the machine's kernels, the AVX2 ones without
// AVX-512 (a CI machine may lack it) and the pure-Go paths (arm64's),
// last.
func decodeKernelConfigs() []kernelConfig {
	return []kernelConfig{
		{"all", hasAVX, hasAVX512, patchKernel},
		{"no AVX-512", hasAVX, false, patchKernel},
		{"Go", false, false, false},
	}
}

// useKernels sets the decoder's kernel switches to k's and returns what
// sets them back.
func useKernels(k kernelConfig) (restore func()) {
	a, b, c := hasAVX, hasAVX512, patchKernel
	hasAVX, hasAVX512, patchKernel = k.avx, k.avx512, k.dual
	return func() { hasAVX, hasAVX512, patchKernel = a, b, c }
}

// encodeKernelConfigs are decodeKernelConfigs for the encoder, whose
// pure-Go set also turns off the AVX2 kernels of the rest counts
// (restCountsKernel), gathers (hasGather) and the deblocking and loop
// filter searches (hasAVX2).
func encodeKernelConfigs() []kernelConfig {
	return decodeKernelConfigs()
}

// useEncodeKernels is useKernels with the encoder's AVX2 switches on
// where k has AVX, off where it has not.
func useEncodeKernels(k kernelConfig) (restore func()) {
	back := useKernels(k)
	a, b, c := restCountsKernel, hasGather, hasAVX2
	restCountsKernel, hasGather, hasAVX2 = a && k.avx, b && k.avx, c && k.avx
	return func() {
		restCountsKernel, hasGather, hasAVX2 = a, b, c
		back()
	}
}
