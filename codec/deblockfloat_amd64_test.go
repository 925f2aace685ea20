package codec

import "testing"

// TestFloatKernelsOff runs the float deblocking filter's checks with the
// AVX kernels off: the Go loops alone, as on CPUs without AVX.
func TestFloatKernelsOff(t *testing.T) {
	defer func(a bool) { hasAVX = a }(hasAVX)
	hasAVX = false
	TestFloatColsKernel(t)
	TestFloatRowsKernel(t)
}
