package main

import (
	"encoding/binary"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/testimages"
)

// corruptSection writes a copy of the sectioned codec model at path with
// one byte changed in the middle of section i, and returns its path.
func corruptSection(t *testing.T, path string, i int) string {
	t.Helper()
	b := readBytes(t, path)
	at := len(codec.ModelMagic) + 4
	if binary.LittleEndian.Uint32(b[len(codec.ModelMagic):]) != 17 || i >= int(b[at]) {
		t.Fatalf("%s: not a sectioned model with a section %d", path, i)
	}
	n := int(b[at])
	off := at + 1 + 4*n
	for j := range i {
		off += int(binary.LittleEndian.Uint32(b[at+1+4*j:]))
	}
	l := int(binary.LittleEndian.Uint32(b[at+1+4*i:]))
	b = slices.Clone(b)
	b[off+l/2] ^= 0x55
	bad := strings.TrimSuffix(path, ".model") + "-sec" + string(rune('0'+i)) + ".model"
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

// tinyStepModel is tinyCodecModel in the entropy-constrained mode (step
// 20), whose encoder and decoder at another step read the training sample.
func tinyStepModel(t *testing.T, dir string) string {
	t.Helper()
	o := codec.DefaultTrainOptions()
	o.Samples, o.SPCA.Resolution, o.Step = 300, 1024, 20
	m, err := codec.Train([]image.Image{testimages.Texture(64, 64, 5)}, &o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "step.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// notInError runs the app like wantError and also checks that the error
// line contains none of nots.
func notInError(t *testing.T, args []string, nots []string, wants ...string) {
	t.Helper()
	wantError(t, args, wants...)
	_, _, err := run(t, args...)
	line := errorLine(err)
	for _, n := range nots {
		if strings.Contains(line, n) {
			t.Errorf("spca %s: error %q contains %q", strings.Join(args, " "), line, n)
		}
	}
}

// A corrupt section of a model read on first use (training sample, fast
// path) is the model's fault: encode and decode name the model file, not
// the output ("write OUT.spc: invalid model file", atomicfile wrapping
// the producer's error) nor the coded file (decode's FormatError), and
// leave no output.
func TestCorruptModelSectionNamed(t *testing.T) {
	dir := t.TempDir()
	model := tinyStepModel(t, dir)
	img := filepath.Join(dir, "c.png")
	saveTexture(t, img, 3)
	img2 := filepath.Join(dir, "d.png")
	saveTexture(t, img2, 4)
	spc := filepath.Join(dir, "c.spc")
	mustRun(t, "encode", "--model", model, "--step", "40", "-o", spc, img)
	sample, fast := corruptSection(t, model, 1), corruptSection(t, model, 2)
	out := filepath.Join(dir, "out.spc")
	for _, args := range [][]string{
		{"encode", "--model", sample, "--step", "40", "-o", out, img},
		{"encode", "--model", sample, "--bpp", "1", "-o", out, img},
		{"encode", "--model", fast, "-o", out, img},
		{"encode", "--model", fast, "-o", filepath.Join(dir, "outd"), img, img2},
	} {
		notInError(t, args, []string{"write", "codec:"}, args[2]+": invalid model file: section", "(read for "+img+")")
	}
	notInError(t, []string{"decode", "--model", sample, "-o", filepath.Join(dir, "dec.png"), spc}, []string{"write", "codec:", spc + ": "},
		sample+": invalid model file: section 1 (training sample)", "(read for "+spc+")")
	if exists(out) || exists(filepath.Join(dir, "dec.png")) || exists(filepath.Join(dir, "outd", "c.spc")) {
		t.Error("an output was written")
	}
	noTempFiles(t, dir)
}
