package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
)

// TestVersion7NeedsHighlightGains checks that a version-7 file without
// its highlight gains (the file cut before them, its checksum redone: a
// writer that stamped version 7 and left the field out) is refused as a
// *FormatError from memory, a stream and a file, instead of being read
// as a model without highlight gains, which maps as the programs before
// version 7 did. Only versions 4 to 6 lack the field (see the format
// description in persist.go).
func TestVersion7NeedsHighlightGains(t *testing.T) {
	top := smallModelFile(t)
	if v := binary.LittleEndian.Uint32(top[len(ModelMagic):]); v != 7 {
		t.Fatalf("the small model is written as version %d, want 7", v)
	}
	if mustRead(t, top).HighlightGains == ([3]float64{}) {
		t.Fatal("the small model has no highlight gains")
	}
	end := len(top) - 4 // the checksum's offset
	cut := checksum.Append(append([]byte(nil), top[:end-3*8]...))
	for w, err := range readAllWays(t, cut) {
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("version 7 without highlight gains (read %d): %v, want a *FormatError", w, err)
		}
	}
}

// TestParseMethodNames checks ParseMethod on every method's name,
// Aligned's too (not in Methods(): only models with a matrix alignment
// have it), in upper case and with underscores or spaces for hyphens, as
// its documentation promises ("ignoring case, spaces, hyphens and
// underscores").
func TestParseMethodNames(t *testing.T) {
	for _, m := range append(Methods(), Aligned) {
		s := m.String()
		for _, name := range []string{s, strings.ToUpper(s), strings.ReplaceAll(s, "-", "_"), strings.ReplaceAll(s, "-", " "), " " + s + "\t"} {
			if got, err := ParseMethod(name); err != nil || got != m {
				t.Errorf("ParseMethod(%q) = %v, %v; want %v", name, got, err, m)
			}
		}
	}
	if got, err := ParseMethod("Von_Kries"); err != nil || got != VonKries {
		t.Errorf("ParseMethod(%q) = %v, %v; want %v", "Von_Kries", got, err, VonKries)
	}
}

// TestApplyExactTranslucent checks that ApplyExact maps the colour of a
// translucent pixel of a premultiplied image (RGBA, RGBA64) like that of
// an opaque one: with the identity mapper the image comes back within
// the rounding of un-premultiplying and premultiplying again, alpha
// unchanged. (TestApplyTypes checks LUT.Apply's colours this way, and
// ApplyExact's types and bounds only.)
func TestApplyExactTranslucent(t *testing.T) {
	r := image.Rect(0, 0, 12, 4)
	rgba, rgba64 := image.NewRGBA(r), image.NewRGBA64(r)
	for y := range 4 {
		for x := range 12 {
			c := color.NRGBA{uint8(20*x + 7), uint8(60*y + 11), uint8(200 - 15*x), uint8([]int{255, 200, 128, 31}[y])}
			rgba.Set(x, y, c)
			rgba64.Set(x, y, c)
		}
	}
	for _, in := range []image.Image{rgba, rgba64} {
		out, err := ApplyExact(in, Identity())
		if err != nil {
			t.Fatal(err)
		}
		worst := 0
		for y := range 4 {
			for x := range 12 {
				ir, ig, ib, ia := in.At(x, y).RGBA()
				or, og, ob, oa := out.At(x, y).RGBA()
				if ia != oa {
					t.Fatalf("%T: alpha at (%d, %d) %d -> %d", in, x, y, ia, oa)
				}
				for _, v := range [3][2]uint32{{ir, or}, {ig, og}, {ib, ob}} {
					worst = max(worst, abs16(v[0], v[1])>>8)
				}
			}
		}
		if worst > 2 {
			t.Errorf("%T: the identity's exact mapping changes translucent colours by up to %d levels of 255", in, worst)
		}
	}
}

// abs16 returns |a - b| of two 16-bit colour values.
func abs16(a, b uint32) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestCubeDomainRoundTrip checks WriteCube's DOMAIN_MIN and DOMAIN_MAX
// lines on a domain other than the unit cube, each channel its own: red
// first, and read back the same by ReadCube. (Every LUT BuildLUT makes
// has the unit cube, on which writing the channels in any order passed
// every other test.)
func TestCubeDomainRoundTrip(t *testing.T) {
	l := funcLUT(3, smoothMap)
	l.DomainMin = [3]float64{0, -0.5, 0.25}
	l.DomainMax = [3]float64{1, 2, 3.5}
	var buf bytes.Buffer
	if err := l.WriteCube(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nDOMAIN_MIN 0 -0.5 0.25\n", "\nDOMAIN_MAX 1 2 3.5\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no line %q in\n%s", strings.TrimSpace(want), buf.String()[:min(buf.Len(), 300)])
		}
	}
	got, err := ReadCube(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.DomainMin != l.DomainMin || got.DomainMax != l.DomainMax {
		t.Errorf("domain read back [%v, %v], written [%v, %v]", got.DomainMin, got.DomainMax, l.DomainMin, l.DomainMax)
	}
}

// TestReadUnknownVersion checks that an adaptation model file of a
// version this build does not read (0, the next one, 255), its checksum
// valid, is refused from memory, a stream and a file with a *FormatError
// naming the version: a later program's file is not parsed as one of
// this build's layouts (the small model relabelled as the next version
// reads as complete otherwise).
func TestReadUnknownVersion(t *testing.T) {
	top := smallModelFile(t)
	for _, v := range []uint32{0, modelVersion + 1, 255} {
		b := append([]byte(nil), top[:len(top)-4]...)
		binary.LittleEndian.PutUint32(b[len(ModelMagic):], v)
		for w, err := range readAllWays(t, checksum.Append(b)) {
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", v)) {
				t.Errorf("version %d (read %d): %v, want a *FormatError naming the version", v, w, err)
			}
		}
	}
}
