package csvmat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/fileio"
)

// Limits of Read. They guard against inputs that would exhaust memory
// rather than restrict real data sets.
const (
	// MaxValues is the largest number of values (rows × columns) Read
	// accepts.
	MaxValues = 100_000_000
	// MaxLineBytes is the longest line Read accepts.
	MaxLineBytes = 64 << 20
	// MaxLines is the most lines Read accepts, blank and comment lines
	// included: a data line holds a value at least, so MaxValues data
	// lines and as many others. Endless blank lines (yes '' | spca fit
	// --in -) were read forever.
	MaxLines = 2 * MaxValues
)

// Read parses a matrix from r, one row per data line. Errors name the line
// (counting from 1, comments included) and the value (counting from 1).
//
// A regular file (or another reader that seeks and tells its size, such
// as a bytes.Reader) is read twice: first to count its values, then to
// parse them into a matrix of that size. Read once, the values were
// gathered in blocks and joined: twice the matrix's memory at the peak
// (1.57 GB for a valid file at MaxValues, 0.8 GB now). Other readers
// (a pipe) are read once, in blocks.
func Read(r io.Reader) (*mat.Dense, error) {
	return read(r, MaxValues, MaxLines)
}

// read is Read with the limits on the number of values and lines as
// parameters.
func read(r io.Reader, maxValues, maxLines int) (*mat.Dense, error) {
	var data blocks
	if n := countValues(r, maxValues, maxLines); n > 0 {
		data.cur = make([]float64, 0, n)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)

	var (
		cols int
		rows int
		line int
	)
	for sc.Scan() {
		line++
		if line > maxLines {
			return nil, fmt.Errorf("line %d: more than %d lines (blank and comment lines included)", line, maxLines)
		}
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // UTF-8 BOM
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if binary(text) {
			// A PNG or a model file given as CSV said "line 1: value 1
			// "\x89PNG" is not a number".
			return nil, fmt.Errorf("line %d holds binary data: not a CSV text file (an image or a model file?)", line)
		}
		n := bytes.Count(text, []byte{','}) + 1
		if cols == 0 {
			cols = n
		} else if n != cols {
			return nil, fmt.Errorf("line %d has %d values, expected %d", line, n, cols)
		}
		if data.n+n > maxValues {
			return nil, fmt.Errorf("line %d: more than %d values in total", line, maxValues)
		}
		raw := text
		for i := 1; i <= n; i++ {
			field := text
			if j := bytes.IndexByte(text, ','); j >= 0 {
				field, text = text[:j], text[j+1:]
			} else {
				text = nil
			}
			v, err := parseValue(string(bytes.TrimSpace(field)))
			if err != nil {
				return nil, fmt.Errorf("line %d: value %d %w%s", line, i, err, hint(raw, rows == 0))
			}
			data.add(v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, MaxLineBytes)
		}
		return nil, err
	}
	if rows == 0 {
		return nil, errors.New("no samples")
	}
	return mat.NewDense(rows, cols, data.join()), nil
}

// countValues returns the number of values of r's data lines if r is a
// regular file or another reader that seeks and tells its size, and then
// seeks back to where r was; 0 otherwise, or if r holds more than
// maxValues values, more than maxLines lines or a line longer than
// MaxLineBytes (read then reports them), or fails to seek back. Only
// the count is taken here: the values are parsed and checked by read.
func countValues(r io.Reader, maxValues, maxLines int) int {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		return 0
	}
	switch r := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := r.Stat(); err != nil || !fi.Mode().IsRegular() {
			return 0
		}
	case interface{ Len() int }:
	default:
		return 0
	}
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(rs)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	n, line := 0, 0
	for sc.Scan() {
		if line++; line > maxLines {
			n = 0
			break
		}
		text := bytes.TrimSpace(sc.Bytes()) // a BOM, counted as a value: the slice is only a capacity
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if n += bytes.Count(text, []byte{','}) + 1; n > maxValues {
			n = 0
			break
		}
	}
	if sc.Err() != nil {
		n = 0
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return 0
	}
	return n
}

// blocks holds values as they are parsed, in blocks of at most blockValues,
// joined once at the end: appending to one slice copied and cleared the
// values again at every growth, half the time of a large read (1e7 values:
// 3.3 s, 508 MB allocated) and 2.2 GB at MaxValues. A first block of the
// count of values (countValues) is the matrix itself, never joined.
type blocks struct {
	full [][]float64
	cur  []float64
	n    int
}

// blockValues is the size of blocks' blocks (8 MB); the first ones are
// smaller, so that small files stay small.
const blockValues = 1 << 20

func (b *blocks) add(v float64) {
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]float64, 0, min(blockValues, max(64, 2*b.n)))
	}
	b.cur = append(b.cur, v)
	b.n++
}

// join returns the values in one slice.
func (b *blocks) join() []float64 {
	if len(b.full) == 0 {
		return b.cur
	}
	all := make([]float64, 0, b.n)
	for _, f := range b.full {
		all = append(all, f...)
	}
	return append(all, b.cur...)
}

// parseValue parses one trimmed field. Its errors complete the sentence
// "value i ...".
func parseValue(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("is empty")
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is out of range", s)
	case errors.Is(err, strconv.ErrRange):
		// Underflow: ParseFloat returns the nearest representable value
		// (0 or a subnormal), which is what the number means.
	case err != nil:
		return 0, fmt.Errorf("%q is not a number", truncate(s, 40))
	case math.IsNaN(v):
		return 0, errors.New("is NaN")
	case math.IsInf(v, 0):
		return 0, errors.New("is infinite")
	}
	return v, nil
}

// hint returns what a line that does not parse probably is, for the
// error: a header of column names on the first data line, or values
// separated by semicolons, tabs or spaces rather than commas; "" if
// neither.
func hint(line []byte, first bool) string {
	s := string(line)
	switch {
	case strings.ContainsAny(s, ";\t") || !strings.Contains(s, ",") && len(strings.Fields(s)) > 1:
		return " (values are separated by commas)"
	case first:
		for _, f := range strings.Split(s, ",") {
			if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil || errors.Is(err, strconv.ErrRange) {
				return "" // a number, if a bad one
			}
		}
		return " (a header line? start it with # to mark it as a comment)"
	}
	return ""
}

// binary reports whether a line holds bytes no CSV text has: NUL, other
// control characters than tab, or invalid UTF-8.
func binary(line []byte) bool {
	for _, b := range line {
		if b < 0x20 && b != '\t' || b == 0x7f {
			return true
		}
	}
	return !utf8.Valid(line)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Write writes m, one row per line. A non-empty header is written first as
// a comment line "# header" (one comment line per line of header). Values
// must be finite, so that what Write produces Read accepts.
func Write(w io.Writer, m mat.Matrix, header string) error {
	rows, cols := m.Dims()
	bw := bufio.NewWriter(w)
	if header != "" {
		for _, h := range strings.Split(header, "\n") {
			bw.WriteString("# ")
			bw.WriteString(strings.TrimRight(h, "\r"))
			bw.WriteByte('\n')
		}
	}
	var buf []byte
	for i := range rows {
		buf = buf[:0]
		for j := range cols {
			v := m.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("row %d, column %d: value is %v", i+1, j+1, v)
			}
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadFile reads a matrix from the file at path, or from standard input
// when path is "-". Errors are prefixed with the path ("stdin" for "-").
func ReadFile(path string) (*mat.Dense, error) {
	if path == "-" {
		m, err := Read(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return m, nil
	}
	return fileio.Read(path, Read)
}

// WriteFile writes m with Write to the file at path, atomically, or to
// standard output when path is "-".
func WriteFile(path string, m mat.Matrix, header string) error {
	if path == "-" {
		if err := Write(os.Stdout, m, header); err != nil {
			return fmt.Errorf("stdout: %w", err)
		}
		return nil
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		return Write(w, m, header)
	})
}
