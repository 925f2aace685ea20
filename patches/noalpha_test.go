package patches

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/spcalab/spca/internal/opacity"
)

// NoAlpha reports the files without alpha (grey and RGB PNG, PGM, PPM),
// whose images are opaque, and says nothing of the others: RGBA PNG
// (opaque or not), a PNG with a tRNS chunk, JPEG, GIF. A failed decode
// resets it.
func TestNoAlpha(t *testing.T) {
	rgba := func(alpha uint8) *image.NRGBA {
		m := image.NewNRGBA(image.Rect(0, 0, 5, 3))
		for i := range m.Pix {
			m.Pix[i] = uint8(40 * (i % 5))
			if i%4 == 3 {
				m.Pix[i] = alpha
			}
		}
		return m
	}
	grey := image.NewGray(image.Rect(0, 0, 5, 3))
	grey.Pix[4] = 200
	paletted := image.NewPaletted(image.Rect(0, 0, 5, 3), color.Palette{color.Transparent, color.White})
	pngOf := func(m image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	var jpg, gf bytes.Buffer
	if err := jpeg.Encode(&jpg, rgba(255), nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, paletted, nil); err != nil {
		t.Fatal(err)
	}
	var pgm, ppm bytes.Buffer
	fmt.Fprintf(&pgm, "P5\n5 3\n255\n%s", bytes.Repeat([]byte{9}, 15))
	fmt.Fprintf(&ppm, "P6\n5 3\n255\n%s", bytes.Repeat([]byte{9}, 45))
	cases := []struct {
		name string
		data []byte
		want bool
	}{
		{"RGB PNG", pngOf(rgba(255)), true}, // image/png writes an opaque image as RGB
		{"grey PNG", pngOf(grey), true},
		{"RGBA PNG", pngOf(rgba(128)), false},
		{"palette PNG", pngOf(paletted), false},
		{"PGM", pgm.Bytes(), true},
		{"PPM", ppm.Bytes(), true},
		{"JPEG", jpg.Bytes(), false},
		{"GIF", gf.Bytes(), false},
	}
	for _, c := range cases {
		known := !c.want // a stale value is overwritten
		img, err := Decode(bytes.NewReader(c.data), NoAlpha(&known))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if known != c.want {
			t.Errorf("%s: NoAlpha %v, want %v", c.name, known, c.want)
		}
		if known && !opacity.Of(img) {
			t.Errorf("%s: NoAlpha, but its image is not opaque", c.name)
		}
	}
	known := true
	if _, err := Decode(bytes.NewReader(ppm.Bytes()[:20]), NoAlpha(&known)); err == nil || known {
		t.Errorf("a truncated PPM: error %v, NoAlpha %v; want an error and false", err, known)
	}
}

// NoAlpha is false for every PNG whose image has transparent pixels by
// other means than an RGBA colour type: a colour key (tRNS) on 8- and
// 16-bit grey and RGB and on a palette, grey with alpha, 16-bit RGBA,
// interlaced or not, decoded fresh or into the image before; and where it
// is true (opaque 16-bit or interlaced files, if ever) the image is
// opaque. pngfast reads 8-bit grey and RGB files without tRNS alone:
// were it to skip a tRNS chunk as it skips other ancillary chunks, a
// colour-keyed file would be taken for opaque here.
func TestNoAlphaKeyedPNG(t *testing.T) {
	plte := pngChunk("PLTE", []byte{1, 2, 3, 4, 5, 6})
	type kind struct {
		name                string
		depth, ct           byte
		chunks              [][]byte // before IDAT
		sample              byte     // every byte of the raw rows
		transparent, opaque bool     // image/png's image
	}
	kinds := []kind{
		{"grey8 keyed", 8, 0, [][]byte{pngChunk("tRNS", []byte{0, 9})}, 9, true, false},
		{"RGB8 keyed", 8, 2, [][]byte{pngChunk("tRNS", []byte{0, 9, 0, 9, 0, 9})}, 9, true, false},
		{"grey16 keyed", 16, 0, [][]byte{pngChunk("tRNS", []byte{9, 9})}, 9, true, false},
		{"RGB16 keyed", 16, 2, [][]byte{pngChunk("tRNS", []byte{9, 9, 9, 9, 9, 9})}, 9, true, false},
		{"grey1 keyed", 1, 0, [][]byte{pngChunk("tRNS", []byte{0, 1})}, 0xff, true, false},
		{"palette keyed", 8, 3, [][]byte{plte, pngChunk("tRNS", []byte{0})}, 0, true, false},
		{"grey+alpha8", 8, 4, nil, 9, true, false},
		{"RGBA16", 16, 6, nil, 9, true, false},
		{"grey8", 8, 0, nil, 9, false, true},
		{"RGB8", 8, 2, nil, 9, false, true},
		{"grey16", 16, 0, nil, 9, false, true},
		{"RGB16", 16, 2, nil, 9, false, true},
		{"palette", 8, 3, [][]byte{plte}, 0, false, true},
	}
	var last image.Image
	for _, k := range kinds {
		for _, interlace := range []byte{0, 1} {
			for _, w := range []int{1, 5, 9} {
				data := samplePNG(w, 3, k.depth, k.ct, interlace, k.chunks, k.sample)
				name := fmt.Sprintf("%s %dx3 interlace %d", k.name, w, interlace)
				want, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s: image/png: %v", name, err)
				}
				if opaque := opacity.Of(want); k.transparent && opaque || k.opaque && !opaque {
					t.Fatalf("%s: image/png's %T is opaque %v: not the test's file", name, want, opaque)
				}
				for _, into := range []image.Image{nil, last} {
					known := true // a stale value is overwritten
					img, err := Decode(bytes.NewReader(data), NoAlpha(&known), Into(into))
					if err != nil {
						t.Fatalf("%s, into %T: %v", name, into, err)
					}
					if known && (k.transparent || !opacity.Of(img)) {
						t.Errorf("%s, into %T: NoAlpha for a %T, opaque %v (image/png's: %v)", name, into, img, opacity.Of(img), opacity.Of(want))
					}
					last = img
				}
			}
		}
	}
}

// samplePNG returns a w×h PNG of the given bit depth, colour type and
// interlace method whose raw rows (filter None) are all the byte sample,
// with chunks between IHDR and IDAT.
func samplePNG(w, h int, depth, ct, interlace byte, chunks [][]byte, sample byte) []byte {
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
	var raw []byte
	rows := func(pw, ph int) {
		for range ph {
			raw = append(raw, 0) // filter None
			raw = append(raw, bytes.Repeat([]byte{sample}, (pw*channels*int(depth)+7)/8)...)
		}
	}
	if interlace == 0 {
		rows(w, h)
	} else {
		// Adam7's passes, each a smaller image.
		for p := range 7 {
			x0, y0 := []int{0, 4, 0, 2, 0, 1, 0}[p], []int{0, 0, 4, 0, 2, 0, 1}[p]
			dx, dy := []int{8, 8, 4, 4, 2, 2, 1}[p], []int{8, 8, 8, 4, 4, 2, 2}[p]
			if pw, ph := (w-x0+dx-1)/dx, (h-y0+dy-1)/dy; pw > 0 && ph > 0 {
				rows(pw, ph)
			}
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, ct, 0, 0, interlace)
	out := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	out = append(out, pngChunk("IDAT", z.Bytes())...)
	return append(out, pngChunk("IEND", nil)...)
}

// pngChunk returns a PNG chunk: length, type, data and CRC.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(append(b, typ...), data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}
