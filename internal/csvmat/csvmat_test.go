package csvmat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/hostile"
)

func TestReadValid(t *testing.T) {
	in := "\ufeff# x1,x2\n" +
		"1, 2\n" +
		"\n" +
		"  # indented comment\n" +
		"\t-3.5e2 ,\t0x1p-2\r\n" +
		"   \n" +
		"+4,-0\n"
	m, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{1, 2, -350, 0.25, 4, math.Copysign(0, -1)})
	if !mat.Equal(m, want) {
		t.Fatalf("got\n%v\nwant\n%v", mat.Formatted(m), mat.Formatted(want))
	}
	if !math.Signbit(m.At(2, 1)) {
		t.Error("-0 lost its sign")
	}
}

func TestReadNoTrailingNewline(t *testing.T) {
	m, err := Read(strings.NewReader("1\n2"))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 2 || c != 1 {
		t.Fatalf("dims %d×%d, want 2×1", r, c)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no samples"},
		{"# only\n\n  \n", "no samples"},
		{"1,2\n3,4\n5\n", "line 3 has 1 values, expected 2"},
		{"# h\n1,2\n\n3,4,5\n", "line 4 has 3 values, expected 2"},
		{"1,2,abc\n", `line 1: value 3 "abc" is not a number`},
		{"1,2\n1,NaN\n", "line 2: value 2 is NaN"},
		{"inf\n", "line 1: value 1 is infinite"},
		{"1,-Infinity\n", "line 1: value 2 is infinite"},
		{"1e999\n", `line 1: value 1 "1e999" is out of range`},
		{"1,,2\n", "line 1: value 2 is empty"},
		{"1,2,\n", "line 1: value 3 is empty"},
		{"1 2\n", `line 1: value 1 "1 2" is not a number (values are separated by commas)`},
		{"x,y\n1,2\n", `line 1: value 1 "x" is not a number (a header line? start it with # to mark it as a comment)`},
		{"1;2\n3;4\n", `line 1: value 1 "1;2" is not a number (values are separated by commas)`},
		{"1,2\nx,y\n", `line 2: value 1 "x" is not a number`},
		{"\x89PNG\r\n\x1a\n\x00\x00", "line 1 holds binary data: not a CSV text file (an image or a model file?)"},
		{"# x\n1,2\nSPCAmodl\x06\x00\x00\x00\n", "line 3 holds binary data: not a CSV text file (an image or a model file?)"},
		{"1,\xff\n", "line 1 holds binary data: not a CSV text file (an image or a model file?)"},
	} {
		_, err := Read(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("Read(%q): no error, want %q", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Read(%q): error %q, want %q", tc.in, err, tc.want)
		}
	}
}

func TestReadUnderflowIsZero(t *testing.T) {
	m, err := Read(strings.NewReader("1e-400\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.At(0, 0) != 0 {
		t.Errorf("got %v, want 0", m.At(0, 0))
	}
}

func TestReadTooManyValues(t *testing.T) {
	// The real limit needs gigabytes of input; the logic is the same with
	// a small one. The check happens before a line's values are stored.
	in := "1,2\n3,4\n5,6\n"
	if _, err := read(strings.NewReader(in), 6, MaxLines); err != nil {
		t.Fatalf("6 values with limit 6: %v", err)
	}
	_, err := read(strings.NewReader(in), 5, MaxLines)
	if want := "line 3: more than 5 values in total"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	_, err = read(strings.NewReader("1,bad,3,4\n"), 3, MaxLines)
	if err == nil || !strings.Contains(err.Error(), "values in total") {
		t.Fatalf("err = %v, want the size error before parsing", err)
	}
}

func TestReadLineTooLong(t *testing.T) {
	line := "1" + strings.Repeat(" ", MaxLineBytes) + "\n"
	_, err := Read(strings.NewReader("2\n" + line))
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Fatalf("err = %v, want a line-length error on line 2", err)
	}
}

func TestWriteFormat(t *testing.T) {
	m := mat.NewDense(2, 3, []float64{1, 0.1, -2.5e-300, 1e21, 0, 1.0 / 3})
	var buf bytes.Buffer
	if err := Write(&buf, m, "a,b,c"); err != nil {
		t.Fatal(err)
	}
	want := "# a,b,c\n1,0.1,-2.5e-300\n1e+21,0,0.3333333333333333\n"
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteMultiLineHeader(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, mat.NewDense(1, 1, []float64{7}), "one\r\ntwo"); err != nil {
		t.Fatal(err)
	}
	if want := "# one\n# two\n7\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteRejectsNonFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var buf bytes.Buffer
		m := mat.NewDense(2, 2, []float64{1, 2, 3, v})
		err := Write(&buf, m, "")
		if err == nil || !strings.Contains(err.Error(), "row 2, column 2") {
			t.Errorf("Write with %v: err = %v", v, err)
		}
	}
}

func TestRoundTripExact(t *testing.T) {
	vals := []float64{
		0, math.Copysign(0, -1), 1, -1, math.Pi, 1.0 / 3, 0.1 + 0.2,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		2.2250738585072014e-308, math.Nextafter(1, 2), 123456789.123456789,
	}
	m := mat.NewDense(len(vals), 1, vals)
	var buf bytes.Buffer
	if err := Write(&buf, m, "v"); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	assertIdentical(t, got, m)
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.csv")
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if err := WriteFile(path, m, "x1,x2"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	assertIdentical(t, got, m)

	// A failed write leaves the previous file as it was.
	bad := mat.NewDense(1, 2, []float64{5, math.NaN()})
	if err := WriteFile(path, bad, ""); err == nil {
		t.Fatal("WriteFile with NaN: no error")
	}
	if got, err = ReadFile(path); err != nil {
		t.Fatal(err)
	}
	assertIdentical(t, got, m)
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(des))
	}

	// Parse errors name the file.
	badPath := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(badPath, []byte("1,2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(badPath)
	if want := badPath + ": line 2 has 1 values, expected 2"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

// assertIdentical fails unless got and want have the same shape and
// bitwise identical values.
func assertIdentical(t *testing.T, got, want mat.Matrix) {
	t.Helper()
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("dims %d×%d, want %d×%d", gr, gc, wr, wc)
	}
	for i := range gr {
		for j := range gc {
			g, w := got.At(i, j), want.At(i, j)
			if math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, g, w)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"1,2\n3,4\n",
		"# header\n\n1\n",
		"1,2\n3\n",
		"1,,2\n",
		",\n",
		"NaN\n",
		"-Inf,1\n",
		"1e400\n",
		"1e-400\n",
		"0x1.8p1, -0\n",
		"abc\n",
		"\ufeff1\r\n2\r\n",
		"1_0\n",
		"# a\n#\n  \t\n",
		"\x00\xff,1\n",
		"1,2,3\n4,5,6\n7,8,9,10\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var m *mat.Dense
		var err error
		hostile.Check(t, "Read", len(in), func() { m, err = Read(bytes.NewReader(in)) })
		// From a stream (read once, in blocks): the same matrix or an
		// error where the counted read gives one.
		sm, serr := Read(io.MultiReader(bytes.NewReader(in)))
		if (serr == nil) != (err == nil) || err != nil && serr.Error() != err.Error() {
			t.Fatalf("read counted: %v; from a stream: %v", err, serr)
		}
		if err == nil {
			assertIdentical(t, sm, m)
		}
		if err != nil {
			if m != nil {
				t.Fatal("non-nil matrix with an error")
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, m, "round trip"); err != nil {
			t.Fatalf("Write of a matrix Read accepted: %v", err)
		}
		again, err := Read(&buf)
		if err != nil {
			t.Fatalf("Read of Write output: %v\n%s", err, buf.Bytes())
		}
		assertIdentical(t, again, m)
	})
}

// blankLines is an endless stream of blank lines (as yes of an empty
// string writes), failing after limit bytes.
type blankLines struct{ n, limit int }

func (b *blankLines) Read(p []byte) (int, error) {
	if b.n >= b.limit {
		return 0, errors.New("read past the limit of an endless stream")
	}
	p = p[:min(len(p), b.limit-b.n)]
	for i := range p {
		p[i] = '\n'
	}
	b.n += len(p)
	return len(p), nil
}

// Endless blank lines were read forever (yes ” | spca fit --in -, no
// memory growth): Read stops after MaxLines lines, comments and blank
// lines included.
func TestReadEndlessBlankLines(t *testing.T) {
	r := &blankLines{limit: 1 << 20}
	_, err := read(r, MaxValues, 1000)
	if want := "line 1001: more than 1000 lines (blank and comment lines included)"; err == nil || err.Error() != want || r.n > 64<<10 {
		t.Errorf("endless blank lines: %v after %d bytes, want %q", err, r.n, want)
	}
	if _, err := read(strings.NewReader(strings.Repeat("# c\n", 998)+"1\n\n"), MaxValues, 1000); err != nil {
		t.Errorf("1000 lines with limit 1000: %v", err)
	}
	if MaxLines > 4*MaxValues || MaxLines < MaxValues {
		t.Errorf("MaxLines %d, want a finite bound of at least MaxValues %d", MaxLines, MaxValues)
	}
}

// The values of a large input, stored in blocks, come out in order.
func TestReadBlocks(t *testing.T) {
	const rows = blockValues + blockValues/2 + 3 // two columns: three blocks and more
	var b strings.Builder
	for i := range rows {
		fmt.Fprintf(&b, "%d,%d\n", i, -i)
	}
	m, err := Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != rows || c != 2 {
		t.Fatalf("%d×%d, want %d×2", r, c, rows)
	}
	for i := 0; i < rows; i += 9973 {
		if m.At(i, 0) != float64(i) || m.At(i, 1) != -float64(i) {
			t.Fatalf("row %d: %v, %v", i, m.At(i, 0), m.At(i, 1))
		}
	}
	if m.At(rows-1, 1) != -float64(rows-1) {
		t.Fatalf("last row: %v", m.At(rows-1, 1))
	}
}

// TestReadCountsFirst: a reader that seeks (a file, a bytes.Reader) is
// counted first and parsed into a matrix of its size, allocating the
// matrix once: read in blocks and joined, it allocated twice its size
// (the peak of a valid file at MaxValues was 1.57 GB, now 0.8 GB). The
// same matrix as from a stream, and read from where the reader was.
func TestReadCountsFirst(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("skipped\n\ufeff# values\n")
	const rows = 250_000
	for i := range rows {
		fmt.Fprintf(&b, "%d.5, %d\n", i, -i)
		if i%1000 == 0 {
			b.WriteString("\n# comment, with, commas\n")
		}
	}
	in := b.Bytes()
	r := bytes.NewReader(in)
	r.Seek(int64(len("skipped\n")), io.SeekStart)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := Read(r)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	matrix := uint64(8 * 2 * rows)
	// The matrix and the fields' strings (about as many bytes again,
	// garbage at once): 2.0 times the matrix; in blocks, joined, 4.5.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > matrix*5/2 {
		t.Errorf("allocated %d bytes for a matrix of %d", alloc, matrix)
	}
	sm, err := Read(io.MultiReader(bytes.NewReader(in[len("skipped\n"):])))
	if err != nil {
		t.Fatal(err)
	}
	assertIdentical(t, m, sm)
	if r, c := m.Dims(); r != rows || c != 2 || m.At(rows-1, 0) != rows-0.5 {
		t.Fatalf("read %d×%d, last row %v", r, c, mat.Row(nil, rows-1, m))
	}
}
