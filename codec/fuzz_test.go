package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"slices"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/testimages"
)

// smallModel is a codec model small enough to fuzz (a coarse SPCA
// lattice, few training patches), with the options changed by set: a
// deep copy of the one trained with these options (cachedTrain).
func smallModel(t testing.TB, set ...func(*TrainOptions)) *Model {
	t.Helper()
	o := smallOptions(set...)
	return cachedTrain(t, fmt.Sprintf("smallModel %#v", o), func() (*Model, error) { return trainSmall(o) })
}

// smallOptions are smallModel's training options.
func smallOptions(set ...func(*TrainOptions)) TrainOptions {
	o := DefaultTrainOptions()
	o.Samples = 300
	o.Bins = 30
	o.SPCA.Resolution = 1024
	for _, f := range set {
		f(&o)
	}
	return o
}

// trainSmall trains smallModel with options o.
func trainSmall(o TrainOptions) (*Model, error) {
	return Train([]image.Image{testimages.Texture(64, 64, 5)}, &o)
}

// plainFile is m's file as written before compression (the bytes its ID
// hashes, with their checksum).
func plainFile(t testing.TB, m *Model) []byte {
	var b bytes.Buffer
	if err := m.write(&b, false); err != nil {
		t.Fatal(err)
	}
	return checksum.Append(b.Bytes())
}

// compressed wraps data in the compressed container of model files.
func compressed(data []byte) []byte {
	out := binary.LittleEndian.AppendUint32([]byte(ModelMagic), modelVersionZstd)
	return modelEncoder().EncodeAll(data, out)
}

// smallColorModel is a small colour model (YCbCr, a model per channel)
// in the entropy-constrained mode with 3×3 patches, its chroma at half
// resolution if subsample: a deep copy of the one trained (cachedTrain).
func smallColorModel(t testing.TB, subsample bool) *Model {
	t.Helper()
	o := DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution = 300, 1024
	o.Patch, o.Step, o.Color, o.Subsample = 3, 12, true, subsample
	return cachedTrain(t, fmt.Sprintf("smallColorModel %#v", o), func() (*Model, error) {
		return Train([]image.Image{testimages.ColorTexture(128, 128, 5)}, &o)
	})
}

// smallStepModel is smallModel in the entropy-constrained mode with 3×3
// patches, so that its file (version 2) holds dead-zone quantisers with
// their thresholds.
func smallStepModel(t testing.TB) *Model {
	return smallModel(t, func(o *TrainOptions) { o.Patch, o.Step = 3, 12 })
}

// FuzzReadModel checks that no input makes ReadModel panic or hang, that
// every rejection is a *ModelError, and that a model it accepts reads back
// from its own file as the same model, encodes an image and decodes its
// own file.
func FuzzReadModel(f *testing.F) {
	f.Add([]byte(ModelMagic))
	f.Add([]byte{})
	for _, m := range []*Model{smallModel(f), smallStepModel(f), smallColorModel(f, true)} {
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			f.Fatal(err)
		}
		packed, plain := b.Bytes(), plainFile(f, m)
		f.Add(packed)
		f.Add(packed[:len(packed)*2/3])
		// The fast-load form: its coding sections are raw blocks, which
		// mutations reach (a compressed frame's mostly fail to inflate).
		fast := fastLoadFile(f, m)
		f.Add(fast)
		f.Add(fast[:len(fast)*2/3])
		if m.Step > 0 {
			// Its SPCA models' float32 lattices damaged behind valid
			// section checksums (and with the fuzzer's mutations,
			// refreshStored lets those through).
			for _, h := range fastLoadHostile(f, m, fast) {
				f.Add(h)
			}
		}
		f.Add(plain)
		// The compact layout uncompressed (version 4: integer training
		// samples, fast paths, embedded SPCA models with snapped
		// lattices, read as float32). WriteTo's sections are zstd frames
		// with checksums of their own, which mutations do not get
		// through: without this seed the readers of the compact layout
		// saw mutated bytes only behind the hostile seed below.
		var c bytes.Buffer
		if err := m.write(&c, true); err != nil {
			f.Fatal(err)
		}
		compact := checksum.Append(c.Bytes())
		f.Add(compact)
		f.Add(checksum.Refresh(compact[:len(compact)*2/3]))
		f.Add(checksum.Refresh(plain[:len(plain)*2/3]))
		// Header fields changed: version, patch, colour, gamma, ...
		for _, off := range []int{len(ModelMagic), len(ModelMagic) + 4, len(ModelMagic) + 5, len(ModelMagic) + 6, len(ModelMagic) + 16, len(ModelMagic) + 20} {
			c := append([]byte(nil), plain...)
			c[off] ^= 0xff
			f.Add(checksum.Refresh(c))
		}
		// A container inside a container.
		f.Add(compressed(packed))
	}
	f.Add(compressed([]byte("not a model file at all")))
	// Issue 24: embedded SPCA models with flat metric tables (their
	// inverse gave NaN), plain and compressed.
	flat := withSPCA(f, smallModel(f), true, hostile.SPCAFlatModel)
	f.Add(flat)
	f.Add(compressed(flat))
	img := testimages.Texture(10, 7, 9)
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, d := range [][]byte{data, checksum.Refresh(data), refreshStored(data)} {
			if i > 0 && bytes.Equal(d, data) {
				continue // valid checksums already: the same input again
			}
			var m *Model
			var err error
			hostile.Check(t, "ReadModel", boundBytes(d), func() {
				if m, err = ReadModel(bytes.NewReader(d)); err == nil {
					err = m.LoadSections() // the sections read on first use
				}
			})
			// From a stream (no size: readStream, as far as the section
			// table says), the same model, or an error where the bytes
			// give one.
			var sm *Model
			var serr error
			hostile.Check(t, "ReadModel of a stream", boundBytes(d), func() {
				if sm, serr = ReadModel(struct{ io.Reader }{bytes.NewReader(d)}); serr == nil {
					serr = sm.LoadSections()
				}
			})
			if (serr == nil) != (err == nil) {
				t.Fatalf("ReadModel of the bytes: %v; of a stream: %v", err, serr)
			}
			if serr != nil && !errors.As(serr, new(*ModelError)) {
				t.Fatalf("ReadModel of a stream, error of another type: %v", serr)
			}
			if err == nil && sm.ID() != m.ID() {
				t.Fatal("the model read from a stream has another ID")
			}
			if err != nil {
				var me *ModelError
				if !errors.As(err, &me) {
					t.Fatalf("error of another type: %v", err)
				}
				continue
			}
			// Read whole: its file (uncompressed) read back writes the
			// same bytes. A field the reader drops or misreads fails
			// here, not only in use. (Not the IDs: a model keeps the hash
			// of the file it was read from, whose embedded SPCA models
			// may be in another of their layouts.)
			own := plainFile(t, m)
			back, err := ReadModel(bytes.NewReader(own))
			if err == nil {
				err = back.LoadSections()
			}
			if err != nil {
				t.Fatalf("an accepted model's own file is refused: %v", err)
			}
			if !bytes.Equal(plainFile(t, back), own) {
				t.Fatal("an accepted model read back from its own file writes other bytes")
			}
			var w bytes.Buffer
			if err := Encode(&w, img, m, &Options{Exact: true}); err != nil {
				continue
			}
			if _, err := Decode(&w, m); err != nil {
				t.Fatalf("a model read back cannot decode its own file: %v", err)
			}
			// At another step: derived from the step basis, stored or
			// computed.
			if m.Step == 0 {
				continue
			}
			w.Reset()
			if err := Encode(&w, img, m, &Options{Exact: true, Step: m.Step * 1.7}); err != nil {
				continue
			}
			if _, err := Decode(&w, m); err != nil {
				t.Fatalf("a model read back cannot decode its own file at another step: %v", err)
			}
		}
	})
}

// refreshStored returns the sectioned model file data with the checksum
// of each section stored as one raw block (storedFrame: the fast-load
// form's model and fast paths) made valid, or data if there is none to
// change: the fuzzer's mutations of those sections then reach the readers
// behind the checksum (a mutated compressed frame mostly fails to
// inflate, and checksum.Refresh only mends the last 4 bytes of the file).
func refreshStored(data []byte) []byte {
	if len(data) <= len(ModelMagic)+4 || !isSectioned(binary.LittleEndian.Uint32(data[len(ModelMagic):])) {
		return data
	}
	rest := data[len(ModelMagic)+4:]
	secs := int(rest[0])
	if len(rest) < 1+4*secs {
		return data
	}
	out := slices.Clone(data)
	at, changed := len(ModelMagic)+5+4*secs, false
	for i := range secs {
		l := int(binary.LittleEndian.Uint32(rest[1+4*i:]))
		if l > len(out)-at {
			break
		}
		f := out[at : at+l]
		at += l
		// Magic, descriptor, 4-byte size, one last raw block of the rest.
		if l < 16 || !bytes.Equal(f[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}) || f[4] != 2<<6|1<<5 {
			continue
		}
		if h := uint32(f[9]) | uint32(f[10])<<8 | uint32(f[11])<<16; h != uint32(l-12)<<3|1 {
			continue
		}
		c := f[12:]
		if sum := checksum.Refresh(c); !bytes.Equal(sum, c) {
			copy(c, sum)
			changed = true
		}
	}
	if !changed {
		return data
	}
	return out
}

// boundBytes is the size the memory bound of reading the model file data
// counts: the larger of the file and, compressed, the inflated size its
// frame declares (see boundBase).
func boundBytes(data []byte) int {
	n := len(data)
	if len(data) >= len(ModelMagic)+4 && binary.LittleEndian.Uint32(data[len(ModelMagic):]) == modelVersionZstd {
		if size, err := declaredSize(data[len(ModelMagic)+4:], len(data)-len(ModelMagic)-4); err == nil {
			n = max(n, size)
		}
	}
	if len(data) > len(ModelMagic)+4 && isSectioned(binary.LittleEndian.Uint32(data[len(ModelMagic):])) {
		rest := data[len(ModelMagic)+4:]
		secs := int(rest[0])
		if len(rest) < 1+4*secs {
			return n
		}
		frames, total := rest[1+4*secs:], 0
		for i := range secs {
			l := int(binary.LittleEndian.Uint32(rest[1+4*i:]))
			if l > len(frames) {
				return n
			}
			if size, err := declaredSize(frames[:l], l); err == nil {
				total += size
			}
			frames = frames[l:]
		}
		n = max(n, total)
	}
	return n
}
