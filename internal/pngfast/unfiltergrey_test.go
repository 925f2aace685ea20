package pngfast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestUnfilterGreyBand checks unfilterGreyBand against unfilter row by
// row on bands of 8 grey rows of 1 to 100 bytes and 768, every row's
// filter drawn from None, Sub, Up, Average and Paeth (or all Paeth, all
// Average), of random bytes, 0s and 255s: the same bytes where it runs,
// nothing changed where it does not (short rows, an unknown filter).
func TestUnfilterGreyBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 8))
	ran := 0
	for _, n := range append(func() (s []int) {
		for n := 1; n <= 100; n++ {
			s = append(s, n)
		}
		return s
	}(), 768) {
		for trial := range 12 {
			stride := n + 1
			band := make([]byte, greyBand*stride)
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
				}
			}
			fill(band)
			fill(prev)
			if trial%4 < 2 {
				for i := range band { // a few random bytes among the 0s or 255s
					if rng.IntN(4) == 0 {
						band[i] = byte(rng.Uint32())
					}
				}
			}
			for k := range greyBand {
				f := byte(rng.IntN(5))
				switch trial % 6 {
				case 4:
					f = 4
				case 5:
					f = 3
				}
				band[k*stride] = f
			}
			if trial == 11 {
				band[5*stride] = 5 // unknown: not done
			}
			want := bytes.Clone(band)
			up := prev
			for k := range greyBand {
				r := want[k*stride+1 : (k+1)*stride]
				if err := unfilter(want[k*stride], r, up, 1); err != nil {
					break
				}
				up = r
			}
			got := bytes.Clone(band)
			did := unfilterGreyBand(got, stride, prev)
			if want := hasAVX && n >= greyBand+16 && trial != 11; did != want {
				t.Fatalf("%d bytes, trial %d: unfilterGreyBand ran %v, want %v", n, trial, did, want)
			}
			if !did {
				if !bytes.Equal(got, band) {
					t.Fatalf("%d bytes, trial %d: bytes changed by a band not done", n, trial)
				}
				continue
			}
			ran++
			if !bytes.Equal(got, want) {
				for k := range greyBand {
					g, w := got[k*stride:(k+1)*stride], want[k*stride:(k+1)*stride]
					if !bytes.Equal(g, w) {
						for i := range g {
							if g[i] != w[i] {
								t.Fatalf("%d bytes, trial %d, filters %v: row %d byte %d is %d, want %d", n, trial, filters(band, stride), k, i-1, g[i], w[i])
							}
						}
					}
				}
			}
		}
	}
	if hasAVX && ran == 0 {
		t.Fatal("the kernel never ran")
	}
}

// TestUnfilterRGBBand is TestUnfilterGreyBand for unfilterRGBBand: rows
// of 1-60 and 768 pixels of 3 bytes.
func TestUnfilterRGBBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 24))
	ran := 0
	for _, w := range append(func() (s []int) {
		for w := 1; w <= 60; w++ {
			s = append(s, w)
		}
		return s
	}(), 768) {
		for trial := range 12 {
			n := 3 * w
			stride := n + 1
			band := make([]byte, 8*stride)
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
					if trial%4 < 2 && rng.IntN(4) == 0 {
						b[i] = byte(rng.Uint32())
					}
				}
			}
			fill(band)
			fill(prev)
			for k := range 8 {
				f := byte(rng.IntN(5))
				switch trial % 6 {
				case 4:
					f = 4
				case 5:
					f = 3
				}
				band[k*stride] = f
			}
			if trial == 11 {
				band[6*stride] = 7 // unknown: not done
			}
			want := bytes.Clone(band)
			up := prev
			for k := range 8 {
				r := want[k*stride+1 : (k+1)*stride]
				if err := unfilter(want[k*stride], r, up, 3); err != nil {
					break
				}
				up = r
			}
			got := bytes.Clone(band)
			did := unfilterRGBBand(got, stride, prev)
			if want := hasAVX512BW && w >= 18 && trial != 11; did != want {
				t.Fatalf("%d pixels, trial %d: unfilterRGBBand ran %v, want %v", w, trial, did, want)
			}
			if !did {
				if !bytes.Equal(got, band) {
					t.Fatalf("%d pixels, trial %d: bytes changed by a band not done", w, trial)
				}
				continue
			}
			ran++
			for k := range 8 {
				g, wr := got[k*stride+1:(k+1)*stride], want[k*stride+1:(k+1)*stride]
				for i := range g {
					if g[i] != wr[i] {
						t.Fatalf("%d pixels, trial %d, filters %v: row %d byte %d is %d, want %d", w, trial, filters(band, stride), k, i, g[i], wr[i])
					}
				}
			}
		}
	}
	if hasAVX512BW && ran == 0 {
		t.Fatal("the kernel never ran")
	}
}

// filters lists the filter bytes of a band's rows.
func filters(band []byte, stride int) []byte {
	var f []byte
	for k := range greyBand {
		f = append(f, band[k*stride])
	}
	return f
}
