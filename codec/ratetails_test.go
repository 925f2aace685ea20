package codec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestRestTails checks that where rateEstimate finds each row's rest to
// end from restTails (the magnitudes that exceed every later one) is the
// last coefficient whose cell is not zero, as a scan from the end finds
// it, at steps from fine to coarse; and that absMax is each
// coefficient's largest magnitude over the rows taken.
func TestRestTails(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 })
	img := testimages.Texture(192, 128, 65)
	in := &encodeInput{share: true}
	defer in.release()
	if newRateModel(img, m, &Options{}, in, 192*128) == nil {
		t.Fatal("no rate model")
	}
	tf := in.chans[0]
	_, dims := tf.y.Dims()
	// Rows with zeros, equal magnitudes of either sign and a NaN.
	row := tf.y.RawRowView(0)
	for j := 1; j < dims; j++ {
		row[j] = 0
	}
	row = tf.y.RawRowView(1)
	for j := 1; j < dims; j++ {
		row[j] = math.Copysign(3, float64(j%2)-0.5)
	}
	tf.y.RawRowView(2)[dims/2] = math.NaN()
	taken, checked := checkRestTails(t, tf, restFrom(m.Channels[0].Leading()))
	t.Logf("%d rows taken, %d ends checked", taken, checked)
}

// checkRestTails checks tf's restTails from lead on (TestRestTails)
// and returns how many rows it took and ends it checked.
func checkRestTails(t *testing.T, tf *stepFree, lead int) (taken, checked int) {
	t.Helper()
	rows, dims := tf.y.Dims()
	cols := tf.grid.Cols()
	tl := tf.restTails(lead, cols)
	for i0 := 0; i0 < rows; i0 += estRowStride * cols {
		for i := i0; i < min(rows, i0+cols); i++ {
			taken++
			r := tf.y.RawRowView(i)
			for _, step := range []float64{0.01, 1, 2.5, 3 / (1 - deadZone), 10, 40, 1e6} {
				inv := 1 / step
				want := lead
				for j := dims - 1; j >= lead; j-- {
					if estCell(r[j]*inv) != 0 {
						want = j + 1
						break
					}
				}
				got := lead
				for e := tl.at[i]; e < tl.at[i+1]; e++ {
					if estCell(math.Float64frombits(tl.mag[e])*inv) != 0 {
						got = int(tl.j[e]) + 1
						break
					}
				}
				if got != want {
					t.Fatalf("row %d step %g: rest ends at %d, want %d", i, step, got, want)
				}
				checked++
			}
		}
		for i := i0 + cols; i < min(rows, i0+estRowStride*cols); i++ {
			if tl.at[i] != tl.at[i+1] {
				t.Fatalf("row %d, not taken, has magnitudes", i)
			}
		}
	}
	for j := lead; j < dims; j++ {
		want := 0.0
		for i0 := 0; i0 < rows; i0 += estRowStride * cols {
			for i := i0; i < min(rows, i0+cols); i++ {
				if v := math.Abs(tf.y.At(i, j)); v > want || math.IsNaN(v) {
					want = v
				}
			}
		}
		if got := tl.absMax[j]; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("coefficient %d: largest magnitude %v, want %v", j, got, want)
		}
	}
	return taken, checked
}

// TestCentredDeadZoneScaled checks that the lead quantiser's one pass
// gives centredDeadZoneIn's levels and thresholds bit for bit on scaled
// columns (responses whose values fall on the cells' edges, signed
// zeros, a column of one value), and leaves a column with a NaN or an
// infinity to it (nil, no error).
func TestCentredDeadZoneScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, k = 2000, 3
	norm := make([]float64, n*k)
	for i := 0; i < n; i++ {
		norm[i*k] = rng.NormFloat64() * 0.2
		norm[i*k+1] = float64(rng.IntN(40)-20) / 24 // on edges at scale 8 (1/3 of a cell)
		norm[i*k+2] = 0.25
	}
	norm[3*k+1], norm[4*k+1] = math.Copysign(0, -1), 0
	colRange := func(j int) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for i := j; i < len(norm); i += k {
			lo, hi = min(lo, norm[i]), max(hi, norm[i])
		}
		return lo, hi
	}
	for j := 0; j < k; j++ {
		for _, scale := range []float64{1, 8, 24, 100.7} {
			for _, mid := range []float64{0, 0.5, -1.25} {
				col := make([]float64, n)
				for i := range col {
					col[i] = norm[i*k+j] * scale
				}
				want, errW := centredDeadZoneIn(col, mid)
				lo, hi := colRange(j)
				got, errG := centredDeadZoneScaled(norm, k, j, scale, mid, lo, hi)
				if (errW == nil) != (errG == nil) || got == nil && errG == nil {
					t.Fatalf("column %d scale %g mid %g: %v, %v (want %v)", j, scale, mid, got, errG, errW)
				}
				if errW != nil {
					continue
				}
				if !bitsEqual(got.Levels, want.Levels) || !bitsEqual(got.Thresholds, want.Thresholds) {
					t.Errorf("column %d scale %g mid %g: %v / %v, want %v / %v", j, scale, mid, got.Levels, got.Thresholds, want.Levels, want.Thresholds)
				}
			}
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		norm[5*k] = bad
		lo, hi := colRange(0)
		if q, err := centredDeadZoneScaled(norm, k, 0, 1, 0, lo, hi); q != nil || err != nil {
			t.Errorf("a column with %v: %v, %v; want neither", bad, q, err)
		}
	}
}
