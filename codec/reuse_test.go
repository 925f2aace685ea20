package codec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
)

// The buffers encoders and decoders keep between images (keptPool,
// sync.Pool, per-model caches, DecodeOptions.Into) must never carry
// anything from one image to the next: a batch of images of different
// sizes, kinds and contents, coded in a mixed order in one process, gives
// the bytes and pixels of coding each alone in a fresh state.

// reuseCase is an image of the batch.
type reuseCase struct {
	name string
	img  image.Image
}

// reuseModels are an 8×8 model and a 4×4 gamma-0 one in the
// entropy-constrained mode (version 9 for 8-bit grey images, 8 for the
// rest), trained small.
var reuseModels = sync.OnceValues(func() ([]*Model, error) {
	train := []image.Image{testimages.Texture(128, 128, 5), testimages.Texture(96, 80, 6)}
	var ms []*Model
	for _, set := range []func(*TrainOptions){
		func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 8, 10, 0 },
		func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 4, 10, 0 },
		func(o *TrainOptions) { o.Patch, o.Step = 2, 10 }, // every dimension leading, version 5
	} {
		o := DefaultTrainOptions()
		o.Samples, o.Bins, o.SPCA.Resolution = 400, 30, 1024
		set(&o)
		m, err := Train(train, &o)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
})

func reuseTestModels(t testing.TB) []*Model {
	ms, err := reuseModels()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// rereadModel returns m written and read back, as a loaded model file
// is (the sections read on first use, the tables rebuilt).
func rereadModel(t testing.TB, m *Model) *Model {
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := ReadModel(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reuseCases are images of odd sizes and kinds: large, tiny, thin, flat,
// noise, colour (its luma with a grey model), 16-bit grey.
func reuseCases() []reuseCase {
	noise := image.NewGray(image.Rect(0, 0, 65, 47))
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(rng.IntN(256))
	}
	flat := image.NewGray(image.Rect(0, 0, 40, 33))
	for i := range flat.Pix {
		flat.Pix[i] = 173
	}
	g16 := image.NewGray16(image.Rect(0, 0, 29, 31))
	src := testimages.Texture(29, 31, 3)
	for y := 0; y < 31; y++ {
		for x := 0; x < 29; x++ {
			g16.SetGray16(x, y, color.Gray16{Y: uint16(src.GrayAt(x, y).Y)<<8 | uint16(x*y)})
		}
	}
	one := image.NewGray(image.Rect(0, 0, 1, 1))
	one.Pix[0] = 200
	return []reuseCase{
		{"769x513", testimages.Texture(769, 513, 41)},
		{"1x1", one},
		{"3x5", testimages.Texture(3, 5, 42)},
		{"17x9", testimages.Texture(17, 9, 43)},
		{"8x2000", testimages.Texture(8, 2000, 44)},
		{"2000x8", testimages.Texture(2000, 8, 45)},
		{"flat40x33", flat},
		{"noise65x47", noise},
		{"colour33x21", testimages.ColorTexture(33, 21, 46)},
		{"gray16-29x31", g16},
		{"200x120", testimages.Texture(200, 120, 47)},
	}
}

// freshState forgets every buffer kept between images: the kept pools
// and, by two collections, the sync.Pools.
func freshState() {
	ReleaseBuffers()
	runtime.GC()
	runtime.GC()
}

// reuseReference codes each case alone in a fresh state: its file and
// decoded pixels.
type reuseRef struct {
	file []byte
	pix  []byte
}

func reuseReferences(t testing.TB, m *Model, cases []reuseCase) []reuseRef {
	refs := make([]reuseRef, len(cases))
	for i, c := range cases {
		freshState()
		var b bytes.Buffer
		if err := Encode(&b, c.img, m, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		freshState()
		img, err := Decode(bytes.NewReader(b.Bytes()), m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		refs[i] = reuseRef{file: b.Bytes(), pix: pixelBytesOf(img)}
	}
	return refs
}

// reuseOrder is a mixed order of the cases: large, small, large..., each
// case at least twice.
func reuseOrder(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 1))
	order := append(rng.Perm(n), rng.Perm(n)...)
	return append([]int{0, 1, 0, 2, 0}, order...)
}

// garble fills g's pixels with noise.
func garble(g *image.Gray, rng *rand.Rand) {
	for i := range g.Pix {
		g.Pix[i] = uint8(rng.Uint32())
	}
}

// runReuseBatch encodes and decodes the cases in order, each decode into
// the last grey image decoded (as spca decode does) with its pixels
// garbled first, and reports any file or pixels that differ from refs.
func runReuseBatch(m *Model, cases []reuseCase, refs []reuseRef, order []int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 2))
	var last *image.Gray
	for step, i := range order {
		c := cases[i]
		var b bytes.Buffer
		if err := Encode(&b, c.img, m, nil); err != nil {
			return fmt.Errorf("step %d, %s: %v", step, c.name, err)
		}
		if !bytes.Equal(b.Bytes(), refs[i].file) {
			return fmt.Errorf("step %d, %s: file differs from the one coded alone", step, c.name)
		}
		if last != nil {
			garble(last, rng)
		}
		img, err := DecodeWith(bytes.NewReader(b.Bytes()), m, &DecodeOptions{Into: last})
		if err != nil {
			return fmt.Errorf("step %d, %s: %v", step, c.name, err)
		}
		if !bytes.Equal(pixelBytesOf(img), refs[i].pix) {
			return fmt.Errorf("step %d, %s: pixels differ from the ones decoded alone (into %v)", step, c.name, boundsOf(last))
		}
		if g, ok := img.(*image.Gray); ok {
			last = g
		}
	}
	return nil
}

func boundsOf(g *image.Gray) any {
	if g == nil {
		return nil
	}
	return g.Rect
}

// pixelBytesOf is pixelBytes without a testing.TB.
func pixelBytesOf(img image.Image) []byte {
	b := img.Bounds()
	var out []byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			out = append(out, byte(r>>8), byte(r), byte(g>>8), byte(g), byte(bl>>8), byte(bl), byte(a>>8), byte(a))
		}
	}
	return out
}

// TestReuseBatch codes the cases in a mixed order, with both models
// interleaved, and compares with each coded alone in a fresh state.
func TestReuseBatch(t *testing.T) {
	ms := reuseTestModels(t)
	cases := reuseCases()
	refs := make([][]reuseRef, len(ms))
	for mi, m := range ms {
		refs[mi] = reuseReferences(t, m, cases)
		if v := refs[mi][0].file[len(Magic)]; v != formatVersionFilter && m.Patch != 2 {
			t.Fatalf("model %d: the large grey image was coded at version %d, not %d", mi, v, formatVersionFilter)
		}
		filtered := 0
		for _, r := range refs[mi] {
			if h, err := DecodeHeader(bytes.NewReader(r.file)); err == nil && h.LoopFilter != nil {
				filtered++
			}
		}
		t.Logf("model %d (%d×%d): %d of %d files with a loop filter", mi, m.Patch, m.Patch, filtered, len(cases))
		if filtered < 2 && m.Patch != 2 {
			t.Fatalf("model %d: %d files with a loop filter: the fit's kept planes are not tested", mi, filtered)
		}
	}
	for mi, m := range ms {
		if err := runReuseBatch(m, cases, refs[mi], reuseOrder(len(cases), uint64(mi)), uint64(mi)); err != nil {
			t.Errorf("model %d: %v", mi, err)
		}
	}
	// The two models in turn, image by image.
	order := reuseOrder(len(cases), 9)
	for _, i := range order {
		for mi, m := range ms {
			if err := runReuseBatch(m, cases, refs[mi], []int{i}, 3); err != nil {
				t.Errorf("models in turn, model %d: %v", mi, err)
			}
		}
	}
}

// TestReuseConcurrent runs two batches at the same time (run with -race
// to see a buffer shared between them).
func TestReuseConcurrent(t *testing.T) {
	ms := reuseTestModels(t)
	cases := reuseCases()[1:] // not the large image: TestReuseBatch has it
	refs := make([][]reuseRef, len(ms))
	for mi, m := range ms {
		refs[mi] = reuseReferences(t, m, cases)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mi := g % len(ms)
			errs[g] = runReuseBatch(ms[mi], cases, refs[mi], reuseOrder(len(cases), uint64(10+g)), uint64(g))
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
}

// TestReuseAfterFailure decodes broken files (truncated, a byte changed
// with the checksum refreshed or not, another model's) between good ones:
// each fails with a *FormatError, leaves the image it was handed
// untouched, and the next good decode is bit-exact.
func TestReuseAfterFailure(t *testing.T) {
	ms := reuseTestModels(t)
	cases := reuseCases()[1:] // not the large image: TestReuseBatch has it
	rng := rand.New(rand.NewPCG(5, 5))
	for mi, m := range ms {
		refs := reuseReferences(t, m, cases)
		other := ms[(mi+1)%len(ms)]
		for i, c := range cases {
			file := refs[i].file
			var bad [][]byte
			for _, n := range []int{len(file) - 1, len(file) / 2, len(Magic) + 1 + 32 + 12, 4} {
				bad = append(bad, file[:n])
			}
			for k := 0; k < 3; k++ {
				cp := bytes.Clone(file)
				cp[rng.IntN(len(cp)-4)] ^= byte(1 + rng.IntN(255))
				bad = append(bad, cp, checksum.Refresh(bytes.Clone(cp)))
			}
			j := (i + 1) % len(cases)
			for _, b := range bad {
				for _, into := range []*image.Gray{nil, intoFor(cases[i].img), intoFor(cases[j].img)} {
					var before []byte
					if into != nil {
						garble(into, rng)
						before = bytes.Clone(into.Pix)
					}
					img, err := DecodeWith(bytes.NewReader(b), m, &DecodeOptions{Into: into})
					if err == nil {
						// A changed byte the streams take as another
						// valid file: allowed, but it must be whole.
						if img.Bounds().Empty() {
							t.Fatalf("%s: an empty image without an error", c.name)
						}
					} else {
						var fe *FormatError
						if !errors.As(err, &fe) {
							t.Fatalf("%s: error of another type %T: %v", c.name, err, err)
						}
						if into != nil && !bytes.Equal(into.Pix, before) {
							t.Fatalf("%s: a failed decode wrote into the image it was handed", c.name)
						}
					}
					// The next good decode, into the image just handed.
					if into != nil {
						garble(into, rng)
					}
					got, err := DecodeWith(bytes.NewReader(refs[j].file), m, &DecodeOptions{Into: into})
					if err != nil {
						t.Fatalf("%s after a broken %s: %v", cases[j].name, c.name, err)
					}
					if !bytes.Equal(pixelBytesOf(got), refs[j].pix) {
						t.Fatalf("%s after a broken %s: pixels differ from the ones decoded alone", cases[j].name, c.name)
					}
				}
			}
			// Another model's file of the same image.
			var ob bytes.Buffer
			if err := Encode(&ob, c.img, other, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(bytes.NewReader(ob.Bytes()), m); !errors.Is(err, ErrWrongModel) {
				t.Fatalf("%s: another model's file: %v", c.name, err)
			}
		}
	}
}

// intoFor is a grey image of img's size.
func intoFor(img image.Image) *image.Gray {
	return image.NewGray(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
}

// TestCraftedLoopFilterHeaders changes the 13 bytes of a version-9 file's
// loop filter (kind, taps, truncations inside them) and the version of
// files that may not be version 9 (colour, 16-bit), checksums refreshed:
// each is a *FormatError from Decode and DecodeHeader, or, for taps that
// are merely large, a whole image.
func TestCraftedLoopFilterHeaders(t *testing.T) {
	m := reuseTestModels(t)[1]
	enc := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := Encode(&b, img, m, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	file := enc(testimages.Texture(200, 120, 47))
	h, err := DecodeHeader(bytes.NewReader(file))
	if err != nil || h.Version != formatVersionFilter || h.LoopFilter == nil {
		t.Fatalf("the test file: version %d, filter %v, %v", h.Version, h.LoopFilter, err)
	}
	lf := fixedHeaderBytes + 1 + 2*m.Patch*m.Patch + 8 + 1 // the loop filter's first byte
	if file[lf] != loopKindDiamond {
		t.Fatalf("byte %d is %d, not the loop filter's kind", lf, file[lf])
	}
	change := func(f func([]byte) []byte) []byte { return checksum.Refresh(f(bytes.Clone(file))) }
	bad := map[string][]byte{
		"kind 2":           change(func(b []byte) []byte { b[lf] = 2; return b }),
		"kind 255":         change(func(b []byte) []byte { b[lf] = 255; return b }),
		"no filter, taps":  change(func(b []byte) []byte { b[lf] = loopKindNone; return b }),
		"no filter, tap12": change(func(b []byte) []byte { clear(b[lf : lf+12]); b[lf+12] = 1; return b }),
		"colour as v9": func() []byte {
			cm := smallColorModel(t, false)
			var w bytes.Buffer
			if err := Encode(&w, testimages.ColorTexture(33, 21, 46), cm, nil); err != nil {
				t.Fatal(err)
			}
			b := w.Bytes()
			if b[fixedHeaderBytes-3] != 3 {
				t.Fatalf("the colour file has %d channels", b[fixedHeaderBytes-3])
			}
			b[len(Magic)] = formatVersionFilter
			return checksum.Refresh(b)
		}(),
		"16-bit as v9": func() []byte {
			b := enc(reuseCases()[9].img)
			b[len(Magic)] = formatVersionFilter
			return checksum.Refresh(b)
		}(),
		"grey as v10":     change(func(b []byte) []byte { b[len(Magic)] = formatVersionColourFilter; return b }),
		"a later version": change(func(b []byte) []byte { b[len(Magic)] = lastFormatVersion + 1; return b }),
	}
	for k := 0; k < loopFilterBytes; k++ {
		bad[fmt.Sprintf("cut at filter byte %d", k)] = checksum.Refresh(bytes.Clone(file[:lf+k]))
		bad[fmt.Sprintf("header cut at filter byte %d", k)] = bytes.Clone(file[:lf+k])
	}
	for name, b := range bad {
		var fe *FormatError
		if _, err := Decode(bytes.NewReader(b), m); !errors.As(err, &fe) {
			t.Errorf("%s: Decode gave %v, want a *FormatError", name, err)
		}
		if _, err := DecodeHeader(bytes.NewReader(b)); !strings.HasPrefix(name, "no filter,") && !strings.HasPrefix(name, "cut") && !strings.HasPrefix(name, "header cut") && !errors.As(err, &fe) {
			t.Errorf("%s: DecodeHeader gave %v, want a *FormatError", name, err)
		}
	}
	// The largest taps of either sign: an image of the file's size,
	// whatever the filter makes of it.
	for _, v := range []byte{0x7f, 0x80, 0x01} {
		b := change(func(b []byte) []byte {
			for k := 1; k < loopFilterBytes; k++ {
				b[lf+k] = v
			}
			return b
		})
		img, err := Decode(bytes.NewReader(b), m)
		if err != nil {
			t.Errorf("taps %#x: %v", v, err)
		} else if img.Bounds() != image.Rect(0, 0, 200, 120) {
			t.Errorf("taps %#x: a %v image", v, img.Bounds())
		}
	}
}

// TestDecodeIntoOdd hands DecodeOptions.Into images it must not use (a
// sub-image of the file's size not at the origin, one whose Pix is short,
// one of the right size for a 16-bit file, a zero Gray) and one of the
// right size full of garbage: the first are left alone and the pixels
// are Decode's; the last is used and its garbage shows nowhere.
func TestDecodeIntoOdd(t *testing.T) {
	m := reuseTestModels(t)[0]
	cases := reuseCases()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, c := range []reuseCase{cases[3], cases[9], cases[10]} {
		var b bytes.Buffer
		if err := Encode(&b, c.img, m, nil); err != nil {
			t.Fatal(err)
		}
		want, err := Decode(bytes.NewReader(b.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		w, h := c.img.Bounds().Dx(), c.img.Bounds().Dy()
		big := image.NewGray(image.Rect(0, 0, w+3, h+2))
		tall := image.NewGray(image.Rect(0, 0, w, h+1))
		short := image.NewGray(image.Rect(0, 0, w, h))
		short.Pix = short.Pix[:w*h-1]
		for name, into := range map[string]*image.Gray{
			"sub-image":    big.SubImage(image.Rect(3, 2, w+3, h+2)).(*image.Gray),
			"sub-image 0":  big.SubImage(image.Rect(0, 0, w, h)).(*image.Gray),
			"tall's lower": tall.SubImage(image.Rect(0, 1, w, h+1)).(*image.Gray), // stride w, off the origin
			"short Pix":    short,
			"zero":         {},
		} {
			garble(big, rng)
			garble(into, rng)
			before := bytes.Clone(into.Pix)
			got, err := DecodeWith(bytes.NewReader(b.Bytes()), m, &DecodeOptions{Into: into})
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, name, err)
			}
			if !bytes.Equal(into.Pix, before) || !bytes.Equal(pixelBytesOf(got), pixelBytesOf(want)) {
				t.Errorf("%s, into a %s: wrote into it or pixels differ from Decode's", c.name, name)
			}
		}
		if _, sixteen := want.(*image.Gray16); sixteen {
			continue
		}
		for k := 0; k < 3; k++ {
			into := intoFor(c.img)
			garble(into, rng)
			got, err := DecodeWith(bytes.NewReader(b.Bytes()), m, &DecodeOptions{Into: into})
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := got.(*image.Gray); !ok || &g.Pix[0] != &into.Pix[0] || !bytes.Equal(g.Pix, want.(*image.Gray).Pix) {
				t.Errorf("%s, into garbage: not used, or pixels differ from Decode's", c.name)
			}
		}
	}
}
