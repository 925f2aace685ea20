package codec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestKminKernels checks the first strengths of edges that kminRow and
// kminCols find (by the kernels where they run) against edgeSums.kmin
// edge by edge: rows of 0-70 samples, patches of 4, 5 and 8, with
// deblockParams's thresholds (doubled), thresholds that are not doubled,
// subnormal ones, thresholds that do not grow (no kernel) and samples
// that sit on the thresholds, differ by them exactly, or are NaN, ±Inf
// and ±0.
func TestKminKernels(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2: the Go loop only")
	}
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel := hasAVX2
	rng := rand.New(rand.NewPCG(24, 16))
	params := map[string]func(k int) (alpha, beta, tc float64){
		"step 30 n 8": func(k int) (float64, float64, float64) { return deblockParams(k, 30, 8) },
		"step 7 n 4":  func(k int) (float64, float64, float64) { return deblockParams(k, 7, 4) },
		"not doubled": func(k int) (float64, float64, float64) { kf := float64(k); return 5 * kf, 3 * kf, kf },
		"subnormal": func(k int) (float64, float64, float64) {
			kf := float64(k)
			return kf * 1e-310, kf * 1e-310, kf * 1e-310
		},
		"flat":        func(k int) (float64, float64, float64) { return 20, 10, 5 },
		"not growing": func(k int) (float64, float64, float64) { kf := float64(9 - k); return 4 * kf, 2 * kf, kf },
		"infinite":    func(k int) (float64, float64, float64) { return math.Inf(1), math.Inf(1), math.Inf(1) },
	}
	checked := 0
	for name, p := range params {
		s := newEdgeSums(p)
		if (s.tab == nil) != (name == "not growing") {
			t.Fatalf("%s: table %v", name, s.tab != nil)
		}
		// A sample: a random value, the last one moved by a threshold
		// (or twice one), or a special value.
		draw := func(prev float64) float64 {
			k := 1 + rng.IntN(maxDeblock)
			switch rng.IntN(9) {
			case 0:
				return prev + s.alpha[k]
			case 1:
				return prev - 2*s.beta[k]
			case 2:
				return prev + s.beta[k]
			case 3:
				return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}[rng.IntN(5)]
			default:
				return prev + (rng.Float64()-0.5)*6*s.alpha[1+rng.IntN(maxDeblock)]
			}
		}
		for trial := range 300 {
			w := trial % 71
			n := []int{4, 5, 8}[trial%3]
			rows := make([]float64, 4*w)
			for i := range rows {
				prev := 100.0
				if i > 0 {
					prev = rows[i-1]
				}
				if i >= w && rng.IntN(2) == 0 {
					prev = rows[i-w] // down a column
				}
				rows[i] = draw(prev)
			}
			for _, on := range []bool{kernel, false} {
				hasAVX2 = on
				ks := s.kminRow(rows[:w], n, make([]uint8, w))
				for j, x := 0, n; x+1 < w; j, x = j+1, x+n {
					if want := s.kmin(rows[x-2], rows[x-1], rows[x], rows[x+1]); int(ks[j]) != want {
						t.Fatalf("%s, kernel %v: row of %d, n %d: edge at %d %v: %d, want %d", name, on, w, n, x, rows[x-2:x+2], ks[j], want)
					}
					checked++
				}
				if want := max(0, (w-2)/n); len(ks) != want && w >= 2 {
					t.Fatalf("%s: %d edges in a row of %d, want %d", name, len(ks), w, want)
				}
				kc := s.kminCols(rows, w, make([]uint8, w))
				for x := range w {
					e := [4]float64{rows[x], rows[w+x], rows[2*w+x], rows[3*w+x]}
					if want := s.kmin(e[0], e[1], e[2], e[3]); int(kc[x]) != want {
						t.Fatalf("%s, kernel %v: column %d of %d: %v: %d, want %d", name, on, x, w, e, kc[x], want)
					}
					checked++
				}
			}
		}
	}
	t.Log(fmt.Sprintf("%d edges", checked))
}
