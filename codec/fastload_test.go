package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestStoredFrame checks storedFrame's frames: every zstd decoder reads
// them back (modelDecoder here), they declare their size, and they are
// split in blocks of 128 KiB, the last one flagged, an empty one for no
// bytes.
func TestStoredFrame(t *testing.T) {
	for _, n := range []int{0, 1, 255, maxStoredBlock - 1, maxStoredBlock, maxStoredBlock + 1, 3*maxStoredBlock + 7} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i*7 + i>>9)
		}
		f := storedFrame(p)
		blocks := max(1, (n+maxStoredBlock-1)/maxStoredBlock)
		if len(f) != 9+3*blocks+n {
			t.Errorf("%d bytes: a frame of %d bytes, want %d", n, len(f), 9+3*blocks+n)
		}
		if size, err := declaredSize(f[:min(len(f), 32)], len(f)); err != nil || size != n {
			t.Errorf("%d bytes: declares %d (%v)", n, size, err)
		}
		if !storedFirstBlock(f[:min(len(f), 32)]) {
			t.Errorf("%d bytes: the first block is not raw", n)
		}
		got, err := modelDecoder().DecodeAll(f, make([]byte, 0, n))
		if err != nil || !bytes.Equal(got, p) {
			t.Errorf("%d bytes: read back %d bytes (%v), want the same bytes", n, len(got), err)
		}
		// In place (unstore), and refused, unchanged, when not so laid out.
		for name, bad := range map[string][]byte{
			"compressed block": func() []byte { b := slices.Clone(f); b[9] |= 4; return b }(),
			"block size":       func() []byte { b := slices.Clone(f); b[9] += 8; return b }(),
			"declared size":    func() []byte { b := slices.Clone(f); b[5]++; return b }(),
			"no last block":    func() []byte { b := slices.Clone(f); b[len(f)-3-(n-(blocks-1)*maxStoredBlock)] &^= 1; return b }(),
			"cut":              slices.Clone(f[:len(f)-1]),
			"trailing byte":    append(slices.Clone(f), 0),
		} {
			b := slices.Clone(bad)
			if unstore(b, n) != nil || !bytes.Equal(b, bad) {
				t.Errorf("%d bytes, %s: unstore did not refuse it unchanged", n, name)
			}
		}
		if got := unstore(slices.Clone(f), n); !bytes.Equal(got, p) {
			t.Errorf("%d bytes: unstore gave %d other bytes", n, len(got))
		}
	}
}

// fastLoadFile returns m's file in the fast-load form, leaving m's form
// as it was.
func fastLoadFile(t testing.TB, m *Model) []byte {
	t.Helper()
	was := m.FastLoad()
	defer m.SetFastLoad(was)
	m.SetFastLoad(true)
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFastLoadForm checks that a model's two forms hold the same model:
// the same ID, the same coded bytes and decoded pixels, read back from
// memory and from a file, each rewritten in either form giving that
// form's bytes; that the fast-load form stores the sections coding reads
// (the model, the fast paths) as raw blocks and the others as the compact
// form does; and that a model read keeps its file's form.
func TestFastLoadForm(t *testing.T) {
	grey, colour := testimages.Texture(40, 32, 3), testimages.ColorTexture(40, 32, 3)
	for _, tc := range []struct {
		name string
		m    *Model
		img  image.Image
	}{
		{"fixed-resolution", smallModel(t), grey},
		{"step", smallStepModel(t), grey},
		{"colour 4:2:0", smallColorModel(t, true), colour},
	} {
		m := tc.m
		if m.FastLoad() {
			t.Fatalf("%s: a trained model in the fast-load form", tc.name)
		}
		var compact bytes.Buffer
		if _, err := m.WriteTo(&compact); err != nil {
			t.Fatal(err)
		}
		fast := fastLoadFile(t, m)
		if len(fast) <= compact.Len() {
			t.Errorf("%s: the fast-load form takes %d bytes, the compact %d", tc.name, len(fast), compact.Len())
		}
		nc := len(m.Channels)
		_, frames := sectionFrames(t, fast)
		_, cframes := sectionFrames(t, compact.Bytes())
		if len(frames) != len(cframes) {
			t.Fatalf("%s: %d sections, the compact form %d", tc.name, len(frames), len(cframes))
		}
		if storedFirstBlock(cframes[0]) {
			t.Errorf("%s: the compact form's model section is stored", tc.name)
		}
		for i, f := range frames {
			if i == 0 {
				// The model, stored, its SPCA models in version 7 (their
				// lattices as float32, used in place).
				plain, err := modelDecoder().DecodeAll(f, make([]byte, 0, len(f)))
				v7 := binary.LittleEndian.AppendUint32([]byte(spca.ModelMagic), 7)
				if !storedFirstBlock(f) || err != nil || bytes.Count(plain, v7) != nc {
					t.Errorf("%s: section 0 not stored with %d SPCA models of version 7 (%v)", tc.name, nc, err)
				}
				continue
			}
			if codingSection(i, nc) {
				size, err := declaredSize(cframes[i], len(cframes[i]))
				if err != nil {
					t.Fatal(err)
				}
				plain, err := modelDecoder().DecodeAll(cframes[i], make([]byte, 0, size))
				if err != nil || !bytes.Equal(f, storedFrame(plain)) {
					t.Errorf("%s: section %d is not the compact form's bytes stored (%v)", tc.name, i, err)
				}
			} else if !bytes.Equal(f, cframes[i]) {
				t.Errorf("%s: section %d differs from the compact form's", tc.name, i)
			}
		}
		var coded bytes.Buffer
		if err := Encode(&coded, tc.img, m, nil); err != nil {
			t.Fatal(err)
		}
		want, err := Decode(bytes.NewReader(coded.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, form := range []struct {
			fast bool
			data []byte
		}{{false, compact.Bytes()}, {true, fast}} {
			path := filepath.Join(dir, "m.model")
			if err := os.WriteFile(path, form.data, 0o644); err != nil {
				t.Fatal(err)
			}
			fromFile, err := LoadModel(path)
			if err != nil {
				t.Fatalf("%s, fast-load %v: LoadModel: %v", tc.name, form.fast, err)
			}
			fromMem, err := ReadModel(bytes.NewReader(form.data))
			if err != nil {
				t.Fatalf("%s, fast-load %v: ReadModel: %v", tc.name, form.fast, err)
			}
			// What the loads donated to the spare overwritten: the models
			// do not use it (the fast-load form's lattices are section
			// 0's bytes, which a load then keeps out of the spare).
			scribbleSpare()
			for _, back := range []*Model{fromFile, fromMem} {
				if back.FastLoad() != form.fast || back.ID() != m.ID() {
					t.Fatalf("%s, fast-load %v: read back fast-load %v, ID %v (want %v)", tc.name, form.fast, back.FastLoad(), back.ID(), m.ID())
				}
				var recoded bytes.Buffer
				if err := Encode(&recoded, tc.img, back, nil); err != nil || !bytes.Equal(recoded.Bytes(), coded.Bytes()) {
					t.Fatalf("%s, fast-load %v: codes other bytes (%v)", tc.name, form.fast, err)
				}
				if got, err := Decode(bytes.NewReader(coded.Bytes()), back); err != nil || !imagesEqual(got, want) {
					t.Fatalf("%s, fast-load %v: decodes other pixels (%v)", tc.name, form.fast, err)
				}
				if err := back.LoadSections(); err != nil {
					t.Fatal(err)
				}
				// Rewritten in either form: that form's bytes.
				for _, to := range []struct {
					fast bool
					want []byte
				}{{false, compact.Bytes()}, {true, fast}} {
					back.SetFastLoad(to.fast)
					var b bytes.Buffer
					if _, err := back.WriteTo(&b); err != nil || !bytes.Equal(b.Bytes(), to.want) {
						t.Errorf("%s: read in fast-load %v, written in fast-load %v: other bytes (%v)", tc.name, form.fast, to.fast, err)
					}
				}
			}
			fromFile.Close()
		}
	}
}

// TestFastLoadDamage checks that a damaged or truncated fast-load file is
// refused with a *ModelError (naming the section where it is one), at
// load or, for the sections read on first use, then.
func TestFastLoadDamage(t *testing.T) {
	m := smallStepModel(t)
	file := fastLoadFile(t, m)
	head, frames := sectionFrames(t, file)
	img := testimages.Texture(40, 32, 3)
	join := func(fs [][]byte) []byte { return slices.Concat(append([][]byte{head}, fs...)...) }
	// withLength rewrites the section table for frames of other lengths.
	withLength := func(fs [][]byte) []byte {
		h := slices.Clone(head)
		for i, f := range fs {
			binary.LittleEndian.PutUint32(h[len(ModelMagic)+5+4*i:], uint32(len(f)))
		}
		return slices.Concat(append([][]byte{h}, fs...)...)
	}
	edit := func(i int, f func(b []byte) []byte) [][]byte {
		fs := slices.Clone(frames)
		fs[i] = f(slices.Clone(fs[i]))
		return fs
	}
	// The model section's frame: magic (4), descriptor (1), size (4), then
	// its first block's header (3 bytes: last flag, type, size).
	cases := map[string][]byte{
		"model content byte":      join(edit(0, func(b []byte) []byte { b[len(b)/2] ^= 0x55; return b })),
		"model last byte":         join(edit(0, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })),
		"model block size":        join(edit(0, func(b []byte) []byte { b[9] += 8; return b })),
		"model block type":        join(edit(0, func(b []byte) []byte { b[9] |= 6; return b })),
		"model declared size":     join(edit(0, func(b []byte) []byte { b[5]++; return b })),
		"model frame cut":         withLength(edit(0, func(b []byte) []byte { return b[:len(b)-1] })),
		"model frame extended":    withLength(edit(0, func(b []byte) []byte { return append(b, 0) })),
		"model frame magic":       join(edit(0, func(b []byte) []byte { b[0] ^= 1; return b })),
		"file truncated in head":  file[:len(head)-2],
		"file truncated in model": file[:len(head)+len(frames[0])/2],
		"file truncated":          file[:len(file)-1],
	}
	for name, data := range cases {
		var me *ModelError
		_, err := ReadModel(bytes.NewReader(data))
		if !errors.As(err, &me) {
			t.Errorf("%s: got %v, want a *ModelError", name, err)
		} else if strings.HasPrefix(name, "model ") && !strings.Contains(err.Error(), "section 0") {
			t.Errorf("%s: got %v, want an error naming section 0", name, err)
		}
		path := filepath.Join(t.TempDir(), "m.model")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadModel(path); !errors.As(err, &me) {
			t.Errorf("%s: LoadModel gave %v, want a *ModelError", name, err)
		}
	}
	// A damaged fast path loads, and is reported when an encoder reads it.
	for name, data := range map[string][]byte{
		"fast path content byte": join(edit(2, func(b []byte) []byte { b[len(b)/2] ^= 0x55; return b })),
		"fast path block size":   join(edit(2, func(b []byte) []byte { b[9] += 8; return b })),
	} {
		back, err := ReadModel(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: refused at load (%v); the section is read on first use", name, err)
		}
		var me *ModelError
		if err := Encode(&bytes.Buffer{}, img, back, nil); !errors.As(err, &me) || !strings.Contains(err.Error(), "section 2") {
			t.Errorf("%s: Encode gave %v, want a *ModelError naming section 2", name, err)
		}
	}
}

// scribbleSpare overwrites every value of the spare (the buffers loads
// and images donated) with NaN.
func scribbleSpare() {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	for _, r := range spare.regions {
		for i := range r {
			r[i] = math.NaN()
		}
	}
}
