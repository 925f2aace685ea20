package codec

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// refFitLoopFilter is fitLoopFilter written plainly: the normal equations
// summed pixel by pixel over the whole image, in the same order, with the
// reconstruction read through clamped coordinates instead of padded
// bands.
func refFitLoopFilter(orig []float64, rec []uint8, w, h int) ([loopTaps]int8, bool) {
	var taps [loopTaps]int8
	if w < 1 || h < 1 {
		return taps, false
	}
	ata, atb := refLoopFitSums(orig, rec, w, h)
	a := mat.NewSymDense(loopTaps, nil)
	b := mat.NewVecDense(loopTaps, nil)
	for k := range loopTaps {
		for l := k; l < loopTaps; l++ {
			v := ata[k][l]
			if k == l {
				v++
			}
			a.SetSym(k, l, v)
		}
		b.SetVec(k, atb[k])
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return taps, false
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, b); err != nil {
		return taps, false
	}
	nonzero := false
	for k := range taps {
		v := math.Round(x.AtVec(k) * (1 << loopShift))
		taps[k] = int8(math.Max(-128, math.Min(127, v)))
		nonzero = nonzero || taps[k] != 0
	}
	return taps, nonzero
}

// refLoopFitSums is refFitLoopFilter's normal equations: pixel by pixel
// over the whole image, each d_k·e rounded and added in the order of the
// pixels (fitLoopFilter's float64 sums, to the last bit), the d_k·d_l
// sums exact.
func refLoopFitSums(orig []float64, rec []uint8, w, h int) (ata [loopTaps][loopTaps]float64, atb [loopTaps]float64) {
	sy, sx := loopFitRows, loopFitCols
	if h < 8*sy || w < 8*sx {
		sy, sx = 1, 1
	}
	at := func(y, x int) float64 { return float64(rec[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]) }
	var dk [loopTaps]float64
	for y := 0; y < h; y += sy {
		for x := (y / sy) % sx; x < w; x += sx {
			for k, o := range loopOffsets {
				dk[k] = at(y+o[0], x+o[1]) + at(y-o[0], x-o[1]) - 2*at(y, x)
			}
			e := orig[y*w+x] - at(y, x)
			for k := range loopTaps {
				atb[k] += float64(dk[k] * e)
				for l := k; l < loopTaps; l++ {
					ata[k][l] += dk[k] * dk[l]
				}
			}
		}
	}
	return ata, atb
}

// The loop filter fit sums its normal equations band by band of
// loopFitBand rows (3159b61): the taps must be those of the whole-image
// sums for every shape, heights below, at and around multiples of the
// band and of the sampling step, thin images and images smaller than the
// filter's support, from 8-bit and from fractional originals (whose sums
// leave the whole-number path partway down the image).
func TestFitLoopFilterBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][2]int{{1, 1}, {1, 40}, {40, 1}, {2, 3}, {7, 5}, {16, 15}, {15, 16}, {17, 31}, {33, 32},
		{20, 33}, {19, 63}, {21, 64}, {23, 65}, {3, 97}, {97, 3}, {40, 129}}
	for _, s := range shapes {
		w, h := s[0], s[1]
		orig8 := make([]uint8, w*h)
		rec := make([]uint8, w*h)
		for i := range orig8 {
			// A smooth ramp plus noise, its reconstruction blurred
			// along rows: the fit has something to undo.
			orig8[i] = uint8(min(255, (i%w)*7+(i/w)*3+rng.IntN(40)))
		}
		for i := range rec {
			x := i % w
			rec[i] = uint8((int(orig8[i-x+max(x-1, 0)]) + 2*int(orig8[i]) + int(orig8[i-x+min(x+1, w-1)])) / 4)
		}
		o := make([]float64, w*h)
		frac := make([]float64, w*h)
		for i, v := range orig8 {
			o[i] = float64(v)
			frac[i] = float64(v)
			if i >= w*h/2 {
				frac[i] += 0.25 // not whole from the middle on
			}
		}
		want, wantOK := refFitLoopFilter(o, rec, w, h)
		for _, c := range []struct {
			name  string
			orig  []float64
			orig8 []uint8
		}{{"8-bit", o, orig8}, {"float64 whole", o, nil}} {
			if got, ok := fitLoopFilter(c.orig, c.orig8, rec, w, h); got != want || ok != wantOK {
				t.Errorf("%d×%d, %s: taps %v (%v), whole-image sums give %v (%v)", w, h, c.name, got, ok, want, wantOK)
			}
		}
		wantF, okF := refFitLoopFilter(frac, rec, w, h)
		if got, ok := fitLoopFilter(frac, nil, rec, w, h); got != wantF || ok != okF {
			t.Errorf("%d×%d, fractional: taps %v (%v), whole-image sums give %v (%v)", w, h, got, ok, wantF, okF)
		}
	}
}
