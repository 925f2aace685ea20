package adapt

import (
	"fmt"
	"image"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
)

// Alignment says how B's colours are brought towards A's before B's SPCA
// model sees them (Options.Alignment).
type Alignment int

const (
	// AlignGains scales each cone of B by the gray-world gain
	// mean_A / mean_B (Model.Gains): the default.
	AlignGains Alignment = iota
	// AlignMatrix multiplies B's colours by the 3×3 matrix that maps the
	// training pairs' B colours onto their A colours best (FitAlignment;
	// Model.Align). It needs corresponding pairs: Train draws the same
	// pixels of image i of A and of B, which must have equal sizes;
	// TrainSamples takes them as Options.PairedA and PairedB.
	AlignMatrix
)

// String returns the name of the alignment as the command line spells it.
func (a Alignment) String() string {
	switch a {
	case AlignGains:
		return "gains"
	case AlignMatrix:
		return "matrix"
	}
	return fmt.Sprintf("Alignment(%d)", int(a))
}

// ParseAlignment parses the name of an alignment ("gains", "matrix").
func ParseAlignment(s string) (Alignment, error) {
	for _, a := range []Alignment{AlignGains, AlignMatrix} {
		if s == a.String() {
			return a, nil
		}
	}
	return 0, fmt.Errorf("adapt: unknown alignment %q (want gains or matrix)", s)
}

// alignSamples is the number of corresponding pixels Train draws to fit
// the alignment matrix.
const alignSamples = 100000

// pairedSamples draws the LMS colours of the same n pixels of the images
// of A and of B (image i of each must have the same size), skipping pixels
// transparent in either.
func pairedSamples(a, b []image.Image, n int, seed uint64) (pa, pb *mat.Dense, err error) {
	if len(a) != len(b) {
		return nil, nil, fmt.Errorf("adapt: matrix alignment needs corresponding pairs: %d images of A, %d of B", len(a), len(b))
	}
	for i := range a {
		if a[i].Bounds().Size() != b[i].Bounds().Size() {
			return nil, nil, fmt.Errorf("adapt: matrix alignment needs corresponding pairs: image %d is %v in A, %v in B",
				i+1, a[i].Bounds().Size(), b[i].Bounds().Size())
		}
	}
	if pa, err = SampleLMS(a, n, seed); err != nil {
		return nil, nil, err
	}
	if pb, err = SampleLMS(b, n, seed); err != nil {
		return nil, nil, err
	}
	if ra, _ := pa.Dims(); ra != pb.RawMatrix().Rows {
		return nil, nil, fmt.Errorf("adapt: matrix alignment needs corresponding pairs: the images' transparent pixels differ between A and B")
	}
	return pa, pb, nil
}

// alignWeightPower is the power p of the weights 1/(Y_A + Y_B + 0.01)^p
// of FitAlignment's least squares, chosen before measuring: 4/3 makes the
// weighted squared error that of Y^(1/3), as lightness is. On the
// generated scenes p = 0, 2/3 and 4/3 gave SPCA 7.89, 7.90 and 7.89 (L*
// W1 4.38, 4.48, 4.29).
const alignWeightPower = 4.0 / 3

// FitAlignment returns the 3×3 matrix M (LMS to LMS, no offset) that maps
// the rows of b onto the corresponding rows of a best in weighted least
// squares, Σ w_i |a_i − M b_i|², with w_i = 1/(Y(a_i) + Y(b_i) + 0.01)^(4/3):
// errors relative to the colours' luminance, as lightness differences
// are (L* grows as Y^(1/3)), so the dark pixels that most of a photograph
// holds count as much as the bright ones. A colour that is NaN, infinite
// or beyond ±MaxLMS gives a *spca.DataError naming it.
func FitAlignment(a, b mat.Matrix) (colorspace.Mat3, error) {
	n, _ := a.Dims()
	if nb, _ := b.Dims(); nb != n || n < 3 {
		return colorspace.Mat3{}, fmt.Errorf("adapt: alignment needs at least 3 corresponding colours (A %d, B %d)", n, nb)
	}
	// Checked as TrainSamples checks its samples: a NaN or infinite
	// colour made the fit say that B's colours span fewer than 3
	// dimensions (of A's too), and other than 3 columns panicked.
	for i, x := range []mat.Matrix{a, b} {
		if _, d := x.Dims(); d != 3 {
			return colorspace.Mat3{}, fmt.Errorf("adapt: alignment: the colours of %c have %d columns, want 3 (L, M, S)", "AB"[i], d)
		}
		if err := finiteLMS(x); err != nil {
			return colorspace.Mat3{}, fmt.Errorf("adapt: alignment: the colours of %c: %w", "AB"[i], unprefixed{err})
		}
	}
	var bb [9]float64    // Σ w b bᵀ
	var ab [3][3]float64 // Σ w a_k b_j
	for i := range n {
		ca := colorspace.LMS{a.At(i, 0), a.At(i, 1), a.At(i, 2)}
		cb := colorspace.LMS{b.At(i, 0), b.At(i, 1), b.At(i, 2)}
		w := 1 / math.Pow(max(0, luminance(ca))+max(0, luminance(cb))+0.01, alignWeightPower)
		for j := range 3 {
			for k := range 3 {
				bb[3*j+k] += w * cb[j] * cb[k]
				ab[j][k] += w * ca[j] * cb[k]
			}
		}
	}
	inv, err := colorspace.Mat3(bb).Inverse()
	if err != nil {
		return colorspace.Mat3{}, fmt.Errorf("adapt: cannot fit the alignment: B's colours span fewer than 3 dimensions")
	}
	var m colorspace.Mat3
	for r := range 3 {
		for c := range 3 {
			for k := range 3 {
				m[3*r+c] += ab[r][k] * inv[3*k+c]
			}
		}
	}
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return colorspace.Mat3{}, fmt.Errorf("adapt: cannot fit the alignment: not finite")
		}
	}
	return m, nil
}
