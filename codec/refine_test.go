package codec

import (
	"bytes"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
)

// TestRefineNearest checks the encoder's refinement of the SPCA cells in
// the entropy-constrained mode: it moves some patches, never raises a
// patch's D + λR, the decoder reads the refined cells unchanged, and
// AssignResponses turns it off.
func TestRefineNearest(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 3, 12, 0 })
	c := m.Channels[0]
	if c.levelInverse() == nil {
		t.Fatal("gamma-0 model without a separable inverse")
	}
	_, test := images()
	p := patches.Luminance(test[0])
	y, idx, _, _ := c.quantizePlane(p, m.Patch, false, false)
	before := append([]int32(nil), idx...)
	if !c.refineNearest(y, idx, m.Step) {
		t.Fatal("refineNearest did nothing on a gamma-0 model")
	}
	n, dims := y.Dims()
	k := c.Leading()
	li := c.levelInverse()
	s := c.SPCA.NewMetricScratch()
	lambda := refineLambda * m.Step * m.Step
	cost := func(row []int32, x []float64) float64 {
		cell := make([]int, k)
		for j := range cell {
			cell[j] = int(row[j])
		}
		rec := make([]float64, k)
		li.Invert(rec, cell, s)
		var r float64
		for j := 1; j < k; j++ {
			if d := abs(cell[j] - c.Centre[j]); d > 0 {
				r += refineNonzeroBits + float64(d-1)
			}
		}
		return dist2(rec, x) + lambda*r
	}
	moved := 0
	for i := 0; i < n; i++ {
		a, b := before[i*dims:(i+1)*dims], idx[i*dims:(i+1)*dims]
		for j := k; j < dims; j++ {
			if a[j] != b[j] {
				t.Fatalf("patch %d: dimension %d beyond SPCA changed", i, j+1)
			}
		}
		x := y.RawRowView(i)[:k]
		if cost(b, x) > cost(a, x)+1e-9 {
			t.Fatalf("patch %d: D+λR rose from %g to %g", i, cost(a, x), cost(b, x))
		}
		for j := 0; j < k; j++ {
			if a[j] != b[j] {
				moved++
				break
			}
		}
	}
	t.Logf("%d of %d patches moved", moved, n)
	if moved == 0 {
		t.Error("no patch moved")
	}
	// Files: refined by default, the responses' cells with
	// AssignResponses; both decode.
	var def, resp bytes.Buffer
	if err := Encode(&def, test[0], m, nil); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&resp, test[0], m, &Options{Assign: AssignResponses}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(def.Bytes(), resp.Bytes()) {
		t.Error("AssignResponses gave the refined file")
	}
	for _, b := range [][]byte{def.Bytes(), resp.Bytes()} {
		if _, err := Decode(bytes.NewReader(b), m); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRefine4 checks refine4, refineNearest's loop for 4 leading
// dimensions, against the loop for any number (refineK), with and
// without a warm cache: the same cells for every patch of a test image,
// coded at three steps (more moves at the finer ones).
func TestRefine4(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 4, 8, 0 })
	c := m.Channels[0]
	if c.Leading() != 4 || c.levelInverse() == nil || c.cellStrides() == nil {
		t.Fatalf("model with %d leading dimensions (separable: %v), want 4 with a cell cache", c.Leading(), c.levelInverse() != nil)
	}
	_, test := images()
	p := patches.Luminance(test[0])
	y, idx, _, _ := c.quantizePlane(p, m.Patch, false, false)
	n, _ := y.Dims()
	for _, step := range []float64{2, 8, 30} {
		rf := refiner{c: c, y: y, li: c.levelInverse(), strides: c.cellStrides(), lambda: refineLambda * step * step, s: c.SPCA.NewMetricScratch()}
		want, got := slices.Clone(idx), slices.Clone(idx)
		rf.idx, rf.cache = want, newCellCache(4, 8)
		rf.refineK(0, n)
		for _, cache := range []*cellCache{newCellCache(4, 8), rf.cache} {
			copy(got, idx)
			rf.idx, rf.cache = got, cache
			rf.refine4(0, n)
			if !slices.Equal(got, want) {
				t.Fatalf("step %g: refine4 chose other cells than refineK", step)
			}
		}
		moved := 0
		for i := range n {
			if !slices.Equal(idx[i*len(idx)/n:][:4], want[i*len(idx)/n:][:4]) {
				moved++
			}
		}
		t.Logf("step %g: %d of %d patches moved", step, moved, n)
		if moved == 0 {
			t.Errorf("step %g: nothing moved", step)
		}
	}
}
