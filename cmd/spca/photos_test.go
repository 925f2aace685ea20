package main

import (
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/patches"
)

// TestSynthPhotos: synth photos writes the A, B and truth directories that
// adapt train and eval read, and synth scenes --truth adds the truth.
func TestSynthPhotos(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "photos")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 12, 8))
	for i := range img.Pix {
		img.Pix[i] = uint8(37 * i)
	}
	for y := range 8 {
		for x := range 12 {
			img.Pix[img.PixOffset(x, y)+3] = 255
		}
	}
	img.Set(0, 0, color.RGBA{255, 255, 255, 255})
	if err := patches.Save(filepath.Join(src, "p1.png"), img); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pairs")
	_, stderr := mustRun(t, "synth", "photos", "--images", src, "--exposure", "0.5", "--out", out)
	if !strings.Contains(stderr, "exposure 0.5") || !strings.Contains(stderr, "whites") {
		t.Errorf("stderr: %s", stderr)
	}
	for _, sub := range []string{"a", "b", truthDir} {
		got, err := patches.Load(filepath.Join(out, sub, "p1.png"))
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != img.Bounds() {
			t.Errorf("%s: %v", sub, got.Bounds())
		}
		r, g, b, _ := got.At(0, 0).RGBA()
		switch sub {
		case "a":
			if r != 0xffff || g != 0xffff || b != 0xffff {
				t.Errorf("A white is %d %d %d", r, g, b)
			}
		case "b": // orange, red at exposure 0.5 (sRGB 0.735)
			if !(r > g && g > b) || r < 0xbb00 || r > 0xbd00 {
				t.Errorf("B white is %d %d %d", r, g, b)
			}
		default: // neutral, 0.5 in linear light
			if r < 0xbb00 || r > 0xbd00 || g < 0xbb00 || g > 0xbd00 || b < 0xbb00 || b > 0xbd00 {
				t.Errorf("truth white is %d %d %d", r, g, b)
			}
		}
	}
	// The pairs feed adapt eval, which scores against the truth too and
	// gives the corresponding-colours table.
	// A small coarse model (as the adaptation tests'): the output's
	// shape is checked, not its numbers.
	small := []string{"--samples", "3000", "--resolution", "4096"}
	stdout, _ := mustRun(t, append([]string{"adapt", "eval", "--pairs", out, "--quiet", "--json"}, small...)...)
	var ev evalJSON
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if ev.Truth != filepath.Join(out, truthDir) || len(ev.Methods) == 0 || ev.Methods[0].Truth == nil {
		t.Errorf("no truth scores: %s", stdout)
	}
	if len(ev.Corresponding) != 2 || ev.Corresponding[0].N != 24 || ev.Corresponding[0].Result(adapt.Uncorrected) == nil {
		t.Errorf("corresponding colours: %+v", ev.Corresponding)
	}
	stdout, _ = mustRun(t, append([]string{"adapt", "eval", "--pairs", out, "--quiet"}, small...)...)
	for _, want := range []string{"truth mean", "corresponding colours", "ColorChecker (Ohta 1997), 24 surfaces", "cat16"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("adapt eval output lacks %q:\n%s", want, stdout)
		}
	}
	// Smits's upsampling: A is the spectra under D65 (white stays white).
	// So is Jakob-Hanika's.
	for _, up := range []struct{ flag, name string }{{"smits1999", "Smits 1999"}, {"jakob2019", "Jakob-Hanika 2019"}} {
		spectral := filepath.Join(dir, up.flag)
		_, stderr = mustRun(t, "synth", "photos", "--images", src, "--upsampling", up.flag, "--out", spectral)
		if !strings.Contains(stderr, up.name) {
			t.Errorf("stderr: %s", stderr)
		}
		for _, sub := range []string{"a", "b", truthDir} {
			got, err := patches.Load(filepath.Join(spectral, sub, "p1.png"))
			if err != nil {
				t.Fatal(err)
			}
			if r, g, b, _ := got.At(0, 0).RGBA(); sub != "b" && (r < 0xff00 || g < 0xff00 || b < 0xff00) {
				t.Errorf("%s %s: white is %d %d %d", up.flag, sub, r, g, b)
			}
		}
	}
	wantError(t, []string{"synth", "photos", "--images", src, "--upsampling", "jakob2020", "--out", out}, "unknown spectral upsampling")
	wantError(t, []string{"synth", "scenes", "--upsampling", "smits1999", "--out", out}, "applies to synth photos only")
	wantError(t, []string{"synth", "photos", "--out", out}, "--images is required")
	wantError(t, []string{"synth", "photos", "--images", src, "--exposure", "0", "--out", out}, "--exposure 0")
	wantError(t, []string{"synth", "photos", "--images", src, "--size", "3x3", "--out", out}, "does not apply")
	wantError(t, []string{"synth", "photos", "--images", src}, "must name a directory")
	wantError(t, []string{"synth", "scenes", "--exposure", "2", "--out", out}, "applies to synth photos only")

	scenes := filepath.Join(dir, "scenes")
	mustRun(t, "synth", "scenes", "--n", "2", "--size", "16x12", "--truth", "--out", scenes)
	for _, sub := range []string{"a", "b", truthDir} {
		if _, err := os.Stat(filepath.Join(scenes, sub, "scene-1.png")); err != nil {
			t.Error(err)
		}
	}
}
