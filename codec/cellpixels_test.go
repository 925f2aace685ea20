package codec

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/spcalab/spca/patches"
)

// TestCellPixels reconstructs planes of a channel whose centre levels
// are not all 0 (the Cb channel of kernelModels' 4×4 colour model) from
// indices whose patches share a few leading cells, their rest indices
// all at their centres 3 times in 4 (else each off its centre half the
// time): eachPatch keeps the pixels of the centred ones per cell
// (cellPixels), and must give every sample it gives without
// (keepCellPixels off), bit for bit; the test fails if no cell was kept.
func TestCellPixels(t *testing.T) {
	if !hasGather {
		// eachPatch reads the centres from the levels table, which it
		// takes only where levelsAVX2 gathers from it.
		t.Skip("cellPixels runs only with the AVX2 gather kernels (amd64)")
	}
	ms, err := kernelModels()
	if err != nil {
		t.Fatal(err)
	}
	c := ms[2].Channels[1]
	if c.newEdgePredictor(1, 1).centreZero || c.restLevels() == nil || c.restLevels().ctr == nil {
		t.Fatal("the channel's centre levels are 0, or it has no centre table: cellPixels untested")
	}
	var kept atomic.Int64
	cellPixelsKept = func(n int) { kept.Add(int64(n)) }
	defer func() { cellPixelsKept, keepCellPixels = nil, true }()
	rng := rand.New(rand.NewPCG(32, 7))
	dims, k := c.Dims(), c.Leading()
	for trial := range 20 {
		w, h := 8+rng.IntN(60), 8+rng.IntN(60)
		grid := patches.NewGrid(w, h, ms[2].Patch)
		cells := make([][]int32, 1+rng.IntN(6))
		for i := range cells {
			cells[i] = make([]int32, k)
			for j := range cells[i] {
				cells[i][j] = int32(min(max(c.Centre[j]+rng.IntN(5)-2, 0), c.Bins[j]-1))
			}
		}
		idx := make([]int32, grid.Blocks()*dims)
		for i := range grid.Blocks() {
			row := idx[i*dims : (i+1)*dims]
			copy(row, cells[rng.IntN(len(cells))])
			off := rng.IntN(4) == 0
			for j := k; j < dims; j++ {
				row[j] = int32(c.Centre[j])
				if off && rng.IntN(2) == 0 {
					row[j] = int32(rng.IntN(c.Bins[j]))
				}
			}
		}
		lead := c.leadRows(idx, grid.Blocks())
		keepCellPixels = false
		want := c.reconstructPlane(idx, lead, grid, nil)
		keepCellPixels = true
		got := c.reconstructPlane(idx, lead, grid, nil)
		for i, v := range want.Pix {
			if math.Float64bits(got.Pix[i]) != math.Float64bits(v) {
				t.Fatalf("trial %d (%d×%d, %d cells): sample %d with cellPixels %v, without %v", trial, w, h, len(cells), i, got.Pix[i], v)
			}
		}
	}
	if kept.Load() == 0 {
		t.Fatal("no cell kept: eachPatch took another path")
	}
}
