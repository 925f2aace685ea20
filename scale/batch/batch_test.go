package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

// fixture is the data shared by the tests: generated images (grey and
// colour, some in a subdirectory), one corrupt image, the two models
// and the spca command built from the main module.
type fixture struct {
	dir        string
	images     string // directory of the inputs
	good       []string
	bad        string
	codecModel string
	adaptModel string
	spca       string // the spca binary, "" if it could not be built
	spcaErr    error
}

var (
	fixOnce sync.Once
	fix     fixture
	fixErr  error
)

func setup(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() { fixErr = makeFixture() })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return &fix
}

func makeFixture() error {
	dir, err := os.MkdirTemp("", "spca-batch-test-")
	if err != nil {
		return err
	}
	fix.dir = dir
	fix.images = filepath.Join(dir, "in")
	var train []image.Image
	for i := range 6 {
		var img image.Image = testimages.ColorTexture(48+8*i, 40, uint64(i+1))
		if i%2 == 1 {
			img = testimages.Texture(40, 48+8*i, uint64(i+1))
		}
		p := filepath.Join(fix.images, fmt.Sprintf("img%d.png", i))
		if i >= 4 {
			p = filepath.Join(fix.images, "sub", fmt.Sprintf("img%d.png", i))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := patches.Save(p, img); err != nil {
			return err
		}
		fix.good = append(fix.good, p)
		train = append(train, img)
	}
	// A PNG signature followed by garbage.
	fix.bad = filepath.Join(fix.images, "broken.png")
	if err := os.WriteFile(fix.bad, append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...), 0o644); err != nil {
		return err
	}

	o := codec.DefaultTrainOptions()
	o.Samples, o.Patch, o.Gamma, o.Step = 3000, 2, 0, 6
	cm, err := codec.Train(train, &o)
	if err != nil {
		return err
	}
	fix.codecModel = filepath.Join(dir, "codec.model")
	if err := cm.Save(fix.codecModel); err != nil {
		return err
	}
	ao := adapt.DefaultOptions()
	ao.WhiteA, ao.WhiteB = testimages.SceneWhites()
	ao.Samples = 3000
	a, b := testimages.SceneSet(20, 24, 16, 1)
	am, err := adapt.Train(a, b, &ao)
	if err != nil {
		return err
	}
	fix.adaptModel = filepath.Join(dir, "adapt.model")
	if err := am.Save(fix.adaptModel); err != nil {
		return err
	}

	// The reference is the spca command itself, built from the main
	// module (two directories up).
	fix.spca = filepath.Join(dir, "spca")
	cmd := exec.Command("go", "build", "-o", fix.spca, "./cmd/spca")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		fix.spca, fix.spcaErr = "", fmt.Errorf("go build ./cmd/spca: %v\n%s", err, out)
	}
	return nil
}

// runCLI runs the spca command.
func (f *fixture) runCLI(t *testing.T, args ...string) {
	t.Helper()
	if f.spca == "" {
		t.Skipf("no spca command to compare with: %v", f.spcaErr)
	}
	if out, err := exec.Command(f.spca, args...).CombinedOutput(); err != nil {
		t.Fatalf("spca %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runPipeline runs the pipeline of c on prism and returns its manifest
// by input.
func runPipeline(t *testing.T, c Config) map[string]Record {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, c); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), "prism", p); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	data, err := os.ReadFile(c.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	byInput := map[string]Record{}
	for _, r := range recs {
		if _, dup := byInput[r.Input]; dup {
			t.Errorf("manifest: %s twice", r.Input)
		}
		byInput[r.Input] = r
	}
	return byInput
}

// sameFiles fails unless the files are byte-identical.
func sameFiles(t *testing.T, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Errorf("%s (%d bytes) differs from the spca command's %s (%d bytes)", got, len(g), want, len(w))
	}
}

// outputOf is where the pipeline writes the output of an input found
// under the fixture's input directory.
func (f *fixture) outputOf(out, in, ext string) string {
	rel, _ := filepath.Rel(f.images, in)
	return filepath.Join(out, withExt(filepath.ToSlash(rel), ext))
}

func TestEncodeDecodeMatchCLI(t *testing.T) {
	f := setup(t)
	out := filepath.Join(t.TempDir(), "coded")
	c := Config{Op: Encode, Model: f.codecModel, Inputs: []string{f.images}, Out: out}
	recs := runPipeline(t, c)
	if len(recs) != len(f.good)+1 {
		t.Fatalf("manifest has %d records, want %d", len(recs), len(f.good)+1)
	}
	if r := recs[f.bad]; r.Error == "" || !strings.Contains(r.Error, f.bad) || r.Output != "" {
		t.Errorf("corrupt input: record %+v, want its error naming it", r)
	}
	if _, err := os.Stat(filepath.Join(out, "broken.spc")); err == nil {
		t.Errorf("an output was written for the corrupt input")
	}
	cm, err := codec.LoadModel(f.codecModel)
	if err != nil {
		t.Fatal(err)
	}
	cli := t.TempDir()
	for _, in := range f.good {
		r := recs[in]
		want := f.outputOf(out, in, ".spc")
		if r.Error != "" || r.Output != want || r.Bytes <= 0 || r.Skipped || r.Model != cm.ID().String() {
			t.Errorf("%s: record %+v, want written to %s with model %s", in, r, want, cm.ID().Short())
			continue
		}
		if fi, err := os.Stat(want); err != nil || fi.Size() != r.Bytes {
			t.Errorf("%s: manifest says %d bytes, file: %v %v", want, r.Bytes, fi, err)
		}
		// One process per file, as the plain CLI loop does.
		ref := filepath.Join(cli, filepath.Base(want))
		f.runCLI(t, "encode", "--quiet", "--model", f.codecModel, "-o", ref, in)
		sameFiles(t, want, ref)
	}

	// Decode what was encoded, from a glob; the outputs against one
	// spca decode call for all files.
	decoded := filepath.Join(t.TempDir(), "decoded")
	dc := Config{Op: Decode, Model: f.codecModel, Inputs: []string{filepath.Join(out, "*.spc"), filepath.Join(out, "sub", "*.spc")}, Out: decoded}
	drecs := runPipeline(t, dc)
	if len(drecs) != len(f.good) {
		t.Fatalf("decode manifest has %d records, want %d", len(drecs), len(f.good))
	}
	var coded []string
	for in, r := range drecs {
		if r.Error != "" || r.Bytes <= 0 {
			t.Errorf("decode %s: %+v", in, r)
		}
		coded = append(coded, in)
	}
	slices.Sort(coded)
	cliDec := t.TempDir()
	f.runCLI(t, append([]string{"decode", "--quiet", "--model", f.codecModel, "-o", cliDec}, coded...)...)
	for _, in := range coded {
		name := withExt(filepath.Base(in), ".png")
		sameFiles(t, filepath.Join(decoded, name), filepath.Join(cliDec, name))
	}
}

func TestRerunWritesNothing(t *testing.T) {
	f := setup(t)
	out := filepath.Join(t.TempDir(), "coded")
	c := Config{Op: Encode, Model: f.codecModel, Inputs: []string{f.images}, Out: out}
	first := runPipeline(t, c)
	times := map[string]time.Time{}
	for _, r := range first {
		if r.Error == "" {
			fi, err := os.Stat(r.Output)
			if err != nil {
				t.Fatal(err)
			}
			times[r.Output] = fi.ModTime()
		}
	}
	if len(times) != len(f.good) {
		t.Fatalf("first run wrote %d outputs, want %d", len(times), len(f.good))
	}
	// Make a rewrite visible in the modification times.
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for p := range times {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	second := runPipeline(t, c)
	for in, r := range second {
		if in == f.bad {
			if r.Error == "" {
				t.Errorf("corrupt input: no error on the second run")
			}
			continue
		}
		if !r.Skipped || r.Bytes != first[in].Bytes {
			t.Errorf("second run: %s not skipped: %+v", in, r)
		}
		if fi, err := os.Stat(r.Output); err != nil || !fi.ModTime().Equal(past) {
			t.Errorf("second run rewrote %s", r.Output)
		}
	}
	// Another job key (here --assign) must not skip.
	c.Assign = codec.AssignResponses.String()
	third := runPipeline(t, c)
	for in, r := range third {
		if in != f.bad && r.Skipped {
			t.Errorf("run with another --assign skipped %s", in)
		}
	}
}

func TestAdaptMatchesCLI(t *testing.T) {
	f := setup(t)
	// The inputs through a list file, with a comment and a missing file.
	list := filepath.Join(t.TempDir(), "inputs.txt")
	missing := filepath.Join(f.images, "missing.png")
	text := "# inputs\n" + strings.Join(f.good[:3], "\n") + "\n\n" + missing + "\n"
	if err := os.WriteFile(list, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "adapted")
	// A small LUT: building the default 65³ one through SPCA costs seconds.
	recs := runPipeline(t, Config{Op: Adapt, Model: f.adaptModel, Lists: []string{list}, Out: out, LUTSize: 17})
	if len(recs) != 4 {
		t.Fatalf("manifest has %d records, want 4", len(recs))
	}
	if r := recs[missing]; !strings.Contains(r.Error, "no such file") {
		t.Errorf("missing input: %+v", r)
	}
	cli := t.TempDir()
	f.runCLI(t, append([]string{"adapt", "apply", "--quiet", "--lut-size", "17", "--model", f.adaptModel, "-o", cli}, f.good[:3]...)...)
	for _, in := range f.good[:3] {
		r := recs[in]
		if r.Error != "" || !(r.DE > 0) || math.IsInf(r.DE, 0) {
			t.Errorf("%s: %+v", in, r)
		}
		name := withExt(filepath.Base(in), ".png")
		sameFiles(t, filepath.Join(out, name), filepath.Join(cli, name))
	}
}

func TestEvalAndConflicts(t *testing.T) {
	f := setup(t)
	// img0.png twice (directly and by the glob) is one input; a copy of
	// img1.png under another directory collides with it.
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.good[1])
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(other, "img1.png")
	if err := os.WriteFile(twin, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	recs := runPipeline(t, Config{Op: Encode, Model: f.codecModel, Inputs: []string{filepath.Join(f.images, "img*.png"), f.good[0], twin}, Out: out})
	if len(recs) != 5 { // img0..3 and the twin
		t.Errorf("manifest has %d records, want 5: %v", len(recs), recs)
	}
	first, second := f.good[1], twin
	if second < first {
		first, second = second, first
	}
	if r := recs[first]; r.Error != "" {
		t.Errorf("%s: %+v", first, r)
	}
	if r := recs[second]; !strings.Contains(r.Error, "also that of") {
		t.Errorf("colliding input %s: %+v, want a conflict", second, r)
	}

	eout := filepath.Join(t.TempDir(), "eval")
	erecs := runPipeline(t, Config{Op: Eval, Model: f.codecModel, Inputs: []string{f.images}, Out: eout})
	cm, err := codec.LoadModel(f.codecModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range f.good {
		r := erecs[in]
		img, err := patches.Load(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := codec.Evaluate(cm, []image.Image{img}, &codec.EvalOptions{Gammas: []float64{cm.Gamma}, NoPCA: true, NoJPEG: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Error != "" || r.BPP != want[0].BPP || r.PSNR != want[0].PSNR || r.SSIM != want[0].SSIM {
			t.Errorf("eval %s: %+v, want %+v", in, r, want[0])
		}
	}
	if r := erecs[f.bad]; r.Error == "" {
		t.Errorf("eval of the corrupt input: %+v", r)
	}
}

// TestJobServerLoopback runs the pipeline the portable way: submitted
// over gRPC to a prism job server (as to a Flink or Spark job server),
// the images processed by a loopback worker of this process.
func TestJobServerLoopback(t *testing.T) {
	f := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prism.CreateJobServer(ctx, prism.Options{Port: port}); err != nil {
		t.Fatal(err)
	}
	endpoint, env := *jobopts.Endpoint, *jobopts.EnvironmentType
	*jobopts.Endpoint, *jobopts.EnvironmentType = fmt.Sprintf("localhost:%d", port), "LOOPBACK"
	defer func() { *jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, env }()

	out := filepath.Join(t.TempDir(), "coded")
	c := Config{Op: Encode, Model: f.codecModel, Inputs: []string{f.images}, Out: out}
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, c); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, "universal", p)
	if err != nil {
		t.Fatalf("pipeline on the job server: %v", err)
	}
	written := int64(0)
	for _, cr := range res.Metrics().AllMetrics().Counters() {
		if cr.Key.Namespace == MetricsNamespace && cr.Key.Name == CounterWritten {
			written += cr.Result()
		}
	}
	if written != int64(len(f.good)) {
		t.Errorf("counter %s = %d, want %d", CounterWritten, written, len(f.good))
	}
	for _, in := range f.good {
		if _, err := os.Stat(f.outputOf(out, in, ".spc")); err != nil {
			t.Error(err)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// An out-of-range --lut-size is refused before the pipeline is built: the
// job used to run and fail every input with "LUT size 1 not in [2, 256]".
func TestCheckLUTSize(t *testing.T) {
	for _, n := range []int{-1, 1, 257} {
		cfg := Config{Op: Adapt, Model: "a.model", Inputs: []string{"in"}, Out: "out", LUTSize: n}
		if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "--lut-size") {
			t.Errorf("--lut-size %d: got %v, want an error naming --lut-size", n, err)
		}
	}
	for _, n := range []int{0, 2, 256} {
		cfg := Config{Op: Adapt, Model: "a.model", Inputs: []string{"in"}, Out: "out", LUTSize: n}
		if err := cfg.Check(); err != nil {
			t.Errorf("--lut-size %d: %v", n, err)
		}
	}
}

// A model of the wrong kind ran the job and failed every input with the
// same message; CheckModel reports it for the launcher to refuse first.
func TestCheckModel(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	for _, tc := range []struct {
		op    Op
		model string
		want  string
	}{
		{Encode, f.codecModel, ""},
		{Adapt, f.adaptModel, ""},
		{Encode, f.adaptModel, "model " + f.adaptModel},
		{Decode, f.adaptModel, "model " + f.adaptModel},
		{Adapt, f.codecModel, "model " + f.codecModel},
		{Encode, filepath.Join(f.dir, "nope.model"), "nope.model"},
	} {
		err := CheckModel(ctx, &Config{Op: tc.op, Model: tc.model})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s --model %s: got %v, want %q", tc.op, tc.model, err, tc.want)
		}
	}
}

// A directory of PGM photos gave spca-batch encode "0 inputs", exit 0:
// the walk took only the extensions of its own list, which lacked the
// netpbm ones spca reads. A directory without inputs is now an error for
// that directory, in the manifest.
func TestExpandDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.pgm", "b.PPM", "c.pnm", "d.png", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := expand(context.Background(), dir, Encode, filepath.Join(dir, "out"))
	if err != nil || len(ms) != 4 {
		t.Errorf("expand of a directory with a.pgm, b.PPM, c.pnm, d.png: %v (%v), want those 4", ms, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if ms, err := expand(context.Background(), empty, Encode, filepath.Join(dir, "out")); err == nil || !strings.HasPrefix(err.Error(), "no input files (.png") {
		t.Errorf("expand of an empty directory: %v, %v; want an error naming it", ms, err)
	}
	if ms, err := expand(context.Background(), dir, Decode, filepath.Join(dir, "out")); err == nil || !strings.Contains(err.Error(), "no input files (.spc)") {
		t.Errorf("decode of a directory without .spc: %v, %v; want an error", ms, err)
	}
	// An input that is a device is not read (/dev/zero until out of
	// memory).
	if data, err := readFile(context.Background(), os.DevNull); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readFile of %s: %d bytes, %v; want an error", os.DevNull, len(data), err)
	}
}

// --manifest naming a directory ran the job, then failed with the
// runner's multi-line "DoFn[...manifestFn] failed: write m is not a
// regular file"; --out naming a file failed at mkdir. Check refuses both.
func TestCheckOutputKinds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Op: Encode, Model: "m", Inputs: []string{"in"}, Out: dir, Manifest: dir}
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "manifest "+dir+" is not a regular file") {
		t.Errorf("--manifest DIR: %v", err)
	}
	cfg = Config{Op: Encode, Model: "m", Inputs: []string{"in"}, Out: file}
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "--out "+file+" is not a directory") {
		t.Errorf("--out FILE: %v", err)
	}
	for _, c := range []Config{{Out: dir}, {Out: filepath.Join(dir, "new")}, {Out: dir, Manifest: file}, {Out: dir, Manifest: filepath.Join(dir, "new.jsonl")}} {
		c.Op, c.Model, c.Inputs = Encode, "m", []string{"in"}
		if err := c.Check(); err != nil {
			t.Errorf("--out %s --manifest %q: %v", c.Out, c.Manifest, err)
		}
	}
}

// spca-batch eval of a constant image: the model codes it without loss,
// PSNR +Inf, which json.Marshal refused; the manifest line became an
// error ("manifest: json: unsupported value: +Inf") and the image counted
// as failed. Measures are written as spca's --json writes them.
func TestManifestInfinitePSNR(t *testing.T) {
	for _, r := range []Record{
		{Input: "c.png", BPP: 0.05, PSNR: math.Inf(1), SSIM: 1, Model: "m"},
		{Input: "n.png", PSNR: math.NaN(), RMSE: math.Inf(-1)},
		{Input: "x.png", Output: "x.spc", Bytes: 7, BPP: 1.25, PSNR: 31.5, SSIM: 0.9, RMSE: 6.6, DE: 2.5, Skipped: true},
		{Input: "e.png", Error: "e.png: broken"},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%s: %v", r.Input, err)
		}
		recs, err := ParseManifest(b)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %s read back: %v", r.Input, b, err)
		}
		got := recs[0]
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if got.Input != r.Input || got.Output != r.Output || got.Bytes != r.Bytes || got.Skipped != r.Skipped || got.Error != r.Error ||
			got.Model != r.Model || !same(got.BPP, r.BPP) || !same(got.PSNR, r.PSNR) || !same(got.SSIM, r.SSIM) ||
			!same(got.RMSE, r.RMSE) || !same(got.DE, r.DE) {
			t.Errorf("%+v written as %s, read back as %+v", r, b, got)
		}
	}
	if b, _ := json.Marshal(Record{Input: "a", PSNR: math.Inf(1)}); string(b) != `{"input":"a","psnr_db":"inf"}` {
		t.Errorf("manifest line %s", b)
	}
	// jsonRecord mirrors Record: the same fields, names and tags.
	rt, jt := reflect.TypeOf(Record{}), reflect.TypeOf(jsonRecord{})
	if rt.NumField() != jt.NumField() {
		t.Fatalf("Record has %d fields, jsonRecord %d", rt.NumField(), jt.NumField())
	}
	for i := range rt.NumField() {
		if a, b := rt.Field(i), jt.Field(i); a.Name != b.Name || a.Tag != b.Tag {
			t.Errorf("field %d: Record's %s %q, jsonRecord's %s %q", i, a.Name, a.Tag, b.Name, b.Tag)
		}
	}
}
