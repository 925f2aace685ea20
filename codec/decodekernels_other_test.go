//go:build !amd64

package codec

// decodeKernelConfigs are the pure-Go paths alone: the kernels are
// amd64's.
func decodeKernelConfigs() []kernelConfig {
	return []kernelConfig{{"Go", false, false, false}}
}

// useKernels sets the decoder's kernel switches to k's and returns what
// sets them back.
func useKernels(k kernelConfig) (restore func()) {
	a, c := hasAVX, patchKernel
	hasAVX, patchKernel = k.avx, k.dual
	return func() { hasAVX, patchKernel = a, c }
}

// encodeKernelConfigs are the pure-Go paths alone.
func encodeKernelConfigs() []kernelConfig { return decodeKernelConfigs() }

// useEncodeKernels is useKernels: the encoder's other kernels are
// amd64's.
func useEncodeKernels(k kernelConfig) (restore func()) { return useKernels(k) }
