package codec

import (
	"math/bits"
	"unsafe"

	"github.com/spcalab/spca/spca"
)

// cellCache keeps the inverses of leading cells (levelInverse's, k values
// each) by their number in mixed radix of the bins: the encoder's
// refinement (refineNearest) inverts each patch's cell and its 2k
// neighbours, and on kodim13 in 4×4 those 221,184 inversions were of
// 61,884 distinct cells; across the images of one process the cells
// repeat again. It is direct-mapped: a cell has one slot, which the
// last cell hashed there holds. An inverse depends on the channel only,
// so the caches live on the channel (takeCellCache), one per goroutine at
// a time.
type cellCache struct {
	k, sw int // values a row; words a slot (cellSlotWords)
	mask  int // slots less one
	// slots holds slot h in words h·sw to (h+1)·sw: the cell's key+1
	// (0: empty), then padding, then its row (the last k words, float64).
	slots []uint64
}

// cellCacheBits is log2 of the most slots a cache has (1 MB for k = 4;
// planes of few patches take fewer, cellCacheBitsFor): the
// refinement of kodim13-24 in 4×4 took 24 ms of CPU per image without the
// cache, 12–13 with 2^12 to 2^14 slots and 15–19 with 2^15 (one core,
// min of 3; larger tables miss the processor's caches).
const cellCacheBits = 14

// cellSlotWords is the size of a slot for rows of k values: the key and
// the row rounded up to 32 bytes, so that for k = 4 a slot is one 64-byte
// line of the 64-byte aligned array and its row the line's second half
// (aligned). A lookup reads one line, where keys and rows in arrays of
// their own cost it two, and refine4's prefetches of a patch's 9 slots
// were 18 lines.
func cellSlotWords(k int) int { return (k + 1 + 3) &^ 3 }

func newCellCache(k, bits int) *cellCache {
	return newCellCacheIn(k, bits, nil)
}

// newCellCacheIn is newCellCache in spare's memory (cleared) where it
// holds the slots, aligned.
func newCellCacheIn(k, bits int, spare []float64) *cellCache {
	sw := cellSlotWords(k)
	n := sw << bits
	buf := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(spare))), len(spare))
	if len(buf) < n+7 {
		buf = make([]uint64, n+7)
	} else {
		clear(buf)
	}
	o := int(-uintptr(unsafe.Pointer(&buf[0])) & 63 / 8) // to a 64-byte boundary
	return &cellCache{k: k, sw: sw, mask: 1<<bits - 1, slots: buf[o : o+n : o+n]}
}

// row returns slot h's row.
func (cc *cellCache) row(h int) []float64 {
	w := cc.slots[(h+1)*cc.sw-cc.k : (h+1)*cc.sw]
	return unsafe.Slice((*float64)(unsafe.Pointer(&w[0])), cc.k)
}

// invert returns the inverse of cell (whose number is key) through li,
// from the cache or computed and kept. The row is valid until the next
// call.
func (cc *cellCache) invert(li *spca.LevelInverse, cell []int, key uint64, s *spca.MetricScratch) []float64 {
	h := cc.slot(key)
	row := cc.row(h)
	if cc.slots[h*cc.sw] != key+1 {
		cc.slots[h*cc.sw] = key + 1
		li.Invert(row, cell, s)
	}
	return row
}

// slot returns the slot of the cell numbered key.
func (cc *cellCache) slot(key uint64) int {
	return hashCell(key, cc.mask)
}

// maxPrefetch bounds the addresses of one prefetchLines call: two rows
// of a patch and, for up to maxHintDims leading dimensions, a cell's and
// its two neighbours' slots (up to two lines each).
const (
	maxHintDims = 8
	maxPrefetch = 2 + 2 + 4*maxHintDims
)

// hint appends to p, from n on, the addresses of the slots of the cell
// numbered key (indices cell, strides as cellStrides) and of its
// neighbours one bin away in each of its first maxHintDims dimensions
// that lie within bins, and returns the new count: the slots
// refineNearest reads first for that cell. A slot's address is its
// start, followed by its last word's where that lies in another line
// (not for k = 4: a slot is a line).
func (cc *cellCache) hint(p *[maxPrefetch]uintptr, n int, key uint64, cell []int32, strides []uint64, bins []int) int {
	add := func(key uint64) {
		h := cc.slot(key)
		a, b := uintptr(unsafe.Pointer(&cc.slots[h*cc.sw])), uintptr(unsafe.Pointer(&cc.slots[(h+1)*cc.sw-1]))
		p[n] = a
		n++
		if a>>6 != b>>6 {
			p[n] = b
			n++
		}
	}
	add(key)
	for j, v := range cell[:min(len(cell), maxHintDims)] {
		if v > 0 {
			add(key - strides[j])
		}
		if int(v)+1 < bins[j] {
			add(key + strides[j])
		}
	}
	return n
}

// takeCellCache returns a cache of the channel's cell inverses for one
// goroutine to use until it hands it back (putCellCache), with room for
// the cells of a plane of patches patches (cellCacheBitsFor).
func (c *Channel) takeCellCache(patches int) *cellCache {
	bits := cellCacheBitsFor(patches)
	c.cellsMu.Lock()
	defer c.cellsMu.Unlock()
	for n := len(c.cells); n > 0; n-- {
		cc := c.cells[n-1]
		c.cells = c.cells[:n-1]
		if cc.mask+1 >= 1<<bits {
			return cc
		}
		// Too small for this plane (a larger image than the last):
		// left to the collector.
	}
	// A process's first image: in the spare where it has room (a colour
	// model's section 0 or packed bytes left over by the planes, 1 MB of
	// fresh memory a channel otherwise).
	k := c.Leading()
	return newCellCacheIn(k, bits, takeSpare(cellSlotWords(k)<<bits+7))
}

// cellCacheBitsFor returns the log2 of the slots of a cache for a plane
// of the given number of patches: 2 to 4 slots a patch, at most
// cellCacheBits, at least 2^10. A 768×512 image's 8×8 luma plane (6144
// patches) takes 2^14 slots, its chroma planes (1536) 2^12: 256 KB
// instead of 1 MB each, and a colour batch's 4 chroma caches 3 MB less
// fresh memory, for as many instructions (callgrind, 4 colour images with
// c8b: 1,638.4-1,638.8 M with 2^14, 1,638.8-1,642.8 with 2^12; the
// threads' shares of the blocks vary).
func cellCacheBitsFor(patches int) int {
	return max(10, min(cellCacheBits, bits.Len(uint(max(patches, 1)))+1))
}

func (c *Channel) putCellCache(cc *cellCache) {
	c.cellsMu.Lock()
	c.cells = append(c.cells, cc)
	c.cellsMu.Unlock()
}

// cellStrides returns the weight of each leading dimension's index in a
// cell's number (mixed radix of the bins), or nil if the numbers do not
// fit in 64 bits.
func (c *Channel) cellStrides() []uint64 {
	if !c.keysFit() {
		return nil
	}
	k := c.Leading()
	st := make([]uint64, k)
	p := uint64(1)
	for j := k - 1; j >= 0; j-- {
		st[j] = p
		p *= uint64(c.Bins[j])
	}
	return st
}
