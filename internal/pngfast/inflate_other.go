//go:build !amd64

package pngfast

var hasBMI2 = false

// codesKernel leaves every symbol to the Go loop (the kernel is amd64's).
func codesKernel(f *inflater, in []byte, pos int, bb uint64, nb uint, out []byte, o int) (int, uint64, uint, int) {
	return pos, bb, nb, o
}
