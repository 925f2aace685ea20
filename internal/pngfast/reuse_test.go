package pngfast

import (
	"bufio"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// reuseImages are images of odd sizes and contents (noise, flat, ramps,
// sparse values), grey of 8 and 16 bits and opaque RGBA, some of them
// sub-images: the kinds Encode writes itself.
func reuseImages() []image.Image {
	rng := rand.New(rand.NewPCG(24, 11))
	var ims []image.Image
	fill := func(pix []byte, kind int) {
		for i := range pix {
			switch kind {
			case 0:
				pix[i] = byte(rng.IntN(256))
			case 1:
				pix[i] = 77
			case 2:
				pix[i] = byte(i)
			default:
				if rng.IntN(50) == 0 {
					pix[i] = byte(rng.IntN(256))
				}
			}
		}
	}
	for n, sz := range [][2]int{{1, 1}, {1, 300}, {300, 1}, {7, 9}, {8, 8}, {9, 7}, {33, 65}, {257, 31}, {21846, 2}, {65535, 2}, {65536, 3}, {640, 480}} {
		w, h := sz[0], sz[1]
		g := image.NewGray(image.Rect(0, 0, w, h))
		fill(g.Pix, n%4)
		ims = append(ims, g)
		if w > 2 && h > 2 {
			ims = append(ims, g.SubImage(image.Rect(1, 1, w-1, h)))
		}
		if w*h <= 1<<16 {
			g16 := image.NewGray16(image.Rect(0, 0, w, h))
			fill(g16.Pix, (n+1)%4)
			ims = append(ims, g16)
			c := image.NewRGBA(image.Rect(0, 0, w, h))
			fill(c.Pix, (n+2)%4)
			for i := 3; i < len(c.Pix); i += 4 {
				c.Pix[i] = 255
			}
			ims = append(ims, c)
		}
	}
	return ims
}

func encodeBytes(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func samePixels(t *testing.T, m image.Image, file []byte) {
	t.Helper()
	back, err := png.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("%v: image/png cannot read it: %v", m.Bounds(), err)
	}
	r := m.Bounds()
	if back.Bounds().Size() != r.Size() {
		t.Fatalf("size %v, want %v", back.Bounds().Size(), r.Size())
	}
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			if a, c := color.RGBA64Model.Convert(m.At(r.Min.X+x, r.Min.Y+y)), color.RGBA64Model.Convert(back.At(x, y)); a != c {
				t.Fatalf("%v: pixel (%d, %d) %v, read back %v", r, x, y, a, c)
			}
		}
	}
}

// TestEncodeReuse writes a batch of images in a mixed order, with writes
// failing part way through between them (the kept state then holds a
// half-written image): every image's file is the bytes of writing it
// alone, and image/png reads its pixels back (checking the Adler-32 and
// CRCs).
func TestEncodeReuse(t *testing.T) {
	ims := reuseImages()
	alone := make([][]byte, len(ims))
	for i, m := range ims {
		alone[i] = encodeBytes(t, m)
		samePixels(t, m, alone[i])
	}
	rng := rand.New(rand.NewPCG(24, 12))
	for _, i := range append(rng.Perm(len(ims)), rng.Perm(len(ims))...) {
		// A failure part way through another image first.
		j := rng.IntN(len(ims))
		if err := Encode(&failWriter{n: rng.IntN(len(alone[j]))}, ims[j]); err == nil {
			t.Fatalf("%v: no error from a failing writer", ims[j].Bounds())
		}
		if got := encodeBytes(t, ims[i]); !bytes.Equal(got, alone[i]) {
			t.Fatalf("%v: %d bytes in the batch, %d alone", ims[i].Bounds(), len(got), len(alone[i]))
		}
	}
}

// TestEncodeConcurrent writes the images from 4 goroutines (run with
// -race): each file is the bytes of writing it alone.
func TestEncodeConcurrent(t *testing.T) {
	ims := reuseImages()
	alone := make([][]byte, len(ims))
	for i, m := range ims {
		alone[i] = encodeBytes(t, m)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 2 * len(ims) {
				i := (k*5 + g) % len(ims)
				var b bytes.Buffer
				if err := Encode(&b, ims[i]); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(b.Bytes(), alone[i]) {
					t.Errorf("%v: different bytes concurrently", ims[i].Bounds())
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestDecodeInto checks DecodeOptions.Into: a grey, RGB or RGBA file of
// the image's size and kind is decoded into it (its memory, image/png's
// pixels, whatever it held before), and into its memory reshaped where it
// has as many pixels in another shape; another kind or a sub-image leaves
// it unused.
func TestDecodeInto(t *testing.T) {
	files := testPNGs(t)
	for _, name := range []string{"grey image/png 1", "rgb pngfast", "nrgba image/png 1"} {
		data := files[name]
		want, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Decode(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		pixOf := func(m image.Image) []byte {
			switch m := m.(type) {
			case *image.Gray:
				return m.Pix
			case *image.RGBA:
				return m.Pix
			case *image.NRGBA:
				return m.Pix
			}
			return nil
		}
		into := pixOf(fresh)
		for i := range into {
			into[i] = byte(i * 7) // stale pixels, opaque or not
		}
		got, err := Decode(bytes.NewReader(data), &DecodeOptions{Into: fresh})
		if err != nil {
			t.Fatal(err)
		}
		if got != fresh || !sameImage(got, want) {
			t.Errorf("%s: not decoded into the image given, or other pixels than image/png's", name)
		}
		// As many pixels in another shape: reused, reshaped.
		r := fresh.Bounds()
		var other image.Image
		switch fresh.(type) {
		case *image.Gray:
			other = image.NewGray(image.Rect(0, 0, r.Dy(), r.Dx()))
		case *image.RGBA:
			other = image.NewRGBA(image.Rect(0, 0, r.Dy(), r.Dx()))
		default:
			other = image.NewNRGBA(image.Rect(0, 0, r.Dy(), r.Dx()))
		}
		got, err = Decode(bytes.NewReader(data), &DecodeOptions{Into: other})
		if err != nil || !sameImage(got, want) || &pixOf(got)[0] != &pixOf(other)[0] {
			t.Errorf("%s: not decoded into a %v image of as many pixels (%v)", name, other.Bounds(), err)
		}
		// Unusable: another size (a sub-image), another kind.
		sub := fresh.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(0, 0, fresh.Bounds().Dx()-1, fresh.Bounds().Dy()))
		for _, other := range []image.Image{sub, image.NewGray16(fresh.Bounds()), image.NewAlpha(fresh.Bounds())} {
			got, err := Decode(bytes.NewReader(data), &DecodeOptions{Into: other})
			if err != nil {
				t.Fatal(err)
			}
			if got == other || (len(pixOf(got)) > 0 && len(pixOf(other)) > 0 && &pixOf(got)[0] == &pixOf(other)[0]) || !sameImage(got, want) {
				t.Errorf("%s: decoded into a %T %v", name, other, other.Bounds())
			}
		}
	}
	// One decode into a kept image allocates no pixels: far less than
	// the image (768×512 grey, 393 KB).
	g := image.NewGray(image.Rect(0, 0, 768, 512))
	data := encodeBytes(t, g)
	Decode(bytes.NewReader(data), nil) // the kept buffers
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		if _, err := Decode(bytes.NewReader(data), &DecodeOptions{Into: g}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 100<<10 {
		t.Errorf("5 decodes of a 768×512 grey PNG into an image: %d bytes allocated, want under 100 KB", n)
	}
}

// Decode keeps its buffer of inflated rows for an image turned a quarter
// (a batch of landscape and portrait photographs): the portrait's rows
// take more bytes than the landscape's (768×512 RGB: 1,180,416 against
// 1,180,160), and each turn took a new buffer.
func TestDecodeTurnedKeepsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	files := make([][]byte, 2)
	for i, sz := range [][2]int{{96, 64}, {64, 96}} {
		m := image.NewRGBA(image.Rect(0, 0, sz[0], sz[1]))
		for j := range m.Pix {
			m.Pix[j] = byte(rng.IntN(256)) | byte(255*(j%4/3))
		}
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		files[i] = b.Bytes()
	}
	rows := func() *byte {
		st := readStates.get()
		defer readStates.put(st)
		return unsafe.SliceData(st.raw)
	}
	readStates.put(&readState{br: bufio.NewReaderSize(nil, 64<<10)}) // no buffer yet
	var first *byte
	for i, f := range append(files, files...) {
		if _, err := Decode(bytes.NewReader(f), nil); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = rows()
		} else if rows() != first {
			t.Fatalf("decode %d (%s) took a new buffer of rows", i, []string{"landscape", "portrait"}[i%2])
		}
	}
}
