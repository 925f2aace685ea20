package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// zstdZeros is a zstd frame declaring size bytes and holding n zero bytes
// as RLE blocks of 128 KiB: 4 bytes per block, so 1 GiB in 32 KiB.
func zstdZeros(size, n uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0xFD2FB528)
	b = append(b, 0xC0, 13<<3) // 8-byte content size; window 8 MiB
	b = le.AppendUint64(b, size)
	const block = 128 << 10
	for left := n; left > 0; {
		k := min(left, block)
		left -= k
		h := uint32(k)<<3 | 1<<1 // RLE block
		if left == 0 {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// readHostileModel reads data as a codec model, checking that it fails
// with a *ModelError containing want and allocates within the bound.
func readHostileModel(t *testing.T, name string, data []byte, want string) {
	t.Helper()
	var err error
	hostile.Check(t, name, len(data), func() { _, err = ReadModel(bytes.NewReader(data)) })
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s (%d bytes): got %v, want a *ModelError saying %q", name, len(data), err, want)
	}
}

// Issue 23: compressed models that inflate far beyond their size are
// refused before (declared size) or while (undeclared bytes) inflating.
func TestReadModelZstdBomb(t *testing.T) {
	head := binary.LittleEndian.AppendUint32([]byte(ModelMagic), modelVersionZstd)
	bomb := append(bytes.Clone(head), zstdZeros(1<<30, 1<<30)...)
	readHostileModel(t, "1 GiB of zeros declared", bomb, "declares 1073741824 bytes")
	liar := append(bytes.Clone(head), zstdZeros(4096, 1<<30)...)
	readHostileModel(t, "4 KiB declared, 1 GiB held", liar, "compressed data")
	undeclared := bytes.Clone(liar)
	undeclared[len(head)+4] = 0 // no content size, window 8 MiB
	readHostileModel(t, "no size declared", undeclared, "does not declare its size")
}

// Issue 23: a codec model whose embedded SPCA model declares a lattice of
// 2^26 nodes and holds none (393 bytes compressed in the report) is
// refused within the allocation bound.
func TestReadModelHostileLattice(t *testing.T) {
	plain := plainFile(t, smallModel(t))
	at := bytes.Index(plain, []byte("SPCAmodl"))
	if at < 8 {
		t.Fatal("no embedded SPCA model")
	}
	n := int(binary.LittleEndian.Uint64(plain[at-8:]))
	lattice, err := hostile.SPCALattice(plain[at : at+n])
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	b = append(b, plain[:at-8]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(lattice)))
	b = append(b, lattice...)
	b = append(b, plain[at+n:len(plain)-4]...)
	file := compressed(checksum.Append(b))
	readHostileModel(t, "lattice of 2^26 nodes", file, "truncated")
}

// runLengthFile is an .spc file of a flat image coded with m, with its
// size set to w×h and every run-length stream's count scaled to match:
// a file of a few hundred bytes that decodes to a w×h image.
func runLengthFile(t *testing.T, m *Model, w, h int) []byte {
	t.Helper()
	const side = 32
	flat := image.NewGray(image.Rect(0, 0, side, side))
	for i := range flat.Pix {
		flat.Pix[i] = 128
	}
	var b bytes.Buffer
	if err := Encode(&b, flat, m, nil); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(b.Bytes())
	_, body, err := parseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	blocksOld := patches.NewGrid(side, side, m.Patch).Blocks()
	blocksNew := patches.NewGrid(w, h, m.Patch).Blocks()
	le := binary.LittleEndian
	le.PutUint32(data[len(Magic)+1+32:], uint32(w))
	le.PutUint32(data[len(Magic)+1+32+4:], uint32(h))
	at := len(data) - len(body)
	for at < len(data)-4 {
		count, plen := int(le.Uint32(data[at+1:])), int(le.Uint32(data[at+5:]))
		if count > 0 && data[at] != methodRLE {
			t.Fatalf("stream of method %d in a flat image", data[at])
		}
		le.PutUint32(data[at+1:], uint32(count/blocksOld*blocksNew))
		at += 9 + plen
	}
	return checksum.Refresh(data)
}

// Issue 23: a file of a few hundred bytes whose run-length streams decode
// to a 16384×16384 image (3 GB, ~20 s before) is refused by the default
// pixel budget within the allocation bound; dimensions of 2^32-1 do not
// overflow the size check.
func TestDecodeHostileSize(t *testing.T) {
	m := smallModel(t)
	small := runLengthFile(t, m, 64, 48)
	img, err := Decode(bytes.NewReader(small), m)
	if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 48 {
		t.Fatalf("the crafted file at 64×48: %v, %v (the test's file is wrong)", img.Bounds(), err)
	}
	huge := runLengthFile(t, m, 16384, 16384)
	hostile.Check(t, "16384×16384 of run-length streams", len(huge), func() { _, err = Decode(bytes.NewReader(huge), m) })
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16384×16384") {
		t.Errorf("%d-byte file of 16384×16384: got %v, want a *FormatError wrapping ErrTooLarge", len(huge), err)
	}
	if _, err := DecodeWith(bytes.NewReader(huge), m, &DecodeOptions{MaxPixels: 16384*16384 - 1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("budget of 16384²-1 pixels: got %v, want ErrTooLarge", err)
	}
	wide := bytes.Clone(small)
	binary.LittleEndian.PutUint32(wide[len(Magic)+1+32:], 0xffffffff)
	binary.LittleEndian.PutUint32(wide[len(Magic)+1+32+4:], 0xffffffff)
	wide = checksum.Refresh(wide)
	if _, err := DecodeHeader(bytes.NewReader(wide)); !errors.As(err, &fe) || !strings.Contains(err.Error(), "4294967295×4294967295 out of range") {
		t.Errorf("DecodeHeader of 4294967295×4294967295: got %v", err)
	}
	hostile.Check(t, "4294967295×4294967295", len(wide), func() { _, err = Decode(bytes.NewReader(wide), m) })
	if !errors.As(err, &fe) {
		t.Errorf("Decode of 4294967295×4294967295: got %v", err)
	}
}

// Session 30's question 9: a file of a few hundred bytes whose run-length
// streams declare just under 10^8 pixels, the 64-bit default budget, made
// a 32-bit process allocate gigabytes of planes and die out of memory (a
// fatal error, not an error value: 10000×9992 in a 2×2 colour model).
// There the default budget is smaller and names itself in the error; on
// 64-bit platforms it admits the file, as before (not decoded here: that
// takes gigabytes too).
func TestDecodeNearDefaultBudget(t *testing.T) {
	// The fixed-resolution mode with one bin per coefficient: every
	// stream of a flat image is a run (the adaptive coder of the
	// entropy-constrained mode, or two bins, cannot be scaled by a count).
	o := smallOptions(func(o *TrainOptions) { o.Color, o.Bins = true, 4 })
	m := cachedTrain(t, fmt.Sprintf("fixed-resolution colour %#v", o), func() (*Model, error) {
		return Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	})
	small := runLengthFile(t, m, 64, 48)
	if img, err := Decode(bytes.NewReader(small), m); err != nil || img.Bounds() != image.Rect(0, 0, 64, 48) {
		t.Fatalf("the crafted colour file at 64×48: %v, %v (the test's file is wrong)", img, err)
	}
	const w, h = 10000, 9992
	if w*h >= 100_000_000 {
		t.Fatalf("%d×%d is not under 10^8 pixels", w, h)
	}
	file := runLengthFile(t, m, w, h)
	if strconv.IntSize == 64 {
		hd, err := DecodeHeader(bytes.NewReader(file))
		if err != nil || DefaultMaxPixels != 100_000_000 || overBudget(hd, DefaultMaxPixels) != nil {
			t.Errorf("64-bit: DefaultMaxPixels %d, header %v (%v): the file should be within the default budget", DefaultMaxPixels, hd, err)
		}
		return
	}
	var err error
	hostile.Check(t, fmt.Sprintf("%d×%d of run-length streams", w, h), len(file), func() { _, err = Decode(bytes.NewReader(file), m) })
	want := fmt.Sprintf("%d×%d image is %d pixels, more than the budget of %d", w, h, w*h, DefaultMaxPixels)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), want) {
		t.Errorf("32-bit: %d-byte file of %d×%d: got %v, want ErrTooLarge saying %q", len(file), w, h, err, want)
	}
}

// withSPCA returns the file of m as written before compression (compact:
// version 4, with integer training samples and stored fast paths; else
// version 1 or 2) with every embedded SPCA model replaced by craft's
// version of it.
func withSPCA(t testing.TB, m *Model, compact bool, craft func([]byte) ([]byte, error)) []byte {
	t.Helper()
	var w bytes.Buffer
	if err := m.write(&w, compact); err != nil {
		t.Fatal(err)
	}
	plain := w.Bytes()
	var b []byte
	for {
		at := bytes.Index(plain, []byte("SPCAmodl"))
		if at < 0 {
			break
		}
		if at < 8 {
			t.Fatal("no length before the embedded SPCA model")
		}
		n := int(binary.LittleEndian.Uint64(plain[at-8:]))
		sm, err := craft(plain[at : at+n])
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, plain[:at-8]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(sm)))
		b = append(b, sm...)
		plain = plain[at+n:]
	}
	return checksum.Append(append(b, plain...))
}

// skippable is a zstd skippable frame of n bytes.
func skippable(n int) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	return append(b, make([]byte, n)...)
}

// Issue 24: compressed codec models whose embedded SPCA models hold the
// most integer-coded lattice values and metric tables the format allows
// (valid models: one byte a value once inflated, four to eight in memory) are
// read, their fast paths decoded, within 64 MB + 10 times the larger of
// the file and its inflated content: a grey model of 4 KB (6.3 MB
// inflated, version 4), and a colour one with three such models padded with a
// skippable zstd frame to raise the inflation allowance (before the
// bound counted the inflated bytes and the reader charged its arrays,
// 197 MB from 844 KB). A smaller budget refuses them, naming the array.
func TestReadModelHostileIntModel(t *testing.T) {
	grey := withSPCA(t, smallModel(t), true, hostile.SPCAIntModel)
	// Version 2: building the colour model's fast paths to write version 4
	// took most of the test's time.
	colour := withSPCA(t, smallColorModel(t, false), false, hostile.SPCAIntModel)
	for _, c := range []struct {
		name        string
		plain, file []byte
	}{
		{"grey", grey, compressed(grey)},
		{"colour", colour, append(compressed(colour), skippable(800<<10)...)},
	} {
		var m *Model
		var err error
		a := hostile.Allocated(func() {
			if m, err = ReadModel(bytes.NewReader(c.file)); err == nil {
				for _, ch := range m.Channels {
					if ch.fastStored != nil { // decoded, not built
						ch.fastPath()
					}
				}
			}
		})
		bound := hostile.Bound(boundBytes(c.file))
		t.Logf("%s: %d bytes (%d inflated), allocated %.1f MB, bound %.1f MB", c.name, len(c.file), len(c.plain), float64(a)/1e6, float64(bound)/1e6)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if a > bound {
			t.Errorf("%s: %d bytes (%d inflated) allocated %d MB, bound %d MB", c.name, len(c.file), len(c.plain), a>>20, bound>>20)
		}
	}
	// 12 MB: less than the lattice's 16 MB of float32s (its integers are
	// exact in them), charged before its int64 scratch.
	r := &modelReader{b: grey[len(ModelMagic) : len(grey)-4], budget: 12 << 20}
	_, err := r.model()
	if err == nil || !strings.Contains(err.Error(), "the lattice needs more memory") {
		t.Errorf("within 12 MB: got %v, want an error naming the lattice", err)
	}
}

// TestUnknownFormatVersion: an .spc file of a version this build does not
// read says which it reads, and calls a later one a later spca's file (it
// said only "unsupported format version 19", where a model file of a
// later container names the range), for Decode and DecodeConfig.
func TestUnknownFormatVersion(t *testing.T) {
	m := smallModel(t)
	var b bytes.Buffer
	if err := Encode(&b, testimages.Texture(20, 18, 2), m, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    byte
		want string
	}{
		{lastFormatVersion + 1, fmt.Sprintf("unsupported format version %d (this build reads 1 to %d): a file of a later spca?", lastFormatVersion+1, lastFormatVersion)},
		{255, "unsupported format version 255 (this build reads 1 to"},
		{0, fmt.Sprintf("unsupported format version 0 (this build reads 1 to %d)", lastFormatVersion)},
	} {
		f := bytes.Clone(b.Bytes())
		f[len(Magic)] = c.v
		var fe *FormatError
		if _, err := Decode(bytes.NewReader(f), m); !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("version %d: Decode: %v, want %q", c.v, err, c.want)
		}
		if _, _, err := image.DecodeConfig(bytes.NewReader(f)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("version %d: image.DecodeConfig: %v, want %q", c.v, err, c.want)
		}
	}
}

// Loop filters with valid checksums and the most extreme taps a header
// holds (int8: the filter's int32 sums stay below 2^21) decode, versions
// 9 (grey) and 10 (colour), to an image of the file's size, the same
// with the kernels and with the pure-Go paths; sizes of 2^31−1 and 2^31
// (negative in a 32-bit int) are refused by the header, within the
// allocation bound.
func TestDecodeHostileLoopFilter(t *testing.T) {
	_, test := images()
	for _, c := range []struct {
		name    string
		m       *Model
		img     image.Image
		version int
	}{
		{"grey", stepModel(t), blurred(test[1]), formatVersionFilter},
		{"colour", gamma0ColourModel(t), blurredRGBA(test[1]), formatVersionColourFilter},
	} {
		var b bytes.Buffer
		if err := Encode(&b, c.img, c.m, nil); err != nil {
			t.Fatal(err)
		}
		good := b.Bytes()
		if int(good[len(Magic)]) != c.version {
			t.Fatalf("%s: Encode wrote version %d, want %d", c.name, good[len(Magic)], c.version)
		}
		_, body, err := parseHeader(good)
		if err != nil {
			t.Fatal(err)
		}
		at := len(good) - len(body) - loopFilterBytes // the filter's kind byte
		for _, taps := range [][loopTaps]int8{
			{127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127},
			{-128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128},
			{127, -128, 127, -128, 127, -128, 127, -128, 127, -128, 127, -128},
			{-128, 127, -128, 127, -128, 127, -128, 127, -128, 127, -128, 127},
		} {
			f := bytes.Clone(good)
			f[at] = loopKindDiamond
			for k, v := range taps {
				f[at+1+k] = byte(v)
			}
			f = checksum.Refresh(f)
			var pix []image.Image
			for _, k := range lumaKernelSwitches() {
				restore := k.set()
				var img image.Image
				hostile.Check(t, c.name+" taps "+fmt.Sprint(taps), len(f), func() { img, err = Decode(bytes.NewReader(f), c.m) })
				restore()
				if err != nil || img.Bounds() != c.img.Bounds() {
					t.Fatalf("%s, taps %v, %s: %v, %v; want a %v image", c.name, taps, k.name, err, img, c.img.Bounds())
				}
				pix = append(pix, img)
			}
			for i := range pix[1:] {
				if !imagesEqual(pix[0], pix[i+1]) {
					t.Errorf("%s, taps %v: the pixels differ between the kernels and the Go paths", c.name, taps)
				}
			}
		}
		for _, size := range [][2]uint32{{1<<31 - 1, 1}, {1, 1<<31 - 1}, {1 << 31, 8}, {1<<31 - 1, 1<<31 - 1}} {
			f := bytes.Clone(good)
			binary.LittleEndian.PutUint32(f[len(Magic)+1+32:], size[0])
			binary.LittleEndian.PutUint32(f[len(Magic)+1+32+4:], size[1])
			f = checksum.Refresh(f)
			want := fmt.Sprintf("image size %d×%d out of range", size[0], size[1])
			var fe *FormatError
			hostile.Check(t, c.name+" "+want, len(f), func() { _, err = Decode(bytes.NewReader(f), c.m) })
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: Decode: %v, want a *FormatError %q", c.name, err, want)
			}
			if _, err := DecodeHeader(bytes.NewReader(f)); !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: DecodeHeader: %v, want a *FormatError %q", c.name, err, want)
			}
		}
	}
}
