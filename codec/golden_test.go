package codec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spcalab/spca/testimages"
)

// TestGolden pins the bytes of small models trained in code (fixed seeds),
// of the .spc files they write and of the pixels decoded from them to
// SHA-256 prefixes recorded on amd64. It fails when training, encoding or
// decoding drifts: a regression, or an architecture where the compiler
// fuses a multiply-add that amd64 rounds twice (arm64, ppc64le, s390x,
// riscv64, amd64 with GOAMD64=v3). A deliberate format change updates the
// model or .spc sums (the test logs the new ones); the pixel sums change
// only with the encoder's decisions. Where the compiler fuses, training
// differs (inside gonum too), so the test skips there; TestGoldenQEMU
// (SPCA_QEMU=1) checks that arm64 decodes amd64's files to the same pixels.
func TestGolden(t *testing.T) {
	if !goldenReference {
		t.Skipf("%s: training fuses multiply-adds here, so the models differ from amd64's; "+
			"decoding amd64's files is checked by SPCA_QEMU=1 go test -run TestGoldenQEMU", runtime.GOARCH)
	}
	for _, c := range goldenCases() {
		m := c.model(t)
		var mb, sb bytes.Buffer
		if err := m.write(&mb, false); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&sb, c.img, m, nil); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(sb.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		modelSum, spcSum, pixSum := sum8(mb.Bytes()), sum8(sb.Bytes()), sum8(pixelBytes(t, got))
		if modelSum != c.modelSum || spcSum != c.spcSum || pixSum != c.pixSum {
			t.Errorf("%s: model %s spc %s pixels %s, want %s %s %s",
				c.name, modelSum, spcSum, pixSum, c.modelSum, c.spcSum, c.pixSum)
		}
	}
}

func gamma0GoldenModel(t testing.TB) *Model {
	return smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 3, 12, 0 })
}

// TestGoldenV8 pins the version-8 file of TestGolden's gamma-0 case and
// its pixels to the sums they had before version 9: old files still
// decode bit for bit.
func TestGoldenV8(t *testing.T) {
	if !goldenReference {
		t.Skipf("%s: training fuses multiply-adds here (see TestGolden)", runtime.GOARCH)
	}
	grey := testimages.Texture(61, 45, 21)
	m := gamma0GoldenModel(t)
	var b bytes.Buffer
	if err := encodeVersion(&b, grey, m, nil, formatVersionShifts); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(b.Bytes()), m)
	if err != nil {
		t.Fatal(err)
	}
	if spc, pix := sum8(b.Bytes()), sum8(pixelBytes(t, got)); spc != "8a761ae453828980" || pix != "371d0df848c86e66" {
		t.Errorf("version 8: spc %s pixels %s, want 8a761ae453828980 371d0df848c86e66", spc, pix)
	}
}

// goldenCase is a model trained in code, the image it codes and the sums
// of TestGolden.
type goldenCase struct {
	name                     string
	model                    func(testing.TB) *Model
	img                      image.Image
	modelSum, spcSum, pixSum string
}

func goldenCases() []goldenCase {
	grey, colour := testimages.Texture(61, 45, 21), testimages.ColorTexture(61, 45, 21)
	return []goldenCase{
		{"fixed", func(t testing.TB) *Model { return smallModel(t) }, grey,
			"b6bf300eb6b31a93", "c142e2f8cdbf3cb6", "4f43452805f82095"},
		{"step", smallStepModel, grey,
			"8b7a4ca246bb0d1c", "9a5b3f4e294c36ad", "b339d75a19c6bc1c"},
		// .spc v7 (cb9d0a5) changed this file, not its pixels; v8 (end-cell
		// shifts) both, and v9 (loop filter) both again (TestGoldenV8 keeps
		// v8's sums).
		{"gamma0", gamma0GoldenModel, grey, "e02677bbcc6a2fc7", "ec1ad7a63af0e624", "df6a1021199a44d9"},
		{"colour", func(t testing.TB) *Model { return smallColorModel(t, true) }, colour,
			"aea36ba0b02f7e46", "5fa1f38c2e81b58e", "c85069e821d1d6c8"},
		// Version 10 (the luma's loop filter; TestGoldenColourV8 keeps
		// the version-8 sums of before).
		{"colour0", gamma0ColourModel, colour, "ea93142f968598c7", "bbd7e7bb87c86bb5", "105cab5c2d9cebd7"},
	}
}

// goldenImages are the images TestGoldenQEMU codes with case c's model:
// larger than TestGolden's, and in 16 bits for the grey models.
func goldenImages(c goldenCase) []image.Image {
	if _, ok := c.img.(*image.Gray); !ok {
		return []image.Image{testimages.ColorTexture(160, 112, 22)}
	}
	g := testimages.Texture(160, 112, 22)
	deep := image.NewGray16(g.Bounds())
	for i, v := range g.Pix {
		// 16 bits with low bits of their own, for Quantize16.
		u := uint16(v)*257 + uint16(i*7919%257)
		deep.Pix[2*i], deep.Pix[2*i+1] = byte(u>>8), byte(u)
	}
	return []image.Image{g, deep}
}

// TestGoldenFiles decodes the models and .spc files of goldenCases that
// another build wrote into $SPCA_GOLDEN_FILES (TestGoldenQEMU does, on
// amd64, for an arm64 build): the pixels must hash to the sums that build
// wrote beside them, and coding the image again with the loaded model
// must give the same file.
func TestGoldenFiles(t *testing.T) {
	dir := os.Getenv("SPCA_GOLDEN_FILES")
	if dir == "" {
		t.Skip("SPCA_GOLDEN_FILES not set (TestGoldenQEMU sets it)")
	}
	for _, c := range goldenCases() {
		m, err := LoadModel(filepath.Join(dir, c.name+".model"))
		if err != nil {
			t.Fatal(err)
		}
		for k, img := range goldenImages(c) {
			base := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, k))
			spc, err := os.ReadFile(base + ".spc")
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(base + ".sum")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(bytes.NewReader(spc), m)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sum8(pixelBytes(t, got)); sum != string(want) {
				t.Errorf("%s-%d (%s): decoded pixels %s, want %s", c.name, k, runtime.GOARCH, sum, want)
			}
			var again bytes.Buffer
			if err := Encode(&again, img, m, nil); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), spc) {
				t.Errorf("%s-%d (%s): the image coded again with the same model gives another file", c.name, k, runtime.GOARCH)
			}
			if m.Step > 0 {
				want, err := os.ReadFile(base + ".rate.spc")
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if _, _, err := EncodeAtRate(&got, img, m, goldenRate(len(spc), img), nil); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s-%d (%s): EncodeAtRate gives another file than on amd64", c.name, k, runtime.GOARCH)
				}
			}
		}
	}
}

// TestGoldenQEMU (SPCA_QEMU=1, needs qemu-aarch64 or qemu-aarch64-static)
// writes goldenCases' models, files and decoded pixel sums, builds this
// package's tests for arm64 and runs TestGoldenFiles under QEMU: arm64
// fuses multiply-adds that amd64 rounds twice, so this checks that the
// decoder and encoder round them explicitly; then the same for s390x
// (big-endian, fusing too) where qemu-s390x is installed, and natively
// with GOAMD64=v3, which fuses too. About 40 s, and 30 s more with s390x. Training is NOT
// the same on arm64 (nor under GOAMD64=v3): gonum's pure-Go LAPACK fuses
// too, so the model bytes differ there and TestGolden fails.
func TestGoldenQEMU(t *testing.T) {
	if os.Getenv("SPCA_QEMU") == "" {
		t.Skip("SPCA_QEMU not set")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("writes the reference files on amd64")
	}
	qemu := qemuFor("aarch64")
	if qemu == "" {
		t.Skip("qemu-aarch64 not installed (apt-get install qemu-user-static)")
	}
	dir := t.TempDir()
	for _, c := range goldenCases() {
		m := c.model(t)
		if err := m.Save(filepath.Join(dir, c.name+".model")); err != nil {
			t.Fatal(err)
		}
		for k, img := range goldenImages(c) {
			var sb bytes.Buffer
			if err := Encode(&sb, img, m, nil); err != nil {
				t.Fatal(err)
			}
			got, err := Decode(bytes.NewReader(sb.Bytes()), m)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, k))
			if err := os.WriteFile(base+".spc", sb.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(base+".sum", []byte(sum8(pixelBytes(t, got))), 0o644); err != nil {
				t.Fatal(err)
			}
			if m.Step > 0 {
				// The rate search too (its estimate, logarithms
				// and secants): the same step, so the same file.
				var rb bytes.Buffer
				if _, _, err := EncodeAtRate(&rb, img, m, goldenRate(sb.Len(), img), nil); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(base+".rate.spc", rb.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// amd64 built with GOAMD64=v3 fuses too and runs natively where the
	// CPU has FMA (a v3 binary says so and stops where it has not).
	// s390x is big-endian and fuses as well: every file and model is read
	// there byte by byte in little-endian order, by the pure-Go kernels.
	builds := []struct{ env, name, runner string }{
		{"GOARCH=arm64", "arm64", qemu},
		{"GOARCH=s390x", "s390x", qemuFor("s390x")},
		{"GOAMD64=v3", "amd64-v3", ""},
	}
	for _, b := range builds {
		if b.runner == "" && b.name == "s390x" {
			t.Logf("s390x: qemu-s390x not installed, not checked")
			continue
		}
		bin := filepath.Join(dir, "codec."+b.name+".test")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "test", "-c", "-o", bin, ".")
		build.Env = append(os.Environ(), b.env)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building for %s: %v\n%s", b.name, err, out)
		}
		args := []string{bin, "-test.run", "^TestGoldenFiles$", "-test.v"}
		if b.runner != "" {
			args = append([]string{b.runner}, args...)
		}
		run := exec.Command(args[0], args[1:]...)
		run.Env = append(os.Environ(), "SPCA_GOLDEN_FILES="+dir)
		start := time.Now()
		out, err := run.CombinedOutput()
		if b.runner == "" && bytes.Contains(out, []byte("microarchitecture support")) {
			t.Logf("%s: this CPU cannot run it: %s", b.name, bytes.TrimSpace(out))
			continue
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestGoldenFiles")) {
			t.Fatalf("%s %s: %v\n%s", b.name, b.runner, err, out)
		}
		t.Logf("%s: TestGoldenFiles passed in %.0f s", b.name, time.Since(start).Seconds())
	}
}

// qemuFor is the path of QEMU's user-mode emulator of arch
// (qemu-ARCH-static or qemu-ARCH), or "" if neither is installed.
func qemuFor(arch string) string {
	for _, name := range []string{"qemu-" + arch + "-static", "qemu-" + arch} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// goldenRate is the target of the golden files' rate searches: 0.7 of
// the rate of the file of n bytes coding img at the model's step.
func goldenRate(n int, img image.Image) float64 {
	b := img.Bounds()
	return 0.7 * 8 * float64(n) / float64(b.Dx()*b.Dy())
}

// sum8 is the first 8 bytes of b's SHA-256, in hex.
func sum8(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// pixelBytes is the pixel buffer of a decoded image.
func pixelBytes(t *testing.T, img image.Image) []byte {
	switch p := img.(type) {
	case *image.Gray:
		return p.Pix
	case *image.Gray16:
		return p.Pix
	case *image.RGBA:
		return p.Pix
	case *image.NRGBA:
		return p.Pix
	case *image.RGBA64:
		return p.Pix
	case *image.NRGBA64:
		return p.Pix
	}
	t.Fatalf("decoded image of type %T", img)
	return nil
}

// TestDecodeNoFMA (SPCA_QEMU=1) compiles codec, spca and patches for
// arm64 and s390x and fails if a function of the decode path (with the
// derivation of the quantisers of a file's step) holds a fused
// multiply-add, of float64 or float32 values: the Go spec lets the
// compiler fuse x*y+z unless the product is rounded explicitly
// (float64(x*y)), and amd64, where the sums of TestGolden were made,
// never fuses by default. Functions whose products are by powers of two
// (exact, so fusing changes nothing) are not listed: the deblocking
// filter.
func TestDecodeNoFMA(t *testing.T) {
	if os.Getenv("SPCA_QEMU") == "" {
		t.Skip("SPCA_QEMU not set")
	}
	decode := regexp.MustCompile(`^github\.com/spcalab/spca/(` +
		`codec\.\(\*Channel\)\.(pixel|pixelBook|pixelsFrom|reconstruct[A-Za-z]*)|codec\.pixelsFromGo|codec\.\(\*edgePredictor\)\.|` +
		`codec\.(loopFilterLuma|moveByChange|roundRow|lumaTarget)|` +
		// A file's step other than the model's: the decoder derives that
		// step's quantisers (Model.Stepped), and their levels are the
		// reconstruction's.
		`codec\.(\(\*Channel\)\.setStep|\(\*Model\)\.(derive|SetStep|Stepped)|medianScaled|newDeadZoneGrid|\(\*deadZoneGrid\)\.quantizer|deadZoneCell|centredDeadZone[A-Za-z]*|\(\*sortedColumn\)\.(deadZone|centre)|withZeroLevel|quantileSorted|` +
		// and its cell centres (the prediction's base, dcpred).
		`\(\*Channel\)\.centreFromBasis|modeCell|\(\*cellFinder\)\.)|` +
		// The encoder's decisions, which TestGoldenFiles pins on arm64 too
		// (the same file): the rate-distortion costs of the cell search,
		// the loop filter's gain, the rate search's finest step.
		`codec\.(\(\*refiner\)\.|search4Go|loopFilterGain|\(\*Model\)\.(finestStep|rateEstimate)|rateEstimate)|` +
		`spca\.\(\*LevelInverse\)\.|spca\.\(\*Model\)\.(LevelInverse|inverse|axisInverse|denorm)|spca\.\(\*lattice\)\.(eval|clamp|axisCoords|width)|spca\.cellValue8|spca\.\(\*decoder\)\.floatPlane|` +
		`patches\.(toRGB|fromYCbCr|FromYCbCr|FromPlane|Quantize8|Quantize16|roundPositive|doubledRow|Double))`)
	// The fused instructions in each architecture's Go assembly: arm64
	// FMADDD and FMADDS (float32), s390x FMADD and FMADDS, and their
	// subtracting and negated forms.
	for arch, fused := range map[string]*regexp.Regexp{
		"arm64": regexp.MustCompile(`\bFN?M(ADD|SUB)[DS]\b`),
		"s390x": regexp.MustCompile(`\bFN?M(ADD|SUB)S?\b`),
	} {
		for _, pkg := range []string{".", "../spca", "../patches"} {
			cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-gcflags=-S", "-o", os.DevNull, pkg)
			cmd.Env = append(os.Environ(), "GOARCH="+arch)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go build -gcflags=-S %s for %s: %v\n%s", pkg, arch, err, out)
			}
			fn := ""
			for _, line := range strings.Split(string(out), "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[1] == "STEXT" {
					fn = f[0]
				} else if decode.MatchString(fn) && fused.MatchString(line) {
					t.Errorf("%s fuses a multiply-add on %s: %s", fn, arch, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestGoldenStepBasis pins the step-basis sections (container 18) of the
// golden cases' entropy-constrained models, uncompressed: TestGolden's
// model sums leave them out (write without the bases), and TestStepBasisFile
// compares a stored basis with the computed one through this build's
// writer and reader, so a change of the section's layout made in both
// (a run's delta without its -1, planes in another order) passed every
// test while files already written, version 18, would be misread.
func TestGoldenStepBasis(t *testing.T) {
	if !goldenReference {
		t.Skipf("%s: training fuses multiply-adds here (see TestGolden)", runtime.GOARCH)
	}
	want := map[string]string{"step": "47624f902c36ccbe", "gamma0": "7db36c7d02bb8336", "colour": "a8adb1d2c0e3159f"}
	for _, c := range goldenCases() {
		w, ok := want[c.name]
		if !ok {
			continue
		}
		var b bytes.Buffer
		if _, err := c.model(t).WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		_, frames := sectionFrames(t, b.Bytes())
		channels := (len(frames) - 1) / 3
		if len(frames) != 1+3*channels || channels < 1 {
			t.Fatalf("%s: %d sections, want 1 + 3 per channel", c.name, len(frames))
		}
		var plain []byte
		for _, f := range frames[1+2*channels:] {
			size, err := declaredSize(f, len(f))
			if err != nil {
				t.Fatal(err)
			}
			p, err := modelDecoder().DecodeAll(f, make([]byte, 0, size))
			if err != nil {
				t.Fatal(err)
			}
			plain = append(plain, p...)
		}
		if got := sum8(plain); got != w {
			t.Errorf("%s: step bases (%d bytes) %s, want %s", c.name, len(plain), got, w)
		}
	}
}
