package spca

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInvert4Portable checks invert4 with the AVX kernel and with the
// portable valueCell4Go (the path of arm64 and of CPUs without AVX, run
// elsewhere only under qemu), and Invert4, against Inverse bit for bit, on every level
// of a grid that holds each axis's ends, levels just inside and outside
// them, and levels beyond (clamped to the lattice's end), for a 4-axis
// gamma-0 model and for it snapped and read back (float32 positions:
// valueCell4AVX32).
func TestInvert4Portable(t *testing.T) {
	defer func(k bool) { hasAVX = k }(hasAVX)
	kernel := hasAVX
	rng := rand.New(rand.NewPCG(21, 4))
	for gamma, m := range gammaModels(t, rng, 4) {
		if gamma != 0 {
			t.Fatalf("the first model has gamma %v, want 0", gamma)
		}
		if !m.lat.reduce {
			t.Fatal("the 4-axis model's lattice is not reduced: invert4 untested")
		}
		_, read := readSnapped(t, m)
		if read.lat.x32 == nil {
			t.Fatal("the snapped model read has float64 positions")
		}
		testInvert4Portable(t, m, kernel)
		testInvert4Portable(t, read, kernel)
		break // the gamma-0 model only
	}
}

func testInvert4Portable(t *testing.T, m *Model, kernel bool) {
	t.Helper()
	avx512 := hasAVX512
	defer func() { hasAVX512 = avx512 }()
	c := m.Scale()
	levels := make([][]float64, 4)
	for j := range levels {
		for _, f := range []float64{-0.3, -1e-12, 0, 1e-12, 0.25, 0.5, 0.999, 1, 1 + 1e-12, 1.3} {
			levels[j] = append(levels[j], c[j]*f)
		}
		levels[j] = append(levels[j], math.Nextafter(c[j], 0), -c[j], 2*c[j])
	}
	inv, ok := m.LevelInverse(levels)
	if !ok {
		t.Fatal("no level inverse of a gamma-0 model")
	}
	n := len(levels[0])
	var b [4]int
	want, r := make([]float64, 4), make([]float64, 4)
	inside := 0
	for i := range n * n * n * n {
		b = [4]int{i % n, i / n % n, i / (n * n) % n, i / (n * n * n)}
		for j := range r {
			r[j] = levels[j][b[j]]
		}
		if err := m.Inverse(want, r); err != nil {
			t.Fatal(err)
		}
		// Invert4 (invertLevels4AVX32 where the positions are float32,
		// in its AVX-512 and AVX2 forms; else Invert) is Inverse
		// wherever the levels lie.
		hasAVX = kernel
		for _, wide := range []bool{avx512, false} {
			hasAVX512 = wide
			var got [4]float64
			inv.Invert4(&got, &b, nil)
			if !slices.Equal(got[:], want) {
				t.Fatalf("levels %v (AVX-512 %v): Invert4 %v, Inverse %v", b, wide, got, want)
			}
		}
		hasAVX512 = avx512
		var got [2][4]float64
		var in [2]bool
		for k, on := range []bool{kernel, false} {
			hasAVX = on
			in[k] = inv.invert4(&got[k], &b)
		}
		if in[0] != in[1] {
			t.Fatalf("levels %v: inside %v with the kernel, %v without", b, in[0], in[1])
		}
		if !in[0] {
			continue
		}
		inside++
		for k := range got {
			if !slices.Equal(got[k][:], want) {
				t.Fatalf("levels %v (kernel %v): invert4 %v, Inverse %v", b, k == 0 && kernel, got[k], want)
			}
		}
	}
	if inside < n*n*n*n/20 {
		t.Fatalf("invert4 answered %d of %d level sets", inside, n*n*n*n)
	}
	t.Logf("%d of %d level sets inside the lattice", inside, n*n*n*n)
}
