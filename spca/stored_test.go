package spca

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/spcalab/spca/internal/checksum"
)

// TestStoredFormat checks version 7 (WriteStoredTo): the lattice stored
// as float32 at 64 bytes of the writer's base, read back (by Read, from a
// stream, and in place by ReadEmbeddedShared) into the same model, which
// writes version 6's bytes again; a 1-D model and an unsnapped one get
// WriteCompactTo's bytes; a non-finite, truncated or misplaced lattice is
// refused.
func TestStoredFormat(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(21, 22))
	x := bentSample(rng, 200, d)
	for gamma, m := range gammaModels(t, rng, d) {
		var unsnapped, plain bytes.Buffer
		m.WriteCompactTo(&plain)
		if _, err := m.WriteStoredTo(&unsnapped, 0); err != nil || !bytes.Equal(unsnapped.Bytes(), plain.Bytes()) {
			t.Fatalf("gamma %v: an unsnapped model written otherwise than by WriteCompactTo (%v)", gamma, err)
		}
		if err := m.SnapLattice(1e-4); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if _, err := m.WriteCompactTo(&compact); err != nil {
			t.Fatal(err)
		}
		n := len(m.lat.positions())
		for _, base := range []int64{0, 1, 5, 63, 64, 1000} {
			what := fmt.Sprintf("gamma %v, base %d", gamma, base)
			var stored bytes.Buffer
			if _, err := m.WriteStoredTo(&stored, base); err != nil {
				t.Fatal(err)
			}
			file := stored.Bytes()
			if v := binary.LittleEndian.Uint32(file[8:]) &^ ExtendedOptions; v != versionStored {
				t.Fatalf("%s: written in version %d", what, v)
			}
			// The lattice: its float32 bytes, at 64 bytes of base.
			want := make([]byte, 4*n)
			for i, v := range m.lat.positions() {
				binary.LittleEndian.PutUint32(want[4*i:], math.Float32bits(float32(v)))
			}
			at := bytes.Index(file, want)
			if at < 0 || (base+int64(at))%storedAlign != 0 {
				t.Fatalf("%s: lattice at %d, want its float32 bytes at a multiple of %d", what, at, storedAlign)
			}
			// Read, from a stream, and in place: the same model.
			loaded, err := Read(bytes.NewReader(file))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			streamed, err := Read(struct{ io.Reader }{bytes.NewReader(file)})
			if err != nil {
				t.Fatalf("%s: from a stream: %v", what, err)
			}
			// In place: b's lattice aligned to 64 bytes, as a codec
			// section's (its buffer's start at base bytes before).
			buf := make([]byte, len(file)+2*storedAlign)
			off := int((base - int64(uintptr(unsafe.Pointer(&buf[0])))) & (storedAlign - 1))
			b := buf[off : off+len(file)]
			copy(b, file)
			limit := int64(1 << 30)
			shared, isShared, err := ReadEmbeddedShared(b, &limit)
			if err != nil || !isShared {
				t.Fatalf("%s: ReadEmbeddedShared: shared %v (%v)", what, isShared, err)
			}
			if p := unsafe.Pointer(unsafe.SliceData(shared.lat.x32)); p != unsafe.Pointer(&b[at]) {
				t.Fatalf("%s: the shared lattice is not the bytes'", what)
			}
			for _, got := range []*Model{loaded, streamed, shared} {
				if got.lat.x32 == nil || !slices.Equal(got.lat.positions(), m.lat.positions()) {
					t.Fatalf("%s: lattice read back differs (float32: %v)", what, got.lat.x32 != nil)
				}
				var again bytes.Buffer
				if _, err := got.WriteCompactTo(&again); err != nil || !bytes.Equal(again.Bytes(), compact.Bytes()) {
					t.Fatalf("%s: the model read back writes other version 6 bytes (%v)", what, err)
				}
				sameMaps(t, what, m, got, x)
			}
			// Unaligned bytes: a copy, not shared.
			limit = 1 << 30
			if c, isShared, err := ReadEmbeddedShared(buf[off+1:off+1+len(file)], &limit); err == nil {
				if isShared || !slices.Equal(c.lat.positions(), m.lat.positions()) {
					t.Fatalf("%s: unaligned: shared %v or another lattice", what, isShared)
				}
			} else {
				copy(buf[off+1:], file)
				if c, isShared, err = ReadEmbeddedShared(buf[off+1:off+1+len(file)], &limit); err != nil || isShared || !slices.Equal(c.lat.positions(), m.lat.positions()) {
					t.Fatalf("%s: unaligned: shared %v, %v", what, isShared, err)
				}
			}
			// Damage: a position made infinite or NaN, the padding count
			// out of range, the file cut in the lattice.
			for name, bad := range map[string][]byte{
				"+Inf position": patched(file, at+4*(n/2), math.Float32bits(float32(math.Inf(1)))),
				"NaN position":  patched(file, at, math.Float32bits(float32(math.NaN()))),
				"padding":       padded(file, at, m.latRes),
				"cut":           checksum.Refresh(slices.Clone(file[:at+2*n])),
			} {
				var fe *FormatError
				if _, err := Read(bytes.NewReader(bad)); !errors.As(err, &fe) {
					t.Errorf("%s: %s: got %v, want a *FormatError", what, name, err)
				}
				limit = 1 << 30
				if _, _, err := ReadEmbeddedShared(bad, &limit); !errors.As(err, &fe) {
					t.Errorf("%s: %s: ReadEmbeddedShared gave %v, want a *FormatError", what, name, err)
				}
			}
		}
	}
	// A 1-D model loads its lattice as float64: WriteCompactTo's bytes.
	one := gammaModels(t, rng, 1)
	for gamma, m := range one {
		if err := m.SnapLattice(1e-4); err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		m.WriteCompactTo(&a)
		if _, err := m.WriteStoredTo(&b, 3); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("gamma %v, d = 1: WriteStoredTo wrote other bytes than WriteCompactTo (%v)", gamma, err)
		}
	}
}

// patched returns file with the uint32 at off set to v, checksum refreshed.
func patched(file []byte, off int, v uint32) []byte {
	b := slices.Clone(file)
	binary.LittleEndian.PutUint32(b[off:], v)
	return checksum.Refresh(b)
}

// padded returns file with the padding count before the lattice at at
// set out of range, checksum refreshed: the count follows the lattice's
// flag 2 and resolution res.
func padded(file []byte, at int, res float64) []byte {
	b := slices.Clone(file)
	head := binary.LittleEndian.AppendUint64([]byte{2}, math.Float64bits(res))
	b[bytes.LastIndex(b[:at], head)+len(head)] = storedAlign
	return checksum.Refresh(b)
}
