package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"sync"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/testimages"
)

// fuzzImage is a tiny 8-bit image with alpha for the fuzz targets.
func fuzzImage() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := 0; i < 6; i++ {
		img.Set(i%3, i/3, color.NRGBA{uint8(40 * i), uint8(255 - 30*i), uint8(17 * i), uint8(255 - 40*i)})
	}
	return img
}

// smallModelFile returns the bytes of a small adaptation model (20
// scenes of 16×12, 1500 samples, 512 lattice nodes): quick to train, and
// with every section of the format.
func smallModelFile(tb testing.TB) []byte {
	return smallModelFileAligned(tb, AlignGains)
}

// smallModelFileAligned is smallModelFile with the given alignment
// (both version 7 files, with highlight gains; AlignMatrix with the
// matrix and its choice). Each alignment's model is trained once (1.1 s
// of CPU, most of it the stored LUT) and its bytes shared: every call
// gets a copy of its own, which the caller may change.
func smallModelFileAligned(tb testing.TB, align Alignment) []byte {
	tb.Helper()
	smallFilesMu.Lock()
	defer smallFilesMu.Unlock()
	if f, ok := smallFiles[align]; ok {
		return bytes.Clone(f)
	}
	a, b := testimages.SceneSet(20, 16, 12, trainSeed)
	o := testOptions()
	o.Alignment = align
	o.Samples = 1500
	o.SPCA.Resolution = 512
	m, err := Train(a, b, &o)
	if err != nil {
		tb.Fatal(err)
	}
	f := modelBytes(tb, m)
	smallFiles[align] = f
	return bytes.Clone(f)
}

var (
	smallFilesMu sync.Mutex
	smallFiles   = map[Alignment][]byte{} // smallModelFileAligned's, by alignment
)

// mustRead returns the model of the file b.
func mustRead(tb testing.TB, b []byte) *Model {
	tb.Helper()
	m, err := Read(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// FuzzRead checks that no input makes the model decoder panic or hang,
// that every rejection is a *FormatError, and that a model it accepts
// round-trips (written again and read back, the same bytes) and maps
// colours with every method.
func FuzzRead(f *testing.F) {
	good := smallModelFile(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(checksum.Refresh(good[:len(good)/2]))
	f.Add([]byte(ModelMagic))
	f.Add([]byte{})
	f.Add(smallModelFileAligned(f, AlignMatrix))
	f.Add(modelBytes(f, withoutHighlight(f, mustRead(f, good)))) // version 4
	// Issue 24: embedded SPCA models with flat metric tables (their
	// inverse gave NaN).
	f.Add(withSPCA(f, good, hostile.SPCAFlatModel))
	// A stored LUT and a ray table larger than a trainer of ours writes
	// (refused by their declared sizes).
	for _, at := range []int{tableOffset(good), tableOffset(good) + 8 + 12*DefaultLUTSize*DefaultLUTSize*DefaultLUTSize} {
		c := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(c[at:], 1000)
		f.Add(checksum.Refresh(c))
	}
	for _, off := range []int{len(ModelMagic) + 4, len(ModelMagic) + 12, len(ModelMagic) + 20, len(ModelMagic) + 70} {
		c := append([]byte(nil), good...)
		c[off] ^= 0xff
		f.Add(checksum.Refresh(c))
	}
	img := fuzzImage()
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs := [][]byte{data, checksum.Refresh(data), checksum.Refresh(withSPCACRCs(data))}
		for i, d := range inputs {
			if i > 0 && bytes.Equal(d, inputs[i-1]) {
				continue // the checksums valid already: the same input again
			}
			var m *Model
			var err error
			hostile.Check(t, "Read", len(d), func() { m, err = Read(bytes.NewReader(d)) })
			// From a stream (readStream: read as far as the layout says),
			// the same model or an error where Read of the bytes gives one.
			var sm *Model
			var serr error
			hostile.Check(t, "Read of a stream", len(d), func() { sm, serr = Read(stream{bytes.NewReader(d)}) })
			if (serr == nil) != (err == nil) {
				t.Fatalf("read in memory: %v; from a stream: %v", err, serr)
			}
			if serr != nil && !errors.As(serr, new(*FormatError)) {
				t.Fatalf("from a stream, error of another type: %v", serr)
			}
			if err == nil && !bytes.Equal(modelBytes(t, m), modelBytes(t, sm)) {
				t.Fatal("the model read from a stream differs")
			}
			// Read whole: written again and read back, the same bytes.
			if err == nil && !bytes.Equal(modelBytes(t, readBack(t, m)), modelBytes(t, m)) {
				t.Fatal("an accepted model read back from its own file writes other bytes")
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error of another type: %v", err)
				}
				continue
			}
			for _, method := range append(Methods(), Aligned) {
				mp, err := m.Mapper(method)
				if err != nil {
					continue
				}
				if _, err := ApplyExact(img, mp); err != nil {
					t.Fatalf("%v: a model read back cannot map an image: %v", method, err)
				}
			}
			// What adapt apply uses (a LightnessLUT with the stored ray
			// table), at a small LUT size.
			if im, err := m.ImageMapperFor(SPCA, 3, nil); err == nil {
				if _, err := im.Apply(img, 1); err != nil {
					t.Fatalf("a model read back cannot apply its LUT: %v", err)
				}
			}
		}
	})
}

// withSPCACRCs returns data with the checksum of every embedded SPCA
// model recomputed (data itself where none is found): a model of ours
// holds the SPCA models of its environments, each with its own checksum
// trailer, so a byte mutated inside one stops at that checksum and the
// SPCA reader's checks behind it are not reached from here. Each model
// is found by its magic, its size in the 8 bytes before it; a size that
// runs past the data (less the outer trailer) is left alone.
func withSPCACRCs(data []byte) []byte {
	out := data
	magic := []byte("SPCAmodl")
	for from := 8; from < len(data); {
		i := bytes.Index(data[from:], magic)
		if i < 0 {
			break
		}
		at := from + i
		from = at + len(magic)
		n := binary.LittleEndian.Uint64(data[at-8:])
		if n < uint64(len(magic))+4 || n > uint64(len(data)-4-at) {
			continue
		}
		end := at + int(n)
		if checksum.Valid(data[at:end]) {
			continue
		}
		if &out[0] == &data[0] {
			out = bytes.Clone(data)
		}
		copy(out[at:end], checksum.Refresh(out[at:end]))
		from = end
	}
	return out
}

// withSPCACRCs finds every embedded SPCA model: with each one's checksum
// trailer damaged the file is refused, and repaired (with the outer
// checksum refreshed) it is the original file again.
func TestWithSPCACRCs(t *testing.T) {
	good := smallModelFile(t)
	if got := withSPCACRCs(good); &got[0] != &good[0] {
		t.Fatal("a file with valid checksums was copied")
	}
	bad := bytes.Clone(good)
	models := 0
	for at := bytes.Index(bad, []byte("SPCAmodl")); at >= 0; {
		n := int(binary.LittleEndian.Uint64(bad[at-8:]))
		bad[at+n-1] ^= 0x40
		models++
		next := bytes.Index(bad[at+n:], []byte("SPCAmodl"))
		if next < 0 {
			break
		}
		at += n + next
	}
	if models < 2 {
		t.Fatalf("%d embedded SPCA models found, want one per environment", models)
	}
	if _, err := Read(bytes.NewReader(checksum.Refresh(bad))); err == nil {
		t.Fatal("damaged embedded checksums accepted")
	}
	if got := checksum.Refresh(withSPCACRCs(bad)); !bytes.Equal(got, good) {
		t.Fatal("the embedded checksums were not all repaired")
	}
}

// FuzzReadCube checks that no input makes the .cube reader panic, hang or
// allocate far beyond its size, that every rejection wraps ErrCube, and
// that a LUT it accepts applies to an image and writes a file it reads
// back.
func FuzzReadCube(f *testing.F) {
	id := &LUT{Title: "identity", Size: 3, DomainMax: [3]float64{1, 1, 1}}
	for b := 0; b < 3; b++ {
		for g := 0; g < 3; g++ {
			for r := 0; r < 3; r++ {
				id.Table = append(id.Table, float32(r)/2, float32(g)/2, float32(b)/2)
			}
		}
	}
	var buf bytes.Buffer
	if err := id.WriteCube(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add("LUT_3D_SIZE 256\n")
	f.Add("TITLE \"x\"\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\nLUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n")
	f.Add("LUT_1D_SIZE 2\n0 0 0\n1 1 1\n")
	f.Add("LUT_3D_SIZE 2\nNaN 0 0\n")
	f.Add("# comment only\n")
	img := fuzzImage()
	f.Fuzz(func(t *testing.T, data string) {
		var l *LUT
		var err error
		hostile.Check(t, "ReadCube", len(data), func() { l, err = ReadCube(bytes.NewReader([]byte(data))) })
		if err != nil {
			if !errors.Is(err, ErrCube) {
				t.Fatalf("error that does not wrap ErrCube: %v", err)
			}
			return
		}
		if _, err := l.Apply(img, 1); err != nil {
			t.Fatalf("an accepted LUT cannot be applied: %v", err)
		}
		var w bytes.Buffer
		if err := l.WriteCube(&w); err != nil {
			t.Fatalf("an accepted LUT cannot be written: %v", err)
		}
		if _, err := ReadCube(&w); err != nil {
			t.Fatalf("a written LUT is not read back: %v", err)
		}
	})
}
