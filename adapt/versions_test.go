package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/checksum"
)

// afterChoice is the number of bytes between the alignment choice of the
// model file b and its checksum: version 7's highlight gains.
func afterChoice(b []byte) int {
	if binary.LittleEndian.Uint32(b[len(ModelMagic):]) >= 7 {
		return 3 * 8
	}
	return 0
}

// withChoice returns the model file b (version 6 or later) with its
// alignment matrix (zero: the gains) and choice fields replaced,
// checksum redone.
func withChoice(b []byte, align colorspace.Mat3, code uint32, residual, threshold float64) []byte {
	le := binary.LittleEndian
	end := len(b) - 4 - afterChoice(b) // the choice's end
	out := append([]byte(nil), b[:end-20-72]...)
	for _, v := range align {
		out = le.AppendUint64(out, math.Float64bits(v))
	}
	out = le.AppendUint32(out, code)
	out = le.AppendUint64(out, math.Float64bits(residual))
	out = le.AppendUint64(out, math.Float64bits(threshold))
	out = append(out, b[end:len(b)-4]...)
	return le.AppendUint32(out, checksum.Sum(out))
}

// readAllWays reads the model file b from memory, from a stream and from
// a file, and returns the three errors (nil where read).
func readAllWays(t *testing.T, b []byte) [3]error {
	t.Helper()
	var errs [3]error
	_, errs[0] = Read(bytes.NewReader(b))
	_, errs[1] = Read(stream{bytes.NewReader(b)})
	// Removed at once, not at the test's end: the callers read about 40
	// files of a 30 MB model each, 1.3 GB of temporary files per run, and
	// an interrupted run (-count, a timeout) left 22 GB in /tmp.
	path := filepath.Join(t.TempDir(), "m.model")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	_, errs[2] = Load(path)
	return errs
}

// TestAlignChoiceConsistent: a version-6 or later file whose recorded choice
// contradicts its alignment (auto with the matrix above the threshold or
// without a residual, auto with the gains below it, the matrix asked
// without pairs) is refused as corrupt, from memory, a stream and a file,
// instead of being read and described by spca info as, say, 'matrix
// (auto: residual 0.5000, below 0.1: a linear map explains the pairs)';
// the consistent choices read (NaN residual for auto without pairs).
func TestAlignChoiceConsistent(t *testing.T) {
	b := smallModelFileAligned(t, AlignAuto)
	if v := binary.LittleEndian.Uint32(b[len(ModelMagic):]); v < 6 {
		t.Fatalf("auto model written as version %d", v)
	}
	id := colorspace.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
	nan := math.NaN()
	const auto, matrix = 2, 1
	for _, c := range []struct {
		name      string
		align     colorspace.Mat3
		code      uint32
		res, thr  float64
		ok        bool
		wantWords string
	}{
		{"auto, gains, no pairs", colorspace.Mat3{}, auto, nan, 0.1, true, ""},
		{"auto, gains, residual above", colorspace.Mat3{}, auto, 0.4, 0.1, true, ""},
		{"auto, gains, residual at the threshold", colorspace.Mat3{}, auto, 0.1, 0.1, true, ""},
		{"auto, matrix, residual below", id, auto, 0.02, 0.1, true, ""},
		{"matrix asked, residual above", id, matrix, 0.4, 0.1, true, ""},
		{"auto, gains, residual below", colorspace.Mat3{}, auto, 0.02, 0.1, false, "alignment choice"},
		{"auto, matrix, residual above", id, auto, 0.4, 0.1, false, "alignment choice"},
		{"auto, matrix, residual at the threshold", id, auto, 0.1, 0.1, false, "alignment choice"},
		{"auto, matrix, no pairs", id, auto, nan, 0.1, false, "alignment choice"},
		{"matrix asked, no pairs", id, matrix, nan, 0.1, false, "alignment choice"},
		{"matrix asked, none stored", colorspace.Mat3{}, matrix, 0.02, 0.1, false, "none stored"},
		{"asked 0", colorspace.Mat3{}, 0, nan, 0.1, false, "unknown alignment choice"},
		{"asked 3", colorspace.Mat3{}, 3, nan, 0.1, false, "unknown alignment choice"},
		{"threshold NaN", colorspace.Mat3{}, auto, nan, nan, false, "residual or threshold"},
		{"residual -0.1", colorspace.Mat3{}, auto, -0.1, 0.1, false, "residual or threshold"},
	} {
		errs := readAllWays(t, withChoice(b, c.align, c.code, c.res, c.thr))
		for w, err := range errs {
			var fe *FormatError
			switch {
			case c.ok && err != nil:
				t.Errorf("%s (read %d): %v", c.name, w, err)
			case !c.ok && (!errors.As(err, &fe) || !strings.Contains(err.Error(), c.wantWords)):
				t.Errorf("%s (read %d): %v, want a *FormatError saying %q", c.name, w, err, c.wantWords)
			}
		}
	}
}

// TestOldVersionsRead: files of every version 1-7 read from memory, a
// stream and a file (the walk of 04bf011 serves the last two), and every
// cut of the newest file at or next to the bounds of its last fields
// (ray table, alignment, choice, highlight gains, checksum) is refused by
// all three as a *FormatError. The files are the small model's (every
// section, the auto alignment with its choice), read about 130 times:
// with the shared model (30 MB) that took 10 s of CPU.
func TestOldVersionsRead(t *testing.T) {
	top := smallModelFileAligned(t, AlignAuto)
	m := mustRead(t, top)
	le := binary.LittleEndian
	newest := le.Uint32(top[len(ModelMagic):])
	if newest < 6 {
		t.Skipf("the shared test model is written as version %d", newest)
	}
	redo := func(b []byte, version uint32) []byte {
		b = append([]byte(nil), b...)
		le.PutUint32(b[len(ModelMagic):], version)
		return le.AppendUint32(b, checksum.Sum(b))
	}
	v6 := redo(top[:len(top)-4-afterChoice(top)], 6)
	body := v6[:len(v6)-4]
	v5 := redo(body[:len(body)-20], 5)
	v4 := redo(body[:len(body)-20-72], 4) // the gains model's matrix is zero
	v3 := withoutRays(t, m, v6)
	off := len(ModelMagic) + 4 + 16 + 48 + 240
	for range 2 {
		off += 8 + int(le.Uint64(v6[off:]))
	}
	v2body := append(append([]byte(nil), v3[:off+80]...), v3[off+80+24:len(v3)-4]...)
	v2 := redo(v2body, 2)
	v1 := redo(v6[:off], 1)
	files := [][]byte{v1, v2, v3, v4, v5, v6}
	if newest >= 7 {
		files = append(files, top)
	}
	for v, b := range files {
		for w, err := range readAllWays(t, b) {
			if err != nil {
				t.Errorf("version %d (read %d): %v", v+1, w, err)
			}
		}
		got, err := Read(stream{bytes.NewReader(b)})
		if err != nil {
			continue
		}
		if v < 2 && got.Gains != [3]float64{1, 1, 1} || v >= 2 && got.Gains != m.Gains {
			t.Errorf("version %d: gains %v", v+1, got.Gains)
		}
		if (got.AlignChoice != nil) != (v >= 5) || (got.Rays != nil) != (v >= 3) || (got.LUT != nil) != (v >= 1) {
			t.Errorf("version %d: choice %v, rays %v, LUT %v", v+1, got.AlignChoice, got.Rays != nil, got.LUT != nil)
		}
		mp, err := got.Mapper(SPCA)
		if err != nil {
			t.Fatalf("version %d: %v", v+1, err)
		}
		y := make([]colorspace.LMS, 1)
		mp.MapLMS(y, []colorspace.LMS{{0.3, 0.25, 0.1}})
		if !finite3([3]float64(y[0])) {
			t.Errorf("version %d maps to %v", v+1, y[0])
		}
	}
	// Cuts in the last fields.
	end := len(top) - 4          // the checksum's offset
	ch := end - afterChoice(top) // the choice's end
	for _, n := range []int{ch - 20 - 72 - 9, ch - 20 - 72 - 1, ch - 20 - 72, ch - 20 - 72 + 1, ch - 20 - 40,
		ch - 20 - 1, ch - 20, ch - 20 + 3, ch - 20 + 4, ch - 20 + 11, ch - 20 + 12, ch - 1, ch, ch + 1, ch + 8, end - 1, end, end + 3} {
		for _, b := range [][]byte{top[:n], checksum.Refresh(append([]byte(nil), top[:n]...))} {
			for w, err := range readAllWays(t, b) {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Errorf("version %d cut at %d of %d (read %d): %v, want a *FormatError", newest, n, len(top), w, err)
				}
			}
		}
	}
}
