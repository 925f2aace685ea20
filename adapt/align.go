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
	// mean_A / mean_B (Model.Gains): the zero value, and what AlignAuto
	// chooses when no linear map explains the pairs.
	AlignGains Alignment = iota
	// AlignMatrix multiplies B's colours by the 3×3 matrix that maps the
	// training pairs' B colours onto their A colours best (FitAlignment;
	// Model.Align). It needs corresponding pairs: Train draws the same
	// pixels of image i of A and of B, which must have equal sizes;
	// TrainSamples takes them as Options.PairedA and PairedB.
	AlignMatrix
	// AlignAuto (DefaultOptions) fits the matrix of AlignMatrix on the
	// corresponding pairs when there are any and uses it when it explains
	// them (AlignmentResidual below AutoAlignThreshold), else the gains:
	// see AutoAlignThreshold. Model.AlignChoice records what was chosen
	// and why.
	AlignAuto
)

// AutoAlignThreshold is the AlignmentResidual below which AlignAuto takes
// the fitted 3×3 matrix instead of the gray-world gains: a linear map then
// explains the pairs, B being (nearly) a linear image of A, as under a
// change of light on the same surfaces with no change of shading. The
// residuals measured (100,000 pairs each, session 16) fall in two groups a
// factor 20 apart: Kodak photographs relit with illuminant A (three
// spectral upsamplings, kodim01-12 and 13-24, exposure 1 and 0.5)
// 0.012-0.021, generated scenes relit linearly 0.006, against 0.41-0.45
// for every generated scene set of spca synth scenes (seeds 1-6, where B
// has its own shading and cast shadows, so that no linear map of B's
// colour gives A's). 0.1 is near their geometric middle (0.094), five
// times the photographs' largest and a quarter of the scenes' least.
const AutoAlignThreshold = 0.1

// AlignmentChoice records how a model's alignment was chosen at training
// (Model.AlignChoice; model format 6).
type AlignmentChoice struct {
	// Asked is the Options.Alignment of the training: AlignAuto or
	// AlignMatrix (a model trained with AlignGains records no choice).
	Asked Alignment
	// Residual is the AlignmentResidual of the matrix fitted on the
	// corresponding pairs; NaN when there were none (the images of A and
	// of B are not pairs of equal sizes, or B's colours span fewer than
	// 3 dimensions).
	Residual float64
	// Threshold is AutoAlignThreshold at training.
	Threshold float64
	// Chosen is the alignment the model applies: AlignMatrix or
	// AlignGains.
	Chosen Alignment
}

// String says what was chosen and why, as spca adapt train prints it.
func (c AlignmentChoice) String() string {
	res := "no corresponding pairs to fit a matrix on"
	if !math.IsNaN(c.Residual) {
		res = fmt.Sprintf("residual of the 3×3 matrix on the pairs %.4f", c.Residual)
	}
	switch {
	case c.Asked != AlignAuto:
		return fmt.Sprintf("%v (asked; %s)", c.Chosen, res)
	case c.Chosen == AlignMatrix:
		return fmt.Sprintf("matrix (auto: %s, below %g: a linear map explains the pairs)", res, c.Threshold)
	case math.IsNaN(c.Residual):
		return fmt.Sprintf("gains (auto: %s)", res)
	}
	return fmt.Sprintf("gains (auto: %s, not below %g: no linear map explains the pairs)", res, c.Threshold)
}

// chooseAlignment fits the matrix on the pairs (pa, pb; nil: none) and
// says whether to use it for the asked alignment, AlignAuto or
// AlignMatrix. For AlignAuto, pairs that cannot be fitted choose the
// gains; for AlignMatrix they are an error.
func chooseAlignment(asked Alignment, pa, pb mat.Matrix) (colorspace.Mat3, AlignmentChoice, error) {
	c := AlignmentChoice{Asked: asked, Residual: math.NaN(), Threshold: AutoAlignThreshold, Chosen: AlignGains}
	if pa == nil || pb == nil {
		if asked == AlignMatrix {
			return colorspace.Mat3{}, c, fmt.Errorf("adapt: matrix alignment needs corresponding colours (Options.PairedA and PairedB)")
		}
		return colorspace.Mat3{}, c, nil
	}
	m, err := FitAlignment(pa, pb)
	if err != nil {
		if asked == AlignMatrix {
			return colorspace.Mat3{}, c, err
		}
		return colorspace.Mat3{}, c, nil
	}
	c.Residual = AlignmentResidual(m, pa, pb)
	if asked == AlignMatrix || c.Residual < c.Threshold {
		c.Chosen = AlignMatrix
		return m, c, nil
	}
	return colorspace.Mat3{}, c, nil
}

// String returns the name of the alignment as the command line spells it.
func (a Alignment) String() string {
	switch a {
	case AlignGains:
		return "gains"
	case AlignMatrix:
		return "matrix"
	case AlignAuto:
		return "auto"
	}
	return fmt.Sprintf("Alignment(%d)", int(a))
}

// ParseAlignment parses the name of an alignment ("auto", "gains",
// "matrix").
func ParseAlignment(s string) (Alignment, error) {
	for _, a := range []Alignment{AlignAuto, AlignGains, AlignMatrix} {
		if s == a.String() {
			return a, nil
		}
	}
	return 0, fmt.Errorf("adapt: unknown alignment %q (want auto, gains or matrix)", s)
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

// alignWeight is the weight of a pair in FitAlignment and
// AlignmentResidual.
func alignWeight(a, b colorspace.LMS) float64 {
	return 1 / math.Pow(max(0, luminance(a))+max(0, luminance(b))+0.01, alignWeightPower)
}

// AlignmentResidual returns how much of the corresponding colours (rows
// of a and b, as FitAlignment takes them) the matrix m leaves
// unexplained: the weighted relative residual
// sqrt(Σ w_i |a_i − m b_i|² / Σ w_i |a_i|²), with FitAlignment's weights.
// 0 when m maps every b_i exactly onto a_i; 1 for m = 0. AlignAuto
// compares it with AutoAlignThreshold. The colours must be finite (as
// FitAlignment checks them).
func AlignmentResidual(m colorspace.Mat3, a, b mat.Matrix) float64 {
	n, _ := a.Dims()
	var num, den float64
	for i := range n {
		ca := colorspace.LMS{a.At(i, 0), a.At(i, 1), a.At(i, 2)}
		cb := colorspace.LMS{b.At(i, 0), b.At(i, 1), b.At(i, 2)}
		w := alignWeight(ca, cb)
		p := mul3s(&m, [3]float64(cb))
		for k := range 3 {
			d := ca[k] - p[k]
			num += w * d * d
			den += w * ca[k] * ca[k]
		}
	}
	if !(den > 0) {
		return math.NaN()
	}
	return math.Sqrt(num / den)
}

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
		w := alignWeight(ca, cb)
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
