package adapt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spcalab/spca/colorspace"
)

func TestModelRoundTrip(t *testing.T) {
	m := testModel(t)
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	got.WriteTo(&again)
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("read and written again, the model differs")
	}
	if got.WhiteA != m.WhiteA || got.StatsB != m.StatsB || got.SamplesA != m.SamplesA {
		t.Error("fields differ after the round trip")
	}
	src := []colorspace.LMS{{0.2, 0.15, 0.05}, {0.5, 0.4, 0.1}}
	for _, method := range Methods() {
		want := make([]colorspace.LMS, 2)
		have := make([]colorspace.LMS, 2)
		mp, _ := m.Mapper(method)
		mp.MapLMS(want, src)
		mp, _ = got.Mapper(method)
		mp.MapLMS(have, src)
		if want[0] != have[0] || want[1] != have[1] {
			t.Errorf("%v maps differently after the round trip", method)
		}
	}
	// Files.
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
}

func TestReadErrors(t *testing.T) {
	m := testModel(t)
	var buf bytes.Buffer
	m.WriteTo(&buf)
	good := buf.Bytes()
	var spcaFile bytes.Buffer
	m.A.WriteTo(&spcaFile)
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)/2] ^= 0x40
	version := append([]byte(nil), good...)
	version[8] = 9
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"spca model", spcaFile.Bytes(), "an SPCA model (spca fit), not an adaptation model"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), `not an adaptation model (file starts with ".PNG....", want "SPCAadpt")`},
		{"codec", []byte("SPCAcdec\x01\x00\x00\x00rest"), "a codec model (spca codec train), not an adaptation model"},
		{"coded image", []byte("SPCI\x01rest of it"), "an SPCA-coded image (spca encode)"},
		{"text", []byte("hello, world\n"), `file starts with "hello, w"`},
		{"empty", nil, "empty file"},
		{"short", []byte("abc"), "too short"},
		{"truncated header", good[:10], "truncated"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"short tail", good[:len(good)-1], "corrupt"},
		{"corrupt", corrupt, "checksum mismatch"},
		{"version", version, "version 9"},
	} {
		_, err := Read(bytes.NewReader(tc.data))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a FormatError containing %q", tc.name, err, tc.want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.spca")
	os.WriteFile(path, spcaFile.Bytes(), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "SPCA model") {
		t.Errorf("Load of an SPCA model: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file loaded")
	}
}
