package adapt

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/spca"
)

// Method names a way of mapping colours from environment B to environment
// A.
type Method int

// The methods. SPCA is the corresponding-pair SPCA mapping; the others are
// baselines. The zero Method is none of them: ParseMethod returns it with
// its error.
const (
	// SPCA maps x_B to R_A⁻¹(R_B(x_B)) with the two fitted SPCA models.
	SPCA Method = iota + 1
	// PCAWhitening matches the means and covariances of the two colour
	// clouds (Webster & Mollon): whiten with B's PCA, colour with A's.
	PCAWhitening
	// GrayWorld scales each cone response by the ratio of the mean
	// training colours of A and B (von Kries with gray-world whites).
	GrayWorld
	// Bradford applies the linearised Bradford von Kries transform from
	// the white of B to the white of A (an oracle: it needs the true
	// lights).
	Bradford
	// CAT02 is like Bradford with the CIECAM02 CAT02 matrix.
	CAT02
	// Uncorrected leaves colours as they are (the reference of the
	// evaluation).
	Uncorrected
	// VonKries is like Bradford with the Hunt–Pointer–Estévez cone
	// matrix, colour-science's "Von Kries" transform.
	VonKries
	// CAT16 is like Bradford with the CAM16 matrix M16 (Li et al. 2017).
	CAT16
	// Aligned is the model's alignment alone (Model.Align, the 3×3
	// matrix fitted on corresponding pairs, AlignMatrix), without SPCA:
	// the baseline that shows what SPCA adds to it. Only models with a
	// matrix alignment have it; Evaluate adds it to Methods() for them.
	Aligned
)

var methodNames = [...]string{
	SPCA:         "spca",
	PCAWhitening: "pca-whitening",
	GrayWorld:    "grayworld",
	Bradford:     "bradford",
	CAT02:        "cat02",
	Uncorrected:  "uncorrected",
	VonKries:     "von-kries",
	CAT16:        "cat16",
	Aligned:      "aligned",
}

// Methods lists every method, SPCA first and Uncorrected last.
func Methods() []Method {
	return []Method{SPCA, PCAWhitening, GrayWorld, Bradford, CAT02, VonKries, CAT16, Uncorrected}
}

// String returns the method's name as used by the command line.
func (m Method) String() string {
	if m > 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod returns the method called name (see Method.String), ignoring
// case, spaces, hyphens and underscores, so that colour-science's names
// ("Von Kries", "CAT16", "Bradford") are accepted too. For an unknown name
// it returns the zero Method, which is none of the methods, and an error.
func ParseMethod(name string) (Method, error) {
	key := methodKey(name)
	known := make([]string, 0, len(methodNames))
	for _, m := range append(Methods(), Aligned) {
		if key != "" && key == methodKey(m.String()) {
			return m, nil
		}
		known = append(known, m.String())
	}
	return 0, fmt.Errorf("adapt: unknown method %q (known: %s)", name, strings.Join(known, ", "))
}

// methodKey is name in lower case without spaces, hyphens and underscores.
func methodKey(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// Mapper maps colours seen in environment B to the colours they would have
// in environment A, in the package's LMS space (colorspace.LMS: Hunt–
// Pointer–Estévez cones normalised so that D65 white is (1, 1, 1)).
// Implementations are safe for concurrent use.
type Mapper interface {
	// Method returns the method the mapper implements.
	Method() Method
	// MapLMS maps src to dst (equal lengths; they may be the same slice).
	// It fails only on input that is not finite or beyond ±MaxLMS.
	MapLMS(dst, src []colorspace.LMS) error
}

// MaxLMS bounds the magnitude of the cone values a Mapper takes: 1e100
// times D65 white is no light, and near the end of the float64 range the
// mappings' arithmetic overflows (LMS 1.7e308 gave +Inf or NaN, and made
// the SPCA blend index past its colours).
const MaxLMS = 1e100

// checkSlices validates the arguments of MapLMS.
func checkSlices(dst, src []colorspace.LMS) error {
	if len(dst) != len(src) {
		return fmt.Errorf("adapt: MapLMS: dst has %d colours, src %d", len(dst), len(src))
	}
	for i, c := range src {
		if !finite3(c) {
			return fmt.Errorf("adapt: colour %d is not finite: %v", i+1, c)
		}
		for _, v := range c {
			if math.Abs(v) > MaxLMS {
				return fmt.Errorf("adapt: colour %d is out of range: %v (cone values beyond ±%g)", i+1, c, float64(MaxLMS))
			}
		}
	}
	return nil
}

// Linear is an affine map x_A = Offset + M·x_B in LMS; it implements the
// linear baselines.
type Linear struct {
	Kind   Method
	M      colorspace.Mat3
	Offset [3]float64
}

// Method returns the method of the map.
func (l *Linear) Method() Method { return l.Kind }

// MapLMS applies the affine map.
func (l *Linear) MapLMS(dst, src []colorspace.LMS) error {
	if err := checkSlices(dst, src); err != nil {
		return err
	}
	for i, c := range src {
		v := mul3(&l.M, c)
		dst[i] = colorspace.LMS{v[0] + l.Offset[0], v[1] + l.Offset[1], v[2] + l.Offset[2]}
	}
	return nil
}

// PCAStats are the mean and principal axes of a colour cloud.
type PCAStats struct {
	Mean [3]float64
	// Axes holds the principal directions as columns, by decreasing
	// variance; Var the variances.
	Axes colorspace.Mat3
	Var  [3]float64
}

// pcaOf computes the PCA of the rows of x (N×3), axes signed so that each
// has a non-negative sum of components.
func pcaOf(x *mat.Dense) PCAStats {
	n, _ := x.Dims()
	var s PCAStats
	for i := range n {
		for k := range 3 {
			s.Mean[k] += x.At(i, k)
		}
	}
	for k := range 3 {
		s.Mean[k] /= float64(n)
	}
	cov := mat.NewSymDense(3, nil)
	for i := range n {
		var d [3]float64
		for k := range 3 {
			d[k] = x.At(i, k) - s.Mean[k]
		}
		for a := range 3 {
			for b := a; b < 3; b++ {
				cov.SetSym(a, b, cov.At(a, b)+d[a]*d[b])
			}
		}
	}
	cov.ScaleSym(1/float64(max(n-1, 1)), cov)
	var eig mat.EigenSym
	eig.Factorize(cov, true)
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := []int{0, 1, 2}
	sort.Slice(order, func(i, j int) bool { return vals[order[i]] > vals[order[j]] })
	for j, o := range order {
		s.Var[j] = math.Max(vals[o], 0)
		sum := vecs.At(0, o) + vecs.At(1, o) + vecs.At(2, o)
		sg := 1.0
		if sum < 0 {
			sg = -1
		}
		for k := range 3 {
			s.Axes[3*k+j] = sg * vecs.At(k, o)
		}
	}
	return s
}

// axis returns column j of the axes.
func (s *PCAStats) axis(j int) [3]float64 {
	return [3]float64{s.Axes[j], s.Axes[3+j], s.Axes[6+j]}
}

// NewPCAWhitening returns the PCA + whitening manifold matching of Webster
// and Mollon from the statistics of the A and B colour clouds:
//
//	x_A = μ_A + V_A Λ_A^{1/2} Λ_B^{-1/2} V_Bᵀ (x_B − μ_B)
//
// with the axes paired in order of variance and B's axes signed to agree
// with A's (positive dot product).
func NewPCAWhitening(a, b PCAStats) *Linear {
	var m colorspace.Mat3
	for j := range 3 {
		va, vb := a.axis(j), b.axis(j)
		if va[0]*vb[0]+va[1]*vb[1]+va[2]*vb[2] < 0 {
			vb = [3]float64{-vb[0], -vb[1], -vb[2]}
		}
		g := 0.0
		if b.Var[j] > 0 {
			g = math.Sqrt(a.Var[j] / b.Var[j])
		}
		for r := range 3 {
			for c := range 3 {
				m[3*r+c] += g * va[r] * vb[c]
			}
		}
	}
	l := &Linear{Kind: PCAWhitening, M: m}
	mb := mul3(&m, b.Mean)
	for k := range 3 {
		l.Offset[k] = a.Mean[k] - mb[k]
	}
	return l
}

// NewGrayWorld returns the von Kries map that scales each cone response by
// meanA/meanB.
func NewGrayWorld(meanA, meanB [3]float64) *Linear {
	var d [3]float64
	for k := range 3 {
		if meanB[k] > 0 {
			d[k] = meanA[k] / meanB[k]
		}
	}
	return &Linear{Kind: GrayWorld, M: colorspace.Diag(d)}
}

// NewVonKriesOracle returns the von Kries transform of kind Bradford,
// CAT02, VonKries or CAT16 from whiteB to whiteA, expressed in LMS.
func NewVonKriesOracle(kind Method, whiteA, whiteB colorspace.XYZ) *Linear {
	var m colorspace.Mat3
	switch kind {
	case Bradford:
		m = colorspace.Bradford(whiteB, whiteA)
	case CAT02:
		m = colorspace.CAT02(whiteB, whiteA)
	case VonKries:
		m = colorspace.HPE(whiteB, whiteA)
	case CAT16:
		m = colorspace.CAT16(whiteB, whiteA)
	default:
		panic("adapt: NewVonKriesOracle: kind must be Bradford, CAT02, VonKries or CAT16")
	}
	return &Linear{Kind: kind, M: colorspace.XYZToLMS.Mul(m).Mul(colorspace.LMSToXYZ)}
}

// Identity returns the map that leaves colours unchanged.
func Identity() *Linear { return &Linear{Kind: Uncorrected, M: colorspace.Identity3} }

// SPCAMap is the corresponding-pair SPCA mapping x_A = R_A⁻¹(R_B(x_B)),
// blended outside B's training colours towards a linear map through
// black (see Support): with Support nil it is the bare SPCA map.
//
// The bare map is continuous because both models are fitted with a
// density floor (DefaultDensityFloor): responses keep growing beyond the
// training colours instead of stalling at 0 or 1, so different colours
// keep different responses and R_A⁻¹ has a bounded slope. Responses are
// clamped to [0, 1], A's lattice, before R_A⁻¹: extrapolating A's curved
// lattice beyond its ends gives arbitrary hues, and the blend hands such
// colours to the anchor anyway.
type SPCAMap struct {
	A, B *spca.Model
	// Gains are the diagonal LMS gains applied to a colour of B before
	// R_B (B was fitted on colours so scaled, see Options.NoGains); the
	// zero value means no gains (1, 1, 1). Support and Anchor act on the
	// unscaled colour.
	Gains [3]float64
	// Align, if not zero, is the matrix applied to a colour of B before
	// R_B instead of Gains (Model.Align).
	Align colorspace.Mat3
	// Support is B's training support; nil disables the blend.
	Support *Support
	// Anchor is the linear map (LMS to LMS, no offset) the blend fades to
	// away from the support and near black.
	Anchor colorspace.Mat3
	// Ceiling, if > 0, is the largest luminance Y (D65 white 1) of the
	// output on the sRGB cube: the blended colour's luminance rolls off
	// to reach it at the brightest input, and chroma near and beyond the
	// sRGB gamut is compressed at constant luminance (gamutMap) instead
	// of clipped. Model.Mapper sets it to the luminance of the brightest
	// of A's training colours.
	Ceiling float64
	// Rays, if not nil, gives the luminance of the output: the running
	// maximum of the blend's luminance along the ray from black (see
	// RayTable), so that lightness never decreases along a ray. Model.Mapper
	// leaves it nil and builds the model's table on first use instead.
	Rays *RayTable
	// HighlightGains, if not zero, are the cone gains that take the
	// blend's output for the sRGB white input to the grey of its
	// luminance (Model.HighlightGains): the output of inputs near white
	// and brighter than the ceiling is adapted to that white before the
	// roll-off and gamut mapping (adaptHighlight). Zero: not adapted.
	HighlightGains [3]float64
	lazy           *lazyRays
}

// Method returns SPCA.
func (s *SPCAMap) Method() Method { return SPCA }

// MapLMS maps the colours in parallel.
func (s *SPCAMap) MapLMS(dst, src []colorspace.LMS) error {
	_, err := s.MapLMSStats(dst, src)
	return err
}

// MapLMSStats maps the colours and returns the statistics of the forward
// transform R_B (iterations, clamped points) over the colours that needed
// it (those with a blend weight above 0).
func (s *SPCAMap) MapLMSStats(dst, src []colorspace.LMS) (spca.BatchStats, error) {
	if err := checkSlices(dst, src); err != nil {
		return spca.BatchStats{}, err
	}
	if len(src) == 0 {
		return spca.BatchStats{}, nil
	}
	if s.Support == nil {
		return s.bare(dst, src)
	}
	if &dst[0] == &src[0] {
		// Mapped in place: the lightness rule below reads the inputs
		// after the blend has written dst (it took the ray luminance of
		// the blended colour: B's scene white came out with luminance
		// 0.79 instead of 0.63).
		src = slices.Clone(src)
	}
	w := make([]float64, len(src))
	var sub []colorspace.LMS
	for i, c := range src {
		w[i] = s.Support.blendWeight(c)
		if !(w[i] > 0) { // also NaN: the loop below takes w[i] > 0 as "in sub"
			w[i] = 0
		}
		if w[i] > 0 {
			sub = append(sub, c)
		}
	}
	out := make([]colorspace.LMS, len(sub))
	res := make([]float64, len(sub))
	edge := make([]float64, len(sub))
	st, err := s.bareResidual(out, res, edge, sub)
	if err != nil {
		return st, err
	}
	j := 0
	for i, c := range src {
		lin := mul3(&s.Anchor, c)
		if w[i] <= 0 {
			dst[i] = colorspace.LMS(lin)
			continue
		}
		y := out[j]
		wi := w[i] * (1 - smoothstep(0, ResidualBand, res[j])) * edge[j]
		j++
		for k := range 3 {
			dst[i][k] = wi*y[k] + (1-wi)*lin[k]
		}
	}
	rays := s.Rays
	if rays == nil && s.lazy != nil {
		blend := &SPCAMap{A: s.A, B: s.B, Gains: s.Gains, Align: s.Align, Support: s.Support, Anchor: s.Anchor}
		if rays, err = s.lazy.get(blend.MapLMS); err != nil {
			return st, err
		}
	}
	if rays != nil {
		for i, c := range src {
			dst[i] = withLuminance(dst[i], rays.Luminance(c))
		}
	}
	if s.Ceiling > 0 {
		top := 0.0
		if rays != nil {
			top = rays.Top
		}
		adapt := s.HighlightGains != ([3]float64{}) && top > s.Ceiling
		for i, c := range dst {
			if adapt {
				c = adaptHighlight(c, src[i], s.HighlightGains, s.Ceiling, top)
			}
			v := mul3(&lmsToRGB, [3]float64(c))
			gamutMap(&v, s.Ceiling, top)
			dst[i] = colorspace.LMS(mul3(&rgbToLMS, v))
		}
	}
	return st, nil
}

// edgeWeight is the factor of the blend weight for B's responses r
// (before they are clamped to [0, 1]): 1 inside, fading to 0 over the
// last ResponseBand of each response, at both ends of the chromatic
// dimensions and at the top of the first (lightness) one, whose bottom end
// is black, taken care of by DarkLuminance.
func edgeWeight(r []float64) float64 {
	w := 1.0
	for k, v := range r {
		if k > 0 {
			w *= smoothstep(0, ResponseBand, v)
		}
		w *= 1 - smoothstep(1-ResponseBand, 1, v)
	}
	return w
}

// withLuminance returns c scaled to the luminance y (the grey of luminance
// y if c has none).
func withLuminance(c colorspace.LMS, y float64) colorspace.LMS {
	if y0 := luminance(c); y0 > 0 {
		f := y / y0
		return colorspace.LMS{f * c[0], f * c[1], f * c[2]}
	}
	return colorspace.LMS(mul3(&rgbToLMS, [3]float64{y, y, y}))
}

// bare is the SPCA map without the blend.
func (s *SPCAMap) bare(dst, src []colorspace.LMS) (spca.BatchStats, error) {
	return s.bareResidual(dst, nil, nil, src)
}

// bareResidual is bare that also writes, if res is not nil, the distance
// |x − R_B⁻¹(R_B(x))| of every colour x = Gains·src from B's lattice (0
// where the forward solve converged on it).
func (s *SPCAMap) bareResidual(dst []colorspace.LMS, res, edge []float64, src []colorspace.LMS) (spca.BatchStats, error) {
	if len(src) == 0 {
		return spca.BatchStats{}, nil
	}
	g := s.Gains
	if g == ([3]float64{}) {
		g = [3]float64{1, 1, 1}
	}
	x := mat.NewDense(len(src), 3, nil)
	for i, c := range src {
		if s.Align != (colorspace.Mat3{}) {
			x.SetRow(i, mul3s(&s.Align, c))
		} else {
			x.SetRow(i, []float64{g[0] * c[0], g[1] * c[1], g[2] * c[2]})
		}
	}
	r, st, err := s.B.TransformBatch(x)
	if err != nil {
		return st, err
	}
	n, _ := r.Dims()
	if res != nil {
		back, err := s.B.InverseBatch(r)
		if err != nil {
			return st, err
		}
		for i := range n {
			b, c := back.RawRowView(i), x.RawRowView(i)
			res[i] = math.Sqrt(sq(b[0]-c[0]) + sq(b[1]-c[1]) + sq(b[2]-c[2]))
		}
	}
	for i := 0; i < n; i++ {
		row := r.RawRowView(i)
		if edge != nil {
			edge[i] = edgeWeight(row)
		}
		for k, v := range row {
			row[k] = min(max(v, 0), 1)
		}
	}
	y, err := s.A.InverseBatch(r)
	if err != nil {
		return st, err
	}
	for i := range dst {
		copy(dst[i][:], y.RawRowView(i))
	}
	return st, nil
}
