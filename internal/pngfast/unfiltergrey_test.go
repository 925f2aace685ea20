package pngfast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestUnfilterGreyBand checks unfilterGreyBand against unfilter row by
// row on bands of 8 grey rows of 1 to 100 bytes and 768 (checkBand); bands
// without an Average or Paeth row are left to unfilter.
func TestUnfilterGreyBand(t *testing.T) {
	checkBand(t, rand.New(rand.NewPCG(25, 8)), 1, 100, greyBand, unfilterGreyBand, func(w int, filters []byte) bool {
		return hasAVX && w >= greyBand+16 && chained(filters)
	})
}

// TestUnfilterGreyBand16 is TestUnfilterGreyBand for unfilterGreyBand16
// (16 rows of 1 to 100 bytes and 768).
func TestUnfilterGreyBand16(t *testing.T) {
	checkBand(t, rand.New(rand.NewPCG(25, 16)), 1, 100, greyBand16, unfilterGreyBand16, func(w int, filters []byte) bool {
		return hasAVX512VBMI && w >= greyBand16+16 && chained(filters)
	})
}

// chained reports whether some row of a band is filtered with Average or
// Paeth.
func chained(filters []byte) bool {
	for _, f := range filters {
		if f == 3 || f == 4 {
			return true
		}
	}
	return false
}

// TestUnfilterRGBBand is TestUnfilterGreyBand for unfilterRGBBand: rows
// of 1-60 and 768 pixels of 3 bytes.
func TestUnfilterRGBBand(t *testing.T) {
	checkBand(t, rand.New(rand.NewPCG(25, 24)), 3, 60, 8, unfilterRGBBand, func(w int, _ []byte) bool {
		return hasAVX512BW && w >= 21
	})
}

// checkBand checks a band kernel (rows rows, each a filter byte and w
// pixels of bpp bytes, w from 1 to maxW and 768) against unfilter row by
// row: every row's filter drawn from None, Sub, Up, Average and Paeth (or
// all Paeth, all Average, all None, Sub and Up), of random bytes, 0s and
// 255s: the same bytes where it runs (runs(w, filters) and all filters
// known), nothing changed where it does not (short rows, an unknown
// filter).
func checkBand(t *testing.T, rng *rand.Rand, bpp, maxW, rows int, kernel func(band []byte, stride int, prev []byte) bool, runs func(w int, filters []byte) bool) {
	t.Helper()
	ran := 0
	widths := []int{768}
	for w := 1; w <= maxW; w++ {
		widths = append(widths, w)
	}
	for _, w := range widths {
		for trial := range 14 {
			n := bpp * w
			stride := n + 1
			band := make([]byte, rows*stride)
			prev := make([]byte, n)
			fill := func(b []byte) {
				for i := range b {
					switch trial % 4 {
					case 0:
						b[i] = 0
					case 1:
						b[i] = 255
					default:
						b[i] = byte(rng.Uint32())
					}
					if trial%4 < 2 && rng.IntN(4) == 0 { // a few random bytes among the 0s or 255s
						b[i] = byte(rng.Uint32())
					}
				}
			}
			fill(band)
			fill(prev)
			for k := range rows {
				f := byte(rng.IntN(5))
				switch trial % 6 {
				case 4:
					f = 4
				case 5:
					f = 3
				}
				if trial >= 12 {
					f = byte(rng.IntN(3))
				}
				band[k*stride] = f
			}
			if trial == 11 {
				band[5*stride] = 5 // unknown: not done
			}
			want := bytes.Clone(band)
			up := prev
			for k := range rows {
				r := want[k*stride+1 : (k+1)*stride]
				if err := unfilter(want[k*stride], r, up, bpp); err != nil {
					break
				}
				up = r
			}
			got := bytes.Clone(band)
			did := kernel(got, stride, prev)
			if want := runs(w, filters(band, stride, rows)) && trial != 11; did != want {
				t.Fatalf("%d pixels of %d bytes, trial %d: the kernel ran %v, want %v", w, bpp, trial, did, want)
			}
			if !did {
				if !bytes.Equal(got, band) {
					t.Fatalf("%d pixels of %d bytes, trial %d: bytes changed by a band not done", w, bpp, trial)
				}
				continue
			}
			ran++
			for k := range rows {
				g, wr := got[k*stride+1:(k+1)*stride], want[k*stride+1:(k+1)*stride]
				for i := range g {
					if g[i] != wr[i] {
						t.Fatalf("%d pixels of %d bytes, trial %d, filters %v: row %d byte %d is %d, want %d", w, bpp, trial, filters(band, stride, rows), k, i, g[i], wr[i])
					}
				}
			}
		}
	}
	if runs(768, []byte{4}) && ran == 0 {
		t.Fatal("the kernel never ran")
	}
}

// filters lists the filter bytes of a band's rows.
func filters(band []byte, stride, rows int) []byte {
	var f []byte
	for k := range rows {
		f = append(f, band[k*stride])
	}
	return f
}
