package codec

import (
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestFastLookAhead checks the fast path's look-ahead (lookAhead: the
// table cell of the next row located, and its corners hinted, while a
// row is refined) on a 4×4 model read from its file, as the CLI reads it:
// every row, quantised with its cell located ahead, unfolds to the same
// coordinates and verdict, and takes the same indices, as with responses
// alone; the look-ahead is in use for every row after a block's first;
// and quantizeFast (which looks ahead) gives the indices and exact-path
// rows of the rows quantised one by one without it.
func TestFastLookAhead(t *testing.T) {
	m := rereadModel(t, reuseTestModels(t)[1])
	c := m.Channels[0]
	fp, err := c.loadFast()
	if err != nil || fp == nil || fp.k != 4 {
		t.Fatalf("4×4 model: fast path %v (k %d), %v", fp != nil, c.Leading(), err)
	}
	x, _ := patches.Extract(patches.Luminance(testimages.Texture(200, 136, 9)), m.Patch)
	y := c.PCA.Forward(nil, x)
	n, dims := y.Dims()
	lead, rest := c.finders()
	ahead, alone := newFastScratch(fp, c.SPCA, 4), newFastScratch(fp, c.SPCA, 4)
	want := make([]int32, n*dims)
	var misses []int
	out := make([]int32, dims)
	for i := range n {
		row := y.RawRowView(i)
		if i > 0 && ahead.ahead.row != &row[0] {
			t.Fatalf("row %d: not located ahead", i)
		}
		if i+1 < n {
			ahead.next = y.RawRowView(i + 1)
		}
		okA := c.fastRow(ahead, row, out, lead, rest)
		okB := c.fastRow(alone, row, want[i*dims:(i+1)*dims], lead, rest)
		if okA != okB || okA && (!slices.Equal(ahead.u, alone.u) || !slices.Equal(out, want[i*dims:(i+1)*dims])) {
			t.Fatalf("row %d: with the look-ahead %v %v %v, without %v %v %v", i, okA, ahead.u, out, okB, alone.u, want[i*dims:(i+1)*dims])
		}
		if !okB {
			misses = append(misses, i)
		}
	}
	got := make([]int32, n*dims)
	exact := c.quantizeFast(y, got)
	if !slices.Equal(exact, c.quantizeMisses(y, want, [][]int{misses})) || !slices.Equal(got, want) {
		t.Fatalf("quantizeFast: %d exact rows, %d indices differ from the rows one by one (%d exact)", len(exact), diffCount(got, want), len(misses))
	}
	t.Logf("%d rows, %d by the exact path", n, len(misses))
}

func diffCount(a, b []int32) int {
	d, _, _ := disagreement(a, b)
	return d
}
