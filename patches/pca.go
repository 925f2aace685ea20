package patches

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/spcalab/spca/internal/parallel"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// PCA is an orthonormal linear transform fitted to patch vectors: the
// responses of a row x are y = (x - Mean)·Basis.
type PCA struct {
	// Mean is the mean row of the training data.
	Mean []float64
	// Basis is d×d and orthonormal; its columns are the principal
	// components in order of decreasing variance. The sign of each is
	// fixed so that its largest-magnitude entry is positive (the first
	// such entry, counting entries within a relative 1e-9 of the largest
	// as ties), which makes the basis independent of the eigensolver's
	// choice of sign.
	Basis *mat.Dense
	// Var holds the variance of the training data along each component
	// (unbiased, divisor N-1), in decreasing order.
	Var []float64
}

// FitPCA fits a PCA to the rows of x (N samples × d dimensions), from the
// eigendecomposition of their covariance matrix. It fails if x has fewer
// than two rows or a non-finite value, or if the eigendecomposition does
// not converge.
func FitPCA(x mat.Matrix) (*PCA, error) {
	r, d := x.Dims()
	if r < 2 {
		return nil, fmt.Errorf("patches: FitPCA: %d samples, need at least 2", r)
	}
	mean := make([]float64, d)
	for i := range r {
		for j := range d {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("patches: FitPCA: non-finite value %v at row %d, column %d", v, i, j)
			}
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil)
	var eig mat.EigenSym
	if !eig.Factorize(&cov, true) {
		return nil, errors.New("patches: FitPCA: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)

	p := &PCA{Mean: mean, Basis: mat.NewDense(d, d, nil), Var: make([]float64, d)}
	col := make([]float64, d)
	for k := range d {
		src := d - 1 - k
		p.Var[k] = max(vals[src], 0)
		mat.Col(col, src, &vecs)
		if col[signIndex(col)] < 0 {
			for i := range col {
				col[i] = -col[i]
			}
		}
		p.Basis.SetCol(k, col)
	}
	return p, nil
}

// signIndex returns the index of the first entry of v whose magnitude is
// within a relative 1e-9 of the largest.
func signIndex(v []float64) int {
	big := 0.0
	for _, e := range v {
		big = max(big, math.Abs(e))
	}
	for i, e := range v {
		if math.Abs(e) >= big*(1-1e-9) {
			return i
		}
	}
	return 0
}

// Dim returns the dimension d of the vectors.
func (p *PCA) Dim() int { return len(p.Mean) }

// prepare returns dst ready to receive an r×c result: a new matrix if dst
// is nil, dst resized if it is empty, dst itself if it is r×c. It panics
// otherwise.
func prepare(dst *mat.Dense, r, c int) *mat.Dense {
	switch {
	case dst == nil:
		return mat.NewDense(r, c, nil)
	case dst.IsEmpty():
		dst.ReuseAs(r, c)
		return dst
	}
	if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(mat.ErrShape)
	}
	return dst
}

// Forward stores in dst and returns the responses (x - Mean)·Basis of the
// rows of x, which must have d columns. dst may be nil (a new matrix is
// allocated), empty (it is resized) or of the size of x; it may be x.
func (p *PCA) Forward(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	r, c := x.Dims()
	if c != p.Dim() {
		panic(fmt.Sprintf("patches: PCA.Forward: %d columns, want %d", c, p.Dim()))
	}
	dst = prepare(dst, r, c)
	dst.Mul(x, p.Basis)
	shift := make([]float64, c) // Mean·Basis
	for j := range c {
		for i, m := range p.Mean {
			shift[j] += float64(m * p.Basis.At(i, j))
		}
	}
	raw := dst.RawMatrix()
	for i := range r {
		row := raw.Data[i*raw.Stride:][:c]
		for j := range row {
			row[j] -= shift[j]
		}
	}
	return dst
}

// Project returns the PCA responses of the n×n blocks of p with their
// grid: Forward(nil, x) for x, grid := Extract(p, n), equal to the last
// bit, without the intermediate matrix of samples and in parallel over
// rows of blocks (encoders call it on every image; Forward's general
// matrix product spends more time on 4-column rows than the products).
// It panics unless n² is the dimension of the PCA.
func (p *PCA) Project(pl Plane, n int) (*mat.Dense, Grid) {
	return p.ProjectTo(nil, pl, n)
}

// ProjectTo is Project writing the responses into buf where its capacity
// holds them (every element is written), so that an encoder of many
// images can reuse one buffer: a fresh 3 MB matrix per 768×512 image cost
// more in page faults and zeroing than the products. The result shares
// buf's storage.
func (p *PCA) ProjectTo(buf []float64, pl Plane, n int) (*mat.Dense, Grid) {
	checkPlane("Project", pl)
	return projectTo(p, buf, pl.Pix, pl.W, pl.W, pl.H, n)
}

// ProjectGrayTo is ProjectTo(buf, Luminance(g), n), the same responses to
// the last bit, read from g's 8-bit samples: without the plane of float64
// samples (3 MB for a 768×512 image, fresh memory in a process that
// encodes one image).
func (p *PCA) ProjectGrayTo(buf []float64, g *image.Gray, n int) (*mat.Dense, Grid) {
	b := g.Rect
	if b.Empty() {
		return projectTo(p, buf, []uint8(nil), 0, 0, 0, n)
	}
	return projectTo(p, buf, g.Pix[g.PixOffset(b.Min.X, b.Min.Y):], g.Stride, b.Dx(), b.Dy(), n)
}

// projectTo is ProjectTo for the samples pix of a w×h plane, rows stride
// apart.
func projectTo[T uint8 | float64](p *PCA, buf []float64, pix []T, stride, w, h, n int) (*mat.Dense, Grid) {
	g := NewGrid(w, h, n)
	d := p.Dim()
	if g.Dim() != d {
		panic(fmt.Sprintf("patches: PCA.Project: %d×%d blocks for a PCA of dimension %d", n, n, d))
	}
	if g.Blocks() == 0 {
		return nil, g
	}
	// d×d, row l = sample l: the basis's own values where they lie so
	// (a copy of 32 KB a channel and image was a colour batch's 1 MB of
	// fresh memory).
	raw := p.Basis.RawMatrix()
	basis := raw.Data
	if raw.Rows != d || raw.Cols != d || raw.Stride != d {
		basis = mat.DenseCopyOf(p.Basis).RawMatrix().Data
	}
	basis = basis[:d*d]
	shift := make([]float64, d) // Mean·Basis, as Forward sums it
	for j := range d {
		for i, m := range p.Mean {
			shift[j] += float64(m * basis[i*d+j])
		}
	}
	cols := g.Cols()
	data := buf
	if cap(data) < g.Blocks()*d {
		data = make([]float64, g.Blocks()*d)
	}
	data = data[:g.Blocks()*d]
	parallel.For(g.Rows(), func(by int) {
		// On the stack up to 8×8 patches (made, 32 KB a 768×512 channel
		// of fresh memory an image).
		var blockArr [64]float64
		block := blockArr[:min(d, len(blockArr))]
		if d > len(blockArr) {
			block = make([]float64, d)
		}
		bx := 0
		if n == 2 && 2*by+1 < h {
			// The 2×2 blocks inside the plane: the encoder's default,
			// with the sizes known to the compiler.
			r0 := pix[2*by*stride:][:w]
			r1 := pix[(2*by+1)*stride:][:w]
			b := (*[16]float64)(basis)
			sh := (*[4]float64)(shift)
			for ; 2*bx+1 < w; bx++ {
				project2(data[4*(by*cols+bx):], float64(r0[2*bx]), float64(r0[2*bx+1]), float64(r1[2*bx]), float64(r1[2*bx+1]), b, sh)
			}
		}
		if n == 8 && 8*by+8 <= h {
			// The 8×8 blocks inside the plane, rows copied whole (by the
			// AVX-512 kernels, read in place, where the CPU has it).
			switch p := any(pix).(type) {
			case []uint8:
				bx = projectGray8Row(data[by*cols*d:], p[8*by*stride:], stride, w, basis, shift)
			case []float64:
				bx = projectFloat8Row(data[by*cols*d:], p[8*by*stride:], stride, w, basis, shift)
			}
			b := (*[64]float64)(block)
			for ; 8*bx+8 <= w; bx++ {
				for dy := range 8 {
					src, dst := (*[8]T)(pix[(8*by+dy)*stride+8*bx:]), (*[8]float64)(b[8*dy:])
					for i, v := range src {
						dst[i] = float64(v)
					}
				}
				projectFast(data[(by*cols+bx)*d:][:d], block, basis, shift)
			}
		}
		if n == 4 && 4*by+4 <= h {
			// The same for 4×4 blocks (8-bit samples by the AVX-512
			// kernel, 4 blocks at a time, where the CPU has it).
			if p8, ok := any(pix).([]uint8); ok {
				bx = projectGray4Row(data[by*cols*d:], p8[4*by*stride:], stride, w, basis, shift)
			}
			b := (*[16]float64)(block)
			for ; 4*bx+4 <= w; bx++ {
				for dy := range 4 {
					src, dst := (*[4]T)(pix[(4*by+dy)*stride+4*bx:]), (*[4]float64)(b[4*dy:])
					for i, v := range src {
						dst[i] = float64(v)
					}
				}
				projectFast(data[(by*cols+bx)*d:][:d], block, basis, shift)
			}
		}
		for ; bx < cols; bx++ {
			for dy := range n {
				y := min(by*n+dy, h-1)
				src := pix[y*stride:][:w]
				for dx := range n {
					block[dy*n+dx] = float64(src[min(bx*n+dx, w-1)])
				}
			}
			projectFast(data[(by*cols+bx)*d:][:d], block, basis, shift)
		}
	})
	return mat.NewDense(g.Blocks(), d, data), g
}

// project2 is project for a 2×2 block (v0, v1 above v2, v3).
func project2(dst []float64, v0, v1, v2, v3 float64, b *[16]float64, shift *[4]float64) {
	dst = dst[:4]
	for j := 0; j < 4; j++ {
		a := 0.0
		a += float64(v0 * b[j])
		a += float64(v1 * b[4+j])
		a += float64(v2 * b[8+j])
		a += float64(v3 * b[12+j])
		dst[j] = a - shift[j]
	}
}

// project writes (block·basis) − shift into dst, every response summed
// in the order of Forward's product (samples in turn) so that the result
// is the same to the last bit. Forward's product skips zero samples; their
// terms are ±0 here, which leave a sum that starts at +0 unchanged, and
// adding them costs less than branching on them. Four responses go at
// once: each sum is a chain of dependent additions, and four independent
// chains keep the processor busy. Products are rounded (float64(v*b))
// before they are added: fused into FMAs (arm64, GOAMD64=v3) they would
// give other responses, and other files, than on amd64.
func project(dst, block, basis, shift []float64) {
	d := len(dst)
	j := 0
	for ; j+4 <= d; j += 4 {
		var a0, a1, a2, a3 float64
		for l, v := range block {
			b := basis[l*d+j : l*d+j+4]
			a0 += float64(v * b[0])
			a1 += float64(v * b[1])
			a2 += float64(v * b[2])
			a3 += float64(v * b[3])
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = a0-shift[j], a1-shift[j+1], a2-shift[j+2], a3-shift[j+3]
	}
	for ; j < d; j++ {
		var a float64
		for l, v := range block {
			a += float64(v * basis[l*d+j])
		}
		dst[j] = a - shift[j]
	}
}

// Inverse stores in dst and returns y·Basisᵀ + Mean, the inverse of
// Forward. y may have k ≤ d columns, the leading responses, in which case
// the others are taken as zero (the mean): the result is the projection on
// the first k components. dst may be nil, empty or N×d; it may be y if
// k = d.
func (p *PCA) Inverse(dst *mat.Dense, y mat.Matrix) *mat.Dense {
	r, k := y.Dims()
	d := p.Dim()
	if k < 1 || k > d {
		panic(fmt.Sprintf("patches: PCA.Inverse: %d columns, want 1 to %d", k, d))
	}
	dst = prepare(dst, r, d)
	dst.Mul(y, p.Basis.Slice(0, d, 0, k).T())
	raw := dst.RawMatrix()
	for i := range r {
		row := raw.Data[i*raw.Stride:][:d]
		for j := range row {
			row[j] += p.Mean[j]
		}
	}
	return dst
}

// Split returns views of the first k columns of y and of the others, which
// share y's memory; rest is nil if k equals the number of columns. It is
// meant for coding the leading PCA responses one way and the rest another.
// It panics unless 1 ≤ k ≤ the number of columns.
func Split(y *mat.Dense, k int) (lead, rest *mat.Dense) {
	r, c := y.Dims()
	if k < 1 || k > c {
		panic(fmt.Sprintf("patches: Split: k = %d out of 1..%d", k, c))
	}
	lead = y.Slice(0, r, 0, k).(*mat.Dense)
	if k < c {
		rest = y.Slice(0, r, k, c).(*mat.Dense)
	}
	return lead, rest
}

// Join returns a new matrix holding the columns of lead followed by those
// of rest, which may be nil; it undoes Split.
func Join(lead, rest *mat.Dense) *mat.Dense {
	r, k := lead.Dims()
	if rest == nil {
		return mat.DenseCopyOf(lead)
	}
	rr, c := rest.Dims()
	if rr != r {
		panic(fmt.Sprintf("patches: Join: %d and %d rows", r, rr))
	}
	out := mat.NewDense(r, k+c, nil)
	out.Slice(0, r, 0, k).(*mat.Dense).Copy(lead)
	out.Slice(0, r, k, k+c).(*mat.Dense).Copy(rest)
	return out
}
