package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/extcodec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// saveTexture writes testimages.Texture(96, 64, seed) to path.
func saveTexture(t *testing.T, path string, seed uint64) {
	t.Helper()
	if err := patches.Save(path, testimages.Texture(96, 64, seed)); err != nil {
		t.Fatal(err)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// noTempFiles fails the test if dir holds temporary files of atomic
// writes.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("%s: temporary file %s left behind", dir, e.Name())
		}
	}
}

// TestCodec trains a small codec model once and runs encode, decode and
// codec eval with it, and their failures.
func TestCodec(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train")
	if err := os.Mkdir(train, 0o755); err != nil {
		t.Fatal(err)
	}
	saveTexture(t, filepath.Join(train, "b.png"), 2)
	saveTexture(t, filepath.Join(train, "a.png"), 1)
	writeFile(t, filepath.Join(train, "notes.txt"), "not an image, and not taken from a directory\n")
	test := filepath.Join(dir, "c.png")
	saveTexture(t, test, 3)
	notImage := filepath.Join(dir, "notimg.png")
	writeFile(t, notImage, "hello\n")
	model := filepath.Join(dir, "codec.model")

	_, stderr := mustRun(t, "codec", "train", "--images", train, "--patch", "2", "--gamma", "1/3",
		"--bins", "66", "--samples", "2000", "--resolution", "4096", "--seed", "1", "--out", model)
	if !strings.Contains(stderr, "2 images") || !strings.Contains(stderr, "66 bins") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("train summary %q, want one line naming 2 images and 66 bins", stderr)
	}
	m, err := codec.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Patch != 2 || m.Gamma != 1.0/3 || m.Color || sum(m.Channels[0].Bins) != 66 {
		t.Errorf("model: patch %d, gamma %v, colour %v, bins %v", m.Patch, m.Gamma, m.Color, m.Channels[0].Bins)
	}
	m0, err := codec.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	// Another model: the same one at another resolution has another ID.
	if err := m.SetBins(40); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.model")
	if err := m.Save(other); err != nil {
		t.Fatal(err)
	}

	t.Run("Ballast", func(t *testing.T) {
		// A batch of small images keeps the heap ballast to its end:
		// dropping it starts a collection at once. A batch past
		// batchGrowth drops it before its next image.
		defer func(g uint64) { batchGrowth = g }(batchGrowth)
		inputs := []string{test, filepath.Join(train, "a.png"), filepath.Join(train, "b.png")}
		setBallast()
		mustRun(t, append([]string{"encode", "--quiet", "--model", model, "-o", filepath.Join(t.TempDir(), "o")}, inputs...)...)
		if heapBallast == nil {
			t.Error("a batch of 3 images of 96x64 dropped the heap ballast")
		}
		batchGrowth = 0
		mustRun(t, append([]string{"encode", "--quiet", "--model", model, "-o", filepath.Join(t.TempDir(), "o")}, inputs...)...)
		if heapBallast != nil {
			t.Error("a batch past batchGrowth kept the heap ballast")
		}
	})

	t.Run("Stdio", func(t *testing.T) {
		// - reads standard input and -o - writes standard output: the
		// bytes are those of the files, a pipe in both directions.
		spc, png := filepath.Join(dir, "s.spc"), filepath.Join(dir, "s.png")
		mustRun(t, "encode", "--model", model, "-o", spc, test)
		mustRun(t, "decode", "--model", model, "-o", png, spc)
		// Without --quiet too: the README promises no summary line when
		// the data go to stdout (encode printed "encode: 1 image, ... -> -").
		coded, stderr := pipeStderr(t, readBytes(t, test), "encode", "--model", model, "-o", "-", "-")
		if !bytes.Equal(coded, readBytes(t, spc)) {
			t.Fatal("encode from stdin to stdout wrote other bytes than to a file")
		}
		decoded, stderr2 := pipeStderr(t, coded, "decode", "--model", model, "-o", "-", "-")
		if !bytes.Equal(decoded, readBytes(t, png)) {
			t.Fatal("decode from stdin to stdout wrote other bytes than to a file")
		}
		if stderr != "" || stderr2 != "" {
			t.Errorf("encode and decode to stdout printed %q and %q on stderr, want nothing", stderr, stderr2)
		}
		wantError(t, []string{"decode", "--model", model, "-o", "-", spc, spc}, "standard output", "one input")
		wantError(t, []string{"encode", "--model", model, "-o", spc, "-", test}, "standard input", "only input")
	})

	t.Run("FastLoad", func(t *testing.T) {
		// codec repack writes the fast-load form and back (the original
		// bytes), codec train --fast-load the same file as repack, both
		// forms code the same bytes and decode the same pixels, and spca
		// info reports the form.
		fast, back := filepath.Join(dir, "fast.model"), filepath.Join(dir, "back.model")
		if _, stderr := mustRun(t, "codec", "repack", "--model", model, "-o", fast, "--fast-load"); !strings.Contains(stderr, "(compact form) -> "+fast+" (fast-load form, ") {
			t.Errorf("repack summary %q, want the forms named", stderr)
		}
		mustRun(t, "codec", "repack", "--quiet", "--model", fast, "-o", back)
		if !bytes.Equal(readBytes(t, back), readBytes(t, model)) {
			t.Error("repacked to the fast-load form and back: other bytes than the model's")
		}
		if len(readBytes(t, fast)) <= len(readBytes(t, model)) {
			t.Error("the fast-load form is not larger than the compact")
		}
		trained := filepath.Join(dir, "trained-fast.model")
		mustRun(t, "codec", "train", "--quiet", "--images", train, "--patch", "2", "--gamma", "1/3",
			"--bins", "66", "--samples", "2000", "--resolution", "4096", "--seed", "1", "--out", trained, "--fast-load")
		if !bytes.Equal(readBytes(t, trained), readBytes(t, fast)) {
			t.Error("codec train --fast-load wrote another file than codec repack --fast-load of the same model")
		}
		for _, f := range []struct{ path, form string }{{model, "compact"}, {fast, "fast-load"}} {
			stdout, _ := mustRun(t, "info", "--json", f.path)
			var info struct {
				Form  string  `json:"form"`
				Bytes int64   `json:"file_bytes"`
				Load  float64 `json:"load_ms"`
			}
			if err := json.Unmarshal([]byte(stdout), &info); err != nil || info.Form != f.form || info.Bytes != int64(len(readBytes(t, f.path))) || info.Load <= 0 {
				t.Errorf("info --json %s: %+v (%v), want form %q, its size and load time", f.path, info, err, f.form)
			}
			if stdout, _ := mustRun(t, "info", f.path); !regexp.MustCompile(`\nform +` + f.form + ` \(`).MatchString(stdout) {
				t.Errorf("info %s: no form row %q:\n%s", f.path, f.form, stdout)
			}
		}
		a, b := filepath.Join(dir, "compact.spc"), filepath.Join(dir, "fast.spc")
		mustRun(t, "encode", "--quiet", "--model", model, "-o", a, test)
		mustRun(t, "encode", "--quiet", "--model", fast, "-o", b, test)
		if !bytes.Equal(readBytes(t, a), readBytes(t, b)) {
			t.Error("the two forms code other bytes")
		}
		pa, pb := filepath.Join(dir, "compact.png"), filepath.Join(dir, "fast.png")
		mustRun(t, "decode", "--quiet", "--model", model, "-o", pa, a)
		mustRun(t, "decode", "--quiet", "--model", fast, "-o", pb, a)
		if !bytes.Equal(readBytes(t, pa), readBytes(t, pb)) {
			t.Error("the two forms decode other pixels")
		}
		wantError(t, []string{"codec", "repack", "--model", model}, "--out")
		wantError(t, []string{"codec", "repack", "--model", fast, "-o", fast}, "input")
	})

	t.Run("Uniform", func(t *testing.T) {
		// The entropy-constrained mode: a step for every coefficient,
		// written as a version 2 model that encodes and decodes.
		um := filepath.Join(dir, "uniform.model")
		_, stderr := mustRun(t, "codec", "train", "--images", train, "--patch", "3", "--gamma", "0", "--uniform", "--step", "9",
			"--samples", "2000", "--resolution", "4096", "--seed", "1", "--out", um)
		if !strings.Contains(stderr, "step 9 (") {
			t.Errorf("train summary %q, want the step", stderr)
		}
		m, err := codec.LoadModel(um)
		if err != nil {
			t.Fatal(err)
		}
		if m.Step != 9 || m.Patch != 3 {
			t.Errorf("model: step %v, patch %d", m.Step, m.Patch)
		}
		spc, png := filepath.Join(dir, "u.spc"), filepath.Join(dir, "u.png")
		mustRun(t, "encode", "--model", um, "-o", spc, test)
		mustRun(t, "decode", "--model", um, "-o", png, spc)
		orig, dec := loadLuma(t, test), loadLuma(t, png)
		// Steps of 9 grey levels: uniform noise of step²/12 per
		// coefficient would be an RMSE of 2.6; the dead zone and the SPCA
		// cells add a little (measured 2.59).
		e := patches.RMSE(orig, dec)
		t.Logf("step 9: RMSE %.2f", e)
		if e > 9/math.Sqrt(12)*1.3 {
			t.Errorf("RMSE %.2f at step 9", e)
		}
		// The rate knob: --bpp codes at a target rate (here 0.7 of the
		// model's own) within 5 %, and the file decodes with the model.
		own := 8 * float64(len(readBytes(t, spc))) / float64(imagePixels(t, test))
		target := 0.7 * own
		knob := filepath.Join(dir, "u-knob.spc")
		mustRun(t, "encode", "--quiet", "--exact", "--model", um, "--bpp", strconv.FormatFloat(target, 'g', -1, 64), "-o", knob, test)
		if got := 8 * float64(len(readBytes(t, knob))) / float64(imagePixels(t, test)); math.Abs(got-target) > 0.05*target {
			t.Errorf("--bpp %.3f coded at %.3f bpp", target, got)
		}
		mustRun(t, "decode", "--quiet", "--model", um, "-o", filepath.Join(dir, "u-knob.png"), knob)
		wantError(t, []string{"encode", "--model", um, "--bpp", "1", "--step", "3", "-o", knob, test}, "mutually exclusive")
		// --effort: every level writes a file the model decodes, the
		// full search (3) the default's bytes; levels outside 1..3 are
		// refused naming the flag.
		for _, e := range []string{"1", "2", "3"} {
			out := filepath.Join(dir, "u-effort"+e+".spc")
			mustRun(t, "encode", "--quiet", "--effort", e, "--model", um, "-o", out, test)
			mustRun(t, "decode", "--quiet", "--model", um, "-o", out+".png", out)
			if e == "3" && !bytes.Equal(readBytes(t, out), readBytes(t, spc)) {
				t.Error("encode --effort 3 wrote other bytes than the default")
			}
		}
		for _, e := range []string{"0", "4", "-1"} {
			wantError(t, []string{"encode", "--effort", e, "--model", um, "-o", knob, test}, "--effort "+e, "[1, 3]")
		}
		// A rate out of reach is coded at the nearest and said so; a
		// model with fixed bins is refused naming the model.
		if _, stderr := mustRun(t, "encode", "--quiet", "--model", um, "--bpp", "0.001", "-o", knob, test); !strings.HasPrefix(stderr, "encode: warning: "+test+": coded at ") ||
			!strings.HasSuffix(stderr, " bpp, the nearest rate the quantiser step reaches to --bpp 0.001\n") {
			t.Errorf("encode --bpp 0.001: stderr %q, want a warning of the rate reached", stderr)
		}
		for _, flag := range []string{"--bpp", "--step"} {
			wantError(t, []string{"encode", "--model", model, flag, "1", "-o", knob, test},
				"encode: "+flag+" needs a model in the entropy-constrained mode (spca codec train --step or --uniform); "+model+" has fixed bins per coefficient")
		}
		// codec eval --rd: the model's curve over steps, rates falling
		// as the step grows; the external codecs found beside it.
		stdout, _ := mustRun(t, "codec", "eval", "--rd", "--quiet", "--exact", "--json", "--model", um, "--images", test)
		var rd struct {
			Curves []struct {
				Codec  string `json:"codec"`
				Points []struct {
					BPP  float64 `json:"bpp"`
					Step float64 `json:"step"`
				} `json:"points"`
				VsPCA *struct {
					Ahead      int `json:"ahead_points"`
					Comparable int `json:"comparable_points"`
				} `json:"vs_pca"`
			} `json:"curves"`
		}
		if err := json.Unmarshal([]byte(stdout), &rd); err != nil || len(rd.Curves) < 2 || rd.Curves[0].Codec != "spca" || rd.Curves[1].Codec != "pca" {
			t.Fatalf("codec eval --rd --json: %v\n%s", err, stdout)
		}
		pts := rd.Curves[0].Points
		if v := rd.Curves[0].VsPCA; v == nil || v.Comparable < 1 || v.Comparable > len(pts) || v.Ahead < 0 || v.Ahead > v.Comparable {
			t.Errorf("codec eval --rd vs_pca %+v: want 0 <= ahead <= comparable <= %d points, comparable >= 1", v, len(pts))
		}
		for i := 1; i < len(pts); i++ {
			if !(pts[i].Step > pts[i-1].Step && pts[i].BPP < pts[i-1].BPP) {
				t.Errorf("rd points %+v: the rate should fall as the step grows", pts)
			}
		}
	})

	t.Run("Chroma420", func(t *testing.T) {
		// A colour model with half-resolution chroma: spca info names it,
		// and an odd-sized colour image comes back at its size.
		ctrain := filepath.Join(dir, "colour")
		if err := os.Mkdir(ctrain, 0o755); err != nil {
			t.Fatal(err)
		}
		for s := uint64(1); s <= 2; s++ {
			if err := patches.Save(filepath.Join(ctrain, fmt.Sprintf("%d.png", s)), testimages.ColorTexture(128, 128, s)); err != nil {
				t.Fatal(err)
			}
		}
		cm := filepath.Join(dir, "colour.model")
		_, stderr := mustRun(t, "codec", "train", "--images", ctrain, "--color", "--chroma", "420", "--patch", "3", "--gamma", "0",
			"--step", "9", "--samples", "1000", "--resolution", "4096", "--seed", "1", "--out", cm)
		if !strings.Contains(stderr, "3×3 colour 4:2:0 patches") {
			t.Errorf("codec train printed %q, want the chroma named", stderr)
		}
		if out, _ := mustRun(t, "info", cm); !strings.Contains(out, "Y, Cb, Cr (chroma 4:2:0)") {
			t.Errorf("info:\n%s\nwant the chroma named", out)
		}
		if out, _ := mustRun(t, "info", "--json", cm); !strings.Contains(out, `"chroma": "4:2:0"`) {
			t.Errorf("info --json:\n%s\nwant the chroma", out)
		}
		img := filepath.Join(dir, "colour.png")
		if err := patches.Save(img, testimages.ColorTexture(45, 31, 7)); err != nil {
			t.Fatal(err)
		}
		spc, png := filepath.Join(dir, "colour.spc"), filepath.Join(dir, "colour-decoded.png")
		if _, stderr := mustRun(t, "encode", "--model", cm, "-o", spc, img); strings.Contains(stderr, "grey") {
			t.Errorf("encode summary of a colour image with a colour model: %q", stderr)
		}
		// info shows the luma loop filter of a version-10 file, the
		// header's taps, in both forms (an image large enough for the
		// encoder to find the filter gains).
		lf, lfSpc := filepath.Join(dir, "loop.png"), filepath.Join(dir, "loop.spc")
		if err := patches.Save(lf, testimages.ColorTexture(192, 128, 3)); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "encode", "--quiet", "--model", cm, "-o", lfSpc, lf)
		f, err := os.Open(lfSpc)
		if err != nil {
			t.Fatal(err)
		}
		h, err := codec.DecodeHeader(f)
		f.Close()
		if err != nil || h.LoopFilter == nil {
			t.Fatalf("colour .spc header: %v, loop filter %v: the check below needs a file with one", err, h)
		}
		var li struct {
			LoopFilter []int `json:"loop_filter"`
		}
		if out, _ := mustRun(t, "info", "--json", lfSpc); json.Unmarshal([]byte(out), &li) != nil || !slices.Equal(li.LoopFilter, h.LoopFilter) {
			t.Errorf("info --json of %s: loop_filter %v, the header's %v\n%s", lfSpc, li.LoopFilter, h.LoopFilter, out)
		}
		taps := fmt.Sprint(h.LoopFilter)
		if out, _ := mustRun(t, "info", lfSpc); !strings.Contains(out, "12 taps in 1/128: "+taps[1:len(taps)-1]+"\n") {
			t.Errorf("info of %s:\n%s\nwant the loop filter's taps %s", lfSpc, out, taps)
		}
		// A grey image through the colour model: the summary says so, as
		// it does for a colour image through a grey model.
		grey := filepath.Join(dir, "grey-for-colour.png")
		saveTexture(t, grey, 4)
		if _, stderr := mustRun(t, "encode", "--model", cm, "-o", filepath.Join(dir, "grey-for-colour.spc"), grey); !strings.Contains(stderr, "1 image in grey coded as colour") {
			t.Errorf("encode summary of a grey image with a colour model: %q", stderr)
		}
		mustRun(t, "decode", "--model", cm, "-o", png, spc)
		orig, dec := loadLuma(t, img), loadLuma(t, png)
		if dec.W != 45 || dec.H != 31 {
			t.Fatalf("decoded %d×%d, want 45×31", dec.W, dec.H)
		}
		// Luma is coded at full resolution with steps of 9 (see Uniform).
		if e := patches.RMSE(orig, dec); e > 9/math.Sqrt(12)*1.5 {
			t.Errorf("luma RMSE %.2f at step 9 with 4:2:0 chroma", e)
		}
		// codec eval --rd of a colour model: cjpeg's curve is the image
		// coded in colour and measured as the model's files (it was the
		// luminance's, which paid for no chroma and was measured on
		// the luma).
		have, _ := extcodec.Available(extcodec.All[:1])
		if len(have) == 0 {
			t.Log("cjpeg not installed: codec eval --rd's colour reference not checked")
			return
		}
		stdout, _ := mustRun(t, "codec", "eval", "--rd", "--quiet", "--json", "--model", cm, "--images", img)
		var rd struct {
			Curves []struct {
				Codec  string `json:"codec"`
				Points []struct {
					Method string  `json:"method"`
					BPP    float64 `json:"bpp"`
					PSNR   float64 `json:"psnr_db"`
					SSIM   float64 `json:"ssim"`
				} `json:"points"`
			} `json:"curves"`
		}
		if err := json.Unmarshal([]byte(stdout), &rd); err != nil {
			t.Fatalf("codec eval --rd --json: %v\n%s", err, stdout)
		}
		want, err := have[0].Sweep([]image.Image{testimages.ColorTexture(45, 31, 7)}, have[0].Qualities, true)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, cv := range rd.Curves {
			if cv.Codec != have[0].Name {
				continue
			}
			found = true
			// A run of the sweep's points (those around the model's).
			start := slices.IndexFunc(want, func(r codec.Result) bool { return len(cv.Points) > 0 && r.Method == cv.Points[0].Method })
			if len(cv.Points) < 4 || start < 0 || start+len(cv.Points) > len(want) {
				t.Fatalf("codec eval --rd: %s points %+v, want at least 4 of the sweep's %+v", cv.Codec, cv.Points, want)
			}
			for i, p := range cv.Points {
				if w := want[start+i]; p.Method != w.Method || p.BPP != w.BPP || p.PSNR != w.PSNR || p.SSIM != w.SSIM {
					t.Errorf("codec eval --rd, %s point %d: %+v; want the colour sweep's %+v", cv.Codec, i, p, w)
				}
			}
		}
		if !found {
			t.Errorf("codec eval --rd: no %s curve in\n%s", have[0].Name, stdout)
		}
	})

	t.Run("RoundTrip", func(t *testing.T) {
		spc := filepath.Join(dir, "c.spc")
		if _, stderr := mustRun(t, "encode", "--model", model, "-o", spc, test); !strings.Contains(stderr, "1 image,") || strings.Contains(stderr, "grey") {
			t.Errorf("encode summary %q", stderr)
		}
		// A colour image through the grey model: the summary says so.
		colour := filepath.Join(dir, "rgb.png")
		if err := patches.Save(colour, testimages.ColorTexture(40, 30, 5)); err != nil {
			t.Fatal(err)
		}
		if _, stderr := mustRun(t, "encode", "--model", model, "-o", filepath.Join(dir, "rgb.spc"), colour); !strings.Contains(stderr, "1 image in colour coded as grey") || strings.Contains(stderr, "transparen") {
			t.Errorf("encode summary of a colour image with a grey model: %q", stderr)
		}
		// An image with transparency: the codec codes no alpha, and the
		// summary says so (it was silent: the hidden colours of fully
		// transparent pixels came out opaque).
		see := image.NewNRGBA(image.Rect(0, 0, 40, 30))
		draw.Draw(see, see.Rect, testimages.ColorTexture(40, 30, 5), image.Point{}, draw.Src)
		for i := 3; i < len(see.Pix); i += 4 * 7 {
			see.Pix[i] = 0
		}
		alpha := filepath.Join(dir, "alpha.png")
		if err := patches.Save(alpha, see); err != nil {
			t.Fatal(err)
		}
		if _, stderr := mustRun(t, "encode", "--model", model, "-o", filepath.Join(dir, "alpha"), alpha, colour); !strings.Contains(stderr, "1 image with transparency coded opaque") {
			t.Errorf("encode summary of an image with transparency: %q", stderr)
		}
		// Flags may follow the inputs; --quiet prints nothing.
		again := filepath.Join(dir, "again.spc")
		if _, stderr := mustRun(t, "encode", test, "--model", model, "--out", again, "--quiet"); stderr != "" {
			t.Errorf("encode --quiet printed %q", stderr)
		}
		if !bytes.Equal(readBytes(t, spc), readBytes(t, again)) {
			t.Error("two encodings of the same image differ")
		}
		bpp := 8 * float64(len(readBytes(t, spc))) / (96 * 64)
		if bpp <= 0 || bpp > 8 {
			t.Errorf("%.3f bits per pixel", bpp)
		}

		for _, name := range []string{"c.dec.png", "c.dec.tif"} {
			out := filepath.Join(dir, name)
			mustRun(t, "decode", "--model", model, "-o", out, spc)
			dec, err := patches.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if dec.Bounds().Dx() != 96 || dec.Bounds().Dy() != 64 {
				t.Fatalf("%s: decoded %v, want 96×64", name, dec.Bounds())
			}
			orig := testimages.Texture(96, 64, 3)
			psnr := patches.PSNR(patches.Luminance(orig), patches.Luminance(dec))
			t.Logf("%s: %.3f bpp, PSNR %.2f dB", name, bpp, psnr)
			if psnr < 25 {
				t.Errorf("%s: PSNR %.2f dB < 25", name, psnr)
			}
		}
		if !bytes.HasPrefix(readBytes(t, filepath.Join(dir, "c.dec.tif")), []byte("II")) &&
			!bytes.HasPrefix(readBytes(t, filepath.Join(dir, "c.dec.tif")), []byte("MM")) {
			t.Error("decode -o c.dec.tif did not write a TIFF file")
		}
		wantError(t, []string{"decode", "--model", model, "-o", filepath.Join(dir, "c.jpg"), spc}, "unsupported extension", ".jpg")
	})

	t.Run("Info", func(t *testing.T) {
		// A codec model: its id, patches and bins.
		checkInfoHeader(t, model, kindCodec)
		stdout, _ := mustRun(t, "info", model)
		for _, w := range []string{"codec model", m0.ID().String(), "2×2", "luma", "bins " + binsText(m0.Channels[0].Bins), "2000 training patches"} {
			if !strings.Contains(stdout, w) {
				t.Errorf("info %s lacks %q:\n%s", model, w, stdout)
			}
		}
		stdout, _ = mustRun(t, "info", model, "--json")
		var ci struct {
			Kind      string  `json:"kind"`
			ID        string  `json:"id"`
			FileBytes int64   `json:"file_bytes"`
			LoadMS    float64 `json:"load_ms"`
			Patch     int     `json:"patch"`
			Mode      string  `json:"mode"`
			Channels  []struct {
				Bins      []int `json:"bins"`
				TotalBins int   `json:"total_bins"`
				SPCA      struct {
					Dimension int `json:"dimension"`
				} `json:"spca"`
			} `json:"channels"`
		}
		if err := json.Unmarshal([]byte(stdout), &ci); err != nil {
			t.Fatalf("info --json: %v\n%s", err, stdout)
		}
		if ci.Kind != "codec model" || ci.ID != m0.ID().String() || ci.Patch != 2 || ci.Mode != "fixed-resolution" || len(ci.Channels) != 1 ||
			ci.Channels[0].TotalBins != 66 || !slices.Equal(ci.Channels[0].Bins, m0.Channels[0].Bins) || ci.Channels[0].SPCA.Dimension != 4 {
			t.Errorf("info --json of a codec model: %+v", ci)
		}
		if ci.FileBytes != int64(len(readBytes(t, model))) || !(ci.LoadMS > 0) {
			t.Errorf("info --json: file_bytes %d (the file has %d), load_ms %v", ci.FileBytes, len(readBytes(t, model)), ci.LoadMS)
		}
		// A coded image: its header names the model that decodes it.
		spc := filepath.Join(dir, "info.spc")
		mustRun(t, "encode", "--quiet", "--model", model, "-o", spc, test)
		stdout, _ = mustRun(t, "info", spc, "--json")
		var hi struct {
			Kind   string  `json:"kind"`
			Model  string  `json:"model_id"`
			Width  int     `json:"width"`
			Height int     `json:"height"`
			Bins   [][]int `json:"bins"`
			Bytes  int64   `json:"bytes"`
			BPP    float64 `json:"bpp"`
		}
		if err := json.Unmarshal([]byte(stdout), &hi); err != nil {
			t.Fatalf("info --json: %v\n%s", err, stdout)
		}
		size := int64(len(readBytes(t, spc)))
		if hi.Kind != "coded image" || hi.Model != ci.ID || hi.Width != 96 || hi.Height != 64 || len(hi.Bins) != 1 ||
			!slices.Equal(hi.Bins[0], m0.Channels[0].Bins) || hi.Bytes != size || hi.BPP != 8*float64(size)/(96*64) {
			t.Errorf("info --json of a coded image: %+v (file %d bytes)", hi, size)
		}
		stdout, _ = mustRun(t, "info", spc)
		for _, w := range []string{"coded image", "model id", ci.ID, "96×64", "bits per pixel"} {
			if !strings.Contains(stdout, w) {
				t.Errorf("info %s lacks %q:\n%s", spc, w, stdout)
			}
		}
		// A truncated header is an error naming the file.
		cut := filepath.Join(dir, "header-cut.spc")
		if err := os.WriteFile(cut, readBytes(t, spc)[:30], 0o644); err != nil {
			t.Fatal(err)
		}
		wantError(t, []string{"info", cut}, cut, "truncated header")
	})

	t.Run("Eval", func(t *testing.T) {
		stdout, stderr := mustRun(t, "codec", "eval", "--model", model, "--images", test, "--json")
		var out struct {
			Model         string   `json:"model"`
			Images        int      `json:"images"`
			JPEGHeaderBPP float64  `json:"jpeg_header_bpp"`
			Warnings      []string `json:"warnings"`
			Results       []struct {
				Method string    `json:"method"`
				RMSE   float64   `json:"rmse"`
				PSNR   float64   `json:"psnr_db"`
				SSIM   float64   `json:"ssim"`
				BPP    float64   `json:"bpp"`
				Fixed  float64   `json:"fixed_length_bpp"`
				Bins   []float64 `json:"bins"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("codec eval --json: %v\n%s", err, stdout)
		}
		if out.Model != model || out.Images != 1 {
			t.Errorf("model %q, %d images", out.Model, out.Images)
		}
		want := []string{"spca gamma 0", "spca gamma 1/3 (model)", "spca gamma 1", "pca + lloyd-max", "pca + lloyd-max (matched bpp)", "jpeg (matched bpp)"}
		if len(out.Results) != len(want) {
			t.Fatalf("%d results, want %d:\n%s", len(out.Results), len(want), stdout)
		}
		for i, r := range out.Results {
			if r.Method != want[i] {
				t.Errorf("result %d is %q, want %q", i, r.Method, want[i])
			}
			for _, v := range []float64{r.RMSE, r.PSNR, r.SSIM, r.BPP} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: non-finite value in %+v", r.Method, r)
				}
			}
			if !(r.RMSE > 0) || !(r.BPP > 0) || !(r.SSIM > 0 && r.SSIM <= 1) {
				t.Errorf("%s: implausible %+v", r.Method, r)
			}
			if strings.HasPrefix(r.Method, "jpeg") != (len(r.Bins) == 0) {
				t.Errorf("%s: bins %v", r.Method, r.Bins)
			}
			// Entropy coding beats fixed-length indices; JPEG has none.
			if jpeg := strings.HasPrefix(r.Method, "jpeg"); jpeg != (r.Fixed == 0) || !jpeg && !(r.BPP < r.Fixed) {
				t.Errorf("%s: %.3f bpp, %.3f at fixed length", r.Method, r.BPP, r.Fixed)
			}
		}
		// image/jpeg's headers on this 96×64 image: a warning, and their
		// rate in the JSON.
		if hb := float64(jpegHeaderBits(false)) / (96 * 64); out.JPEGHeaderBPP != hb || hb < 0.3 {
			t.Errorf("jpeg_header_bpp %v, want %v", out.JPEGHeaderBPP, hb)
		}
		if !strings.Contains(stderr, "codec eval: warning: image/jpeg's headers (") || strings.Count(stderr, "warning") != 1 ||
			len(out.Warnings) != 1 || !strings.Contains(stderr, out.Warnings[0]) {
			t.Errorf("codec eval on a 96×64 image: stderr %q, want a warning on the JPEG headers' share", stderr)
		}
		// The matched PCA baseline codes at no more bits than the model,
		// and not far fewer (its resolution is the largest that fits).
		if model, pca := out.Results[1].BPP, out.Results[4].BPP; pca > model || pca < 0.85*model {
			t.Errorf("matched PCA baseline at %.3f bpp, the model at %.3f", pca, model)
		}
		t.Logf("codec eval --json:\n%s", stdout)
	})

	t.Run("Assign", func(t *testing.T) {
		// The seed's assignment writes another file that decodes with the
		// same model; the default one decodes closer to the original.
		near, cells := filepath.Join(dir, "near.spc"), filepath.Join(dir, "cells.spc")
		mustRun(t, "encode", "--quiet", "--model", model, "-o", near, test)
		mustRun(t, "encode", "--quiet", "--model", model, "-o", cells, test, "--assign", "responses")
		if bytes.Equal(readBytes(t, near), readBytes(t, cells)) {
			t.Fatal("--assign responses wrote the same file as the default")
		}
		orig, err := patches.Load(test)
		if err != nil {
			t.Fatal(err)
		}
		var rmse [2]float64
		for i, f := range []string{near, cells} {
			png := f + ".png"
			mustRun(t, "decode", "--quiet", "--model", model, "-o", png, f)
			dec, err := patches.Load(png)
			if err != nil {
				t.Fatal(err)
			}
			rmse[i] = patches.RMSE(patches.Luminance(orig), patches.Luminance(dec))
		}
		t.Logf("RMSE nearest %.3f, response cells %.3f", rmse[0], rmse[1])
		if !(rmse[0] < rmse[1]) {
			t.Errorf("nearest assignment RMSE %.3f not below the response cells' %.3f", rmse[0], rmse[1])
		}
		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "x.spc"), test, "--assign", "voronoi"}, "--assign must be nearest or responses", "voronoi")
		wantError(t, []string{"codec", "eval", "--model", model, "--images", test, "--assign", "cells"}, "--assign must be nearest or responses")
	})

	t.Run("Errors", func(t *testing.T) {
		spc := filepath.Join(dir, "c.spc")
		if !exists(spc) {
			mustRun(t, "encode", "--model", model, "-o", spc, test, "--exact")
		}
		out := filepath.Join(dir, "err.png")
		mo, err := codec.LoadModel(other)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, []string{"decode", "--model", other, "-o", out, spc}, spc, "another model", other,
			"needs model "+m0.ID().Short(), "this model is "+mo.ID().Short())
		// From standard input too (it said only which model it was given).
		app := newApp()
		var discard bytes.Buffer
		app.Reader, app.Writer, app.ErrWriter = bytes.NewReader(readBytes(t, spc)), &discard, &discard
		err = app.Run([]string{"spca", "decode", "--model", other, "-o", "-", "-"})
		if line := errorLine(err); err == nil || !strings.Contains(line, "stdin: encoded with another model") ||
			!strings.Contains(line, "needs model "+m0.ID().Short()) || !strings.Contains(line, "this model is "+mo.ID().Short()) {
			t.Errorf("decode of stdin with another model: %v", err)
		}

		whole := readBytes(t, spc)
		flipped := append([]byte(nil), whole...)
		flipped[len(flipped)/2] ^= 0x10
		bad := filepath.Join(dir, "flipped.spc")
		if err := os.WriteFile(bad, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
		wantError(t, []string{"decode", "--model", model, "-o", out, bad}, bad, "corrupt")
		cut := filepath.Join(dir, "cut.spc")
		if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		wantError(t, []string{"decode", "--model", model, "-o", out, cut}, cut, "truncated")
		wantError(t, []string{"decode", "--model", model, "-o", out, notImage}, notImage, "not an SPCA-coded image")
		if exists(out) {
			t.Error("failed decodes wrote an output")
		}

		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "x.spc"), notImage}, notImage, "not an image")
		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "x.spc"), spc}, spc, "SPCA-coded")
		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "x.spc"), filepath.Join(dir, "missing.png")}, "missing.png")
		wantError(t, []string{"encode", "--model", test, "-o", filepath.Join(dir, "x.spc"), test}, test, "invalid model file")
		wantError(t, []string{"encode", "--model", model, "-o", test, test}, "overwrite the input")
		if exists(filepath.Join(dir, "x.spc")) {
			t.Error("failed encodes wrote an output")
		}

		// A failed encode or decode leaves an existing output as it was.
		precious := filepath.Join(dir, "precious.spc")
		writeFile(t, precious, "keep me\n")
		wantError(t, []string{"encode", "--model", model, "-o", precious, notImage}, notImage)
		preciousPNG := filepath.Join(dir, "precious.png")
		writeFile(t, preciousPNG, "keep me too\n")
		wantError(t, []string{"decode", "--model", model, "-o", preciousPNG, bad}, bad)
		if got := string(readBytes(t, precious)); got != "keep me\n" {
			t.Errorf("failed encode changed the existing output to %q", got)
		}
		if got := string(readBytes(t, preciousPNG)); got != "keep me too\n" {
			t.Errorf("failed decode changed the existing output to %q", got)
		}
		noTempFiles(t, dir)

		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--bins", "40", "--bpp", "2"}, "mutually exclusive")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--step", "8", "--bins", "40"}, "mutually exclusive")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--step", "0"}, "--step 0 is out of its range")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--uniform"}, "--uniform needs --bpp")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--chroma", "420"}, "--chroma 420 needs --color")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--color", "--chroma", "422"}, "--chroma", "422", "want 444 or 420")
		wantError(t, []string{"codec", "train", "--images", train, "--out", model, "--gamma", "-1"}, "--gamma")
		wantError(t, []string{"codec", "train", "--images", test, notImage, "--out", filepath.Join(dir, "n.model")}, notImage, "not an image")
		wantError(t, []string{"codec", "train", "--images", dir + "/none", "--out", filepath.Join(dir, "n.model")}, "none")
		wantError(t, []string{"codec", "train", "--out", model}, "codec train: missing --images (see spca codec train --help)")
		wantError(t, []string{"codec", "train", "--images", train}, "codec train: missing --out")
		wantError(t, []string{"codec", "train", "--bogus"}, "codec train: flag provided but not defined: --bogus (see spca codec train --help)")
		wantError(t, []string{"codec", "eval", "--images", test}, "codec eval: missing --model")
		wantError(t, []string{"codec", "eval", "--model", spc, "--images", test}, spc, "invalid model file")
		wantError(t, []string{"codec", "bogus"}, `codec: unknown command "bogus"`)
		wantError(t, []string{"encode", "--model", model, test}, "encode: missing --out")
		wantError(t, []string{"decode", "--model", model, "-o", out}, "decode: no input files")
		if exists(filepath.Join(dir, "n.model")) {
			t.Error("failed trainings wrote a model")
		}
	})

	t.Run("Batch", func(t *testing.T) {
		a, b := filepath.Join(train, "a.png"), filepath.Join(train, "b.png")
		spcDir := filepath.Join(dir, "coded", "sub") // created with its parent
		mustRun(t, "encode", "--model", model, "--exact", "-o", spcDir, a, b)
		for _, name := range []string{"a.spc", "b.spc"} {
			if !exists(filepath.Join(spcDir, name)) {
				t.Errorf("batch encode did not write %s", name)
			}
		}
		pngDir := filepath.Join(dir, "decoded")
		_, stderr := mustRun(t, "decode", "--model", model, "-o", pngDir, filepath.Join(spcDir, "a.spc"), filepath.Join(spcDir, "b.spc"))
		if !strings.Contains(stderr, "2 images -> "+pngDir) {
			t.Errorf("decode summary %q", stderr)
		}
		for _, name := range []string{"a.png", "b.png"} {
			img, err := patches.Load(filepath.Join(pngDir, name))
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, 96, 64) {
				t.Errorf("%s: %v", name, img.Bounds())
			}
		}
		// --format pgm: the same pixels as PGM files, as djpeg writes, into a
		// directory and to standard output; a named file keeps its extension's.
		pgmDir := filepath.Join(dir, "pgm")
		mustRun(t, "decode", "--quiet", "--model", model, "--format", "pgm", "-o", pgmDir, filepath.Join(spcDir, "a.spc"), filepath.Join(spcDir, "b.spc"))
		for _, name := range []string{"a", "b"} {
			pgm := readBytes(t, filepath.Join(pgmDir, name+".pgm"))
			if !bytes.HasPrefix(pgm, []byte("P5\n96 64\n255\n")) {
				t.Fatalf("%s.pgm starts %q", name, pgm[:min(len(pgm), 16)])
			}
			img, err := patches.Load(filepath.Join(pngDir, name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := img.(*image.Gray); !ok || !bytes.Equal(g.Pix, pgm[len(pgm)-96*64:]) {
				t.Errorf("%s: the PGM's pixels differ from the PNG's", name)
			}
			if name == "a" {
				out := pipe(t, readBytes(t, filepath.Join(spcDir, "a.spc")), "decode", "--quiet", "--model", model, "--format", "pgm", "-o", "-", "-")
				if !bytes.Equal(out, pgm) {
					t.Error("decode --format pgm -o - wrote other bytes than into a directory")
				}
			}
		}
		mustRun(t, "decode", "--quiet", "--model", model, "--format", "ppm", "-o", pgmDir, filepath.Join(spcDir, "a.spc"))
		if !bytes.Equal(readBytes(t, filepath.Join(pgmDir, "a.ppm")), readBytes(t, filepath.Join(pgmDir, "a.pgm"))) {
			t.Error("decode --format ppm of a grey image did not write a.ppm, the same PGM as --format pgm")
		}
		wantError(t, []string{"decode", "--model", model, "--format", "jpeg", "-o", pgmDir, filepath.Join(spcDir, "a.spc")}, "--format", "unknown format")
		wantError(t, []string{"decode", "--model", model, "--format", "pgm", "-o", filepath.Join(dir, "x.png"), filepath.Join(spcDir, "a.spc")}, "--format pgm", "x.png is a png file")

		// One input and an existing directory: the output goes in it.
		mustRun(t, "encode", "--model", model, "--exact", "-o", pngDir, test)
		if !exists(filepath.Join(pngDir, "c.spc")) {
			t.Error("encode -o DIR with one input did not write DIR/c.spc")
		}

		// The batch stops at the first failure and keeps what it wrote.
		stopDir := filepath.Join(dir, "stop")
		wantError(t, []string{"encode", "--model", model, "--exact", "-o", stopDir, a, notImage, b},
			notImage, "not an image", "stopped, 1 of 3 files written")
		if !exists(filepath.Join(stopDir, "a.spc")) || exists(filepath.Join(stopDir, "notimg.spc")) || exists(filepath.Join(stopDir, "b.spc")) {
			t.Error("batch encode did not stop at the failure")
		}
		noTempFiles(t, stopDir)

		// -o must be a directory, and outputs must not collide.
		wantError(t, []string{"encode", "--model", model, "-o", test, a, b}, "must be a directory")
		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "clash"), a, filepath.Join(pngDir, "a.png")}, "would both be written to")
		wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, "x"), train}, "is a directory; list the files to encode ("+filepath.Join(train, "*")+")")
		if exists(filepath.Join(dir, "clash")) {
			t.Error("a refused batch created its output directory")
		}
		// A missing -o named like a file is not made a directory for
		// several inputs (decode -o out.png a.spc b.spc made a directory
		// out.png); an existing directory of that name is written into.
		for _, out := range []string{"many.spc", "many.png", "many.PGM"} {
			wantError(t, []string{"encode", "--model", model, "-o", filepath.Join(dir, out), a, b}, out+" is named like a file", "with 2 inputs")
			if exists(filepath.Join(dir, out)) {
				t.Errorf("encode -o %s of two inputs made it", out)
			}
		}
		named := filepath.Join(dir, "dir.png")
		if err := os.Mkdir(named, 0o755); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "encode", "--quiet", "--model", model, "-o", named, a, b)
		if !exists(filepath.Join(named, "b.spc")) {
			t.Error("encode -o EXISTING_DIR.png of two inputs did not write into it")
		}
	})
}

// pipe runs spca with args, in on its standard input, and returns its
// standard output.
func pipe(t *testing.T, in []byte, args ...string) []byte {
	t.Helper()
	out, _ := pipeStderr(t, in, args...)
	return out
}

// pipeStderr is pipe, also returning what the command wrote on stderr.
func pipeStderr(t *testing.T, in []byte, args ...string) (stdout []byte, stderr string) {
	t.Helper()
	app := newApp()
	var out, errOut bytes.Buffer
	app.Reader, app.Writer, app.ErrWriter = bytes.NewReader(in), &out, &errOut
	if err := app.Run(append([]string{"spca"}, args...)); err != nil {
		t.Fatalf("spca %s: %v", strings.Join(args, " "), err)
	}
	return out.Bytes(), errOut.String()
}

func TestEvalTable(t *testing.T) {
	var b bytes.Buffer
	err := writeEvalTable(&b, []codec.Result{
		{Method: "spca gamma 1/3 (model)", RMSE: 3.5, PSNR: 37.2, SSIM: 0.96, BPP: 2.5, FixedBPP: 3.25, Bins: []int{52, 6, 5, 3}},
		{Method: "jpeg (matched bpp)", RMSE: 2.3, PSNR: 40.9, SSIM: 0.97, BPP: 2.51},
		{Method: "spca gamma 0 (model)", RMSE: 3, PSNR: 38, SSIM: 0.97, BPP: 1, FixedBPP: 3, Bins: make([]int, 64), Step: 30},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"method", "RMSE", "PSNR dB", "SSIM", "bpp", "fixed-length bpp", "bins"},
		{"spca gamma 1/3 (model)", "3.500", "37.20", "0.9600", "2.500", "3.250", "66 = 52+6+5+3"},
		{"jpeg (matched bpp)", "2.300", "40.90", "0.9700", "2.510", "-"},
		{"spca gamma 0 (model)", "step 30: 0 over 64 coefficients (--json lists them)"}, // 300-character lines before
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}

// loadLuma reads an image file's luminance.
func loadLuma(t *testing.T, path string) patches.Plane {
	t.Helper()
	img, err := patches.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return patches.Luminance(img)
}

// imagePixels returns the number of pixels of the image file at path.
func imagePixels(t *testing.T, path string) int {
	t.Helper()
	img, err := patches.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return img.Bounds().Dx() * img.Bounds().Dy()
}

// TestCodecTrainDefault checks that codec train without a configuration
// flag trains codec.PhotoTrainOptions (8×8 patches, gamma 0, step 30),
// and that --bins alone still selects the fixed-resolution mode.
func TestCodecTrainDefault(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.png")
	saveTexture(t, img, 1)
	model := filepath.Join(dir, "d.model")
	_, stderr := mustRun(t, "codec", "train", "--images", img, "--samples", "500", "--resolution", "4096", "--out", model)
	if !strings.Contains(stderr, "8×8 grey patches, gamma 0, step 30 (") {
		t.Errorf("train summary %q, want 8×8 patches, gamma 0, step 30", stderr)
	}
	// One 96×64 image holds 96 non-overlapping 8×8 patches, fewer than 10
	// per coefficient (640): a one-line warning before the summary.
	if !strings.HasPrefix(stderr, "codec train: warning: the training images hold 96 non-overlapping 8×8 patches of luma, fewer than the ") ||
		strings.Count(stderr, "\n") != 2 {
		t.Errorf("train on one 96×64 image: stderr %q, want a one-line warning of too few patches, then the summary", stderr)
	}
	m, err := codec.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if want := codec.PhotoTrainOptions(); m.Patch != want.Patch || m.Gamma != want.Gamma || m.Step != want.Step {
		t.Errorf("default model: patch %d, gamma %v, step %v; want %d, %v, %v", m.Patch, m.Gamma, m.Step, want.Patch, want.Gamma, want.Step)
	}
	if m.Channels[0].Leading() != 4 {
		t.Errorf("default model: %d leading coefficients, want 4", m.Channels[0].Leading())
	}
	// --leading chooses how many coefficients SPCA codes, within range.
	// 200 samples: 5-D SPCA on 500 took 8.8 s of CPU, on 200 3.3 s.
	mustRun(t, "codec", "train", "--images", img, "--samples", "200", "--resolution", "4096", "--leading", "5", "--out", model)
	if m, err := codec.LoadModel(model); err != nil || m.Channels[0].Leading() != 5 {
		t.Errorf("--leading 5: %v", err)
	} else {
		m.Close()
	}
	for _, bad := range []string{"-1", "0", "9"} {
		wantError(t, []string{"codec", "train", "--images", img, "--leading", bad, "--out", model}, "--leading "+bad+" is out of its range")
	}
	_, stderr = mustRun(t, "codec", "train", "--images", img, "--samples", "500", "--resolution", "4096", "--patch", "2", "--bins", "20", "--out", model)
	if !strings.Contains(stderr, "2×2 grey patches, gamma 0, 20 bins") || strings.Contains(stderr, "warning") {
		t.Errorf("train summary %q, want the fixed-resolution mode", stderr)
	}
}
