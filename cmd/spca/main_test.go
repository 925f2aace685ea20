package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/internal/csvmat"
)

// run runs the app in-process with args (without the program name) and
// returns what it wrote on stdout and stderr and the error main would
// print.
func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	argv := append([]string{"spca"}, args...)
	app := appFor(argv) // as main: encode and decode run in an app of their own
	var out, errOut bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &errOut
	err = app.Run(argv)
	return out.String(), errOut.String(), err
}

// TestAppFor checks that encode and decode behave in the app appFor builds
// for them as in the whole one: the same help, the same usage errors.
func TestAppFor(t *testing.T) {
	for _, args := range [][]string{
		{"encode", "--help"}, {"decode", "--help"}, {"--quiet", "decode", "-h"},
		{"encode"}, {"decode", "--model"}, {"decode", "--nosuchflag", "x.spc"},
		{"encode", "--bpp", "0.5", "--step", "2", "-o", "x.spc", "a.png"},
		{"--version"}, {"-v"},
	} {
		argv := append([]string{"spca"}, args...)
		var outs [2]string
		for i, app := range []*cli.App{appFor(argv), newApp()} {
			var out bytes.Buffer
			app.Writer, app.ErrWriter = &out, &out
			err := app.Run(argv)
			if err != nil {
				fmt.Fprintf(&out, "error: %s (exit %d)", errorLine(err), cliutil.ExitCode(err))
			}
			outs[i] = out.String()
		}
		if outs[0] != outs[1] {
			t.Errorf("spca %s: the encode/decode app gives\n%s\nthe whole app\n%s", strings.Join(args, " "), outs[0], outs[1])
		}
	}
	if got := len(appFor([]string{"spca", "decode", "x.spc"}).Commands); got != 1 {
		t.Errorf("decode app: %d commands, want 1", got)
	}
	if got := len(appFor([]string{"spca", "--version"}).Commands); got != 0 {
		t.Errorf("--version app: %d commands, want none", got)
	}
	if got, want := len(appFor([]string{"spca", "--version", "fit"}).Commands), len(newApp().Commands); got != want {
		t.Errorf("--version fit app: %d commands, want all %d", got, want)
	}
	if got, want := len(appFor([]string{"spca", "info", "decode"}).Commands), len(newApp().Commands); got != want {
		t.Errorf("info app: %d commands, want all %d", got, want)
	}
}

// mustRun runs the app and fails the test on error.
func mustRun(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := run(t, args...)
	if err != nil {
		t.Fatalf("spca %s: %s", strings.Join(args, " "), errorLine(err))
	}
	return stdout, stderr
}

// wantError runs the app, expects an error whose line contains every one
// of wants, and checks that it is one line.
func wantError(t *testing.T, args []string, wants ...string) {
	t.Helper()
	stdout, _, err := run(t, args...)
	if err == nil {
		t.Fatalf("spca %s: no error", strings.Join(args, " "))
	}
	line := errorLine(err)
	if strings.Contains(line, "\n") {
		t.Errorf("spca %s: error is not one line: %q", strings.Join(args, " "), line)
	}
	if !strings.HasPrefix(line, "spca: ") || strings.Contains(line, ": spca: ") {
		t.Errorf("spca %s: error repeats the program name: %q", strings.Join(args, " "), line)
	}
	if cliutil.ExitCode(err) != 1 {
		t.Errorf("spca %s: exit code %d, want 1", strings.Join(args, " "), cliutil.ExitCode(err))
	}
	for _, w := range wants {
		if !strings.Contains(line, w) {
			t.Errorf("spca %s: error %q does not contain %q", strings.Join(args, " "), line, w)
		}
	}
	if stdout != "" {
		t.Errorf("spca %s: printed on stdout on error: %q", strings.Join(args, " "), stdout)
	}
}

// formatGamma writes simple fractions as fractions and short decimals as
// typed, and what it writes reads back (tune prints it as a --gamma).
func TestFormatGamma(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1.0 / 3, "1/3"}, {2.0 / 3, "2/3"}, {1.0 / 7, "1/7"}, {5.0 / 3, "5/3"}, {1.0 / 30, "1/30"},
		{0, "0"}, {1, "1"}, {0.5, "0.5"}, {0.25, "0.25"}, {0.125, "0.125"}, {0.3, "0.3"}, {1.5, "1.5"},
		{0.1234, "0.1234"}, {0.123456789, "0.123456789"}, {math.Pi, "3.141592653589793"},
	} {
		got := formatGamma(tc.in)
		if got != tc.want {
			t.Errorf("formatGamma(%v) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := parseGamma(got)
		if err != nil || math.Abs(back-tc.in) > 1e-12 {
			t.Errorf("parseGamma(formatGamma(%v) = %q) = %v, %v", tc.in, got, back, err)
		}
	}
}

func TestParseGamma(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"1/3", 1.0 / 3}, {"0.5", 0.5}, {"1", 1}, {"0", 0}, {" 2 / 4 ", 0.5}, {"1e-1", 0.1}, {"-0", 0}, {"0/-1", 0},
	} {
		got, err := parseGamma(tc.in)
		if err != nil || got != tc.want || math.Signbit(got) {
			t.Errorf("parseGamma(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"1/0", "-1", "-1/3", "abc", "", "1/", "/3", "1/2/3", "inf", "nan", "1e400"} {
		if g, err := parseGamma(in); err == nil {
			t.Errorf("parseGamma(%q) = %v, want an error", in, g)
		}
	}
}

func TestParseQ(t *testing.T) {
	for in, want := range map[string]float64{"10": 10, "inf": math.Inf(1), "+Inf": math.Inf(1), "1/2": 0.5} {
		got, err := parseQ(in)
		if err != nil || got != want {
			t.Errorf("parseQ(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "nan", "-inf", "x"} {
		if q, err := parseQ(in); err == nil {
			t.Errorf("parseQ(%q) = %v, want an error", in, q)
		}
	}
}

func TestParseOrigin(t *testing.T) {
	kind, point, err := parseOrigin("mean")
	if err != nil || kind.String() != "mean" || point != nil {
		t.Errorf("mean: %v %v %v", kind, point, err)
	}
	kind, point, err = parseOrigin("densest")
	if err != nil || kind.String() != "densest" || point != nil {
		t.Errorf("densest: %v %v %v", kind, point, err)
	}
	kind, point, err = parseOrigin("1.5, -2,3e1")
	if err != nil || kind.String() != "given" || len(point) != 3 || point[0] != 1.5 || point[1] != -2 || point[2] != 30 {
		t.Errorf("point: %v %v %v", kind, point, err)
	}
	for _, in := range []string{"", "median", "1,,2", "1,nan", "1,inf"} {
		if _, _, err := parseOrigin(in); err == nil {
			t.Errorf("parseOrigin(%q): no error", in)
		}
	}
}

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("spca: bad data: too few samples"), "spca: bad data: too few samples"},
		{fmt.Errorf("m.spca: %w", errors.New("spca: invalid model file: truncated")), "spca: m.spca: invalid model file: truncated"},
		{errors.New("open x.csv: no such file or directory"), "spca: open x.csv: no such file or directory"},
	} {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestNumberJSON(t *testing.T) {
	b, err := json.Marshal([]number{1, 0.1, number(math.Inf(1)), number(math.Inf(-1)), number(math.NaN()), 1e21})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[1,0.1,"inf","-inf","nan",1e+21]`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestSynth(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.csv")
	// Flags after the positional NAME work too.
	mustRun(t, "synth", "spiral", "--n", "50", "--seed", "3", "--out", path)
	x := readCSV(t, path)
	if r, c := x.Dims(); r != 50 || c != 2 {
		t.Fatalf("dims %d×%d, want 50×2", r, c)
	}
	if first := firstLine(t, path); first != "# x1,x2" {
		t.Errorf("header %q, want %q", first, "# x1,x2")
	}

	// Same seed, same data; --latent appends named columns.
	latPath := filepath.Join(dir, "l.csv")
	mustRun(t, "synth", "--n", "50", "--seed", "3", "--out", latPath, "--latent", "spiral")
	xl := readCSV(t, latPath)
	r, c := xl.Dims()
	if r != 50 || c <= 2 {
		t.Fatalf("dims %d×%d, want 50×(2+latent)", r, c)
	}
	for i := range r {
		if xl.At(i, 0) != x.At(i, 0) || xl.At(i, 1) != x.At(i, 1) {
			t.Fatalf("row %d differs between runs with the same seed", i)
		}
	}
	header := firstLine(t, latPath)
	if names := strings.Split(strings.TrimPrefix(header, "# "), ","); len(names) != c || names[0] != "x1" || names[1] != "x2" {
		t.Errorf("header %q does not name %d columns starting x1,x2", header, c)
	}

	wantError(t, []string{"synth", "nosuchset", "--out", path}, "synth:", "nosuchset")
	wantError(t, []string{"synth", "--out", path}, "expected one data set NAME")
	wantError(t, []string{"synth", "spiral", "--n", "0", "--out", path}, "synth:")
	wantError(t, []string{"synth", "spiral", "--bogus"}, "synth: flag provided but not defined: --bogus")
	wantError(t, []string{"synth", "spiral", "--n", "3", "--", "--name"}, "got 2 arguments")
}

func TestUsageErrors(t *testing.T) {
	wantError(t, []string{"nosuchcommand"}, `unknown command "nosuchcommand"`)
	wantError(t, []string{"encod"}, `unknown command "encod"; did you mean encode? (see spca --help)`)
	wantError(t, []string{"codec", "trian"}, `codec: unknown command "trian"; did you mean train? (see spca codec --help)`)
	wantError(t, []string{"adapt", "aply"}, `did you mean apply?`)
	wantError(t, []string{"classify", "evl"}, `did you mean eval?`)
	if _, _, err := run(t, "nosuchcommand"); strings.Contains(errorLine(err), "did you mean") {
		t.Errorf("nosuchcommand: %s", errorLine(err))
	}
	// Misspelt data sets, methods and metrics get the nearest name too (a
	// new user's "synth swisroll" got only the list of sixteen), and the
	// errors of --method and --metric name their command.
	wantError(t, []string{"synth", "swisroll"}, `synth: unknown data set "swisroll"; did you mean swissroll? (known: spiral, swissroll`)
	wantError(t, []string{"adapt", "lut", "--model", "m.model", "--method", "bradfrod", "-o", "m.cube"},
		`adapt lut: --method: unknown method "bradfrod"; did you mean bradford? (known: spca,`)
	wantError(t, []string{"adapt", "lut", "--model", "m.model", "--method", "Von Kris", "-o", "m.cube"}, "did you mean von-kries?")
	wantError(t, []string{"classify", "train", "--in", "d.csv", "--metric", "euclidian", "-o", "c.knn"},
		`classify train: --metric: unknown metric "euclidian"; did you mean euclidean? (known: euclidean,`)
	for _, args := range [][]string{{"synth", "zzz"}, {"classify", "predict", "--train", "d.csv", "--metric", "zzz", "--in", "x.csv"}} {
		if _, _, err := run(t, args...); err == nil || strings.Contains(errorLine(err), "did you mean") || !strings.Contains(errorLine(err), "known: ") {
			t.Errorf("spca %s: %v, want the list and no suggestion", strings.Join(args, " "), err)
		}
	}
	wantError(t, []string{"fit", "--nosuchflag"}, "fit: flag provided but not defined: --nosuchflag (see spca fit --help)")
	wantError(t, []string{"fit", "--out", "m.spca"}, "missing --in")
	wantError(t, []string{"fit", "--in", "d.csv"}, "missing --out")
	wantError(t, []string{"transform", "--in", "d.csv"}, "missing --model")
	wantError(t, []string{"info"}, "expected one FILE, a model or a coded image, got 0 arguments")
	wantError(t, []string{"transform", "--model", "m", "extra"}, `unexpected argument "extra"`)
	wantError(t, []string{"fit", "data.csv", "-o", "m"}, `fit: unexpected argument "data.csv": give the input with --in (see spca fit --help)`)
	wantError(t, []string{"fit", "--in", "data.csv", "extra"}, `fit: unexpected argument "extra" (see spca fit --help)`)
}

func TestFitInputErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	mustRun(t, "synth", "spiral", "--n", "100", "--out", data)
	model := filepath.Join(dir, "m.spca")

	wantError(t, []string{"fit", "--in", data, "--out", model, "--gamma", "1/0"}, "--gamma", "1/0")
	wantError(t, []string{"fit", "--in", data, "--out", model, "--gamma", "-1"}, "--gamma", "-1")
	wantError(t, []string{"fit", "--in", data, "--out", model, "--q", "0"}, "--q")
	wantError(t, []string{"fit", "--in", data, "--out", model, "--origin", "middle"}, "--origin")
	wantError(t, []string{"fit", "--in", data, "--out", "-"}, "--out")

	missing := filepath.Join(dir, "missing.csv")
	wantError(t, []string{"fit", "--in", missing, "--out", model}, missing)

	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, "1,2\n3,4\n5,x\n")
	wantError(t, []string{"fit", "--in", bad, "--out", model}, bad, "line 3", `"x" is not a number`)

	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("failed fits left a model file: %v", err)
	}
}

// TestRoundTrip runs synth -> fit -> transform -> inverse on a small
// spiral and checks that the inverse recovers the samples.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "spiral.csv")
	model := filepath.Join(dir, "model.spca")
	resp := filepath.Join(dir, "r.csv")
	back := filepath.Join(dir, "x.csv")

	mustRun(t, "synth", "spiral", "--n", "400", "--seed", "1", "--out", data)
	_, stderr := mustRun(t, "fit", "--in", data, "--gamma", "1/3", "--seed", "1", "--out", model)
	if !strings.Contains(stderr, "400 samples") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("fit summary %q, want one line naming 400 samples", stderr)
	}
	_, stderr = mustRun(t, "transform", "--model", model, "--in", data, "--out", resp, "--stats")
	if !strings.Contains(stderr, "400 samples") || !strings.Contains(stderr, "histogram") {
		t.Errorf("--stats printed %q", stderr)
	}
	if _, stderr = mustRun(t, "--quiet", "inverse", "--model", model, "--in", resp, "--out", back); stderr != "" {
		t.Errorf("inverse --quiet printed %q", stderr)
	}

	x := readCSV(t, data)
	r := readCSV(t, resp)
	xb := readCSV(t, back)
	n, d := x.Dims()
	if rn, rd := r.Dims(); rn != n || rd != d {
		t.Fatalf("responses %d×%d, want %d×%d", rn, rd, n, d)
	}
	if bn, bd := xb.Dims(); bn != n || bd != d {
		t.Fatalf("inverse %d×%d, want %d×%d", bn, bd, n, d)
	}
	if h := firstLine(t, resp); h != "# r1,r2" {
		t.Errorf("response header %q", h)
	}
	// Data range: the largest extent over the coordinates.
	var span float64
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = math.Min(lo, x.At(i, j)), math.Max(hi, x.At(i, j))
		}
		span = math.Max(span, hi-lo)
	}
	errs := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			e := x.At(i, j) - xb.At(i, j)
			s += e * e
		}
		errs[i] = math.Sqrt(s)
	}
	sort.Float64s(errs)
	median := errs[n/2]
	t.Logf("median |x - x'| = %.3g, data range %.3g", median, span)
	if median >= 1e-2*span {
		t.Errorf("median reconstruction error %.3g >= 1%% of the data range %.3g", median, span)
	}

	// info, text and JSON.
	checkInfoHeader(t, model, kindSPCA)
	stdout, _ := mustRun(t, "info", model)
	for _, w := range []string{"dimension", "gamma", "marginal entropies", "max distance"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("info output lacks %q:\n%s", w, stdout)
		}
	}
	// gamma as fit's summary writes it (formatGamma), not 0.3333333333333333.
	if !regexp.MustCompile(`(?m)^gamma +1/3$`).MatchString(stdout) {
		t.Errorf("info output lacks the row gamma 1/3:\n%s", stdout)
	}
	stdout, _ = mustRun(t, "info", model, "--json")
	var info struct {
		Dimension         int       `json:"dimension"`
		Gamma             float64   `json:"gamma"`
		MarginalEntropies []float64 `json:"marginal_entropies_bits"`
		Scale             []float64 `json:"scale"`
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil {
		t.Fatalf("info --json: %v\n%s", err, stdout)
	}
	if info.Dimension != 2 || info.Gamma != 1.0/3 || len(info.MarginalEntropies) != 2 || len(info.Scale) != 2 {
		t.Errorf("info --json = %+v", info)
	}

	// Wrong dimension.
	three := filepath.Join(dir, "three.csv")
	writeFile(t, three, "1,2,3\n4,5,6\n")
	wantError(t, []string{"transform", "--model", model, "--in", three}, "model expects 2 values per sample, got 3")
	wantError(t, []string{"inverse", "--model", model, "--in", three}, "model expects 2 values per sample, got 3")

	// A truncated model is an error, not a panic.
	whole, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, 3, len(whole) / 2, len(whole) - 1} {
		cut := filepath.Join(dir, "cut.spca")
		if err := os.WriteFile(cut, whole[:size], 0o644); err != nil {
			t.Fatal(err)
		}
		wantError(t, []string{"transform", "--model", cut, "--in", data}, "cut.spca: invalid model file")
	}
	// So is a flipped byte in the middle.
	flipped := append([]byte(nil), whole...)
	flipped[len(flipped)/2] ^= 0x40
	bad := filepath.Join(dir, "flipped.spca")
	if err := os.WriteFile(bad, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, []string{"info", bad}, "invalid model file")
}

func TestCorruptModel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "junk.spca")
	writeFile(t, model, "this is not a model\n")
	data := filepath.Join(dir, "d.csv")
	writeFile(t, data, "1,2\n")
	wantError(t, []string{"transform", "--model", model, "--in", data}, "invalid model file")
	wantError(t, []string{"inverse", "--model", model, "--in", data}, "invalid model file")
	wantError(t, []string{"info", model}, "invalid model file")
	wantError(t, []string{"info", filepath.Join(dir, "missing.spca")}, "missing.spca")
}

func TestTune(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	mustRun(t, "synth", "spiral", "--n", "300", "--out", data)
	stdout, _ := mustRun(t, "tune", "--in", data, "--json")
	var res struct {
		Criterion string           `json:"criterion"`
		Best      map[string]any   `json:"best"`
		Table     []map[string]any `json:"table"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Criterion != "projection error" {
		t.Fatalf("tune --json: %v, criterion %q\n%s", err, res.Criterion, stdout)
	}
	if len(res.Table) == 0 {
		t.Fatal("tune --json: empty table")
	}
	for _, key := range []string{"k", "tau", "q", "error"} {
		if _, ok := res.Best[key]; !ok {
			t.Errorf("best lacks %q: %v", key, res.Best)
		}
	}
	stdout, _ = mustRun(t, "tune", "--in", data)
	if !strings.Contains(stdout, "best: --k ") || strings.Count(stdout, "\n") != len(res.Table)+2 || !strings.Contains(stdout, "projection error") {
		t.Errorf("tune table:\n%s", stdout)
	}
	// With --components the table names the held-out error, and the
	// best line carries the --gamma the fits used, for spca fit.
	stdout, _ = mustRun(t, "tune", "--in", data, "--components", "1", "--gamma", "0")
	if !strings.Contains(stdout, "held-out error in 1-D") || !regexp.MustCompile(`best: --k [0-9.]+ --tau [0-9.]+ --q [0-9.]+ --gamma 0 \(held-out error in 1-D [0-9.]+\)`).MatchString(stdout) {
		t.Errorf("tune --components 1 --gamma 0:\n%s", stdout)
	}
}

func readCSV(t *testing.T, path string) *mat.Dense {
	t.Helper()
	m, err := csvmat.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStdinHint checks that transform and inverse without --in, on a
// terminal, say they read standard input instead of waiting silently.
func TestStdinHint(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "s.csv"), filepath.Join(dir, "m.spca")
	mustRun(t, "synth", "spiral", "--n", "200", "-o", data)
	mustRun(t, "fit", "--in", data, "-o", model, "--resolution", "4096")
	empty, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	stdin, isTerm := os.Stdin, stdinIsTerminal
	os.Stdin, stdinIsTerminal = empty, func() bool { return true }
	defer func() { os.Stdin, stdinIsTerminal = stdin, isTerm }()
	for _, cmd := range []string{"transform", "inverse"} {
		_, stderr, _ := run(t, cmd, "--model", model)
		if !strings.Contains(stderr, cmd+": reading CSV samples from standard input (end with Ctrl-D") {
			t.Errorf("%s on a terminal printed %q", cmd, stderr)
		}
		if _, stderr, _ = run(t, cmd, "--quiet", "--model", model); stderr != "" {
			t.Errorf("%s --quiet printed %q", cmd, stderr)
		}
	}
}

// TestFitWarnsFewSamples checks that fit warns, in one line that --quiet
// keeps, when the samples are too few for the neighbourhoods (spca.
// SampleWarning: 200 spiral samples give 20 of the 30 needed), and not
// with 300.
func TestFitWarnsFewSamples(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		n    string
		want string
	}{
		{"200", "fit: warning: 200 samples give the local PCA 20 neighbours (k 0.1) and each secondary curve's density 20 samples (conditioning 0.1); below 30 "},
		{"300", ""},
	} {
		data := filepath.Join(dir, c.n+".csv")
		mustRun(t, "synth", "spiral", "--n", c.n, "--out", data)
		_, stderr := mustRun(t, "fit", "--quiet", "--in", data, "--out", filepath.Join(dir, c.n+".spca"))
		if !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != min(1, len(c.want)) {
			t.Errorf("fit --quiet on %s samples: stderr %q, want %q...", c.n, stderr, c.want)
		}
	}
}
