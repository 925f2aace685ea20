package codec

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// checkerboard is a w×h image of black and white squares of side sq:
// sharp, saturated content, far outside natural-image training data.
func checkerboard(w, h, sq int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if (x/sq+y/sq)%2 == 0 {
				g.SetGray(x, y, color.Gray{Y: 255})
			}
		}
	}
	return g
}

func roundTrip(t *testing.T, img image.Image, m *Model) (rmse, bpp float64, file []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, img, m, nil); err != nil {
		t.Fatal(err)
	}
	d, err := Decode(bytes.NewReader(b.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	px := float64(img.Bounds().Dx() * img.Bounds().Dy())
	return patches.RMSE(patches.Luminance(img), patches.Luminance(d)), 8 * float64(b.Len()) / px, b.Bytes()
}

// TestOutliers checks the escape of patches far outside the training
// data: a checkerboard coded with a model trained on natural-like
// textures has the error of any other content (about step/√12 per
// pixel), where the model's own quantisers, which stop at the training
// range, gave an RMSE of 63 (PCA with the same quantisers 38, the colour
// checkerboard 82); content like the training data has almost no outliers, and
// files without outliers written in the layout before them (version 1)
// still decode to the same pixels.
func TestOutliers(t *testing.T) {
	m := stepModel(t)
	_, test := images()
	limit := 1.5 * m.Step / math.Sqrt(12)
	board := checkerboard(90, 60, 4)
	pca, err := m.pcaBaseline(0, m.Step)
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range []*Model{m, pca} {
		rmse, bpp, _ := roundTrip(t, board, mm)
		t.Logf("%d SPCA dimensions: checkerboard RMSE %.2f at %.2f bpp", mm.Channels[0].Leading(), rmse, bpp)
		if rmse > limit {
			t.Errorf("%d SPCA dimensions: checkerboard RMSE %.2f (at most %.2f)", mm.Channels[0].Leading(), rmse, limit)
		}
	}

	// Colour: each of Y, Cb, Cr has its own outliers (saturated red and
	// blue squares are far outside grey-ish textures in every channel).
	o := DefaultTrainOptions()
	o.Samples, o.Color, o.Patch, o.Gamma, o.Step = 4000, true, 3, 0, 6
	o.SPCA.Resolution = 1 << 12 // the escape does not depend on the lattice; a coarse one is fast
	cm, err := Train([]image.Image{testimages.ColorTexture(192, 128, 5), testimages.ColorTexture(192, 128, 6)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	rgb := image.NewRGBA(image.Rect(0, 0, 60, 45))
	for y := 0; y < 45; y++ {
		for x := 0; x < 60; x++ {
			if (x/4+y/4)%2 == 0 {
				rgb.Set(x, y, color.RGBA{R: 255, A: 255})
			} else {
				rgb.Set(x, y, color.RGBA{B: 255, G: 40, A: 255})
			}
		}
	}
	var cb bytes.Buffer
	if err := Encode(&cb, rgb, cm, nil); err != nil {
		t.Fatal(err)
	}
	dec, err := Decode(&cb, cm)
	if err != nil {
		t.Fatal(err)
	}
	if r := Quality(rgb, dec, true); r.RMSE > 1.5*limit {
		t.Errorf("colour checkerboard: RGB RMSE %.2f (at most %.2f)", r.RMSE, 1.5*limit)
	} else {
		t.Logf("colour checkerboard: RGB RMSE %.2f", r.RMSE)
	}

	c := m.Channels[0]
	for _, img := range test {
		y, idx, _, slow := c.quantizePlane(patches.Luminance(img), m.Patch, false, false)
		o := c.findOutliers(y, idx, m.Step, slow, nil, nil)
		t.Logf("test texture: %d outliers among %d patches", o.n, len(o.at))
		if frac := float64(o.n) / float64(len(o.at)); frac > 0.01 {
			t.Errorf("%.2f %% of the patches of a test texture are outliers", 100*frac)
		}
	}

	// The layouts of versions 1 (no outliers) and 2 (no last significant
	// dimensions), which older encoders wrote, decode to the same pixels.
	img := test[1]
	y, idx, _, slow := c.quantizePlane(patches.Luminance(img), m.Patch, false, false)
	if o := c.findOutliers(y, idx, m.Step, slow, nil, nil); o.n != 0 {
		t.Fatalf("%d outliers in the test image: choose another", o.n)
	}
	// Without the deblocking filter of version 5 and the loop filter of
	// version 9, which the older layouts do not have.
	var nb bytes.Buffer
	if err := Encode(&nb, img, m, &Options{Deblock: -1, NoLoopFilter: true}); err != nil {
		t.Fatal(err)
	}
	file := nb.Bytes()
	want := adaptiveVersion(m)
	if want == formatVersionShifts { // a grey image
		want = formatVersionFilter
	}
	if file[len(Magic)] != byte(want) {
		t.Fatalf("an entropy-constrained model wrote version %d", file[len(Magic)])
	}
	a, err := Decode(bytes.NewReader(file), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{formatVersion, formatVersionOutliers, formatVersionFlags} {
		var old bytes.Buffer
		if err := encodeVersion(&old, img, m, nil, v); err != nil {
			t.Fatal(err)
		}
		b, err := Decode(bytes.NewReader(old.Bytes()), m)
		if err != nil {
			t.Fatalf("version-%d layout: %v", v, err)
		}
		if !bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix) {
			t.Errorf("the version-%d layout decodes to other pixels", v)
		}
		t.Logf("version %d: %d bytes, version 5: %d", v, old.Len(), len(file))
		// The arithmetic coder of version 5 codes the same indices in
		// fewer bytes than the FSE streams of the older layouts.
		if v >= formatVersionOutliers && old.Len() <= len(file) {
			t.Errorf("version %d: %d bytes, not more than version 5's %d", v, old.Len(), len(file))
		}
	}
	// A version-3 file for a fixed-resolution model is refused.
	if _, err := Decode(bytes.NewReader(file), trainedModel(t)); err == nil {
		t.Error("a file of another model decoded")
	}
}

// TestRestSafe checks the cells whose coefficients findOutliers does not
// read: every value a safe cell holds (its thresholds' extremes, which
// bound the rounded difference) is within the limit of its level; the run
// is the longest of such inner cells, an end cell is never in it, and a
// quantiser with no such cell has a run that takes no index. It fails
// with the end cells counted as safe, a wide cell in the run or a run
// that is not the longest.
func TestRestSafe(t *testing.T) {
	const limit = 1.0
	// Cells: 0 end, 1-3 safe, 4 wide (1.3 above its level), 5-6 safe, 7 end.
	wide := &ScalarQuantizer{
		Thresholds: []float64{-3.5, -2.5, -1.5, -0.5, 1.5, 2.5, 3.5},
		Levels:     []float64{-4, -3, -2, -1, 0.2, 2, 3, 4},
	}
	// Cell 1 at exactly the limit on both sides is safe.
	edge := &ScalarQuantizer{Thresholds: []float64{-1, 1}, Levels: []float64{-2, 0, 2}}
	// Every inner cell wider than the limit: none is safe.
	none := &ScalarQuantizer{Thresholds: []float64{-2, 2, 6}, Levels: []float64{-3, 0, 4, 7}}
	one := &ScalarQuantizer{Levels: []float64{0}}
	c := &Channel{Rest: []*ScalarQuantizer{wide, edge, none, one}}
	safe := c.restSafe(limit)
	want := []struct{ first, last int }{{1, 3}, {1, 1}, {-1, -1}, {-1, -1}}
	for j, q := range c.Rest {
		for i := range q.Levels {
			in := uint32(int32(i)-safe[j].lo) <= safe[j].span
			if want := i >= want[j].first && i <= want[j].last && want[j].first >= 0; in != want {
				t.Errorf("quantiser %d cell %d: safe %v, want %v", j, i, in, want)
			}
			if in {
				l := q.Levels[i]
				for _, v := range []float64{math.Nextafter(q.Thresholds[i-1], math.Inf(1)), q.Thresholds[i]} {
					if math.Abs(v-l) > limit {
						t.Errorf("quantiser %d cell %d: %v is %v from its level", j, i, v, math.Abs(v-l))
					}
				}
			}
		}
	}
}

// restFarGo is findOutliers' loop over the cells q with coefficients
// row, as restFarAVX2 answers for it: 1 if one outside its safe run lies
// farther than limit from its level, else 0; 2 if the loop, reaching a
// cell outside its run past its quantiser's levels, panics.
func restFarGo(q []int32, row []float64, safe []cellRange, levels [][]float64, limit float64) (r int) {
	defer func() {
		if recover() != nil {
			r = 2
		}
	}()
	for j, c := range q {
		if uint32(c-safe[j].lo) > safe[j].span && math.Abs(row[j]-levels[j][c]) > limit {
			return 1
		}
	}
	return 0
}

// TestRestFar checks findOutliers' AVX2 kernel against the loop it
// stands for: cells at their safe run's ends, below it (the difference
// wraps), runs of 0 and of 2^32-1 cells and a lo past every cell; cells
// outside far from their levels, just within limit and just past it,
// coefficients NaN, ±Inf and ±0; cells past their quantiser's levels
// (the kernel leaves those patches to the loop, which fails on them as
// before, and must answer 2 exactly when the loop would reach one: it
// may answer 2 too where a far cell comes first in the same group of 8);
// lengths of 8 to 64.
func TestRestFar(t *testing.T) {
	if !hasGather {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(24, 13))
	var sc encodeScratch
	const limit = 1.5
	for trial := range 6000 {
		n := 8 * (1 + trial%8)
		q, row := make([]int32, n), make([]float64, n)
		safe, qs, levels := make([]cellRange, n), make([]*ScalarQuantizer, n), make([][]float64, n)
		bad := false // a cell outside its run past its levels
		for j := range n {
			nl := 1 + rng.IntN(40)
			lv := make([]float64, nl)
			for i := range lv {
				lv[i] = float64(i-nl/2) * 3
			}
			qs[j], levels[j] = &ScalarQuantizer{Levels: lv}, lv
			l := int32(rng.IntN(nl + 1))
			s := []uint32{0, 1, 5, 1<<32 - 1, uint32(rng.IntN(30))}[rng.IntN(5)]
			v := int32(rng.IntN(nl))
			if rng.IntN(3*n) == 0 {
				v = []int32{-1, int32(nl), int32(nl) + 7, math.MinInt32, math.MaxInt32}[rng.IntN(5)]
			}
			q[j], safe[j] = v, cellRange{lo: l, span: s}
			out := uint32(v-l) > s
			bad = bad || out && (v < 0 || int(v) >= nl)
			level := 0.0
			if v >= 0 && int(v) < nl {
				level = lv[v]
			}
			switch rng.IntN(10) {
			case 0:
				row[j] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}[rng.IntN(5)]
			case 1:
				row[j] = level + []float64{limit, -limit, math.Nextafter(limit, 2), -math.Nextafter(limit, 2)}[rng.IntN(4)]
			case 2:
				row[j] = level + 100*rng.NormFloat64()
			default:
				row[j] = level + rng.Float64() - 0.5
			}
		}
		f := newRestFar(&Channel{Rest: qs}, safe, &sc)
		got := restFarAVX2(q, row, f.lo, f.span, f.at, f.lenB, f.flat, limit)
		want := restFarGo(q, row, safe, levels, limit)
		if got != want && !(got == 2 && bad) {
			t.Fatalf("trial %d: %d, want %d (q %v safe %v row %v)", trial, got, want, q, safe, row)
		}
	}
}

// TestLevelsKernel checks eachPatch's gather of the rest levels against
// the lookup it stands for, levels[j][ix[j]], with levelsAVX2 and
// levelsCentreAVX2: lengths 0 to 160 by fours, quantisers of 1 to 40
// levels (the table's places growing from 0), indices at their centres
// (mostly, a third of the time), at each end of their levels, and past
// them (count, count+5, -1, the int32 extremes), where the kernels must
// report false.
func TestLevelsKernel(t *testing.T) {
	if !hasGather {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(31, 7))
	for trial := range 4000 {
		n := 4 * (trial % 17)
		if trial%5 == 0 {
			n = 4 * (trial % 41) // levelsCentreAVX2's chunks of 64 and more
		}
		rest := make([]*ScalarQuantizer, n+rng.IntN(3))
		centre := make([]int, len(rest)) // no leading dimensions
		for j := range rest {
			lv := make([]float64, 1+rng.IntN(40))
			for i := range lv {
				lv[i] = rng.NormFloat64() * 100
			}
			rest[j] = &ScalarQuantizer{Levels: lv}
			centre[j] = rng.IntN(len(lv))
		}
		c := &Channel{Rest: rest, Centre: centre}
		lt := c.restLevels()
		if lt.ctr == nil {
			t.Fatal("centres within their levels, but no centre table")
		}
		ix, y, yc := make([]int32, n), make([]float64, n), make([]float64, n)
		bad := false
		for j := range ix {
			nl := len(rest[j].Levels)
			ix[j] = []int32{0, int32(nl - 1), int32(rng.IntN(nl)), int32(centre[j]), int32(centre[j])}[rng.IntN(5)]
			if trial%3 == 0 && rng.IntN(8) > 0 {
				ix[j] = int32(centre[j]) // patches mostly at their centres
			}
			if rng.IntN(2*n) == 0 {
				ix[j] = []int32{int32(nl), int32(nl) + 5, -1, math.MinInt32, math.MaxInt32}[rng.IntN(5)]
				bad = true
			}
		}
		ok := levelsAVX2(y, ix, lt.at, lt.lenB, lt.flat)
		st := levelsCentreAVX2(yc, ix, lt.ctr[:n], lt.ctrLev[:n], lt.at, lt.lenB, lt.flat)
		if okc := st != 0; ok == bad || okc == bad {
			t.Fatalf("trial %d: kernels report %v and %v (centres) with an index past the levels %v", trial, ok, okc, bad)
		}
		if at := slices.Equal(ix, lt.ctr[:n]); st != 0 && (st == 2) != at {
			t.Fatalf("trial %d: levelsCentreAVX2 %d, every index at its centre %v", trial, st, at)
		}
		if !ok {
			continue
		}
		for j, v := range y {
			if want := rest[j].Levels[ix[j]]; math.Float64bits(v) != math.Float64bits(want) || math.Float64bits(yc[j]) != math.Float64bits(want) {
				t.Fatalf("trial %d: y[%d] = %v and %v (centres), want %v", trial, j, v, yc[j], want)
			}
		}
	}
	// A centre outside its levels: no centre table (levelsAVX2 then).
	c := &Channel{Rest: []*ScalarQuantizer{{Levels: []float64{1, 2}}}, Centre: []int{2}}
	if lt := c.restLevels(); lt.ctr != nil || lt.ctrLev != nil {
		t.Fatal("a centre outside its levels, but a centre table")
	}
}
