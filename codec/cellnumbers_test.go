package codec

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestCellNumbers checks the table of cells against a map: numbers in
// order of first appearance, through the table's growth and resets to
// other sizes, with keys as large as a key and its number leave room for
// (the slot packs both in one word).
func TestCellNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	var tab *cellNumbers
	for trial, n := range []int{1, 5, 3000, 40000, 700, 1 << 16} {
		if tab == nil {
			tab = newCellNumbers(n)
		} else {
			tab.reset(n)
		}
		keyBits := 64 - bits.Len64(uint64(n)) // the widest keys cellsNumbered allows
		distinct := 1 + rng.IntN(n)
		if trial%2 == 1 {
			distinct = n // numbers up to n−1: every bit of the number's field
		}
		pool := make([]uint64, distinct)
		for i := range pool {
			switch i % 3 {
			case 0:
				pool[i] = rng.Uint64() >> (64 - keyBits)
			case 1:
				pool[i] = uint64(i) // small keys, neighbours
			default:
				pool[i] = 1<<keyBits - 1 - uint64(i) // the largest
			}
		}
		want := map[uint64]int32{}
		for i := 0; i < 2*n; i++ { // more draws than patches: numbers repeat
			key := pool[rng.IntN(distinct)]
			if trial%2 == 1 && i < distinct {
				key = pool[i]
			}
			w, seen := want[key]
			if !seen {
				w = int32(len(want))
				want[key] = w
			}
			got, fresh := tab.number(key)
			if got != w || fresh == seen {
				t.Fatalf("trial %d (n %d), patch %d, key %#x: number %d fresh %v, want %d fresh %v", trial, n, i, key, got, fresh, w, !seen)
			}
		}
	}
}
