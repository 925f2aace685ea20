package codec

import (
	"math/bits"
	"testing"
)

// TestCellsNumberedLimit checks cellsNumbered at the edge of the table's
// packing (a key and a number+1 in one 64-bit slot): leading cells whose
// largest key needs exactly the bits the patches' numbers leave are
// numbered, one more cell is not; and at that edge the table numbers the
// largest keys with the largest numbers exactly. A table given keys one
// bit wider would merge cells (the key's top bit shifted out): other
// sums for their patches, no error.
func TestCellsNumberedLimit(t *testing.T) {
	c := smallModel(t).Channels[0]
	k := c.Leading()
	if k < 2 {
		t.Skip("fewer than 2 leading dimensions")
	}
	for _, n := range []int{1, 2, 3, 1000, 4095, 4096, 1 << 20, 1<<31 - 2} {
		keyBits := 64 - bits.Len64(uint64(n))
		bins := make([]int, len(c.Bins))
		copy(bins, c.Bins)
		// 2^keyBits leading cells, powers of two of at most 2^30 each
		// (Bins are ints: 2^62 bins in one dimension were 0 in a 32-bit
		// int), the last dimensions the largest, every one 2 at least.
		left := keyBits
		for j := k - 1; j >= 0; j-- {
			b := max(1, min(30, left-j))
			bins[j] = 1 << b
			left -= b
		}
		if left != 0 {
			t.Fatalf("%d leading dimensions cannot hold keys of %d bits in ints", k, keyBits)
		}
		old := c.Bins
		c.Bins = bins
		fits := c.cellsNumbered(n)
		bins[0]++ // 2^keyBits + 2^keyBits/(bins[0]-1) cells: a key of keyBits+1 bits
		over := c.cellsNumbered(n)
		c.Bins = old
		if !fits || over {
			t.Errorf("%d patches, keys of %d bits: numbered %v (want true), one bit more %v (want false)", n, keyBits, fits, over)
		}
		if n > 4096 {
			continue
		}
		tab := newCellNumbers(n)
		top := uint64(1)<<keyBits - 1
		for i := range n {
			key := top - uint64(i)
			if i%2 == 1 {
				key = uint64(i) // small keys between
			}
			if num, fresh := tab.number(key); num != int32(i) || !fresh {
				t.Fatalf("%d patches: key %#x numbered %d (fresh %v), want %d", n, key, num, fresh, i)
			}
		}
		if num, fresh := tab.number(top); num != 0 || fresh {
			t.Errorf("%d patches: the largest key again: %d (fresh %v), want 0", n, num, fresh)
		}
	}
	// 2^31 is not an int on 32-bit platforms (a constant there would not
	// compile), where no image can hold that many patches anyway.
	if n31 := int64(1) << 31; bits.UintSize == 64 && c.cellsNumbered(int(n31)) {
		t.Error("2^31 patches numbered (numbers are int32)")
	}
}
