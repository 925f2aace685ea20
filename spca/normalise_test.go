package spca

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Constant data (and data near the ends of the float64 range) are
// normalised again, scaled by their largest magnitude, in normalise's
// buffer: a second one made a constant CSV at csvmat's cap (10^8 values)
// take another 0.8 GB before it was refused (spca fit: 2.36 -> 1.58 GB
// max RSS). The scaled path's results are those of the data divided
// first.
func TestNormaliseOneBuffer(t *testing.T) {
	const n, d = 50_000, 2
	x := mat.NewDense(n, d, nil)
	for i := range n {
		x.Set(i, 0, 4) // exact after the division by 8, as CSV's "1,2" after 2
		x.Set(i, 1, -8)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := normalise(x)
	runtime.ReadMemStats(&after)
	var de *DataError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "constant") {
		t.Fatalf("constant data: %v", err)
	}
	if alloc, z := after.TotalAlloc-before.TotalAlloc, uint64(8*n*d); alloc > z+z/8 {
		t.Errorf("constant data: allocated %d bytes, the buffer is %d", alloc, z)
	}
	for i := range n {
		x.Set(i, 0, 1e300*float64(i%7+1))
		x.Set(i, 1, -1e300*float64(i%5))
	}
	mean, scale, z, err := normalise(x)
	if err != nil {
		t.Fatal(err)
	}
	small := mat.NewDense(n, d, nil)
	small.Scale(1e-300, x)
	m2, s2, z2, err := normalise(small)
	if err != nil {
		t.Fatal(err)
	}
	for j := range mean {
		if r := mean[j] / m2[j] / 1e300; math.Abs(r-1) > 1e-12 {
			t.Errorf("mean %d: %g, of the data / 1e300 %g", j, mean[j], m2[j])
		}
	}
	if r := scale / s2 / 1e300; math.Abs(r-1) > 1e-12 {
		t.Errorf("scale %g, of the data / 1e300 %g", scale, s2)
	}
	for i := range z {
		if math.Abs(z[i]-z2[i]) > 1e-9 {
			t.Fatalf("normalised value %d: %g, of the data / 1e300 %g", i, z[i], z2[i])
		}
	}
}
