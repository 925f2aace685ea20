package codec

import (
	"math"

	"github.com/spcalab/spca/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// nearestBlock is the number of patches one goroutine of moveToNearest
// takes at a time.
const nearestBlock = 1024

// maxDescent bounds the moves of one patch's descent. Every move strictly
// lowers the error, so the descent ends anyway; the bound keeps the time
// of a patch far from its response cell's reconstruction (content unlike
// the training set) within a fixed multiple of the usual one or two moves.
const maxDescent = 256

// hasCodebook reports whether the channel has SPCA dimensions with few
// enough cells for a codebook.
func (c *Channel) hasCodebook() bool {
	return c.Leading() > 0 && c.bookSize() <= maxBook
}

// moveToNearest replaces the leading cell of every patch by the cell
// whose reconstruction (codebook row) is nearest to the patch's leading
// PCA coefficients, searched by steepest descent (nearestSearch.descend)
// starting from the patch's own cell. It reports false, changing
// nothing, when the channel has no codebook.
//
// The cells of the SPCA responses are not the Voronoi cells of their
// reconstructions: the inverse transform of a cell's centre is not the
// point of the cell nearest to every patch in it, and on Kodak 2×2 luma
// at 66 bins a fifth of the patches have a nearer reconstruction one
// cell away. The decoder is unchanged: it decodes cells, whichever way
// the encoder chose them.
func (c *Channel) moveToNearest(y *mat.Dense, idx []int32) bool {
	ns := c.nearestSearch()
	if ns == nil {
		return false
	}
	n, dims := y.Dims()
	k := c.Leading()
	blocks := (n + nearestBlock - 1) / nearestBlock
	parallel.For(blocks, func(b int) {
		digits := make([]int, k)
		for i := b * nearestBlock; i < min(n, (b+1)*nearestBlock); i++ {
			ns.descendRow(y.RawRowView(i)[:k], idx[i*dims:i*dims+k], digits)
		}
	})
	return true
}

// quantizeNearest is quantizeFast followed by moveToNearest, for a channel
// with a codebook in the fixed-resolution mode, with a cheaper start: the
// descent needs a cell near the patch, not the exact cell of its
// responses. It starts from the responses interpolated in startTable, at
// the fast path's nodes, without the Newton step and the metric, which
// are two thirds of the fast path's time; for 2×2 patches on one simplex
// of the table's cell (simplex4, 5 corners instead of 16), since the
// start needs no more accuracy than the descent corrects. A descent that
// moves more than maxStartMoves times started in a part of the lattice
// the table follows poorly, where the descent from another cell can end
// in another local minimum: such a patch descends again from the fast
// path's cell, or, where the fast path does not settle either (a fold),
// keeps the cell of its first descent rather than pay for the exact
// path's restarts. Rows outside the table take the exact path, as in
// quantizeFast, and are returned.
func (c *Channel) quantizeNearest(y *mat.Dense, idx []int32) (exact []int) {
	ns, fp := c.nearestSearch(), c.fastPath()
	if ns == nil || fp == nil || c.Lead != nil {
		exact = c.quantizeFast(y, idx)
		c.moveToNearest(y, idx)
		return exact
	}
	start := c.startTable()
	dims, k := c.Dims(), c.Leading()
	lead, rest := c.finders()
	exact = c.quantizeBlocks(y, idx, fp, func(sc *fastScratch, i int) bool {
		row, digits := y.RawRowView(i), sc.digits
		x, out := row[:k], idx[i*dims:(i+1)*dims]
		base, ok := sc.fp.locate(x, sc.frac)
		if !ok {
			return false
		}
		if k == 4 {
			simplex4(start, sc.fp.str, base, sc.frac, sc.r)
		} else {
			reduce(start, sc.fp.str, base, sc.frac, sc.r, sc.fp.buf)
		}
		for j := range digits {
			digits[j] = int(binOf(sc.r[j], ns.bins[j]))
		}
		if ns.descend(x, digits) > maxStartMoves && c.fastRow(sc, row, out, lead, rest) {
			ns.descendRow(x, out[:k], digits)
			return true
		}
		for j, d := range digits {
			out[j] = int32(d)
		}
		restIndices(out[k:], row[k:], rest, c.restTab)
		return true
	})
	digits := make([]int, k)
	for _, i := range exact {
		ns.descendRow(y.RawRowView(i)[:k], idx[i*dims:i*dims+k], digits)
	}
	return exact
}

// maxStartMoves is the number of moves of a descent from the interpolated
// responses beyond which quantizeNearest starts again from the fast
// path's cell. With 1, 3 % of the patches of the test texture took the
// fast path too (a tenth of the quantisation's time); with 2, 0.2 %, and
// the cells that differ from the descent from the exact path's cells rose
// from 0.45 % to 0.64 % (test textures, 246 bins) and from 0.54 % to
// 0.82 % (Kodak, kodim08 at 246 bins), within the 1 % bound, at the same
// error of the reconstructions (within 0.4 % per image).
const maxStartMoves = 2

// startTable returns the SPCA responses at the fast path's nodes (k per
// node, in the layout of fastPath.vals, through the exact metric), the
// start cells of quantizeNearest; nil without a fast path. Unlike the
// unfolding, responses depend on the bins.
func (c *Channel) startTable() []float32 {
	c.startOnce.Do(func() {
		fp := c.fastPath()
		if fp == nil {
			return
		}
		k := fp.k
		nodes := len(fp.vals) / k
		t := make([]float32, len(fp.vals))
		const block = 4096
		parallel.For((nodes+block-1)/block, func(b int) {
			ms := c.SPCA.NewMetricScratch()
			u, r := make([]float64, k), make([]float64, k)
			for i := b * block; i < min(nodes, (b+1)*block); i++ {
				for j := range u {
					u[j] = float64(fp.vals[i*k+j])
				}
				c.SPCA.MetricWork(r, u, ms)
				for j, v := range r {
					t[i*k+j] = float32(v)
				}
			}
		})
		c.start = t
	})
	return c.start
}

// nearestSearch is the descent of moveToNearest over a channel's
// codebook.
type nearestSearch struct {
	k            int
	book         []float64 // codebook rows, k values per cell
	bins, stride []int     // of the leading dimensions' cells
}

// nearestSearch returns the channel's descent, or nil without a
// codebook.
func (c *Channel) nearestSearch() *nearestSearch {
	if !c.hasCodebook() {
		return nil
	}
	k := c.Leading()
	ns := &nearestSearch{k: k, book: c.codebook(), bins: c.Bins[:k], stride: make([]int, k)}
	s := 1
	for j := k - 1; j >= 0; j-- {
		ns.stride[j] = s
		s *= ns.bins[j]
	}
	return ns
}

// descendRow is descend from the cell cell (k indices), which it
// updates; digits is scratch.
func (ns *nearestSearch) descendRow(x []float64, cell []int32, digits []int) {
	for j := range digits {
		digits[j] = int(cell[j])
	}
	ns.descend(x, digits)
	for j, d := range digits {
		cell[j] = int32(d)
	}
}

// descend moves the cell digits (k bins) to the cell whose
// reconstruction is nearest to x (k leading coefficients) by steepest
// descent, and returns the number of moves. A move goes to a cell one bin
// away in one dimension or, where none of those is nearer, one bin away in
// two dimensions, each in the direction of its nearer neighbour (at most
// six cells for k = 4). The grid of reconstructions is curved, and a
// descent over single steps stops in more local minima: on Kodak 2×2 luma
// the diagonal moves lower the error of the reconstructions by 0.1–1 %
// and halve to quarter the fraction of patches whose descent ends
// elsewhere from a nearby start.
func (ns *nearestSearch) descend(x []float64, digits []int) int {
	if ns.k == 4 {
		return ns.descend4(x, digits)
	}
	return ns.descendK(x, digits)
}

// descendK is descend for any k.
func (ns *nearestSearch) descendK(x []float64, digits []int) int {
	k, book, bins, stride := ns.k, ns.book, ns.bins, ns.stride
	cell := 0
	for j, d := range digits {
		cell += d * stride[j]
	}
	best := dist2(book[cell*k:cell*k+k], x)
	var lo, hi [maxLeading]float64 // distances of the neighbours, +Inf if none
	moves := 0
	for ; moves < maxDescent; moves++ {
		// The steepest move to a cell one bin away in one dimension:
		// next is 2j for one bin down in dimension j, 2j+1 for one up.
		next, nd := -1, best
		for j, d := range digits {
			lo[j], hi[j] = math.Inf(1), math.Inf(1)
			if d > 0 {
				o := (cell - stride[j]) * k
				if lo[j] = dist2(book[o:o+k], x); lo[j] < nd {
					next, nd = 2*j, lo[j]
				}
			}
			if d < bins[j]-1 {
				o := (cell + stride[j]) * k
				if hi[j] = dist2(book[o:o+k], x); hi[j] < nd {
					next, nd = 2*j+1, hi[j]
				}
			}
		}
		if next >= 0 {
			j, up := next/2, next%2 == 1
			if up {
				digits[j]++
				cell += stride[j]
			} else {
				digits[j]--
				cell -= stride[j]
			}
			best = nd
			continue
		}
		// No single step: the diagonal steps towards the nearer
		// neighbours (dir: its side, 0 if none).
		var dir [maxLeading]int
		for j := range digits {
			switch {
			case lo[j] < hi[j]:
				dir[j] = -1
			case hi[j] < math.Inf(1):
				dir[j] = 1
			}
		}
		bj, bl := -1, -1
		for j := 0; j < k; j++ {
			for l := j + 1; l < k && dir[j] != 0; l++ {
				if dir[l] == 0 {
					continue
				}
				o := (cell + dir[j]*stride[j] + dir[l]*stride[l]) * k
				if e := dist2(book[o:o+k], x); e < best {
					bj, bl, best = j, l, e
				}
			}
		}
		if bj < 0 {
			break
		}
		digits[bj] += dir[bj]
		digits[bl] += dir[bl]
		cell += dir[bj]*stride[bj] + dir[bl]*stride[bl]
	}
	return moves
}

// dist2 is the squared Euclidean distance between a and b (len(b) ≥ len(a)).
func dist2(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for j, v := range a {
		d := v - b[j]
		s += float64(d * d) // rounded products: no FMA, the same cells on every GOARCH
	}
	return s
}

// descend4 is descend for k = 4 (2×2 patches): the same moves, the same
// distances summed in the same order (TestDescend4), with the sizes known
// to the compiler.
func (ns *nearestSearch) descend4(x []float64, digits []int) int {
	book := ns.book
	xv := [4]float64(x[:4])
	dg := [4]int(digits[:4])
	st := [4]int(ns.stride[:4])
	var top [4]int
	for j := range top {
		top[j] = ns.bins[j] - 1
	}
	cell := dg[0]*st[0] + dg[1]*st[1] + dg[2]*st[2] + dg[3]*st[3]
	best := dist4((*[4]float64)(book[4*cell:]), &xv)
	var lo, hi [4]float64
	inf := math.Inf(1)
	moves := 0
	for ; moves < maxDescent; moves++ {
		next, nd := -1, best
		for j := 0; j < 4; j++ {
			lo[j], hi[j] = inf, inf
			if dg[j] > 0 {
				if lo[j] = dist4((*[4]float64)(book[4*(cell-st[j]):]), &xv); lo[j] < nd {
					next, nd = 2*j, lo[j]
				}
			}
			if dg[j] < top[j] {
				if hi[j] = dist4((*[4]float64)(book[4*(cell+st[j]):]), &xv); hi[j] < nd {
					next, nd = 2*j+1, hi[j]
				}
			}
		}
		if next >= 0 {
			j := next >> 1
			if next&1 == 1 {
				dg[j]++
				cell += st[j]
			} else {
				dg[j]--
				cell -= st[j]
			}
			best = nd
			continue
		}
		var dir [4]int
		if dg[0] > 0 && dg[1] > 0 && dg[2] > 0 && dg[3] > 0 && dg[0] < top[0] && dg[1] < top[1] && dg[2] < top[2] && dg[3] < top[3] {
			// Both neighbours in every dimension: the side of the
			// nearer is the sign of lo − hi (−1 where lo < hi), taken
			// without a branch, since either side is as likely.
			for j := 0; j < 4; j++ {
				dir[j] = 1 - 2*int(math.Float64bits(lo[j]-hi[j])>>63)
			}
		} else {
			for j := 0; j < 4; j++ {
				switch {
				case lo[j] < hi[j]:
					dir[j] = -1
				case hi[j] < inf:
					dir[j] = 1
				}
			}
		}
		bj, bl := -1, -1
		for j := 0; j < 4; j++ {
			for l := j + 1; l < 4 && dir[j] != 0; l++ {
				if dir[l] == 0 {
					continue
				}
				o := cell + dir[j]*st[j] + dir[l]*st[l]
				if e := dist4((*[4]float64)(book[4*o:]), &xv); e < best {
					bj, bl, best = j, l, e
				}
			}
		}
		if bj < 0 {
			break
		}
		dg[bj] += dir[bj]
		dg[bl] += dir[bl]
		cell += dir[bj]*st[bj] + dir[bl]*st[bl]
	}
	copy(digits, dg[:])
	return moves
}

// dist4 is dist2 for 4 values.
func dist4(a, b *[4]float64) float64 {
	d0, d1, d2, d3 := a[0]-b[0], a[1]-b[1], a[2]-b[2], a[3]-b[3]
	return float64(d0*d0) + float64(d1*d1) + float64(d2*d2) + float64(d3*d3)
}
