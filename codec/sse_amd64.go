package codec

// sseLanesAVX512 adds the squared errors of rec[:n] against orig[:n] to
// lanes as sseLanesGo does, n a multiple of 32: four registers of 8
// lanes each, products rounded before they are added.
//
//go:noescape
func sseLanesAVX512(rec, orig *float64, n int, lanes *[32]float64)

// sseLanesAVX2 is sseLanesAVX512 in AVX2 (eight registers of 4 lanes):
// the same sums to the bit.
//
//go:noescape
func sseLanesAVX2(rec, orig *float64, n int, lanes *[32]float64)

// sseLanesKernel adds the squared errors of the first multiple of 32
// samples of rec against orig to lanes (sseLanes's order) and returns how
// many it took: by the AVX-512 kernel where it runs, else the AVX2 one
// (the Go loop was 2.7 % of the instructions of a colour batch encode
// under callgrind, which has no AVX-512).
func sseLanesKernel(rec, orig []float64, lanes *[32]float64) int {
	n := len(rec) &^ 31
	if len(orig) < n {
		panic("codec: sseLanesKernel: short orig")
	}
	if n == 0 {
		return 0
	}
	if hasAVX512 {
		sseLanesAVX512(&rec[0], &orig[0], n, lanes)
		return n
	}
	if hasAVX2 {
		sseLanesAVX2(&rec[0], &orig[0], n, lanes)
		return n
	}
	sseLanesGo(rec, orig, n, lanes)
	return n
}
