package pngfast

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// TestAdlerSumsEveryLength checks adlerSums with the kernel and with the
// Go loops against a byte-at-a-time definition at every length 0-4200
// (every residue of the kernel's 32-byte and the Go loop's 8-byte steps,
// many blocks), each from a random misalignment of 0-63 bytes and from
// sums already under way, including the largest (adlerMod-1), of random
// bytes and of 0xff bytes; and adler32Of against hash/adler32.
func TestAdlerSumsEveryLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 13))
	const maxLen = 4200
	for kind := range 2 {
		data := make([]byte, maxLen+64)
		for i := range data {
			data[i] = 0xff
			if kind == 0 {
				data[i] = byte(rng.Uint32())
			}
		}
		for n := 0; n <= maxLen; n++ {
			off := rng.IntN(64)
			p := data[off : off+n]
			sa0, sb0 := uint64(rng.IntN(adlerMod)), uint64(rng.IntN(adlerMod))
			switch n % 3 {
			case 0:
				sa0, sb0 = 1, 0
			case 1:
				sa0, sb0 = adlerMod-1, adlerMod-1
			}
			wa, wb := sa0, sb0
			for _, b := range p {
				wa = (wa + uint64(b)) % adlerMod
				wb = (wb + wa) % adlerMod
			}
			type sums struct{ a, b uint64 }
			k, g := withKernels(func() sums {
				a, b := adlerSums(sa0, sb0, p)
				return sums{a, b}
			})
			if want := (sums{wa, wb}); k != want || g != want {
				t.Fatalf("adlerSums of %d bytes at offset %d from (%d, %d): kernel %v, Go %v, want %v", n, off, sa0, sb0, k, g, want)
			}
			ka, ga := withKernels(func() uint32 { return adler32Of(p) })
			if want := adler32.Checksum(p); ka != want || ga != want {
				t.Fatalf("adler32Of of %d bytes at offset %d: kernel %08x, Go %08x, want %08x", n, off, ka, ga, want)
			}
		}
	}
}

// widthImages are images Encode writes itself of width w and height h:
// opaque RGBA and grey of 8 and 16 bits, of random values, of one value
// (1: the rows' filtered bytes are then all 1, the filter type too, so
// each block has one literal besides end-of-block) and of a ramp, and
// the RGBA ones also as sub-images whose rows start one pixel in (the
// kernels' loads are then not where the buffer's start is).
func widthImages(rng *rand.Rand, w, h int) map[string]image.Image {
	fill := func(pix []byte, kind int, rgba bool) {
		for i := range pix {
			switch {
			case rgba && i%4 == 3:
				pix[i] = 255
			case kind == 0:
				pix[i] = byte(rng.Uint32())
			case kind == 1:
				pix[i] = 1
			default:
				pix[i] = byte(i * 7)
			}
		}
	}
	ims := map[string]image.Image{}
	for kind, name := range []string{"random", "ones", "ramp"} {
		c := image.NewRGBA(image.Rect(0, 0, w+2, h))
		fill(c.Pix, kind, true)
		ims["rgba "+name] = c.SubImage(image.Rect(0, 0, w, h))
		ims["rgba sub "+name] = c.SubImage(image.Rect(1, 0, w+1, h))
		g := image.NewGray(image.Rect(0, 0, w, h))
		fill(g.Pix, kind, false)
		ims["grey "+name] = g
		g16 := image.NewGray16(image.Rect(0, 0, w, h))
		fill(g16.Pix, kind, false)
		ims["grey16 "+name] = g16
	}
	return ims
}

// firstDiff reports the first pixel where a and b differ, as 16-bit
// RGBA (b's origin may differ from a's).
func firstDiff(a, b image.Image) (x, y int, ok bool) {
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Size() != rb.Size() {
		return -1, -1, false
	}
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			ca := color.RGBA64Model.Convert(a.At(ra.Min.X+x, ra.Min.Y+y))
			cb := color.RGBA64Model.Convert(b.At(rb.Min.X+x, rb.Min.Y+y))
			if ca != cb {
				return x, y, false
			}
		}
	}
	return 0, 0, true
}

// TestEncodeEveryWidth checks Encode at every width 1-72 (each residue
// of the RGB kernel's 8-pixel steps, rows too short for it, and rows that
// leave 1-7 pixels to the Go loop) and heights 1-3: the same file with
// the kernels and without, read back with the same pixels by image/png
// (which checks the Adler-32) and by Decode.
func TestEncodeEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 14))
	for w := 1; w <= 72; w++ {
		for h := 1; h <= 3; h++ {
			checkEncodeWidth(t, rng, w, h)
		}
	}
}

// TestEncodeWideRows checks Encode as TestEncodeEveryWidth does on rows
// longer than adlerSums' 64 KB chunk (a grey row's Sub filter and its
// Adler-32 sums are taken a row at a time, c934cb9): RGB rows of 65538
// bytes, grey rows of 65537 and 131081 (two chunks and a tail), and
// 16-bit rows twice as long.
func TestEncodeWideRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 6))
	for _, w := range []int{21846, 65537, 131081} {
		checkEncodeWidth(t, rng, w, 2)
	}
}

// checkEncodeWidth is TestEncodeEveryWidth at width w and height h.
func checkEncodeWidth(t *testing.T, rng *rand.Rand, w, h int) {
	t.Helper()
	for name, m := range widthImages(rng, w, h) {
		k, g := withKernels(func() []byte {
			var b bytes.Buffer
			if err := Encode(&b, m); err != nil {
				t.Fatalf("%s %dx%d: %v", name, w, h, err)
			}
			return b.Bytes()
		})
		if !bytes.Equal(k, g) {
			t.Fatalf("%s %dx%d: the kernels write another file (%d bytes, Go %d)", name, w, h, len(k), len(g))
		}
		samePixels(t, m, k)
		if _, is16 := m.(*image.Gray16); is16 {
			continue // Decode leaves 16-bit files to image/png
		}
		ours, err := Decode(bytes.NewReader(k), nil)
		if err != nil {
			t.Fatalf("%s %dx%d: Decode cannot read it: %v", name, w, h, err)
		}
		if x, y, ok := firstDiff(m, ours); !ok {
			t.Fatalf("%s %dx%d: Decode reads another pixel at (%d, %d)", name, w, h, x, y)
		}
	}
}
