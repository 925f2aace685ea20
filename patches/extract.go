package patches

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Grid describes how Extract cut a plane: the plane was W×H, it was padded
// by edge replication to PaddedW×PaddedH (the next multiples of N) and cut
// into N×N blocks.
type Grid struct {
	W, H             int
	PaddedW, PaddedH int
	N                int
}

// NewGrid returns the grid of n×n blocks covering a w×h plane. It panics if
// n < 1 or w or h is negative.
func NewGrid(w, h, n int) Grid {
	if n < 1 {
		panic(fmt.Sprintf("patches: block size %d < 1", n))
	}
	if w < 0 || h < 0 {
		panic(fmt.Sprintf("patches: negative plane size %d×%d", w, h))
	}
	return Grid{W: w, H: h, PaddedW: ceilMul(w, n), PaddedH: ceilMul(h, n), N: n}
}

func ceilMul(v, n int) int { return (v + n - 1) / n * n }

// Cols returns the number of blocks in a row of the grid.
func (g Grid) Cols() int { return g.PaddedW / g.N }

// Rows returns the number of rows of blocks.
func (g Grid) Rows() int { return g.PaddedH / g.N }

// Blocks returns the number of blocks, the number of rows of the matrix of
// Extract.
func (g Grid) Blocks() int { return g.Cols() * g.Rows() }

// Dim returns N², the number of columns of the matrix of Extract.
func (g Grid) Dim() int { return g.N * g.N }

// Extract cuts p into n×n blocks and returns them as the rows of a matrix,
// with the grid needed to put them back (Assemble).
//
// Rows are the blocks in raster order (left to right, then top to bottom);
// the columns of a row are the n² samples of its block in raster order, so
// column j holds the sample at offset (j mod n, j / n) in the block. When W
// or H is not a multiple of n, the plane is first padded on the right and
// at the bottom by replicating its last column and row. An empty plane
// gives no blocks and a nil matrix. Extract panics if n < 1.
func Extract(p Plane, n int) (*mat.Dense, Grid) {
	checkPlane("Extract", p)
	g := NewGrid(p.W, p.H, n)
	if g.Blocks() == 0 {
		return nil, g
	}
	d := g.Dim()
	data := make([]float64, g.Blocks()*d)
	cols := g.Cols()
	for by := range g.Rows() {
		for dy := range n {
			y := min(by*n+dy, p.H-1)
			src := p.Pix[y*p.W : (y+1)*p.W]
			for bx := range cols {
				dst := data[(by*cols+bx)*d+dy*n:][:n]
				x0 := bx * n
				if x0+n <= p.W {
					copy(dst, src[x0:x0+n])
					continue
				}
				for dx := range dst {
					dst[dx] = src[min(x0+dx, p.W-1)]
				}
			}
		}
	}
	return mat.NewDense(g.Blocks(), d, data), g
}

// Assemble puts the blocks in the rows of x back in place and crops the
// padding: it inverts Extract exactly. It panics if x is not
// g.Blocks()×g.Dim(); for a grid without blocks x may be nil.
func Assemble(x mat.Matrix, g Grid) Plane {
	r, c := 0, 0
	if x != nil {
		r, c = x.Dims()
	}
	if g.N >= 1 && g.Blocks() == 0 && r == 0 {
		return NewPlane(g.W, g.H)
	}
	if g.N < 1 || r != g.Blocks() || c != g.Dim() {
		panic(fmt.Sprintf("patches: Assemble: matrix is %d×%d, grid needs %d×%d", r, c, g.Blocks(), g.Dim()))
	}
	p := NewPlane(g.W, g.H)
	n, cols := g.N, g.Cols()
	var raw []float64
	stride := 0
	if dx, ok := x.(mat.RawMatrixer); ok {
		rm := dx.RawMatrix()
		raw, stride = rm.Data, rm.Stride
	}
	for y := range g.H {
		by, dy := y/n, y%n
		dst := p.Pix[y*g.W : (y+1)*g.W]
		for bx := range cols {
			x0 := bx * n
			w := min(n, g.W-x0)
			row := by*cols + bx
			if raw != nil {
				copy(dst[x0:x0+w], raw[row*stride+dy*n:][:w])
				continue
			}
			for k := range w {
				dst[x0+k] = x.At(row, dy*n+k)
			}
		}
	}
	return p
}

// Sample draws count n×n patches from the planes for training and returns
// them as the rows of a matrix, laid out like the rows of Extract.
//
// Patches are drawn at any position, not only on the block grid, and
// without replacement: every placement of an n×n window entirely inside
// one of the planes is equally likely, so a plane contributes in
// proportion to its number of positions, (W-n+1)(H-n+1), which is about its
// area. Planes smaller than n×n contribute nothing. If count is at least
// the number of positions, every position is returned once. The rows come
// in random order; the positions depend only on the sizes of the planes,
// n, count and seed.
//
// Sample panics if n < 1, count < 1 or no plane holds an n×n patch.
func Sample(planes []Plane, n, count int, seed uint64) *mat.Dense {
	if n < 1 {
		panic(fmt.Sprintf("patches: block size %d < 1", n))
	}
	if count < 1 {
		panic(fmt.Sprintf("patches: Sample: count %d < 1", count))
	}
	// first[i] is the index of the first position of plane i.
	first := make([]int64, len(planes)+1)
	for i, p := range planes {
		checkPlane("Sample", p)
		k := int64(0)
		if p.W >= n && p.H >= n {
			k = int64(p.W-n+1) * int64(p.H-n+1)
		}
		first[i+1] = first[i] + k
	}
	total := first[len(planes)]
	if total == 0 {
		panic(fmt.Sprintf("patches: Sample: no plane holds a %d×%d patch", n, n))
	}
	rng := rand.New(rand.NewPCG(seed, 0x7061_7463_6865_73)) // "patches"

	var idx []int64
	if int64(count) >= total {
		idx = make([]int64, total)
		for i := range idx {
			idx[i] = int64(i)
		}
	} else {
		// Floyd's algorithm: count distinct positions out of total.
		idx = make([]int64, 0, count)
		seen := make(map[int64]struct{}, count)
		for j := total - int64(count); j < total; j++ {
			t := rng.Int64N(j + 1)
			if _, dup := seen[t]; dup {
				t = j
			}
			seen[t] = struct{}{}
			idx = append(idx, t)
		}
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })

	d := n * n
	out := mat.NewDense(len(idx), d, nil)
	raw := out.RawMatrix()
	for r, pos := range idx {
		// The plane holding pos is the last one starting at or before it
		// (empty planes start where the next one does).
		lo, hi := 0, len(planes)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if first[mid] <= pos {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		p := planes[lo]
		off := pos - first[lo]
		nx := int64(p.W - n + 1)
		x0, y0 := int(off%nx), int(off/nx)
		dst := raw.Data[r*raw.Stride:][:d]
		for dy := range n {
			copy(dst[dy*n:(dy+1)*n], p.Pix[(y0+dy)*p.W+x0:][:n])
		}
	}
	return out
}
