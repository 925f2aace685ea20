package adapt

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/spcalab/spca/colorspace"
)

// funcLUT returns a LUT of size n sampling f.
func funcLUT(n int, f func(c [3]float64) [3]float64) *LUT {
	l := &LUT{Size: n, DomainMax: [3]float64{1, 1, 1}, Table: make([]float32, 3*n*n*n)}
	for b := range n {
		for g := range n {
			for r := range n {
				v := f([3]float64{float64(r) / float64(n-1), float64(g) / float64(n-1), float64(b) / float64(n-1)})
				i := 3 * (r + n*(g+n*b))
				for k := range 3 {
					l.Table[i+k] = float32(v[k])
				}
			}
		}
	}
	return l
}

func smoothMap(c [3]float64) [3]float64 {
	return [3]float64{
		0.5 + 0.4*math.Sin(1.3*c[0]+0.4*c[1]*c[2]),
		c[1] * c[1] * (0.6 + 0.3*c[0]),
		0.2 + 0.7*c[2]*math.Exp(-0.5*c[0]),
	}
}

func maxDiff(a, b [3]float64) float64 {
	return max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1]), math.Abs(a[2]-b[2]))
}

func TestLUTExactAtNodes(t *testing.T) {
	l := funcLUT(9, smoothMap)
	for b := range 9 {
		for g := range 9 {
			for r := range 9 {
				c := [3]float64{float64(r) / 8, float64(g) / 8, float64(b) / 8}
				want := l.node(r, g, b)
				if d := maxDiff(l.Eval(c), want); d > 1e-12 {
					t.Fatalf("tetrahedral at node %v: off by %g", c, d)
				}
				if d := maxDiff(l.EvalTrilinear(c), want); d > 1e-12 {
					t.Fatalf("trilinear at node %v: off by %g", c, d)
				}
			}
		}
	}
}

func TestLUTInterpolation(t *testing.T) {
	// Tetrahedral interpolation reproduces affine maps exactly.
	affine := func(c [3]float64) [3]float64 {
		return [3]float64{0.1 + 0.5*c[0] - 0.2*c[1] + 0.3*c[2], 0.8*c[1] + 0.1*c[2], 0.25 + 0.25*c[0] + 0.25*c[2]}
	}
	la := funcLUT(5, affine)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		c := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		if d := maxDiff(la.Eval(c), affine(c)); d > 1e-6 {
			t.Fatalf("affine map at %v: off by %g", c, d)
		}
	}
	// On a smooth map both schemes converge to it and to each other, at
	// second order.
	var prevTet, prevTri float64
	for _, n := range []int{9, 17, 33} {
		l := funcLUT(n, smoothMap)
		var eTet, eTri, eBoth float64
		for range 5000 {
			c := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
			want := smoothMap(c)
			tet, tri := l.Eval(c), l.EvalTrilinear(c)
			eTet = max(eTet, maxDiff(tet, want))
			eTri = max(eTri, maxDiff(tri, want))
			eBoth = max(eBoth, maxDiff(tet, tri))
		}
		t.Logf("size %d: max error tetrahedral %.2e trilinear %.2e, between them %.2e", n, eTet, eTri, eBoth)
		if eBoth > 2*max(eTet, eTri) || eTet > 0.02 {
			t.Errorf("size %d: tetrahedral %.2e, trilinear %.2e, difference %.2e", n, eTet, eTri, eBoth)
		}
		if prevTet > 0 && (eTet > prevTet/2.5 || eTri > prevTri/2.5) {
			t.Errorf("size %d: errors %.2e, %.2e do not fall like h² (before %.2e, %.2e)", n, eTet, eTri, prevTet, prevTri)
		}
		prevTet, prevTri = eTet, eTri
	}
	// Outside the domain the input is clamped.
	l := funcLUT(5, smoothMap)
	if d := maxDiff(l.Eval([3]float64{-1, 2, math.NaN()}), l.node(0, 4, 0)); d > 1e-12 {
		t.Errorf("clamping: off by %g", d)
	}
}

func TestCubeRoundTrip(t *testing.T) {
	l := funcLUT(17, smoothMap)
	l.Title = `map "B" to A`
	l.Table[5] = 1e-7 // tiny values stay exact too
	var buf bytes.Buffer
	if err := l.WriteCube(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for _, want := range []string{`TITLE "map 'B' to A"`, "LUT_3D_SIZE 17", "DOMAIN_MIN 0 0 0", "DOMAIN_MAX 1 1 1"} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("missing line %q", want)
		}
	}
	data := 0
	for _, s := range lines {
		if s != "" && (s[0] >= '0' && s[0] <= '9') {
			data++
		}
	}
	if data != 17*17*17 {
		t.Errorf("%d data lines, want %d", data, 17*17*17)
	}
	// Red varies fastest: the second data line is node (1, 0, 0).
	first := len(lines) - data
	v, _ := parseFloats(lines[first+1], 3)
	n := l.node(1, 0, 0)
	for k := range 3 {
		if float32(v[k]) != float32(n[k]) {
			t.Errorf("second data line %q is not node (1, 0, 0) %v", lines[first+1], n)
		}
	}
	got, err := ReadCube(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "map 'B' to A" || got.Size != 17 || got.DomainMin != l.DomainMin || got.DomainMax != l.DomainMax {
		t.Errorf("header %q %d %v %v", got.Title, got.Size, got.DomainMin, got.DomainMax)
	}
	for i := range l.Table {
		if got.Table[i] != l.Table[i] {
			t.Fatalf("value %d: %v, want %v", i, got.Table[i], l.Table[i])
		}
	}
}

func TestReadCubeErrors(t *testing.T) {
	table := func(n int) string {
		var b strings.Builder
		for range n * n * n {
			b.WriteString("0.5 0.25 1\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "no LUT_3D_SIZE"},
		{"no size", "TITLE \"x\"\n0 0 0\n", "before LUT_3D_SIZE"},
		{"short", "LUT_3D_SIZE 2\n" + "0 0 0\n", "1 table lines, want 8"},
		{"long", "LUT_3D_SIZE 2\n" + table(2) + "0 0 0\n", "line 10: more than 8 table lines"},
		{"two values", "LUT_3D_SIZE 2\n0 0\n", "2 values, want 3"},
		{"not a number", "LUT_3D_SIZE 2\n0 x 0\n", `"x" is not a finite number`},
		{"nan", "LUT_3D_SIZE 2\n0 NaN 0\n", "not a finite number"},
		{"size", "LUT_3D_SIZE 1\n", "LUT_3D_SIZE \"1\""},
		{"size big", "LUT_3D_SIZE 300\n", "not an integer in [2, 256]"},
		{"size twice", "LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", "given twice"},
		{"1d", "LUT_1D_SIZE 16\n", "1-D LUTs are not supported"},
		{"keyword", "LUT_3D_SIZE 2\nFOO 1\n", `unknown keyword "FOO"`},
		{"late keyword", "LUT_3D_SIZE 2\n0 0 0\nDOMAIN_MIN 0 0 0\n", "after the table data"},
		{"title", "TITLE abc\n", "quoted string"},
		{"domain", "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n" + table(2), "DOMAIN_MIN: 2 values"},
		{"empty domain", "LUT_3D_SIZE 2\nDOMAIN_MIN 1 0 0\n" + table(2), "empty or infinite"},
		{"binary", "\x89PNG\r\n\x1a\n", "unknown keyword"},
	} {
		_, err := ReadCube(strings.NewReader(tc.text))
		if err == nil || !errors.Is(err, ErrCube) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrCube containing %q", tc.name, err, tc.want)
		}
	}
	// Comments, blank lines, tabs and a custom domain are accepted.
	l, err := ReadCube(strings.NewReader("# c\n\nTITLE \"t\"\nLUT_3D_SIZE\t2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 2 2 2\n" + table(2)))
	if err != nil {
		t.Fatal(err)
	}
	if l.DomainMax != [3]float64{2, 2, 2} {
		t.Errorf("domain max %v", l.DomainMax)
	}
}

// TestApplyMatchesEval checks the integer 8-bit and float32 16-bit image
// paths against LUT.Eval.
func TestApplyMatchesEval(t *testing.T) {
	l := funcLUT(17, smoothMap)
	rng := rand.New(rand.NewPCG(3, 4))
	img8 := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for i := range img8.Pix {
		img8.Pix[i] = uint8(rng.IntN(256))
	}
	img16 := image.NewNRGBA64(image.Rect(0, 0, 64, 48))
	for i := range img16.Pix {
		img16.Pix[i] = uint8(rng.IntN(256))
	}
	out8, err := l.Apply(img8, 3)
	if err != nil {
		t.Fatal(err)
	}
	out16, _ := l.Apply(img16, 1)
	o8, o16 := out8.(*image.NRGBA), out16.(*image.NRGBA64)
	worst8, worst16 := 0.0, 0.0
	for y := range 48 {
		for x := range 64 {
			c := img8.NRGBAAt(x, y)
			want := l.Eval([3]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255})
			g := o8.NRGBAAt(x, y)
			worst8 = max(worst8, maxDiff([3]float64{float64(g.R), float64(g.G), float64(g.B)}, [3]float64{want[0] * 255, want[1] * 255, want[2] * 255}))
			if g.A != c.A {
				t.Fatalf("8-bit alpha changed at (%d, %d): %d -> %d", x, y, c.A, g.A)
			}
			c16 := img16.NRGBA64At(x, y)
			want = l.Eval([3]float64{float64(c16.R) / 65535, float64(c16.G) / 65535, float64(c16.B) / 65535})
			g16 := o16.NRGBA64At(x, y)
			worst16 = max(worst16, maxDiff([3]float64{float64(g16.R), float64(g16.G), float64(g16.B)}, [3]float64{want[0] * 65535, want[1] * 65535, want[2] * 65535}))
			if g16.A != c16.A {
				t.Fatalf("16-bit alpha changed at (%d, %d)", x, y)
			}
		}
	}
	// Rounding to integers: at most half a step plus the fixed-point and
	// float32 error.
	if worst8 > 0.51 || worst16 > 1.0 {
		t.Errorf("image paths differ from Eval by %.3f (8-bit steps), %.3f (16-bit steps)", worst8, worst16)
	}
}

// TestApplyTypes checks that size, bit depth, bounds and alpha are kept
// for every image type.
func TestApplyTypes(t *testing.T) {
	l := funcLUT(5, smoothMap)
	r := image.Rect(3, 2, 13, 9)
	rgba := image.NewRGBA(r)
	nrgba := image.NewNRGBA(r)
	rgba64 := image.NewRGBA64(r)
	nrgba64 := image.NewNRGBA64(r)
	gray := image.NewGray(r)
	gray16 := image.NewGray16(r)
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			a := uint8(255)
			if x == r.Min.X {
				a = 128 // translucent column
			}
			if x == r.Min.X+1 {
				a = 0
			}
			c := color.NRGBA{uint8(20 * x), uint8(25 * y), 90, a}
			rgba.Set(x, y, c)
			nrgba.Set(x, y, c)
			rgba64.Set(x, y, c)
			nrgba64.Set(x, y, c)
			gray.Set(x, y, c)
			gray16.Set(x, y, c)
		}
	}
	for _, tc := range []struct {
		in    image.Image
		depth int
		alpha bool
	}{
		{rgba, 8, true}, {nrgba, 8, true}, {rgba64, 16, true}, {nrgba64, 16, true},
		{gray, 8, false}, {gray16, 16, false}, {ycc, 8, false},
		{nrgba.SubImage(image.Rect(5, 3, 9, 8)), 8, true},
	} {
		out, err := l.Apply(tc.in, 0)
		if err != nil {
			t.Fatal(err)
		}
		if out.Bounds() != tc.in.Bounds() {
			t.Errorf("%T: bounds %v, want %v", tc.in, out.Bounds(), tc.in.Bounds())
		}
		if BitDepth(out) != tc.depth {
			t.Errorf("%T: result %T has %d bits, want %d", tc.in, out, BitDepth(out), tc.depth)
		}
		b := tc.in.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				_, _, _, ai := tc.in.At(x, y).RGBA()
				_, _, _, ao := out.At(x, y).RGBA()
				if ai>>8 != ao>>8 {
					t.Fatalf("%T: alpha at (%d, %d) %d -> %d", tc.in, x, y, ai, ao)
				}
			}
		}
		// Exact mapping keeps the same type, bounds and alpha.
		ex, err := ApplyExact(tc.in, Identity())
		if err != nil {
			t.Fatal(err)
		}
		if ex.Bounds() != tc.in.Bounds() || BitDepth(ex) != tc.depth {
			t.Errorf("%T: exact result %T %v", tc.in, ex, ex.Bounds())
		}
	}
	// The colour of a translucent premultiplied pixel is mapped like the
	// opaque colour.
	opaque, _ := l.Apply(nrgba, 1)
	trans, _ := l.Apply(rgba, 1)
	p := color.NRGBAModel.Convert(trans.At(r.Min.X, r.Min.Y)).(color.NRGBA)
	q := opaque.(*image.NRGBA).NRGBAAt(r.Min.X, r.Min.Y)
	if d := max(absDiff(p.R, q.R), absDiff(p.G, q.G), absDiff(p.B, q.B)); d > 2 {
		t.Errorf("translucent pixel mapped to %v, opaque one to %v", p, q)
	}
	if _, err := (&LUT{Size: 3}).Apply(nrgba, 1); err == nil {
		t.Error("Apply accepted a LUT without a table")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestIdentityLUT: the LUT of the identity mapper returns 8-bit images
// unchanged (up to the clipping of LMSToSRGB, which is none inside the
// gamut).
func TestIdentityLUT(t *testing.T) {
	l, err := BuildLUT(Identity(), 17, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	img := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	out, _ := l.Apply(img, 2)
	worst := 0
	for i, v := range out.(*image.NRGBA).Pix {
		worst = max(worst, absDiff(v, img.Pix[i]))
	}
	if worst > 2 {
		t.Errorf("identity LUT changes values by up to %d", worst)
	}
	for _, size := range []int{1, 257} {
		if _, err := BuildLUT(Identity(), size, nil); err == nil {
			t.Errorf("size %d accepted", size)
		}
	}
	_ = colorspace.SRGB{}
}

// BuildLUT kept the nodes' colours in and out as whole-cube slices: 60
// bytes a node in all, 1 GB at --lut-size 256. Now the table (12 bytes a
// node) and one batch of colours; the nodes are still in .cube order (red
// fastest) at their exact values.
func TestBuildLUTMemory(t *testing.T) {
	const size = 48
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := BuildLUT(Identity(), size, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	n := size * size * size
	if perNode := float64(after.TotalAlloc-before.TotalAlloc) / float64(n); perNode > 20 {
		t.Errorf("BuildLUT allocated %.1f bytes a node, want <= 20 (the table takes 12)", perNode)
	}
	for _, node := range [][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {47, 3, 29}, {size - 1, size - 1, size - 1}} {
		want := [3]float64{}
		for k := range 3 {
			want[k] = float64(float32(float64(node[k]) / (size - 1)))
		}
		got := l.node(node[0], node[1], node[2])
		for k := range 3 {
			if math.Abs(got[k]-want[k]) > 1e-6 {
				t.Errorf("node %v = %v, want %v", node, got, want)
				break
			}
		}
	}
}
