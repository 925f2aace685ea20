package codec

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/spcalab/spca/patches"
	"gonum.org/v1/gonum/mat"
)

// TestRestFlags checks the rest flags of the entropy-constrained mode on
// the indices of a test texture: a patch's flag is set exactly when one
// of its coefficients beyond SPCA is off its dimension's centre, those
// dimensions hold one symbol per flagged patch and the others one per
// patch, the streams decode back to the same indices (the leading ones
// in place when fromSymbols hands them on), and broken flag streams are
// errors.
func TestRestFlags(t *testing.T) {
	m := stepModel(t)
	c := m.Channels[0]
	_, test := images()
	_, idx, grid, _ := c.quantizePlane(patches.Luminance(test[0]), m.Patch, false, false)
	dims, k, cols := c.Dims(), c.Leading(), grid.Cols()
	n := grid.Blocks()
	from := restFrom(k)
	flags := restFlags(idx, dims, from, c.Centre)
	set := 0
	for i := 0; i < n; i++ {
		off := false
		for j := from; j < dims; j++ {
			off = off || int(idx[i*dims+j]) != c.Centre[j]
		}
		if off != (flags[i] == 1) {
			t.Fatalf("patch %d: flag %d, coefficients beyond SPCA off centre: %v", i, flags[i], off)
		}
		set += int(flags[i])
	}
	t.Logf("%d of %d patches have a coefficient beyond SPCA off centre", set, n)
	if set == 0 || set == n {
		t.Fatalf("%d of %d flags set: the test needs both", set, n)
	}
	s := toSymbols(idx, dims, cols, c.Centre, k, true)
	for j := 0; j < dims; j++ {
		got := 0
		for _, st := range dimStreams(j) {
			got += len(s.sub[st])
		}
		want := n
		if j >= from {
			want = set
		}
		if got != want {
			t.Errorf("dimension %d: %d symbols, want %d", j+1, got, want)
		}
	}
	back := make([]int32, len(idx))
	// leading runs once, with the dimensions before the flags' in place.
	calls := 0
	leading := func() {
		calls++
		for i := 0; i < n; i++ {
			if !slices.Equal(back[i*dims:i*dims+from], idx[i*dims:i*dims+from]) {
				t.Errorf("patch %d: leading dimensions %v when leading runs, want %v", i, back[i*dims:i*dims+from], idx[i*dims:i*dims+from])
				return
			}
		}
	}
	if err := fromSymbols(s, back, dims, cols, c.Centre, c.Bins, leading); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("leading ran %d times, want once", calls)
	}
	if !slices.Equal(back, idx) {
		t.Fatal("the indices do not survive their symbols")
	}
	// Broken flag streams.
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name    string
		corrupt func([][]byte) [][]byte
		want    string
	}{
		{"a flag of 2", func(f [][]byte) [][]byte {
			c := rng.IntN(len(f[1]))
			f[1] = slices.Clone(f[1])
			f[1][c] = 2
			return f
		}, "rest flag 2"},
		{"a flag short", func(f [][]byte) [][]byte { f[0] = f[0][:len(f[0])-1]; return f }, "too short"},
		{"a flag too many", func(f [][]byte) [][]byte { f[2] = append(slices.Clone(f[2]), 0); return f }, "too long"},
		{"no streams", func([][]byte) [][]byte { return [][]byte{} }, "missing"},
	} {
		bad := *s
		bad.flags = tc.corrupt(slices.Clone(s.flags))
		err := fromSymbols(&bad, back, dims, cols, c.Centre, c.Bins, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestPixelsSkipZeros checks that pixels, which skips zero coefficients
// and sums eight pixels at once, gives exactly the sums of pixel, for
// patch sizes whose pixel counts are and are not multiples of eight, and
// so do the sums continued from leadPixels' by pixelsFrom.
func TestPixelsSkipZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, m := range []*Model{trainedModel(t), stepModel(t), smallModel(t, func(o *TrainOptions) { o.Patch, o.Step = 4, 8 })} {
		c := m.Channels[0]
		dims := c.Dims()
		basis := mat.DenseCopyOf(c.PCA.Basis).RawMatrix().Data // as reconstructGray takes it
		weights := c.pixelWeights()
		y := make([]float64, dims)
		pix := make([]float64, dims)
		nz := make([]int, dims)
		for trial := 0; trial < 200; trial++ {
			for j := range y {
				y[j] = 0
				if rng.IntN(3) == 0 {
					y[j] = 40 * rng.NormFloat64()
				}
			}
			c.pixels(pix, y, weights, nz)
			// The same sums continued from the leading coefficients'
			// (the decoder's path for distinct leading cells).
			k := c.Leading()
			lead := c.leadPixels(y[:k], weights, 0, nil)
			cont := make([]float64, dims)
			c.pixelsFrom(cont, lead, y[k:], k, weights, nz)
			for p := range pix {
				if want := c.pixel(p, y, basis); pix[p] != want || cont[p] != want {
					t.Fatalf("%d×%d: pixel %d = %v (continued from the leading sums %v), pixel() = %v", m.Patch, m.Patch, p, pix[p], cont[p], want)
				}
			}
		}
	}
}

// zigzag numbers residuals 0, −1, 1, −2, 2, … as 0, 1, 2, 3, 4, … and
// unzigzag inverts it, out to the largest index differences.
func TestZigzag(t *testing.T) {
	for s, v := range []int{0, -1, 1, -2, 2, -3, 3} {
		if got := zigzag(v); got != s {
			t.Errorf("zigzag(%d) = %d, want %d", v, got, s)
		}
	}
	for v := -2 * maxLevels; v <= 2*maxLevels; v++ {
		if s := zigzag(v); s < 0 || unzigzag(s) != v {
			t.Fatalf("zigzag(%d) = %d, back %d", v, s, unzigzag(s))
		}
	}
}

// TestRestCounts checks restCountsInto against counting patch by patch
// and its flags against restFlagsInto, on indices mostly at their
// centres, with extreme values (the branch-free count's d = q - c).
func TestRestCounts(t *testing.T) {
	kernel := restCountsKernel
	defer func() { restCountsKernel = kernel }()
	for _, restCountsKernel = range []bool{false, kernel} {
		testRestCounts(t)
	}
}

// testRestCounts is TestRestCounts with or without restCountsAVX2
// (restCountsKernel): dims - from a multiple of 8, of 4 (the 4×4 models' 12),
// and neither.
func testRestCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 12))
	for _, dims := range []int{2, 5, 16, 64} {
		for _, from := range []int{1, 4, dims / 2, dims - 1} {
			if from >= dims {
				continue
			}
			n := 9000 // more than restCountsInto's block of patches
			centre := make([]int, dims)
			for j := range centre {
				centre[j] = rng.IntN(40) - 20
			}
			idx := make([]int32, n*dims)
			for i := range idx {
				idx[i] = int32(centre[i%dims])
				switch rng.IntN(8) {
				case 0:
					idx[i] += int32(rng.IntN(7) - 3)
				case 1:
					idx[i] = []int32{math.MinInt32 + 20, math.MaxInt32 - 20}[rng.IntN(2)]
				}
			}
			flags, counts := make([]uint8, n), make([]int32, n)
			restCountsInto(flags, counts, idx, dims, from, centre)
			want := restFlags(idx, dims, from, centre)
			for i := range n {
				c := 0
				for j := from; j < dims; j++ {
					if int(idx[i*dims+j]) != centre[j] {
						c++
					}
				}
				if int(counts[i]) != c || flags[i] != want[i] {
					t.Fatalf("dims %d from %d patch %d (AVX2 %v): count %d flag %d, want %d %d", dims, from, i, restCountsKernel, counts[i], flags[i], c, want[i])
				}
			}
		}
	}
}

// TestParseStreamSizes checks parseStream's bounds on a stream header's
// symbol count and payload length at and beyond 2^31, where a 32-bit int
// turns negative: such counts and lengths passed both checks there, and
// slicing the payload panicked (GOARCH=arm go test -exec qemu-arm-static).
func TestParseStreamSizes(t *testing.T) {
	header := func(count, plen uint32) []byte {
		b := []byte{methodRLE}
		b = binary.LittleEndian.AppendUint32(b, count)
		b = binary.LittleEndian.AppendUint32(b, plen)
		return append(b, 7, 7, 7, 7)
	}
	for _, c := range []struct {
		count, plen uint32
		err         string
	}{
		{1 << 31, 1, "stream of 2147483648 symbols where at most 100 fit"},
		{math.MaxUint32, 1, "stream of 4294967295 symbols"},
		{5, 1 << 31, "truncated stream"},
		{5, math.MaxUint32, "truncated stream"},
		{5, 5, "truncated stream"},
		{100, 4, ""},
	} {
		p, rest, err := parseStream(header(c.count, c.plen), 100)
		switch {
		case c.err == "" && (err != nil || p.count != int(c.count) || len(p.payload) != int(c.plen) || len(rest) != 0):
			t.Errorf("count %d, length %d: %+v, %d bytes left, %v", c.count, c.plen, p, len(rest), err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("count %d, length %d: error %v, want %q", c.count, c.plen, err, c.err)
		}
	}
	// The outliers' values of an image within the default budget,
	// 10^8×1 pixels in 15×15 patches: 4·6666667·225 symbols at most,
	// 1705033004 once wrapped to 32 bits, which refused 1800000000.
	// Beyond an int (3·10^9 on 32-bit platforms) a count is refused.
	body := append(header(6666667, 4), header(1800000000, 4)...)
	if odd, _, err := parseOutlierStreams(body, 6666667, 225); err != nil || odd[1].count != 1800000000 {
		t.Errorf("outlier values of 1800000000 symbols at most 6e9: count %d, %v", odd[1].count, err)
	}
	p, _, err := parseStream(header(3000000000, 4), 1<<33)
	if fits := math.MaxInt >= 3000000000; fits != (err == nil) || fits && int64(p.count) != 3000000000 {
		t.Errorf("3e9 symbols where an int holds %d: count %d, %v", math.MaxInt, p.count, err)
	}
}
