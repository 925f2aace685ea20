package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// withModelSection returns the sectioned model file with section 0's
// plain bytes (its checksum included) replaced by edit's, their checksum
// refreshed and framed by frame (storedFrame for the fast-load form,
// compressed for the compact one), the section table rewritten: damage
// that gets past the section's CRC-32C to the readers behind it.
func withModelSection(t testing.TB, file []byte, frame func([]byte) []byte, edit func(plain []byte) []byte) []byte {
	t.Helper()
	n := int(file[len(ModelMagic)+4])
	at := len(ModelMagic) + 5 + 4*n
	l0 := int(binary.LittleEndian.Uint32(file[len(ModelMagic)+5:]))
	plain, err := sectionPlain(file[at : at+l0])
	if err != nil {
		t.Fatal(err)
	}
	f := frame(checksum.Refresh(edit(slices.Clone(plain))))
	head := slices.Clone(file[:at])
	binary.LittleEndian.PutUint32(head[len(ModelMagic)+5:], uint32(len(f)))
	return slices.Concat(head, f, file[at+l0:])
}

// sectionPlain inflates a section's frame.
func sectionPlain(f []byte) ([]byte, error) {
	size, err := declaredSize(f, len(f))
	if err != nil {
		return nil, err
	}
	return modelDecoder().DecodeAll(f, make([]byte, 0, size))
}

// compressedFrame is a section's plain bytes as the compact form frames
// them.
func compressedFrame(p []byte) []byte { return modelEncoder().EncodeAll(p, nil) }

// storedLattices returns the offsets, in section 0's plain bytes, of the
// float32 lattices of its version 7 SPCA models: after each model's
// magic and version 7, the first flag 2, resolution, padding count p and
// p zeros that end at a multiple of 64 bytes of the section.
func storedLattices(plain []byte) []int {
	v7 := binary.LittleEndian.AppendUint32([]byte(spca.ModelMagic), 7)
	var out []int
	for from := 0; ; {
		i := bytes.Index(plain[from:], v7)
		if i < 0 {
			return out
		}
		from += i + len(v7)
		for j := from; j+10 < len(plain); j++ {
			p := int(plain[j+9])
			if plain[j] != 2 || p >= 64 || j+10+p > len(plain) || (j+10+p)%64 != 0 {
				continue
			}
			if res := math.Float64frombits(binary.LittleEndian.Uint64(plain[j+1:])); !(res > 0 && res < 1) {
				continue
			}
			if bytes.Count(plain[j+10:j+10+p], []byte{0}) == p {
				out = append(out, j+10+p)
				break
			}
		}
	}
}

// fastLoadHostile returns fast, m's file in the fast-load form, damaged
// behind valid section checksums, by name (TestFastLoadHostile).
func fastLoadHostile(t testing.TB, m *Model, fast []byte) map[string][]byte {
	n := int(fast[len(ModelMagic)+4])
	at := len(ModelMagic) + 5 + 4*n
	plain, err := sectionPlain(fast[at : at+int(binary.LittleEndian.Uint32(fast[len(ModelMagic)+5:]))])
	if err != nil {
		t.Fatal(err)
	}
	lats := storedLattices(plain)
	if len(lats) != len(m.Channels) {
		t.Fatalf("%d float32 lattices found in section 0, want %d", len(lats), len(m.Channels))
	}
	put32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	}
	last := lats[len(lats)-1]
	return map[string][]byte{
		"NaN position":              withModelSection(t, fast, storedFrame, put32(lats[0], math.Float32bits(float32(math.NaN())))),
		"+Inf position, last model": withModelSection(t, fast, storedFrame, put32(last+40, math.Float32bits(float32(math.Inf(1))))),
		"-Inf position, compressed": withModelSection(t, fast, compressedFrame, put32(lats[0]+4, math.Float32bits(float32(math.Inf(-1))))),
		"padding count 64": withModelSection(t, fast, storedFrame, func(b []byte) []byte {
			b[bytes.LastIndexByte(b[:lats[0]], 2)+9] = 64 // flag 2, resolution, count
			return b
		}),
		"resolution NaN": withModelSection(t, fast, storedFrame, func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[bytes.LastIndexByte(b[:lats[0]], 2)+1:], math.Float64bits(math.NaN()))
			return b
		}),
		"lattice flag 3": withModelSection(t, fast, storedFrame, func(b []byte) []byte {
			b[bytes.LastIndexByte(b[:lats[0]], 2)] = 3
			return b
		}),
		"cut in the lattice": withModelSection(t, fast, storedFrame, func(b []byte) []byte {
			return append(b[:lats[0]+100], 0, 0, 0, 0)
		}),
	}
}

// TestFastLoadHostile checks the fast-load reader behind a valid section
// checksum: a lattice position NaN or infinite, a padding count out of
// range, a resolution NaN, the lattice's flag unknown, section 0 cut in a
// lattice: a *ModelError, within the reader's memory bound, never a
// panic. And the two framings swapped: a compact model's section 0
// (SPCA version 6) stored as the fast-load form stores it, and the
// fast-load form's (version 7) compressed, are the same model, coding
// the same bytes. Each from memory and from a file (whose raw blocks
// are read in place: unstore).
func TestFastLoadHostile(t *testing.T) {
	img := testimages.Texture(40, 32, 3)
	for _, m := range []*Model{smallStepModel(t), smallColorModel(t, true)} {
		fast := fastLoadFile(t, m)
		var compact bytes.Buffer
		if _, err := m.WriteTo(&compact); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := Encode(&want, img, m, nil); err != nil {
			t.Fatal(err)
		}
		cases := fastLoadHostile(t, m, fast)
		for name, data := range cases {
			var err error
			hostile.Check(t, name, boundBytes(data), func() {
				var back *Model
				if back, err = ReadModel(bytes.NewReader(data)); err == nil {
					err = back.LoadSections()
				}
			})
			var me *ModelError
			if !errors.As(err, &me) {
				t.Errorf("%s: got %v, want a *ModelError", name, err)
			}
			// From a file: its raw blocks read in place (unstore).
			path := filepath.Join(t.TempDir(), "m.model")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			hostile.Check(t, name+" (file)", boundBytes(data), func() {
				var back *Model
				if back, err = LoadModel(path); err == nil {
					err = back.LoadSections()
					back.Close()
				}
			})
			if !errors.As(err, &me) {
				t.Errorf("%s: LoadModel gave %v, want a *ModelError", name, err)
			}
		}
		for name, data := range map[string][]byte{
			"version 6 stored":     withModelSection(t, compact.Bytes(), storedFrame, func(b []byte) []byte { return b }),
			"version 7 compressed": withModelSection(t, fast, compressedFrame, func(b []byte) []byte { return b }),
		} {
			path := filepath.Join(t.TempDir(), "m.model")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fromMem, err := ReadModel(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			fromFile, err := LoadModel(path)
			if err != nil {
				t.Fatalf("%s: LoadModel: %v", name, err)
			}
			scribbleSpare()
			for _, back := range []*Model{fromMem, fromFile} {
				var got bytes.Buffer
				if err := Encode(&got, img, back, nil); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s: codes other bytes (%v)", name, err)
				}
			}
			fromFile.Close()
		}
	}
}
