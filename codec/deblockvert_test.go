package codec

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// vert4Reference is deblockVert4ErrKernel's work in Go, edge by edge as
// deblockErrorsByEdge's loop does it: the sums of each strength's edges
// that pass and, with von, the pixels and first strengths.
func vert4Reference(rec, orig, von, kpix []uint8, n int, th *[16]int32) (sums [maxDeblock]int64) {
	for j := 0; j < n; j++ {
		e, o := rec[4*j:][:4], orig[4*j:][:4]
		p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
		k := maxDeblock + 1
		for s := maxDeblock; s >= 1; s-- {
			if abs(q0-p0) < int(th[s-1]) && abs(p1-p0) < int(th[8+s-1]) && abs(q1-q0) < int(th[8+s-1]) {
				k = s
			}
		}
		if k > maxDeblock {
			continue
		}
		np1, np0, nq0, nq1, delta := edgeMoved(p1, p0, q0, q1, int(o[0]), int(o[1]), int(o[2]), int(o[3]))
		for s := k; s <= maxDeblock; s++ {
			sums[s-1] += delta
		}
		if von != nil {
			copy(von[4*j:], []uint8{np1, np0, nq0, nq1})
			copy(kpix[4*j:], []uint8{uint8(k), uint8(k), uint8(k), uint8(k)})
		}
	}
	return sums
}

// TestDeblockVert4Kernel compares the AVX-512 kernel and the AVX2 one
// with vert4Reference on random rows (smooth ones, where edges pass,
// rough ones and ones at 0 and 255), thresholds from 0 (nothing passes)
// to 256 (everything does) and growing with the strength, 1 to 80 edges
// (whole groups of 16 or 8 and a masked last one) at unaligned offsets,
// with and without a band's planes. Planted bugs fail it: np0's rounding
// by 8 instead of 4, a kmin step under the wrong mask, the last group's
// stores unmasked (AVX-512); a strength's sums in another's slot, the
// last group's loads unmasked (AVX2).
func TestDeblockVert4Kernel(t *testing.T) {
	defer func(a, b bool) { hasAVX2, hasAVX512 = a, b }(hasAVX2, hasAVX512)
	have2, have512 := hasAVX2, hasAVX512
	for _, avx512 := range []bool{true, false} {
		hasAVX2, hasAVX512 = have2, have512 && avx512
		if deblockVert4ErrKernel(make([]uint8, 64), make([]uint8, 64), nil, nil, 16, new([16]int32), new([maxDeblock]int64)) == 0 {
			t.Skip("no AVX2")
		}
		testDeblockVert4Kernel(t)
	}
}

func testDeblockVert4Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(80)
		off := rng.IntN(64)
		// Bytes past the last edge too: the kernel neither writes nor
		// counts them.
		size := off + 4*n + rng.IntN(70)
		rec, orig := make([]uint8, size), make([]uint8, size)
		base := rng.IntN(256)
		for i := range rec {
			switch trial % 4 {
			case 0: // smooth
				rec[i] = uint8(min(255, max(0, base+rng.IntN(9)-4)))
			case 1: // rough
				rec[i] = uint8(rng.IntN(256))
			case 2: // the extremes
				rec[i] = uint8(255 * rng.IntN(2))
			default: // steps a few levels high
				rec[i] = uint8(min(255, max(0, base+3*rng.IntN(5)+i/16)))
			}
			orig[i] = uint8(min(255, max(0, int(rec[i])+rng.IntN(11)-5)))
		}
		var th [16]int32
		a, b := int32(rng.IntN(3)), int32(rng.IntN(3))
		for k := range maxDeblock {
			a, b = min(256, a+int32(rng.IntN(40))), min(256, b+int32(rng.IntN(20)))
			th[k], th[8+k] = a, b
		}
		band := trial%3 != 0
		var von, kpix, wantVon, wantKpix []uint8
		if band {
			von, kpix = slices.Clone(rec), make([]uint8, len(rec))
			for i := range kpix {
				kpix[i] = maxDeblock + 1
			}
			wantVon, wantKpix = slices.Clone(von), slices.Clone(kpix)
			von, kpix = von[off:], kpix[off:]
		}
		var got [maxDeblock]int64
		got[3] = 7 // the kernel adds
		if deblockVert4ErrKernel(rec[off:], orig[off:], von, kpix, n, &th, &got) != n {
			t.Fatalf("trial %d: not %d edges", trial, n)
		}
		got[3] -= 7
		var wv, wk []uint8
		if band {
			wv, wk = wantVon[off:], wantKpix[off:]
		}
		if want := vert4Reference(rec[off:], orig[off:], wv, wk, n, &th); got != want {
			t.Fatalf("trial %d: sums %v, want %v", trial, got, want)
		}
		if band && (!slices.Equal(von, wv) || !slices.Equal(kpix, wk)) {
			t.Fatalf("trial %d: band pixels or strengths differ", trial)
		}
	}
}

// TestDeblockErrorsByEdgeVert4 checks the search by edge on 4×4 patches
// of images wide enough for the vertical-edge kernel (whole groups of 16
// edges and a rest), and on larger patches, whose edges it takes
// gathered four bytes apart (moveEdges), with it and without, against
// filtering a copy at every strength.
func TestDeblockErrorsByEdgeVert4(t *testing.T) {
	defer func(a, b bool) { hasAVX2, hasAVX512 = a, b }(hasAVX2, hasAVX512)
	have2, have512 := hasAVX2, hasAVX512
	rng := rand.New(rand.NewPCG(4, 24))
	for _, w := range []int{66, 69, 70, 134, 261} {
		const h = 23
		for trial := 0; trial < 3; trial++ {
			rec := image.NewGray(image.Rect(0, 0, w, h))
			orig := make([]uint8, w*h)
			for i := range rec.Pix {
				v := 128 + 100*math.Sin(float64(i%w)/9+float64(trial)) + float64(rng.IntN(1+6*trial))
				v += float64((i%w/4*7+i/w/4*13)%11) * float64(trial)
				rec.Pix[i] = uint8(math.Max(0, math.Min(255, v)))
				orig[i] = uint8(math.Max(0, math.Min(255, math.Round(v+float64(rng.IntN(9))-4))))
			}
			for _, c := range []struct {
				n    int
				step float64
			}{{4, 6}, {4, 25}, {4, 90}, {5, 25}, {8, 6}, {8, 25}, {8, 90}, {16, 40}} {
				n, step := c.n, c.step
				hasAVX2, hasAVX512 = false, false
				want := deblockErrorsGray8(orig, rec, step, n, 1)
				for _, avx512 := range []bool{true, false} {
					hasAVX2, hasAVX512 = have2, have512 && avx512
					if got := deblockErrorsGray8(orig, rec, step, n, 1); !slices.Equal(got, want) {
						t.Fatalf("w %d trial %d n %d step %g: %v with the kernels (AVX-512 %v), %v without", w, trial, n, step, got, avx512, want)
					}
				}
				hasAVX2, hasAVX512 = have2, have512
				for k := 0; k <= maxDeblock; k++ {
					work := image.NewGray(rec.Rect)
					copy(work.Pix, rec.Pix)
					deblockImage(work, k, step, n)
					if s := float64(sse8(work.Pix, orig)); s != want[k] {
						t.Fatalf("w %d trial %d n %d step %g strength %d: %g, a filtered copy %g", w, trial, n, step, k, want[k], s)
					}
				}
			}
		}
	}
}

// TestDeblockHorizErrKernels compares deblockHorizErrKernel (AVX-512
// over whole groups of 32 columns and AVX2 over a last 16, or AVX2
// alone) with the sums in Go, column by column and strength by strength,
// on random bands of 4 rows (vertical edges on from random strengths,
// never on, or always), widths 16 to 300, thresholds 0 to 256 growing
// with the strength. A planted bug (kpix < k for kpix <= k in the
// AVX-512 kernel) fails it.
func TestDeblockHorizErrKernels(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	defer func(k bool) { hasAVX512BW = k }(hasAVX512BW)
	have := hasAVX512BW
	rng := rand.New(rand.NewPCG(42, 4))
	for trial := 0; trial < 300; trial++ {
		w := 16 + rng.IntN(285)
		rec, von, kpix, orig := make([]uint8, 4*w), make([]uint8, 4*w), make([]uint8, 4*w), make([]uint8, 4*w)
		base := rng.IntN(256)
		for i := range rec {
			if trial%3 == 0 {
				rec[i] = uint8(rng.IntN(256))
			} else {
				rec[i] = uint8(min(255, max(0, base+rng.IntN(13)-6)))
			}
			von[i] = uint8(min(255, max(0, int(rec[i])+rng.IntN(7)-3)))
			orig[i] = uint8(min(255, max(0, int(rec[i])+rng.IntN(11)-5)))
			kpix[i] = uint8(rng.IntN(maxDeblock + 2))
		}
		var th [24]int16
		a, b := int16(rng.IntN(3)), int16(rng.IntN(3))
		for k := range maxDeblock {
			a, b = min(256, a+int16(rng.IntN(30))), min(256, b+int16(rng.IntN(15)))
			th[k], th[8+k], th[16+k] = a, b, int16(k+1)
		}
		var want [maxDeblock]int64
		n := w &^ 15
		for x := 0; x < n; x++ {
			for k := 1; k <= maxDeblock; k++ {
				var px [4]int
				for r := range px {
					px[r] = int(rec[r*w+x])
					if int(kpix[r*w+x]) <= k {
						px[r] = int(von[r*w+x])
					}
				}
				if abs(px[2]-px[1]) < int(th[k-1]) && abs(px[0]-px[1]) < int(th[8+k-1]) && abs(px[3]-px[2]) < int(th[8+k-1]) {
					_, _, _, _, d := edgeMoved(px[0], px[1], px[2], px[3], int(orig[x]), int(orig[w+x]), int(orig[2*w+x]), int(orig[3*w+x]))
					want[k-1] += d
				}
			}
		}
		for _, on := range []bool{false, have} {
			hasAVX512BW = on
			var got [maxDeblock]int64
			if c := deblockHorizErrKernel(rec, von, kpix, orig, 0, w, &th, &got); c != n || got != want {
				t.Fatalf("trial %d w %d AVX-512 %v: %d columns, sums %v, want %d, %v", trial, w, on, c, got, n, want)
			}
		}
	}
}
