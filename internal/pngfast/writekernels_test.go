package pngfast

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"image"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// withKernels runs f with the writer's kernels (hasAVX2) on where the
// machine has them, then off, and returns both results.
func withKernels[T any](f func() T) (kernel, goOnly T) {
	defer func(k bool) { hasAVX2 = k }(hasAVX2)
	kernel = f()
	hasAVX2 = false
	return kernel, f()
}

// TestWriteKernelsMatchGo checks the writer's kernels against the Go
// loops and a byte-at-a-time definition: subRGB on rows of 0-80 and
// 1000 pixels (random bytes and bytes near 0 and 255), the bytes past
// the row untouched; adlerSums against hash/adler32 from sums already
// under way, every length up to 300 and past the 64 KB reductions, of
// random and 0xff bytes; count on every length up to 40 and long runs.
func TestWriteKernelsMatchGo(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2 and BMI2: the Go loops only")
	}
	rng := rand.New(rand.NewPCG(24, 6))
	fill := func(b []byte, kind int) {
		for i := range b {
			if kind == 0 {
				b[i] = byte(rng.Uint32())
			} else {
				b[i] = []byte{0, 1, 2, 127, 128, 254, 255}[rng.IntN(7)]
			}
		}
	}
	for trial := range 400 {
		w := trial % 81
		if trial >= 380 {
			w = 1000 + trial%3
		}
		src := make([]byte, 4*w)
		fill(src, trial%2)
		want := make([]byte, 3*w)
		var prev [3]byte
		for x := range w {
			for c := range 3 {
				want[3*x+c] = src[4*x+c] - prev[c]
				prev[c] = src[4*x+c]
			}
		}
		k, g := withKernels(func() []byte {
			dst := bytes.Repeat([]byte{0xa5}, 3*w+40)
			subRGB(dst[:3*w], src)
			return dst
		})
		for name, got := range map[string][]byte{"kernel": k, "Go": g} {
			if !bytes.Equal(got[:3*w], want) || !bytes.Equal(got[3*w:], bytes.Repeat([]byte{0xa5}, 40)) {
				t.Fatalf("subRGB (%s), %d pixels: %v, want %v then 40 bytes 0xa5", name, w, got, want)
			}
		}
	}
	for kind := range 2 {
		data := make([]byte, 300<<10)
		fill(data, kind)
		if kind == 1 {
			for i := range data {
				data[i] = 0xff
			}
		}
		var lengths []int
		for n := range 301 {
			lengths = append(lengths, n)
		}
		lengths = append(lengths, 1<<16-1, 1<<16, 1<<16+33, 200000, len(data)-40)
		for _, n := range lengths {
			for _, head := range []int{0, 7, 31} {
				p := data[head+1 : head+1+n]
				// The sums after data[:head+1] (a run already under way).
				sa0, sb0 := uint64(1), uint64(0)
				for _, b := range data[:head+1] {
					sa0 = (sa0 + uint64(b)) % adlerMod
					sb0 = (sb0 + sa0) % adlerMod
				}
				want := adler32.Checksum(data[:head+1+n])
				k, g := withKernels(func() uint32 {
					sa, sb := adlerSums(sa0, sb0, p)
					if sa >= adlerMod || sb >= adlerMod {
						return 0 // not reduced: never an Adler-32 of these data
					}
					return uint32(sb)<<16 | uint32(sa)
				})
				if k != want || g != want {
					t.Fatalf("adlerSums of %d bytes after %d: kernel %08x, Go %08x, want %08x", n, head+1, k, g, want)
				}
			}
		}
	}
	// count: every length to 300 and past countPiece, of random bytes,
	// bytes near 0 and 255, small residuals -8 to 7 (the AVX-512
	// kernel's values -6 to 5 and their neighbours), and runs of one
	// value at and beside its range's ends.
	var counts [][]byte
	for n := range 301 {
		p := make([]byte, n)
		fill(p, n%2)
		counts = append(counts, p)
	}
	for _, n := range []int{countPiece - 1, countPiece, countPiece + 64, 70001} {
		for kind := range 3 {
			p := make([]byte, n)
			fill(p, kind%2)
			if kind == 2 {
				for i := range p {
					p[i] = byte(rng.IntN(16) - 8)
				}
			}
			counts = append(counts, p)
		}
		for _, v := range []byte{0, 5, 6, 249, 250, 255} {
			counts = append(counts, bytes.Repeat([]byte{v}, n))
		}
	}
	for _, p := range counts {
		n := len(p)
		var want [256]uint32
		for _, b := range p {
			want[b]++
		}
		k, g := withKernels(func() [256]uint32 {
			h := newHuffWriter()
			h.reset()
			h.count(p[:n/3])
			h.count(p[n/3:])
			var sum [256]uint32
			for s := range 256 {
				sum[s] = h.counts[0][s] + h.counts[1][s] + h.counts[2][s] + h.counts[3][s]
			}
			return sum
		})
		if k != want || g != want {
			t.Fatalf("count of %d bytes (first %d): kernel %v, Go %v, want %v", n, p[:min(n, 1)], k, g, want)
		}
	}
}

// TestHuffLitsKernel checks that the Huffman kernels (huffLitsAVX512
// where it runs, and huffLitsBMI2) write the bytes of the Go loop: blocks
// of skewed bytes (codes of 1 to 15 bits; a geometric law, so that the
// rarest values take the longest codes) and of flat ones, of every
// length 0-50, 63-66, 127-130, 191-194 and long, one stream after another
// with the bit accumulator left at every offset; one long block also
// holds a run of 100 values seen once (14-15-bit codes: any four overflow
// the AVX-512 kernel's 56 bits, which leaves those steps to huffLitsBMI2).
func TestHuffLitsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	var blocks [][]byte
	for n := range 51 {
		blocks = append(blocks, make([]byte, n))
	}
	for _, n := range []int{63, 64, 65, 66, 127, 128, 129, 130, 191, 192, 193, 194} {
		blocks = append(blocks, make([]byte, n), make([]byte, n))
	}
	blocks = append(blocks, make([]byte, 70001), make([]byte, 1<<16), make([]byte, 1<<16-1))
	longest := uint8(0)
	for i, b := range blocks {
		for j := range b {
			if i%2 == 0 {
				b[j] = byte(rng.Uint32())
				continue
			}
			v := 0
			for v < 255 && rng.IntN(3) != 0 {
				v++
			}
			b[j] = byte(v)
		}
	}
	rare := blocks[len(blocks)-1]
	for j := range 100 {
		rare[3001+j] = byte(150 + j)
	}
	run := func() []byte {
		h := newHuffWriter()
		h.reset()
		for i, b := range blocks {
			h.tally(b)
			h.flush(b)
			longest = max(longest, slicesMax(h.litLen[:]))
			if i == len(blocks)-1 {
				for j := range 97 {
					l := h.litLen[150+j : 154+j]
					if sum := int(l[0]) + int(l[1]) + int(l[2]) + int(l[3]); sum <= 56 {
						t.Fatalf("the run's values %d-%d have codes of %d bits, not over 56", 150+j, 153+j, sum)
					}
				}
			}
		}
		h.close()
		return bytes.Clone(h.out)
	}
	k, g := withKernels(run)
	if !bytes.Equal(k, g) {
		t.Fatalf("kernels' stream of %d bytes differs from Go's of %d", len(k), len(g))
	}
	if hasHuffAVX512 {
		hasHuffAVX512 = false
		b := run()
		hasHuffAVX512 = true
		if !bytes.Equal(b, g) {
			t.Fatalf("huffLitsBMI2's stream of %d bytes differs from Go's of %d", len(b), len(g))
		}
	}
	if longest != maxLitLn {
		t.Errorf("longest code %d bits: the blocks test no %d-bit code", longest, maxLitLn)
	}
	var all []byte
	for _, b := range blocks {
		all = append(all, b...)
	}
	if got := inflate(t, k); !bytes.Equal(got, all) {
		t.Fatalf("the stream inflates to %d bytes, not the %d written", len(got), len(all))
	}
}

func slicesMax(s []uint8) uint8 {
	m := uint8(0)
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

// TestEncodeKernelsSameFile checks that Encode writes the same file with
// and without the kernels, grey and RGB, photograph-like and noise, odd
// sizes and sub-images, and that image/png reads back the pixels.
func TestEncodeKernelsSameFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	noise := image.NewRGBA(image.Rect(0, 0, 1001, 70))
	for i := range noise.Pix {
		noise.Pix[i] = byte(rng.Uint32()) | byte(i%4/3*255)
	}
	tex := testimages.Texture(517, 131, 4)
	photo := image.NewRGBA(tex.Rect)
	for i, v := range tex.Pix {
		photo.Pix[4*i], photo.Pix[4*i+1], photo.Pix[4*i+2], photo.Pix[4*i+3] = v, v/2+byte(i%7), 255-v, 255
	}
	for name, m := range map[string]image.Image{
		"rgb noise":     noise,
		"rgb noise sub": noise.SubImage(image.Rect(3, 2, 700, 69)),
		"rgb photo":     photo,
		"rgb 9x3":       photo.SubImage(image.Rect(0, 0, 9, 3)),
		"rgb 17x1":      photo.SubImage(image.Rect(5, 7, 22, 8)),
		"grey":          tex,
	} {
		k, g := withKernels(func() []byte {
			var w bytes.Buffer
			if err := Encode(&w, m); err != nil {
				t.Fatal(err)
			}
			return w.Bytes()
		})
		if !bytes.Equal(k, g) {
			t.Fatalf("%s: the kernels' file (%d bytes) differs from Go's (%d)", name, len(k), len(g))
		}
		samePixels(t, m, k)
	}
}

// TestHuffLitsLongQwords codes literals whose codes, joined four at a
// time (huffLitsAVX512's qwords), take 50-60 bits, after an accumulator
// of 0-7 bits: with the kernels (AVX-512, then huffLitsBMI2 alone) and
// by the Go loop, the same bits. huffLitsAVX512 may join a qword only if
// it fits the 64-bit accumulator with the fewer than 8 bits left in it
// (at most 56 bits: a step with one of more goes to huffLitsBMI2).
// TestHuffLitsKernel's blocks, whose Huffman codes come from their
// counts, have no such qword of 57-59 bits: a stop threshold planted at
// 58 or 59 passed it; here 57, 58 and 59 fail (55 codes the same bits).
// The codes are set by hand (lengths 1-15, bits at random: prefix-free
// or not, the kernels only join them).
func TestHuffLitsLongQwords(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 and BMI2: the Go loop only")
	}
	rng := rand.New(rand.NewPCG(34, 57))
	h := newHuffWriter()
	// Byte values 0-15: lengths 15 to 1 (value v: 15-v bits, 0 for 15
	// is taken as 1); the others 2-9 bits.
	bitsOf := make([]int, 256)
	for s := range 256 {
		l := 2 + rng.IntN(8)
		if s < 15 {
			l = 15 - s
		}
		if s == 15 {
			l = 1
		}
		bitsOf[s] = l
		h.code[s] = uint32(rng.IntN(1<<l)) | uint32(l)<<16
		h.litLen[s] = uint8(l)
	}
	h.setLUT()
	// Groups of four values summing to 50-60 bits (of 15, 14, 13 and
	// 12-bit codes: values 0-3), among groups of short codes that leave
	// the accumulator each number of bits.
	long := [][4]byte{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}, {0, 0, 1, 1}, {0, 0, 0, 3}, {0, 1, 1, 2}, {1, 1, 1, 1}, {0, 0, 2, 3}, {1, 1, 2, 2}, {2, 2, 2, 2}, {0, 3, 3, 3}}
	var sums []int
	for _, g := range long {
		sums = append(sums, bitsOf[g[0]]+bitsOf[g[1]]+bitsOf[g[2]]+bitsOf[g[3]])
	}
	if !slices.Contains(sums, 57) || !slices.Contains(sums, 58) || !slices.Contains(sums, 59) {
		t.Fatalf("the long groups take %v bits: none of 57, 58 or 59", sums)
	}
	// code codes p from the accumulator acc (n bits) by huffLits and the
	// bytes it leaves by h.bits, and returns the stream to whole bytes.
	code := func(p []byte, acc uint64, n uint) []byte {
		out := make([]byte, len(p)*maxLitLn/8+16)
		o, acc, n, q := huffLits(h, out, 0, acc, n, p)
		binary.LittleEndian.PutUint64(out[o:], acc)
		h.out, h.acc, h.nacc = out[:o+int(n/8)], acc>>(n/8*8&63), n%8
		for _, b := range q {
			h.bits(h.code[b]&0xffff, uint(h.code[b]>>16))
		}
		for ; h.nacc > 0; h.nacc -= min(h.nacc, 8) {
			h.out = append(h.out, byte(h.acc))
			h.acc >>= 8
		}
		return h.out
	}
	defer func(a, b bool) { hasAVX2, hasHuffAVX512 = a, b }(hasAVX2, hasHuffAVX512)
	avx512 := hasHuffAVX512
	for trial := range 400 {
		p := make([]byte, 64*(1+rng.IntN(6))+rng.IntN(70))
		for j := 0; j+4 <= len(p); j += 4 {
			if rng.IntN(3) == 0 {
				g := long[rng.IntN(len(long))]
				copy(p[j:], g[:])
				continue
			}
			for k := range 4 {
				p[j+k] = byte(4 + rng.IntN(252))
			}
		}
		acc, n := uint64(rng.IntN(1<<7)), uint(rng.IntN(8))
		acc &= 1<<n - 1
		hasAVX2, hasHuffAVX512 = false, false
		want := code(p, acc, n)
		for _, k := range []struct{ avx2, avx512 bool }{{true, false}, {true, true}} {
			hasAVX2, hasHuffAVX512 = k.avx2, k.avx512 && avx512
			if got := code(p, acc, n); !bytes.Equal(got, want) {
				t.Fatalf("trial %d (%d bytes, %d bits before), AVX-512 %v: %d bytes, the Go loop's %d, or other bits", trial, len(p), n, hasHuffAVX512, len(got), len(want))
			}
		}
	}
}
