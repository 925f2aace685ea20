package codec

import (
	"math"
	"math/rand/v2"
	"slices"
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

// TestDeblockInRows checks that reconstructPlaneInto with a deblocking
// filter (each row of patches' vertical edges as soon as it is in the
// plane, the horizontal edges around it once both rows are, on the
// rows' goroutines) gives the samples of reconstructPlane followed by
// deblockPlane, bit for bit: kernelModels' 8×8 and 4×4 channels, random
// indices, planes whose sides are multiples of the patch size or not,
// strengths 1 to 4.
func TestDeblockInRows(t *testing.T) {
	ms, err := kernelModels()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(33, 8))
	for mi, m := range ms {
		step := m.Step
		if !(step > 0) {
			step = 30
		}
		for ci, c := range m.Channels {
			dims := c.Dims()
			for trial := range 6 {
				w, h := m.Patch+rng.IntN(250), m.Patch+rng.IntN(250)
				grid := patches.NewGrid(w, h, m.Patch)
				// Near their centres (small steps between patches,
				// which the filter smooths): the first index within
				// 1, a rest index off its centre 1 time in 8.
				idx := make([]int32, grid.Blocks()*dims)
				for i := range idx {
					j, d := i%dims, 0
					if j == 0 {
						d = rng.IntN(3) - 1
					} else if rng.IntN(8) == 0 {
						d = rng.IntN(3) - 1
					}
					idx[i] = int32(min(max(c.Centre[j]+d, 0), c.Bins[j]-1))
				}
				lead := c.leadRows(idx, grid.Blocks())
				k := 1 + trial%4
				want := c.reconstructPlane(idx, lead, grid, nil)
				plain := slices.Clone(want.Pix)
				deblockPlane(want, k, step, m.Patch)
				if slices.Equal(plain, want.Pix) {
					t.Fatalf("model %d channel %d, %d×%d, strength %d: the filter changed nothing", mi, ci, w, h, k)
				}
				got := c.reconstructPlaneInto(nil, idx, lead, grid, nil, newPlaneDeblock(k, step, m.Patch))
				for i, v := range want.Pix {
					if math.Float64bits(got.Pix[i]) != math.Float64bits(v) {
						t.Fatalf("model %d channel %d, %d×%d, strength %d: sample (%d, %d) %v, deblocked after %v", mi, ci, w, h, k, i%w, i/w, got.Pix[i], v)
					}
				}
			}
		}
	}
}
