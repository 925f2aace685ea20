package adapt

import (
	"encoding/binary"
	"errors"
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
