package gridcode

import (
	"math"
	"slices"
	"testing"
)

// TestJoinPlanesShortPlanes joins values from fewer plane bytes than
// values (width 0: every value 0, as JoinPlanes' Go loops give), the
// bytes past the planes' end in the same array set: the AVX2 kernel
// read a plane of len(v) bytes whatever the width, past the planes, and
// joined those bytes (the model readers check the width first, so no
// file reached it).
func TestJoinPlanesShortPlanes(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	cpu := hasAVX2
	if !cpu {
		t.Log("no AVX2: the Go loops only")
	}
	for m := 1; m <= 40; m++ {
		for short := 0; short < m; short++ {
			back := make([]byte, 3*m)
			for i := range back {
				back[i] = 0xa5
			}
			var got [2][]int64
			for k, on := range []bool{true, false} {
				hasAVX2 = on && cpu
				v := make([]int64, m)
				for i := range v {
					v[i] = int64(i) + 7
				}
				JoinPlanes(v, back[:short], 1+m%5)
				got[k] = v
			}
			if !slices.Equal(got[0], got[1]) || slices.ContainsFunc(got[1], func(x int64) bool { return x != 0 }) {
				t.Fatalf("%d values from %d plane bytes: %v with the kernel, %v without (want zeros)", m, short, got[0], got[1])
			}
		}
	}
}

// TestScaleExtremes checks Scale and Scale32 with the AVX-512 kernel
// against the Go loop bit for bit where the products overflow, become
// subnormal or zero, and where rounding twice (int64 to float64 to
// float32) differs from rounding once: the smallest and largest int64s,
// 2^53+2^29+1 (float32(float64(v)) is 2^53, float32(v) 2^53+2^30), and
// resolutions from 5e-324 to the largest float64, signed; and Scale32's
// OR of the magnitudes (the smallest int64's 1<<63).
func TestScaleExtremes(t *testing.T) {
	defer func(k bool) { hasAVX512 = k }(hasAVX512)
	cpu := hasAVX512
	if !cpu {
		t.Log("no AVX-512: the Go loops only")
	}
	vals := []int64{math.MinInt64, math.MaxInt64, 1<<53 + 1<<29 + 1, -(1<<53 + 1<<29 + 1), 1<<24 + 1, 0, -1, 1, 3, 1 << 62, -(1 << 62) - 1}
	for _, res := range []float64{1, -1, 5e-324, 0x1p-1060, 0x1p-60, 1e-300, 3.4e38, 1e300, math.MaxFloat64, -math.MaxFloat64, 0.3} {
		for n := 0; n <= len(vals); n++ {
			for stride := 1; stride <= 3; stride++ {
				v := vals[:n]
				var d64 [2][]float64
				var d32 [2][]float32
				for k, on := range []bool{true, false} {
					hasAVX512 = on && cpu
					d64[k], d32[k] = make([]float64, n*stride+1), make([]float32, n*stride+1)
					Scale(d64[k], stride, v, res)
					if mag, want := Scale32(d32[k], stride, v, res), magnitudes(v); mag != want {
						t.Fatalf("%d values, stride %d, kernel %v: magnitudes %#x, want %#x", n, stride, on, mag, want)
					}
				}
				for i := range d64[0] {
					w64, w32 := 0.0, float32(0)
					if i%stride == 0 && i/stride < n {
						w64 = float64(v[i/stride]) * res
						w32 = float32(w64)
					}
					for k := range 2 {
						if math.Float64bits(d64[k][i]) != math.Float64bits(w64) || math.Float32bits(d32[k][i]) != math.Float32bits(w32) {
							t.Fatalf("%d values, stride %d, res %g, kernel %v: at %d %g and %g, want %g and %g", n, stride, res, k == 0, i, d64[k][i], d32[k][i], w64, w32)
						}
					}
				}
			}
		}
	}
}
