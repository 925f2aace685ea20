package codec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// TestModelBytes checks that training twice on the same images with the
// same seed writes the same (compressed) model file, and that the file
// reads back to the same ID.
func TestModelBytes(t *testing.T) {
	var files [2][]byte
	for i := range files {
		m := smallColorModel(t, true)
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		files[i] = b.Bytes()
		back, err := ReadModel(bytes.NewReader(files[i]))
		if err != nil || back.ID() != m.ID() {
			t.Fatalf("read back: %v", err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings with the same seed wrote different model files")
	}
}

// TestCompactModel checks versions 3 and 4 of the model file: it holds the ID of
// the version 1 or 2 file, which a model read from it reports without
// hashing and which is the hash of the version 1 or 2 bytes it writes
// again; such a model codes and decodes bit-identically to the one
// written, and files coded with the model read from an older file decode
// with it. A version 3 file naming an unknown inner version is refused
// with an error naming it.
func TestCompactModel(t *testing.T) {
	img := testimages.Texture(64, 48, 21)
	models := map[string]*Model{
		"fixed-resolution":    smallModel(t),
		"entropy-constrained": smallStepModel(t),
		"colour 4:2:0":        smallColorModel(t, true),
		"gamma 0, step 10":    smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step = 0, 10 }),
	}
	for name, m := range models {
		var file bytes.Buffer
		if _, err := m.WriteTo(&file); err != nil {
			t.Fatal(err)
		}
		plain := plainFile(t, m) // version 1 or 2, the bytes the ID hashes
		back, err := ReadModel(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.ID() != m.ID() {
			t.Fatalf("%s: ID %s read, %s written", name, back.ID().Short(), m.ID().Short())
		}
		// The training sample is inflated and decoded on first use
		// only, to the values written.
		for ci, c := range back.Channels {
			if c.train != nil || c.sampleInts != nil || c.sampleSec == nil {
				t.Fatalf("%s: channel %d: training sample read at load", name, ci)
			}
			got, err := c.TrainingSample()
			if err != nil {
				t.Fatalf("%s: channel %d: %v", name, ci, err)
			}
			want, _ := m.Channels[ci].TrainingSample()
			if !mat.Equal(got, want) || c.TrainingPatches() != m.Channels[ci].TrainingPatches() {
				t.Fatalf("%s: channel %d: training sample read differs", name, ci)
			}
		}
		if !bytes.Equal(plainFile(t, back), plain) {
			t.Fatalf("%s: the model read writes other version-%d bytes", name, plain[len(ModelMagic)])
		}
		if sum := ModelID(sha256.Sum256(plain[:len(plain)-4])); sum != back.ID() {
			t.Fatalf("%s: the stored ID is not the hash of the model", name)
		}
		old, err := ReadModel(bytes.NewReader(plain))
		if err != nil {
			t.Fatalf("%s: version %d file: %v", name, plain[len(ModelMagic)], err)
		}
		var a, b bytes.Buffer
		if err := Encode(&a, img, old, &Options{Exact: true}); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b, img, back, &Options{Exact: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: the compact model codes differently", name)
		}
		// Version 4 stores the fast path: the model read has it without
		// building it (decoded on first use), equal to the one built, and codes through it as
		// the model written.
		for ci, c := range back.Channels {
			if c.fastStored != nil || c.fastSec == nil {
				t.Fatalf("%s: channel %d: fast path read at load", name, ci)
			}
			if fp, err := c.loadFast(); err != nil || fp == nil || c.fastStored == nil {
				t.Fatalf("%s: channel %d: no fast path read (%v)", name, ci, err)
			}
			built, err := buildFastPath(c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.fast.vals, built.vals) || !slices.EqualFunc(c.fast.nodes, built.nodes, slices.Equal) ||
				!slices.EqualFunc(c.fast.look, built.look, slices.Equal) || c.fast.res != built.res {
				t.Fatalf("%s: channel %d: the fast path read differs from the one built", name, ci)
			}
		}
		var fa, fb bytes.Buffer
		if err := Encode(&fa, img, m, nil); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&fb, img, back, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fa.Bytes(), fb.Bytes()) {
			t.Fatalf("%s: the compact model codes differently through the fast path", name)
		}
		da, err := Decode(bytes.NewReader(a.Bytes()), old)
		if err != nil {
			t.Fatal(err)
		}
		db, err := Decode(bytes.NewReader(a.Bytes()), back)
		if err != nil {
			t.Fatalf("%s: a file coded with the version-%d model: %v", name, plain[len(ModelMagic)], err)
		}
		if !imagesEqual(da, db) {
			t.Fatalf("%s: the compact model decodes other pixels", name)
		}
	}
	// Version 3 around an inner version 7.
	var b bytes.Buffer
	m := smallModel(t)
	if err := m.write(&b, true); err != nil {
		t.Fatal(err)
	}
	bad := b.Bytes()
	binary.LittleEndian.PutUint32(bad[len(ModelMagic)+4:], 7)
	_, err := ReadModel(bytes.NewReader(checksum.Append(bad)))
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "version 7") {
		t.Errorf("inner version 7: got %v, want a *ModelError naming the version", err)
	}
}

// imagesEqual reports whether a and b have the same bounds and pixels.
func imagesEqual(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// isSectioned reports whether v is a sectioned container's version.
func isSectioned(v uint32) bool {
	sectioned, _ := sectionedVersion(v)
	return sectioned
}

// sectionFrames splits a sectioned model file into its header and its
// sections' frames.
func sectionFrames(t *testing.T, file []byte) (head []byte, frames [][]byte) {
	t.Helper()
	if !isSectioned(binary.LittleEndian.Uint32(file[len(ModelMagic):])) {
		t.Fatal("not a sectioned model file")
	}
	n := int(file[len(ModelMagic)+4])
	at := len(ModelMagic) + 5 + 4*n
	head = file[:at]
	for i := range n {
		l := int(binary.LittleEndian.Uint32(file[len(ModelMagic)+5+4*i:]))
		frames = append(frames, file[at:at+l])
		at += l
	}
	if at != len(file) {
		t.Fatal("sections do not cover the file")
	}
	return head, frames
}

// TestLargeSection checks that a section may inflate beyond 8 MiB when its
// compressed bytes allow it (at most 16 times them): the limit was taken
// from the section's header alone, so a model trained with --patch 2
// --resolution 262144 (a 9.6 MB model section from 1.1 MB) was written
// and then refused ("declares 9639229 bytes from 17, more than the limit
// of 8388880"). Here the training sample's section is replaced by 9 MiB
// of 4-bit noise (about 5 MB compressed): the file reads, and the
// section is reported corrupt when used, not refused for its size.
func TestLargeSection(t *testing.T) {
	var b bytes.Buffer
	if _, err := smallStepModel(t).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	head, frames := sectionFrames(t, b.Bytes())
	noise := make([]byte, 9<<20)
	state := uint64(1)
	for i := range noise {
		state = state*6364136223846793005 + 1442695040888963407
		noise[i] = byte(state >> 60)
	}
	frames[1] = modelEncoder().EncodeAll(noise, nil)
	if len(frames[1])*maxInflation < len(noise)-maxInflationSlack {
		t.Fatalf("noise compressed to %d bytes: not a large section within the limit", len(frames[1]))
	}
	head = slices.Clone(head)
	binary.LittleEndian.PutUint32(head[len(ModelMagic)+5+4:], uint32(len(frames[1])))
	file := slices.Concat(append([][]byte{head}, frames...)...)
	m, err := ReadModel(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("a section of 9 MiB from %d bytes: %v", len(frames[1]), err)
	}
	err = m.LoadSections()
	var me *ModelError
	if !errors.As(err, &me) || strings.Contains(err.Error(), "limit") {
		t.Errorf("LoadSections of a corrupt 9 MiB section: %v, want a *ModelError that is not about the limit", err)
	}
	// A section declaring more than 16 times its bytes is still refused.
	frames[1] = modelEncoder().EncodeAll(make([]byte, 9<<20), nil)
	binary.LittleEndian.PutUint32(head[len(ModelMagic)+5+4:], uint32(len(frames[1])))
	file = slices.Concat(append([][]byte{head}, frames...)...)
	if _, err := ReadModel(bytes.NewReader(file)); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("9 MiB of zeros from %d bytes: %v, want the limit", len(frames[1]), err)
	}
}

// A model with a section under 256 bytes (a 1×1 model trained on 100
// samples: 'spca codec train --patch 1 --samples 100') was written and then
// refused by every command ("section 1: compressed data: the frame does
// not declare its size": the zstd encoder omits the size of a frame under
// 256 bytes unless it is a single segment). Every section now declares its
// size; the larger ones keep their bytes. Found through 24rate's report
// of the PCA baseline, which has no file format: WriteTo refuses it.
func TestSmallSections(t *testing.T) {
	tiny := smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Samples = 1, 12, 100 })
	for name, mm := range map[string]*Model{"model": smallStepModel(t), "1×1 model of 100 samples": tiny} {
		var b bytes.Buffer
		if _, err := mm.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		got, err := ReadModel(bytes.NewReader(b.Bytes()))
		if err == nil {
			err = got.LoadSections()
		}
		if err != nil {
			t.Errorf("%s written and read back: %v", name, err)
		} else if got.ID() != mm.ID() {
			t.Errorf("%s read back with another ID", name)
		}
		_, frames := sectionFrames(t, b.Bytes())
		small := false
		for i, f := range frames {
			var h zstd.Header
			if err := h.Decode(f); err != nil || !h.HasFCS {
				t.Errorf("%s: section %d (%d bytes) declares no size (%v)", name, i, len(f), err)
			}
			// The encoder's own frames where they declared their size.
			plain, err := modelDecoder().DecodeAll(f, nil)
			small = small || len(plain) < 256
			if err == nil && len(plain) >= 256 && !bytes.Equal(f, modelEncoder().EncodeAll(plain, nil)) {
				t.Errorf("%s: section %d of %d bytes: not modelEncoder's frame", name, i, len(plain))
			}
		}
		if mm == tiny && !small {
			t.Errorf("%s: no section under 256 bytes", name)
		}
	}
	pca, err := PCABaseline(smallStepModel(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pca.WriteTo(io.Discard); err == nil || !strings.Contains(err.Error(), "PCA baseline") {
		t.Errorf("WriteTo of a PCA baseline: %v, want an error", err)
	}
}

// TestSectionedModel checks the sectioned container (version 17): the
// model, then per channel its training sample and fast path, which are
// inflated on first use only. A corrupt training sample or fast path
// leaves a decoder working and is reported, as a *ModelError naming the
// section, by TrainingSample, LoadSections and the encoder (fast path);
// a corrupt model section by ReadModel. Old files (container 16) read to
// the same model.
func TestSectionedModel(t *testing.T) {
	m := smallStepModel(t)
	var b bytes.Buffer
	// Without the step basis (TestStepBasisFile checks it): a decoder at
	// another step derives the quantisers from the training sample.
	if _, err := m.writeTo(&b, false); err != nil {
		t.Fatal(err)
	}
	file := b.Bytes()
	head, frames := sectionFrames(t, file)
	if len(frames) != 3 {
		t.Fatalf("%d sections for one channel, want 3", len(frames))
	}
	img := testimages.Texture(40, 32, 3)
	var coded bytes.Buffer
	if err := Encode(&coded, img, m, nil); err != nil {
		t.Fatal(err)
	}
	want, err := Decode(bytes.NewReader(coded.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	// A file at another step: its decoder derives the quantisers from the
	// training sample.
	var coded2 bytes.Buffer
	if err := Encode(&coded2, img, m, &Options{Step: m.Step * 2}); err != nil {
		t.Fatal(err)
	}
	// Version 4 in the single-frame container, as written before.
	var v4 bytes.Buffer
	if err := m.write(&v4, true); err != nil {
		t.Fatal(err)
	}
	old, err := ReadModel(bytes.NewReader(compressed(checksum.Append(v4.Bytes()))))
	if err != nil || old.ID() != m.ID() {
		t.Fatalf("version 4 file: %v", err)
	}
	var recoded bytes.Buffer
	if err := Encode(&recoded, img, old, nil); err != nil || !bytes.Equal(recoded.Bytes(), coded.Bytes()) {
		t.Fatalf("the version 4 file codes differently (%v)", err)
	}
	// Each section with a corrupt frame (a byte of its content changed).
	for i, what := range []string{"model", "training sample", "fast path"} {
		bad := slices.Clone(frames)
		bad[i] = slices.Clone(bad[i])
		bad[i][len(bad[i])/2] ^= 0x55
		data := slices.Concat(append([][]byte{head}, bad...)...)
		back, err := ReadModel(bytes.NewReader(data))
		var me *ModelError
		if i == 0 {
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "section 0") {
				t.Errorf("corrupt model section: got %v, want a *ModelError naming section 0", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("corrupt %s section: refused at load (%v); it is read on first use", what, err)
		}
		got, err := Decode(bytes.NewReader(coded.Bytes()), back)
		if err != nil || !imagesEqual(got, want) {
			t.Fatalf("corrupt %s section: the decoder fails (%v) or decodes other pixels", what, err)
		}
		name := fmt.Sprintf("section %d (%s)", i, what)
		if err := back.LoadSections(); !errors.As(err, &me) || !strings.Contains(err.Error(), name) {
			t.Errorf("corrupt %s section: LoadSections gave %v, want a *ModelError naming %q", what, err, name)
		}
		if i == 1 {
			if _, err := back.Channels[0].TrainingSample(); !errors.As(err, &me) {
				t.Errorf("corrupt training sample: TrainingSample gave %v, want a *ModelError", err)
			}
			if _, err := back.Stepped(m.Step * 2); !errors.As(err, &me) {
				t.Errorf("corrupt training sample: Stepped gave %v, want a *ModelError", err)
			}
			// The model's fault, not the coded file's (was a FormatError).
			_, err := Decode(bytes.NewReader(coded2.Bytes()), back)
			var fe *FormatError
			if !errors.As(err, &me) || errors.As(err, &fe) {
				t.Errorf("corrupt training sample: Decode at another step gave %v (%T), want a *ModelError, not a *FormatError", err, err)
			}
		} else if err := Encode(io.Discard, img, back, nil); !errors.As(err, &me) {
			t.Errorf("corrupt fast path: Encode gave %v, want a *ModelError", err)
		}
	}
	// LoadModel reads the lazy sections from the file, on first use.
	path := filepath.Join(t.TempDir(), "m.model")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadModel(path)
	if err != nil || loaded.ID() != m.ID() {
		t.Fatalf("LoadModel: %v", err)
	}
	if err := loaded.LoadSections(); err != nil {
		t.Fatal(err)
	}
	got, _ := loaded.Channels[0].TrainingSample()
	wantSample, _ := m.Channels[0].TrainingSample()
	if !mat.Equal(got, wantSample) {
		t.Error("LoadModel: other training sample")
	}
	// The file cut after the model section once loaded: the decoder
	// works, the rest is reported.
	loaded, err = LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(head)+len(frames[0]))); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(bytes.NewReader(coded.Bytes()), loaded); err != nil || !imagesEqual(got, want) {
		t.Fatalf("file cut after loading: the decoder fails (%v) or decodes other pixels", err)
	}
	var me *ModelError
	if err := loaded.LoadSections(); !errors.As(err, &me) || !strings.Contains(err.Error(), "reading the file") {
		t.Errorf("file cut after loading: LoadSections gave %v, want a *ModelError on reading the file", err)
	}
	if _, err := LoadModel(path); !errors.As(err, &me) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("cut file: LoadModel gave %v, want a *ModelError saying truncated", err)
	}
	// Structural damage: counts and lengths that do not match.
	for name, data := range map[string][]byte{
		"no sections":       append(slices.Clone(head[:len(ModelMagic)+4]), 0),
		"8 sections":        append(append(slices.Clone(head[:len(ModelMagic)+4]), 8), file[len(ModelMagic)+5:]...),
		"a section missing": slices.Concat(append(slices.Clone(head[:len(ModelMagic)+4]), 2), head[len(ModelMagic)+5:len(head)-4], frames[0], frames[1]),
		"trailing bytes":    append(slices.Clone(file), 0),
		"truncated":         file[:len(file)-1],
	} {
		var me *ModelError
		if _, err := ReadModel(bytes.NewReader(data)); !errors.As(err, &me) {
			t.Errorf("%s: got %v, want a *ModelError", name, err)
		}
	}
}

// TestModelClose checks that LoadModel's model keeps its file for the
// sections it reads later, that Close releases it (those sections then
// give an error, no panic), and that a model whose sections were read
// first still encodes after Close.
func TestModelClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.model")
	if err := smallStepModel(t).Save(path); err != nil {
		t.Fatal(err)
	}
	img := testimages.Texture(40, 32, 3)
	lazy, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := lazy.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lazy.LoadSections(); err == nil {
		t.Error("LoadSections after Close: no error")
	}
	whole, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := whole.LoadSections(); err != nil {
		t.Fatal(err)
	}
	if err := whole.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Encode(io.Discard, img, whole, nil); err != nil {
		t.Errorf("encode after LoadSections and Close: %v", err)
	}
	if err := whole.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
