//go:build !amd64

package codec

// sseLanesKernel adds the squared errors of the first multiple of 32
// samples of rec against orig to lanes (sseLanes's order) and returns how
// many it took.
func sseLanesKernel(rec, orig []float64, lanes *[32]float64) int {
	n := len(rec) &^ 31
	sseLanesGo(rec, orig, n, lanes)
	return n
}
