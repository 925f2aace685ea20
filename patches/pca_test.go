package patches

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/spcalab/spca/testimages"
)

func maxAbsDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) // max row sum ≥ max entry
}

func TestPCA(t *testing.T) {
	p := Luminance(testimages.Texture(96, 64, 3))
	x := Sample([]Plane{p}, 3, 2000, 1)
	pca, err := FitPCA(x)
	if err != nil {
		t.Fatal(err)
	}
	d := pca.Dim()
	if d != 9 {
		t.Fatalf("dim %d", d)
	}

	// Orthonormal basis, decreasing variance, sign convention.
	var btb mat.Dense
	btb.Mul(pca.Basis.T(), pca.Basis)
	if e := maxAbsDiff(&btb, eye(d)); e > 1e-12 {
		t.Errorf("BᵀB differs from I by %g", e)
	}
	for k := 1; k < d; k++ {
		if pca.Var[k] > pca.Var[k-1] {
			t.Errorf("Var not decreasing: %v", pca.Var)
		}
	}
	col := make([]float64, d)
	for k := range d {
		mat.Col(col, k, pca.Basis)
		if col[signIndex(col)] <= 0 {
			t.Errorf("component %d: largest entry negative: %v", k, col)
		}
	}
	// The first component of patches is the local mean: all positive.
	mat.Col(col, 0, pca.Basis)
	for _, v := range col {
		if v <= 0 {
			t.Errorf("first component %v not all positive", col)
			break
		}
	}

	// Forward decorrelates with the fitted variances; Inverse is exact.
	y := pca.Forward(nil, x)
	for k := range d {
		v := stat.Variance(mat.Col(nil, k, y), nil)
		if math.Abs(v-pca.Var[k]) > 1e-9*(1+pca.Var[0]) {
			t.Errorf("response %d has variance %v, want %v", k, v, pca.Var[k])
		}
	}
	back := pca.Inverse(nil, y)
	if e := maxAbsDiff(back, x); e > 1e-9 {
		t.Errorf("Inverse(Forward(x)) differs by %g", e)
	}
	// In place, into an empty receiver and into a sized one.
	z := mat.DenseCopyOf(x)
	pca.Forward(z, z)
	pca.Inverse(z, z)
	if e := maxAbsDiff(z, x); e > 1e-9 {
		t.Errorf("in-place round trip differs by %g", e)
	}
	var empty mat.Dense
	if pca.Forward(&empty, x); !mat.Equal(&empty, y) {
		t.Error("Forward into an empty matrix differs")
	}
	mustPanic(t, "wrong dst", func() { pca.Forward(mat.NewDense(3, 3, nil), x) })

	// Deterministic.
	again, _ := FitPCA(x)
	if !mat.Equal(again.Basis, pca.Basis) {
		t.Error("refit gave a different basis")
	}

	// Leading responses: Split, Join and the truncated inverse.
	lead, rest := Split(y, 3)
	if _, c := lead.Dims(); c != 3 {
		t.Fatal("lead columns")
	}
	if !mat.Equal(Join(lead, rest), y) {
		t.Error("Join(Split(y)) differs")
	}
	if l, r := Split(y, d); r != nil || !mat.Equal(Join(l, r), y) {
		t.Error("Split(y, d)")
	}
	approx := pca.Inverse(nil, lead)
	var proj mat.Dense
	y3 := mat.DenseCopyOf(y)
	for i := range 2000 {
		for k := 3; k < d; k++ {
			y3.Set(i, k, 0)
		}
	}
	proj.CloneFrom(pca.Inverse(nil, y3))
	if e := maxAbsDiff(approx, &proj); e > 1e-9 {
		t.Errorf("inverse of 3 leading responses differs from projection by %g", e)
	}

	if _, err := FitPCA(mat.NewDense(1, 4, nil)); err == nil {
		t.Error("one sample: no error")
	}
	bad := mat.DenseCopyOf(x)
	bad.Set(5, 2, math.NaN())
	if _, err := FitPCA(bad); err == nil {
		t.Error("NaN: no error")
	}
}

func eye(d int) *mat.Dense {
	m := mat.NewDense(d, d, nil)
	for i := range d {
		m.Set(i, i, 1)
	}
	return m
}

// roundedForward is Forward(nil, x) as amd64 computes it, where gonum's
// assembly does the product: row by row, the samples in turn (zeros
// skipped), each product rounded before it is added, then Mean·Basis
// subtracted. Where gonum's product is its pure Go (arm64, s390x), the
// compiler may fuse its y[i] += a*x[i] into FMAs, and Forward rounds
// differently there; Project rounds every product explicitly, so that
// encoders write the same files everywhere.
func roundedForward(p *PCA, x *mat.Dense) *mat.Dense {
	r, d := x.Dims()
	shift := make([]float64, d)
	for j := range d {
		for i, m := range p.Mean {
			shift[j] += float64(m * p.Basis.At(i, j))
		}
	}
	y := mat.NewDense(r, d, nil)
	for i := range r {
		row := y.RawRowView(i)
		for l := range d {
			if v := x.At(i, l); v != 0 {
				for j := range row {
					row[j] += float64(v * p.Basis.At(l, j))
				}
			}
		}
		for j := range row {
			row[j] -= shift[j]
		}
	}
	return y
}

// Project is Forward after Extract to the last bit, on planes that need
// padding and on planes with zero samples (Forward's product skips them):
// both are compared with roundedForward, Forward on amd64 only (see
// roundedForward).
func TestProject(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 8} {
		img := Luminance(testimages.Texture(61, 37, 5))
		for i := 0; i < len(img.Pix); i += 7 {
			img.Pix[i] = 0
		}
		pca, err := FitPCA(Sample([]Plane{img}, n, 3000, 2))
		if err != nil {
			t.Fatal(err)
		}
		x, g1 := Extract(img, n)
		want := roundedForward(pca, x)
		if fw := pca.Forward(nil, x); runtime.GOARCH == "amd64" && !mat.Equal(fw, want) {
			t.Errorf("n=%d: Forward differs from its products rounded by %g", n, maxAbsDiff(fw, want))
		}
		got, g2 := pca.Project(img, n)
		if g1 != g2 {
			t.Fatalf("n=%d: grid %+v, Extract's %+v", n, g2, g1)
		}
		if !mat.Equal(got, want) {
			t.Errorf("n=%d: Project differs from Forward(Extract) by %g", n, maxAbsDiff(got, want))
		}
		// A reused buffer full of other values: every response rewritten.
		buf := make([]float64, len(got.RawMatrix().Data)+5)
		for i := range buf {
			buf[i] = math.NaN()
		}
		if again, _ := pca.ProjectTo(buf, img, n); !mat.Equal(again, want) || &again.RawMatrix().Data[0] != &buf[0] {
			t.Errorf("n=%d: ProjectTo into a used buffer differs from Forward(Extract) or did not use it", n)
		}
		if short, _ := pca.ProjectTo(make([]float64, 1), img, n); !mat.Equal(short, want) {
			t.Errorf("n=%d: ProjectTo with a short buffer differs", n)
		}
	}
	pca, _ := FitPCA(Sample([]Plane{counting(20, 20)}, 2, 500, 1))
	if y, g := pca.ProjectGrayTo(nil, image.NewGray(image.Rect(0, 0, 0, 3)), 2); y != nil || g.Blocks() != 0 {
		t.Error("an empty grey image gave blocks")
	}
	if y, g := pca.Project(NewPlane(0, 3), 2); y != nil || g.Blocks() != 0 {
		t.Error("an empty plane gave blocks")
	}
	defer func() {
		if recover() == nil {
			t.Error("3×3 blocks for a PCA of dimension 4 did not panic")
		}
	}()
	pca.Project(counting(6, 6), 3)
}

func BenchmarkProject(b *testing.B) {
	tex := testimages.Texture(768, 512, 1)
	img := Luminance(tex)
	gray := image.NewGray(tex.Bounds())
	draw.Draw(gray, gray.Rect, tex, tex.Bounds().Min, draw.Src)
	for _, n := range []int{2, 4, 8} {
		pca, err := FitPCA(Sample([]Plane{img}, n, 5000, 1))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("project-%dx%d", n, n), func(b *testing.B) {
			for range b.N {
				pca.Project(img, n)
			}
		})
		b.Run(fmt.Sprintf("project-gray-%dx%d", n, n), func(b *testing.B) {
			// The encoder's path: 8-bit samples into a reused buffer.
			var buf []float64
			for range b.N {
				y, _ := pca.ProjectGrayTo(buf, gray, n)
				buf = y.RawMatrix().Data
			}
		})
		b.Run(fmt.Sprintf("extract+forward-%dx%d", n, n), func(b *testing.B) {
			for range b.N {
				x, _ := Extract(img, n)
				pca.Forward(nil, x)
			}
		})
	}
}

// projectFast (the AVX kernel on amd64) is project to the last bit, on
// responses of both signs, zero and negative-zero samples and a basis
// with large and tiny entries.
func TestProjectFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{4, 9, 16, 32, 48, 64} {
		checkProjectKernel(t, "projectFast", projectFast, d, 20, rng)
	}
}

// checkProjectKernel compares kernel's responses with project's to the
// last bit on trials random blocks of d samples (zeros of both signs and
// integers of both signs), bases of large and tiny entries, and shifts.
func checkProjectKernel(t *testing.T, name string, kernel func(dst, block, basis, shift []float64), d, trials int, rng *rand.Rand) {
	t.Helper()
	for trial := range trials {
		block := make([]float64, d)
		basis := make([]float64, d*d)
		shift := make([]float64, d)
		for i := range block {
			block[i] = []float64{0, math.Copysign(0, -1), float64(rng.IntN(256)), -float64(rng.IntN(256))}[rng.IntN(4)]
		}
		for i := range basis {
			basis[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
		for i := range shift {
			shift[i] = rng.NormFloat64() * 100
		}
		want, got := make([]float64, d), make([]float64, d)
		project(want, block, basis, shift)
		kernel(got, block, basis, shift)
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("%s, d=%d, trial %d: response %d is %v, project's %v", name, d, trial, j, got[j], want[j])
			}
		}
	}
}

// BenchmarkProjectKernel times one 8×8 block's 64 responses by project
// (portable Go) and projectFast (the AVX kernel where the CPU has it).
func BenchmarkProjectKernel(b *testing.B) {
	for _, d := range []int{16, 64} {
		block, basis, shift, dst := make([]float64, d), make([]float64, d*d), make([]float64, d), make([]float64, d)
		for i := range basis {
			basis[i] = float64(i%7) - 3.5
		}
		for i := range block {
			block[i] = float64(i * 3 % 256)
		}
		b.Run(fmt.Sprintf("go-%d", d), func(b *testing.B) {
			for range b.N {
				project(dst, block, basis, shift)
			}
		})
		b.Run(fmt.Sprintf("fast-%d", d), func(b *testing.B) {
			for range b.N {
				projectFast(dst, block, basis, shift)
			}
		})
	}
}

// ProjectGrayTo gives ProjectTo's responses to the last bit from the
// 8-bit samples, for images that need padding and for sub-images whose
// rows are further apart than their width, into a used buffer.
func TestProjectGrayTo(t *testing.T) {
	tex := testimages.Texture(83, 45, 9)
	whole := image.NewGray(tex.Bounds())
	draw.Draw(whole, whole.Rect, tex, tex.Bounds().Min, draw.Src)
	for i := 0; i < len(whole.Pix); i += 11 {
		whole.Pix[i] = 0
	}
	for _, n := range []int{1, 2, 3, 4, 8} {
		pca, err := FitPCA(Sample([]Plane{Luminance(whole)}, n, 3000, 2))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*image.Gray{whole, whole.SubImage(image.Rect(3, 5, 70, 44)).(*image.Gray),
			whole.SubImage(image.Rect(8, 8, 72, 40)).(*image.Gray)} {
			want, wg := pca.Project(Luminance(g), n)
			buf := make([]float64, len(want.RawMatrix().Data))
			for i := range buf {
				buf[i] = math.NaN()
			}
			got, gg := pca.ProjectGrayTo(buf, g, n)
			if gg != wg || !mat.Equal(got, want) || &got.RawMatrix().Data[0] != &buf[0] {
				t.Errorf("n=%d, %v: ProjectGrayTo differs from ProjectTo(Luminance) (grid %+v, want %+v) or did not use the buffer", n, g.Rect, gg, wg)
			}
		}
	}
}
