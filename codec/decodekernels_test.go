package codec

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// kernelModels are the models whose decodes go through the kernels
// of the 4×4 and 8×8 paths: the tracked 8×8 and 4×4 grey models
// (patchDual, recon16, pixels16, the AVX-512 and AVX2 8×8 sums) and a
// 4×4 colour 4:2:0 model (its three planes through patchDual,
// DecodeOptions.IntoRGBA), trained small.
var kernelModels = sync.OnceValues(func() ([]*Model, error) {
	ms, err := reuseModels()
	if err != nil {
		return nil, err
	}
	o := DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution = 400, 1024
	o.Patch, o.Step, o.Gamma, o.Color, o.Subsample = 4, 12, 0, true, true
	colour, err := Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	if err != nil {
		return nil, err
	}
	return []*Model{ms[0], ms[1], colour}, nil
})

// kernelConfig is a set of the decoder's kernel switches.
type kernelConfig struct {
	name              string
	avx, avx512, dual bool
}

// kernelFuzzPixels is FuzzDecodeKernels' pixel budget, below
// FuzzDecode's: each input is decoded 36 times.
const kernelFuzzPixels = 1 << 16

// intoGuard is how many bytes follow a reused image's pixels in
// decodeWithKernels' buffers.
const intoGuard = 256

// decodeWithKernels decodes file with the kernels of k, into a fresh
// image or, if dirty, into a reused one whose pixels are all 0x5a (a
// decode must set every pixel) and whose pixel buffer runs on into
// guard bytes (a decode must write none of them), and reports its
// pixels' hash or its error, or a panic.
func decodeWithKernels(file []byte, m *Model, k kernelConfig, dirty bool) (out string) {
	defer useKernels(k)()
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprint("panic: ", r)
		}
	}()
	o := &DecodeOptions{MaxPixels: kernelFuzzPixels}
	var bufs [][]uint8
	if dirty {
		if h, err := DecodeHeader(bytes.NewReader(file)); err == nil && int64(h.Width)*int64(h.Height) <= kernelFuzzPixels {
			r := image.Rect(0, 0, h.Width, h.Height)
			g, c := image.NewGray(r), image.NewRGBA(r)
			for _, p := range []*[]uint8{&g.Pix, &c.Pix} {
				buf := bytes.Repeat([]uint8{0x5a}, len(*p)+intoGuard)
				*p, bufs = buf[:len(*p)], append(bufs, buf)
			}
			o.Into, o.IntoRGBA = g, c
		}
	}
	img, err := DecodeWith(bytes.NewReader(file), m, o)
	for _, buf := range bufs {
		n := len(buf) - intoGuard
		if !bytes.Equal(buf[n:], bytes.Repeat([]uint8{0x5a}, intoGuard)) {
			return fmt.Sprintf("wrote past the %d bytes of a reused image", n)
		}
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(img.Bounds(), " ", sum8(pixelBytesOf(img)))
}

// FuzzDecodeKernels checks, on any input, that the decoder's kernels
// (the 4×4 patch kernel patchDual, recon16AVX's direct 4×4 pixels, the
// AVX-512 and AVX2 8×8 sums) give what the pure-Go paths give: the same
// pixels or the same error, never a panic; and that a decode into a
// reused image (Into, IntoRGBA) filled with other pixels gives the
// pixels of a fresh one. FuzzDecode's models have no 4×4 one, so the
// direct 4×4 path met no hostile stream there.
func FuzzDecodeKernels(f *testing.F) {
	ms, err := kernelModels()
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(23, 5))
	imgs := []image.Image{testimages.Texture(37, 21, 9), testimages.Texture(4, 17, 2), testimages.ColorTexture(27, 18, 4)}
	for _, m := range ms {
		for _, img := range imgs {
			if _, grey := img.(*image.Gray); m.Color == grey {
				continue
			}
			var b bytes.Buffer
			if err := Encode(&b, img, m, nil); err != nil {
				f.Fatal(err)
			}
			good := b.Bytes()
			if got := decodeWithKernels(good, m, decodeKernelConfigs()[0], true); !strings.HasPrefix(got, fmt.Sprint(img.Bounds())) {
				f.Fatalf("%d×%d model, its own file of %v: %s", m.Patch, m.Patch, img.Bounds(), got)
			}
			f.Add(good)
			body := good[:len(good)-4]
			for range 3 {
				bad := bytes.Clone(body)
				p := len(bad)/3 + rng.IntN(len(bad)-len(bad)/3)
				bad[p] ^= 1 << rng.IntN(8)
				f.Add(checksum.Append(bad))
			}
		}
	}
	configs := decodeKernelConfigs()
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, d := range [][]byte{data, checksum.Refresh(data)} {
			if i == 1 && bytes.Equal(d, data) {
				continue // a valid checksum already: the same input again
			}
			for mi, m := range ms {
				want := decodeWithKernels(d, m, configs[len(configs)-1], false)
				for _, k := range configs {
					for _, dirty := range []bool{false, true} {
						if k == configs[len(configs)-1] && !dirty {
							continue
						}
						if got := decodeWithKernels(d, m, k, dirty); got != want {
							t.Fatalf("model %d, kernels %q, into a reused image %v: %s; the Go paths: %s", mi, k.name, dirty, got, want)
						}
					}
				}
			}
		}
	})
}

// everySize calls check with each of kernelModels (numbered mi) and an
// image of its kind of every width and height from 1 to 17: none to four
// whole 4×4 blocks and every part-block at the right and bottom edges,
// none to two 8×8 blocks.
func everySize(t *testing.T, check func(mi int, m *Model, img image.Image)) {
	ms, err := kernelModels()
	if err != nil {
		t.Fatal(err)
	}
	for mi, m := range ms {
		for w := 1; w <= 17; w++ {
			for h := 1; h <= 17; h++ {
				var img image.Image = testimages.Texture(w, h, uint64(w*32+h))
				if m.Color {
					img = testimages.ColorTexture(w, h, uint64(w*32+h))
				}
				check(mi, m, img)
			}
		}
	}
}

// TestDecodeKernelsEverySize codes images of every size (everySize) and
// checks that every decoder kernel set, into a fresh image and into a
// reused one holding other pixels, gives the pixels of the pure-Go paths.
func TestDecodeKernelsEverySize(t *testing.T) {
	configs := decodeKernelConfigs()
	everySize(t, func(mi int, m *Model, img image.Image) {
		size := img.Bounds().Size()
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatalf("model %d, %v: %v", mi, size, err)
		}
		want := decodeWithKernels(b.Bytes(), m, configs[len(configs)-1], false)
		if !strings.HasPrefix(want, fmt.Sprint(img.Bounds())) {
			t.Fatalf("model %d, %v: %s", mi, size, want)
		}
		for _, k := range configs {
			for _, dirty := range []bool{false, true} {
				if got := decodeWithKernels(b.Bytes(), m, k, dirty); got != want {
					t.Fatalf("model %d, %v, kernels %q, into a reused image %v: %s; the Go paths: %s", mi, size, k.name, dirty, got, want)
				}
			}
		}
	})
}

// TestEncodeKernelsEverySize codes images of every size (everySize) with
// every kernel set of the encoder (the 4×4 refinement's search4 and
// hintLines4 are assembly in every set; restCountsAVX2, patchEncDual,
// the AVX-512 and AVX2 sums and searches are switched): the bytes of the
// pure-Go paths.
func TestEncodeKernelsEverySize(t *testing.T) {
	configs := encodeKernelConfigs()
	encode := func(img image.Image, m *Model, k kernelConfig) []byte {
		defer useEncodeKernels(k)()
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	everySize(t, func(mi int, m *Model, img image.Image) {
		want := encode(img, m, configs[len(configs)-1])
		for _, k := range configs[:len(configs)-1] {
			if got := encode(img, m, k); !bytes.Equal(got, want) {
				t.Fatalf("model %d, %v, kernels %q: %d bytes unlike the Go paths' %d", mi, img.Bounds().Size(), k.name, len(got), len(want))
			}
		}
	})
}
