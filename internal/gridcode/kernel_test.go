package gridcode

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPlanes returns a grid g of 1-4 axes of 1-16 nodes, repeated 1-3
// times in a row if rows (n values in all), and w random byte planes of
// its n values.
func randomPlanes(rng *rand.Rand, w int, rows bool) (g []int, n int, planes []byte) {
	g = make([]int, 1+rng.IntN(4))
	n = 1
	if rows {
		n += rng.IntN(3) // grids in a row
	}
	for j := range g {
		g[j] = 1 + rng.IntN(16)
		n *= g[j]
	}
	planes = make([]byte, w*n)
	for i := range planes {
		planes[i] = byte(rng.Uint32())
	}
	return g, n, planes
}

// TestKernels checks JoinPlanes and UndiffAxes with the AVX2 kernels
// (joinAVX2, addLagAVX2) against the same with them off and against
// AddPlane, Unzigzag and the one-loop Undiff, on grids of 1-4 axes of
// 1-16 nodes (blocks and rows of every length modulo 4), widths 1-8 and
// values that wrap. Without AVX2 both sides are the Go loops.
func TestKernels(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2: the Go loops only")
	}
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 600 {
		w := 1 + trial%8
		g, n, planes := randomPlanes(rng, w, true)
		if trial%3 == 0 { // small differences: the high planes zero
			for i := n; i < len(planes); i++ {
				planes[i] = 0
			}
		}
		lo := rng.IntN(len(g))
		want := make([]int64, n)
		for b := range w {
			AddPlane(want, planes[b*n:(b+1)*n], b)
		}
		Unzigzag(want)
		undiffRef(want, g)
		var got [2][]int64
		for k, on := range []bool{kernel, false} {
			hasAVX2 = on
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(rng.Uint64()) // JoinPlanes sets every value
			}
			JoinPlanes(v, planes, g[len(g)-1])
			UndiffAxes(v, g, lo, len(g)-1)
			UndiffAxes(v, g, 0, lo)
			got[k] = v
		}
		if !slices.Equal(got[0], got[1]) {
			t.Fatalf("shape %v (%d values), width %d, lo %d: kernels and Go loops differ", g, n, w, lo)
		}
		if !slices.Equal(got[0], want) {
			t.Fatalf("shape %v (%d values), width %d, lo %d: not AddPlane, Unzigzag and Undiff", g, n, w, lo)
		}
	}
}

// TestJoinPlanesStride checks JoinPlanesStride on the slabs of a grid
// (a run of values at an offset into planes holding more, stride apart),
// with the AVX2 kernel and without, against JoinPlanes of the slab's
// bytes copied into planes of their own (and UndiffAxes of the axis
// before the last, in blocks of 1-4 rows): widths 0-8, slabs of 1-156
// values (every length modulo 4) in planes of up to 3 times as many, rows
// of 1-13; the planes' other bytes are left unread (a slab at their end
// reads no byte past it).
func TestJoinPlanesStride(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 900 {
		w, m := trial%9, 1+rng.IntN(40)
		n, rows := 1+rng.IntN(13), 1
		if trial%2 == 1 { // blocks of rows rows of n, the axis before the last undone too
			rows = 1 + rng.IntN(4)
			m = n * rows * (1 + rng.IntN(3))
		}
		stride := m + rng.IntN(2*m+1)
		off := rng.IntN(stride - m + 1)
		// Exactly (w-1)*stride + off + m bytes: the last plane ends with
		// the slab, so a read past it panics.
		planes := make([]byte, max(0, (w-1)*stride+off+m))
		for i := range planes {
			planes[i] = byte(rng.Uint32())
		}
		own := make([]byte, w*m)
		for b := range w {
			copy(own[b*m:(b+1)*m], planes[b*stride+off:])
		}
		want := make([]int64, m)
		JoinPlanes(want, own, n)
		if rows > 1 {
			UndiffAxes(want, []int{m / (n * rows), rows, n}, 1, 2)
		}
		for _, on := range []bool{kernel, false} {
			hasAVX2 = on
			got := make([]int64, m)
			for i := range got {
				got[i] = int64(rng.Uint64()) // every value is set
			}
			p := planes
			if w > 0 {
				p = planes[off:]
			}
			JoinPlanesStride(got, p, w, stride, n, rows)
			if !slices.Equal(got, want) {
				t.Fatalf("width %d, %d values, stride %d, offset %d, rows of %d in blocks of %d, kernel %v: differs from JoinPlanes and UndiffAxes", w, m, stride, off, n, rows, on)
			}
		}
	}
}

// TestUndiffSlabs checks UndiffSlabs against JoinPlanes and UndiffAxes
// of the whole grid, with the AVX2 kernels and without: grids of 1-4 axes
// of 1-16 nodes, widths 1-8, a scratch larger than two slabs (its values
// random), the slabs in order, and none after store returns false.
func TestUndiffSlabs(t *testing.T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 600 {
		w := 1 + trial%8
		g, m, planes := randomPlanes(rng, w, false)
		want := make([]int64, m)
		JoinPlanes(want, planes, g[len(g)-1])
		UndiffAxes(want, g, 0, len(g)-1)
		slab, stop := Slab(g), rng.IntN(g[0]+1) // stop after slab stop (g[0]: never)
		for _, on := range []bool{kernel, false} {
			hasAVX2 = on
			buf := make([]int64, 2*slab+rng.IntN(5))
			for i := range buf {
				buf[i] = int64(rng.Uint64())
			}
			next := 0
			UndiffSlabs(buf, planes, w, g, func(i int, v []int64) bool {
				if i != next || len(v) != slab {
					t.Fatalf("shape %v: slab %d (%d values), want %d (%d)", g, i, len(v), next, slab)
				}
				if !slices.Equal(v, want[i*slab:(i+1)*slab]) {
					t.Fatalf("shape %v, width %d, kernel %v: slab %d differs from JoinPlanes and UndiffAxes", g, w, on, i)
				}
				next++
				return i != stop
			})
			if next != min(stop+1, g[0]) {
				t.Fatalf("shape %v: %d slabs stored, want %d", g, next, min(stop+1, g[0]))
			}
		}
	}
}

// TestScale checks Scale and Scale32 (AVX-512 where the CPU has it)
// against the conversion and product by Go, value by value, on int64s of
// every size (rounded conversions above 2^53, and to float32), strides
// 1-5 and lengths 0-37, the values between the strides untouched, and
// Scale32's OR of the magnitudes.
func TestScale(t *testing.T) {
	if !hasAVX512 {
		t.Log("no AVX-512: the Go loops only")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 400 {
		n, stride := trial%38, 1+rng.IntN(5)
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(rng.Uint64()) >> rng.IntN(64)
		}
		res := []float64{0x1p-20, 0.3, -1e-7, 1}[trial%4]
		dst := make([]float64, n*stride+3)
		dst32 := make([]float32, n*stride+3)
		for i := range dst {
			dst[i], dst32[i] = -0.5, -0.5
		}
		Scale(dst, stride, v, res)
		if mag, want := Scale32(dst32, stride, v, res), magnitudes(v); mag != want {
			t.Fatalf("%d values: Scale32's magnitudes %#x, want %#x", n, mag, want)
		}
		for i := range dst {
			want, want32 := -0.5, float32(-0.5)
			if i%stride == 0 && i/stride < n {
				want = float64(v[i/stride]) * res
				want32 = float32(want)
			}
			if dst[i] != want || dst32[i] != want32 {
				t.Fatalf("%d values, stride %d, res %g: at %d %g and %g, want %g and %g", n, stride, res, i, dst[i], dst32[i], want, want32)
			}
		}
	}
}

// magnitudes is the OR of the |v[i]| (two's complement negation: 1<<63
// for math.MinInt64).
func magnitudes(v []int64) uint64 {
	var m uint64
	for _, x := range v {
		if x < 0 {
			x = ^x + 1
		}
		m |= uint64(x)
	}
	return m
}

// BenchmarkScale times Scale on a lattice coordinate of the 8×8 colour
// codec model (112,047 nodes of 4 coordinates), with and without the
// kernel.
func BenchmarkScale(b *testing.B) {
	defer func(k bool) { hasAVX512 = k }(hasAVX512)
	v := make([]int64, 112047)
	for i := range v {
		v[i] = int64(i * 37)
	}
	dst := make([]float64, 4*len(v))
	for _, on := range []bool{false, true} {
		hasAVX512 = on
		name := "go"
		if on {
			name = "kernel"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Scale(dst, 4, v, 0x1p-20)
			}
		})
	}
}
