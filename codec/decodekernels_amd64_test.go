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
