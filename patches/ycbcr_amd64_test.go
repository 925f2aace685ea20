package patches

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/internal/fence"
)

// TestFromYCbCr420Paths checks FromYCbCr420's 8-bit rows (on amd64 CPUs
// with AVX: the kernels that double the chroma as they convert, 16 pixels
// at a time by AVX-512, then 8 by AVX, from the third, the Go loop for the
// rest) against FromYCbCr of the chroma doubled by Double, with the
// kernels off, to the last bit, with AVX alone and with AVX-512 too: for
// every width from 1 to 81 (none to 4 groups of each kernel, tails of 0 to
// 7 pixels, odd widths whose last pixel pair is half outside), 1 to 3
// rows, samples from -70 to 330 with NaN and infinities among them, and
// grey rows (chroma at its zero) of luma on whole and half levels, whose
// red and blue fall exactly halfway between two levels.
func TestFromYCbCr420Paths(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 42))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 255, 254.5, 127.5, -0.5}
	defer func(a, b bool) { hasAVX, hasAVX512 = a, b }(hasAVX, hasAVX512)
	avx, avx512 := hasAVX, hasAVX512
	for w := 1; w <= 81; w++ {
		for h := 1; h <= 4; h++ {
			y := NewPlane(w, h)
			cb, cr := NewPlane((w+1)/2, (h+1)/2), NewPlane((w+1)/2, (h+1)/2)
			for k, p := range []Plane{y, cb, cr} {
				for i := range p.Pix {
					p.Pix[i] = 400*rng.Float64() - 70
					if rng.IntN(30) == 0 {
						p.Pix[i] = special[rng.IntN(len(special))]
					}
					if h == 4 { // grey: ties
						p.Pix[i] = chromaZero
						if k == 0 {
							p.Pix[i] = float64(rng.IntN(512)-128) / 2
						}
					}
				}
			}
			hasAVX, hasAVX512 = false, false
			want := FromYCbCr([3]Plane{y, Double(cb, w, h), Double(cr, w, h)}, false).(*image.RGBA).Pix
			slow := FromYCbCr420(y, cb, cr, false).(*image.RGBA).Pix
			if !bytes.Equal(slow, want) {
				t.Fatalf("%d×%d: FromYCbCr420's Go rows differ from FromYCbCr of the doubled chroma", w, h)
			}
			for _, wide := range []bool{false, true} {
				hasAVX, hasAVX512 = avx, wide && avx512
				got := FromYCbCr420(y, cb, cr, false).(*image.RGBA).Pix
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%d×%d, AVX-512 %v: pixel (%d, %d) channel %d: %d, want %d", w, h, hasAVX512, i/4%w, i/4/w, i%4, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestYCCRowExhaustive checks yccRowFast (the AVX-512 kernel where it
// runs, whose chroma quotients come from products by the scales'
// reciprocals) against yccRow's divisions, to the last bit, for every
// opaque 8-bit colour: rows of 65,536 pixels, one per red value.
func TestYCCRowExhaustive(t *testing.T) {
	const n = 1 << 16
	pix := make([]uint8, 4*n)
	got, want := make([]float64, 3*n), make([]float64, 3*n)
	for r := range 256 {
		for i := range n {
			pix[4*i], pix[4*i+1], pix[4*i+2], pix[4*i+3] = uint8(r), uint8(i>>8), uint8(i), 0xff
		}
		yccRowFast(got[:n], got[n:2*n], got[2*n:], pix)
		yccRow(want[:n], want[n:2*n], want[2*n:], pix)
		for i, v := range got {
			if math.Float64bits(v) != math.Float64bits(want[i]) {
				p := i % n
				t.Fatalf("colour (%d, %d, %d) plane %d: %v, want %v", r, p>>8, p&0xff, i/n, v, want[i])
			}
		}
	}
}

// TestYCCRGBRow checks yccRGBRow (the RGB kernel where it runs, groups of
// 8 pixels read under a mask from rows that end with them, then the
// scratch row through yccRowFast) against yccRow of the same pixels as
// RGBA, to the last bit, with the kernels on and off: every width from 1
// to 40 (tails of 0 to 7 pixels), random colours with greys among them,
// and every opaque 8-bit colour in rows of 65,536 pixels.
func TestYCCRGBRow(t *testing.T) {
	defer func(a, b, v bool) { hasAVX, hasAVX512, hasVBMI = a, b, v }(hasAVX, hasAVX512, hasVBMI)
	avx, avx512, vbmi := hasAVX, hasAVX512, hasVBMI
	check := func(what string, rgb []uint8) {
		t.Helper()
		w := len(rgb) / 3
		rgba := make([]uint8, 4*w)
		for x := range w {
			rgba[4*x], rgba[4*x+1], rgba[4*x+2], rgba[4*x+3] = rgb[3*x], rgb[3*x+1], rgb[3*x+2], 0xff
		}
		want := make([]float64, 3*w)
		yccRow(want[:w], want[w:2*w], want[2*w:], rgba)
		for _, on := range []bool{false, true} {
			hasAVX, hasAVX512, hasVBMI = avx && on, avx512 && on, vbmi && on
			got := make([]float64, 3*w)
			yccRGBRow(got[:w], got[w:2*w], got[2*w:], rgb[:3*w:3*w], nil)
			for i, v := range got {
				if math.Float64bits(v) != math.Float64bits(want[i]) {
					t.Fatalf("%s, kernels %v: pixel %d of %d plane %d: %v, want %v", what, on, i%w, w, i/w, v, want[i])
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(34, 8))
	for w := 1; w <= 40; w++ {
		rgb := make([]uint8, 3*w)
		for x := range w {
			c := rng.Uint32()
			rgb[3*x], rgb[3*x+1], rgb[3*x+2] = uint8(c), uint8(c>>8), uint8(c>>16)
			if rng.IntN(4) == 0 {
				rgb[3*x+1], rgb[3*x+2] = rgb[3*x], rgb[3*x]
			}
		}
		check("random", rgb)
	}
	const n = 1 << 16
	rgb := make([]uint8, 3*n)
	for r := range 256 {
		for i := range n {
			rgb[3*i], rgb[3*i+1], rgb[3*i+2] = uint8(r), uint8(i>>8), uint8(i)
		}
		check("every colour", rgb)
	}
}

// TestYCCRGBKernelStaysInRow runs yccRGBKernel with the RGB row ending
// where memory the process may not touch begins (fence, on Linux): the
// AVX-512 kernel loads each group's 24 bytes under a mask, and one that
// loaded 32 (a mask planted at 0xffffffff) faults at a row's last group.
// Its pixels are yccRow's of the row as RGBA, to the last bit.
func TestYCCRGBKernelStaysInRow(t *testing.T) {
	if !hasAVX512 || !hasVBMI {
		t.Skip("no AVX-512 VBMI: no RGB kernel")
	}
	var f fence.Fence
	for w := range 41 {
		rgb := f.At(t, 3*w)
		rgba := make([]uint8, 4*w)
		for x := range w {
			for c := range 3 {
				rgb[3*x+c] = uint8(37*x + 91*c + 5)
				rgba[4*x+c] = rgb[3*x+c]
			}
			rgba[4*x+3] = 0xff
		}
		y, cb, cr := make([]float64, w), make([]float64, w), make([]float64, w)
		n := yccRGBKernel(y, cb, cr, rgb)
		if n != w&^7 {
			t.Fatalf("width %d: converted %d pixels, want %d", w, n, w&^7)
		}
		wy, wcb, wcr := make([]float64, w), make([]float64, w), make([]float64, w)
		yccRow(wy, wcb, wcr, rgba)
		for x := range n {
			if math.Float64bits(y[x]) != math.Float64bits(wy[x]) || math.Float64bits(cb[x]) != math.Float64bits(wcb[x]) || math.Float64bits(cr[x]) != math.Float64bits(wcr[x]) {
				t.Fatalf("width %d, pixel %d: %v %v %v, want %v %v %v", w, x, y[x], cb[x], cr[x], wy[x], wcb[x], wcr[x])
			}
		}
	}
}
