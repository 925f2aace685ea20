package codec

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEdgeVersion checks format version 6 against version 5 on the same
// indices: the same pixels in fewer bytes, and version 6 refused for a
// model whose first indices cannot be predicted from pixels (gamma > 0).
func TestEdgeVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	var size5, size6 int
	for _, img := range test {
		var b5, b6 bytes.Buffer
		if err := encodeVersion(&b5, img, m, nil, formatVersionAdaptive); err != nil {
			t.Fatal(err)
		}
		if err := encodeVersion(&b6, img, m, nil, formatVersionEdges); err != nil {
			t.Fatal(err)
		}
		a, err := Decode(bytes.NewReader(b5.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(bytes.NewReader(b6.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix) {
			t.Error("versions 5 and 6 decode to other pixels")
		}
		size5 += b5.Len()
		size6 += b6.Len()
	}
	t.Logf("version 5: %d bytes, version 6: %d", size5, size6)
	if size6 >= size5 {
		t.Errorf("version 6 takes %d bytes, version 5 %d", size6, size5)
	}
	var b bytes.Buffer
	for _, v := range []int{formatVersionEdges, formatVersionCounts, formatVersionShifts, formatVersionFilter} {
		if err := encodeVersion(&b, test[0], smallStepModel(t), nil, v); err == nil {
			t.Errorf("version %d written for a gamma-1/3 model", v)
		}
	}
}

// TestCountVersion checks format version 7 against version 6 on the same
// indices: it decodes to the same pixels in fewer bytes, also at another
// step.
func TestCountVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	var size6, size7 int
	for _, o := range []*Options{nil, {Step: 1.7 * m.Step}} {
		for _, img := range test {
			var b6, b7 bytes.Buffer
			if err := encodeVersion(&b6, img, m, o, formatVersionEdges); err != nil {
				t.Fatal(err)
			}
			if err := encodeVersion(&b7, img, m, o, formatVersionCounts); err != nil {
				t.Fatal(err)
			}
			a, err := Decode(bytes.NewReader(b6.Bytes()), m)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Decode(bytes.NewReader(b7.Bytes()), m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix) {
				t.Error("versions 6 and 7 decode to other pixels")
			}
			size6 += b6.Len()
			size7 += b7.Len()
		}
	}
	t.Logf("version 6: %d bytes, version 7: %d", size6, size7)
	if size7 >= size6 {
		t.Errorf("version 7 takes %d bytes, version 6 %d", size7, size6)
	}
}

// TestNearestSorted checks the bisection of predict against its scan on
// increasing levels, with targets on, between and beyond them and levels
// so close that rounding makes distances equal.
func TestNearestSorted(t *testing.T) {
	scan := nearestScan
	rng := rand.New(rand.NewPCG(24, 1))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(40)
		first := make([]float64, n)
		v := rng.NormFloat64() * 100
		for b := range first {
			first[b] = v
			if rng.IntN(4) == 0 {
				v = math.Nextafter(v, math.Inf(1)) // neighbours one ulp apart
			} else {
				v += rng.Float64() * 10
			}
		}
		if !increasing(first) {
			t.Fatalf("trial %d: levels not increasing", trial)
		}
		guide := newLevelGuide(first, true)
		if n > 1 && first[n-1]-first[0] > 1e-300 && guide.start == nil {
			t.Fatalf("trial %d: no guide table for levels %v", trial, first)
		}
		wrong := guide
		if guide.start != nil {
			wrong.start = make([]int32, len(guide.start))
			for b := range wrong.start {
				wrong.start[b] = int32(rng.IntN(n + 1))
			}
		}
		targets := []float64{first[0] - 1, first[n-1] + 1, math.Inf(1), math.Inf(-1), math.NaN()}
		for range 20 {
			targets = append(targets, first[0]+(rng.Float64()*1.2-0.1)*(first[n-1]-first[0]))
		}
		for b := range first {
			targets = append(targets, first[b], math.Nextafter(first[b], 0))
			if b > 0 {
				targets = append(targets, (first[b-1]+first[b])/2)
			}
		}
		for _, y0 := range targets {
			want := scan(first, y0)
			if got := nearestSorted(first, y0); got != want {
				t.Fatalf("levels %v, target %v: bisection %d, scan %d", first, y0, got, want)
			}
			if got := guide.nearest(y0); got != want {
				t.Fatalf("levels %v, target %v: guide %d, scan %d", first, y0, got, want)
			}
			// The walks find the bracket from any start, right or wrong.
			if got := wrong.nearest(y0); got != want {
				t.Fatalf("levels %v, target %v: guide from wrong starts %d, scan %d", first, y0, got, want)
			}
			// And from any interval, right or wrong.
			for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 1e300,
				float64(len(guide.start)), rng.Float64() * float64(2*n+2)} {
				if got := guide.nearestAt(y0, f); got != want {
					t.Fatalf("levels %v, target %v, interval %v: guide %d, scan %d", first, y0, f, got, want)
				}
			}
			// The interval from the predictor's mean, whose target y0 is.
			m, w := rng.NormFloat64()*50, rng.NormFloat64()*3
			mean := float64(y0*w) + m
			g := guide
			g.byMean(m, w)
			if y := float64(mean-m) / w; w != 0 {
				if got, want := g.nearestMean(y, mean), scan(first, y); got != want {
					t.Fatalf("levels %v, mean %v (m %v, w %v): guide %d, scan %d", first, mean, m, w, got, want)
				}
			}
		}
	}
	if increasing([]float64{1, 1}) || increasing([]float64{math.NaN()}) || increasing(nil) {
		t.Error("increasing accepts levels that do not increase")
	}
}

// TestTrackedCells checks that the cells the edge predictor inverts as it
// goes are exactly the rows and references leadRows' distinctRows makes
// from the same indices, and that its edges do not change with tracking.
func TestTrackedCells(t *testing.T) {
	m := stepModel(t)
	c := m.Channels[0]
	if !c.edgePredictable() || c.Leading() == 0 {
		t.Skip("the model's channel has no predictable SPCA dimensions")
	}
	const cols, blocks = 30, 600
	dims, k := c.Dims(), c.Leading()
	rng := rand.New(rand.NewPCG(24, 2))
	idx := make([]int32, blocks*dims)
	for i := 0; i < blocks; i++ {
		for j := 0; j < dims; j++ {
			// Near the centre, so that cells repeat as in images.
			v := c.Centre[j] + rng.IntN(5) - 2
			idx[i*dims+j] = int32(min(max(v, 0), c.Bins[j]-1))
		}
	}
	plain, tracked := c.newEdgePredictor(blocks, cols), c.newEdgePredictor(blocks, cols)
	// As trackCells, whether or not the channel has a codebook.
	tracked.track(c, blocks, nil)
	for i := 0; i < blocks; i++ {
		plain.update(i, idx[i*dims:(i+1)*dims])
		tracked.update(i, idx[i*dims:(i+1)*dims])
	}
	for i := 0; i < blocks; i++ {
		if plain.right[i] != tracked.right[i] || plain.low[i] != tracked.low[i] || plain.mean[i] != tracked.mean[i] {
			t.Fatalf("patch %d: edges differ with tracking", i)
		}
	}
	got, ok := tracked.leadCells()
	if !ok {
		t.Fatal("no cells tracked")
	}
	rows, ref := c.distinctRows(idx, blocks)
	if len(rows) != len(got.rows) || len(rows) >= blocks*k {
		t.Fatalf("%d rows tracked, distinctRows %d (of %d patches)", len(got.rows)/k, len(rows)/k, blocks)
	}
	for i := range rows {
		if math.Float64bits(rows[i]) != math.Float64bits(got.rows[i]) {
			t.Fatalf("row value %d: tracked %v, distinctRows %v", i, got.rows[i], rows[i])
		}
	}
	for i := range ref {
		if ref[i] != got.ref[i] {
			t.Fatalf("patch %d: tracked row %d, distinctRows %d", i, got.ref[i], ref[i])
		}
	}
	if _, ok := plain.leadCells(); ok {
		t.Error("leadCells without tracking")
	}
}

// TestPooledPredictor checks that a predictor handed back after one image
// and taken again for another of another size (takeEdgePredictor) predicts
// and tracks cells exactly as a fresh one does: nothing of the first image
// may leak into the second.
func TestPooledPredictor(t *testing.T) {
	m := stepModel(t)
	c := m.Channels[0]
	if !c.edgePredictable() || c.Leading() == 0 {
		t.Skip("the model's channel has no predictable SPCA dimensions")
	}
	dims := c.Dims()
	rng := rand.New(rand.NewPCG(24, 3))
	indices := func(blocks, spread int) []int32 {
		idx := make([]int32, blocks*dims)
		for i := range idx {
			j := i % dims
			v := c.Centre[j] + rng.IntN(2*spread+1) - spread
			idx[i] = int32(min(max(v, 0), c.Bins[j]-1))
		}
		return idx
	}
	first := c.takeEdgePredictor(2400, 60)
	a := indices(2400, 4)
	for i := 0; i < 2400; i++ {
		first.update(i, a[i*dims:(i+1)*dims])
	}
	c.putEdgePredictor(first)
	const cols, blocks = 20, 600
	b := indices(blocks, 2)
	copy(b[:dims], a[(2400-1)*dims:]) // the cell update saw last: not to be taken from the earlier image
	pooled := c.takeEdgePredictor(blocks, cols)
	if pooled != first {
		t.Fatal("the predictor handed back was not reused")
	}
	fresh := c.newEdgePredictor(blocks, cols)
	fresh.trackCells(c, blocks)
	for i := 0; i < blocks; i++ {
		row := b[i*dims : (i+1)*dims]
		if i%cols > 0 && i >= cols {
			if p, q := pooled.predict(i, i%cols, 0), fresh.predict(i, i%cols, 0); p != q {
				t.Fatalf("patch %d: pooled predictor says %d, fresh one %d", i, p, q)
			}
		}
		pooled.update(i, row)
		fresh.update(i, row)
	}
	got, ok1 := pooled.leadCells()
	want, ok2 := fresh.leadCells()
	if ok1 != ok2 || len(got.ref) != blocks || !slices.Equal(got.ref, want.ref) || len(got.rows) != len(want.rows) {
		t.Fatalf("pooled cells: %d refs, %d rows; fresh: %d refs, %d rows", len(got.ref), len(got.rows), len(want.ref), len(want.rows))
	}
	for i := range want.rows {
		if math.Float64bits(got.rows[i]) != math.Float64bits(want.rows[i]) {
			t.Fatalf("row value %d: pooled %v, fresh %v", i, got.rows[i], want.rows[i])
		}
	}
	c.putEdgePredictor(pooled)
}

// TestUpdateTo checks that update stopping at a row's last index off its
// centre (updateTo, as the decoder calls it) records the same edges as
// update over the whole row.
func TestUpdateTo(t *testing.T) {
	m := stepModel(t)
	c := m.Channels[0]
	if !c.edgePredictable() {
		t.Skip("the model's channel is not edge-predictable")
	}
	const cols, blocks = 30, 600
	p := c.newEdgePredictor(blocks, cols)
	if !p.centreZero {
		t.Skip("centre levels not 0: updateTo visits every dimension")
	}
	whole, upTo, listed := c.newEdgePredictor(blocks, cols), c.newEdgePredictor(blocks, cols), c.newEdgePredictor(blocks, cols)
	// Tracking cells, updateListed takes updateListedTracked.
	var tracked *edgePredictor
	if c.Leading() > 0 && c.cellsNumbered(blocks) {
		tracked = c.newEdgePredictor(blocks, cols)
		tracked.track(c, blocks, nil)
		if !tracked.trackedListed {
			t.Fatal("a tracking predictor with centre levels 0 does not take updateListedTracked")
		}
	}
	rng := rand.New(rand.NewPCG(24, 4))
	for i := 0; i < blocks; i++ {
		row, end, off := randomPatchRow(rng, c)
		whole.update(i, row)
		upTo.updateTo(i, row, end)
		listed.updateListed(i, row, end, off)
		if tracked != nil {
			tracked.updateListed(i, row, end, off)
			if math.Float64bits(whole.right[i]) != math.Float64bits(tracked.right[i]) || math.Float64bits(whole.low[i]) != math.Float64bits(tracked.low[i]) ||
				math.Float64bits(whole.mean[i]) != math.Float64bits(tracked.mean[i]) {
				t.Fatalf("patch %d: updateListedTracked's edges differ from update's", i)
			}
		}
		if whole.right[i] != upTo.right[i] || whole.low[i] != upTo.low[i] || whole.mean[i] != upTo.mean[i] {
			t.Fatalf("patch %d (centre from %d on): updateTo's edges differ from update's", i, end)
		}
		if math.Float64bits(whole.right[i]) != math.Float64bits(listed.right[i]) || math.Float64bits(whole.low[i]) != math.Float64bits(listed.low[i]) ||
			math.Float64bits(whole.mean[i]) != math.Float64bits(listed.mean[i]) {
			t.Fatalf("patch %d: updateListed's edges differ from update's", i)
		}
	}
}

// randomPatchRow returns indices of a patch of c: at their centres from
// a random end on, before it each off its centre (by at most 2) half the
// time; and the dimensions from the leading ones on off their centre, as
// the decoder lists them for updateListed.
func randomPatchRow(rng *rand.Rand, c *Channel) (row []int32, end int, off []int32) {
	dims := c.Dims()
	row = make([]int32, dims)
	end = rng.IntN(dims + 1)
	for j := range row {
		row[j] = int32(c.Centre[j])
		if j < end && rng.IntN(2) == 0 {
			row[j] = int32(min(max(c.Centre[j]+rng.IntN(5)-2, 0), c.Bins[j]-1))
		}
	}
	for j := c.Leading(); j < dims; j++ {
		if int(row[j]) != c.Centre[j] {
			off = append(off, int32(j))
		}
	}
	return row, end, off
}

// TestLocoMedian checks locoMedian, which selects by masks, against
// LOCO-I's median selected by branches, bit for bit: on random means,
// many of them equal, and on NaN, ±Inf and ±0 in every position (where
// a, b and c tie, both masks are set and min(a, b) must win).
func TestLocoMedian(t *testing.T) {
	branchy := func(a, b, c float64) float64 {
		switch {
		case c >= max(a, b):
			return min(a, b)
		case c <= min(a, b):
			return max(a, b)
		}
		return float64(a + b - c)
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 0.5, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
	check := func(a, b, c float64) {
		if got, want := locoMedian(a, b, c), branchy(a, b, c); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("locoMedian(%v, %v, %v) = %v (%#x), want %v (%#x)", a, b, c, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	for _, a := range special {
		for _, b := range special {
			for _, c := range special {
				check(a, b, c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 46))
	for range 100000 {
		v := [3]float64{rng.NormFloat64() * 100, float64(rng.IntN(5)), rng.Float64()}
		check(v[rng.IntN(3)], v[rng.IntN(3)], v[rng.IntN(3)])
		check(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
	}
}

// TestUpdateListedCentres checks updateListed where some dimensions'
// centre levels are not 0 (the colour models' chroma: sumsListedCentres)
// against update over the whole row, bit for bit, tracking cells and
// not: predictors of stepModel's channel whose levels of every third
// dimension after the leading ones have a centre level off 0 (one of
// them -0, which the sums skip as they skip 0).
func TestUpdateListedCentres(t *testing.T) {
	c := stepModel(t).Channels[0]
	if !c.edgePredictable() {
		t.Skip("the model's channel is not edge-predictable")
	}
	k := c.Leading()
	const cols, blocks = 30, 600
	var tracked *edgePredictor
	if k > 0 && c.cellsNumbered(blocks) {
		tracked = c.newEdgePredictor(blocks, cols)
		tracked.track(c, blocks, nil)
	}
	whole, listed := c.newEdgePredictor(blocks, cols), c.newEdgePredictor(blocks, cols)
	for _, p := range []*edgePredictor{whole, listed, tracked} {
		if p == nil {
			continue
		}
		p.levels = slices.Clone(p.levels)
		for j := 1; j < len(p.levels); j += 3 {
			l := slices.Clone(p.levels[j])
			l[c.Centre[k+j]] = 0.01 * float64(j-5)
			if j == 4 {
				l[c.Centre[k+j]] = math.Copysign(0, -1)
			}
			p.levels[j] = l
		}
		p.centres(c.Centre)
		if p.centreZero || p.centreTerms == nil {
			t.Fatal("centre levels off 0, but centreZero or no centreTerms")
		}
		p.trackedListed = false
	}
	rng := rand.New(rand.NewPCG(32, 1))
	for i := 0; i < blocks; i++ {
		row, end, off := randomPatchRow(rng, c)
		whole.update(i, row)
		for _, p := range []*edgePredictor{listed, tracked} {
			if p == nil {
				continue
			}
			p.updateListed(i, row, end, off)
			if math.Float64bits(whole.right[i]) != math.Float64bits(p.right[i]) || math.Float64bits(whole.low[i]) != math.Float64bits(p.low[i]) ||
				math.Float64bits(whole.mean[i]) != math.Float64bits(p.mean[i]) {
				t.Fatalf("patch %d (tracking %v): updateListed's edges differ from update's", i, p == tracked)
			}
		}
	}
}
