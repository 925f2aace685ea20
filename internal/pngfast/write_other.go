//go:build !amd64

package pngfast

var hasAVX2 = false

// hasHuffAVX512: the kernel is amd64's.
var hasHuffAVX512 = false

// adlerBlocks: the kernel is amd64's.
func adlerBlocks(p []byte) (a, b uint64, ok bool) { return 0, 0, false }

// subRGBKernel does none of a row (the kernel is amd64's).
func subRGBKernel(dst, src []byte) int { return 0 }

// subKernel leaves the row to subAdler's Go loop (the kernel is amd64's).
func subKernel(dst, src []byte, bpp int) int { return bpp }

// huffLits leaves q to the Go loop (the kernel is amd64's).
func huffLits(h *huffWriter, out []byte, o int, acc uint64, n uint, q []byte) (int, uint64, uint, []byte) {
	return o, acc, n, q
}

// countKernel leaves p to count's Go loop (the kernel is amd64's).
func countKernel(c *[4][256]uint32, p []byte, rare *[countPiece + 64]byte) []byte { return p }
