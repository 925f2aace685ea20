package adapt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/colorspace"
)

// Chromaticity variety of the training data.
//
// Shading multiplies a surface's colour by a factor, so a few surfaces
// give thousands of distinct colours and fill many cells of the sRGB cube
// (DataReport) while they hold only a few chromaticities. A model trained
// on them learns their particular shape: on six generated scenes of
// 128×96 (20,000 samples: 2,068 and 1,368 distinct colours, 3.0 % and
// 1.7 % of the gamut, no warning from DataReport) the SPCA map amplifies
// a wall's texture into magenta patches. Chromaticities counts instead
// how many chromaticities the colours really spread over.

const (
	// ChromaticityBin is the side, in CIE 1976 u'v' units, of the square
	// bins of Chromaticities.
	ChromaticityBin = 0.005
	// chromaticityMinY is the luminance below which a colour's
	// chromaticity is too noisy to count.
	chromaticityMinY = 0.01
	// MinChromaticities is the effective number of chromaticities below
	// which Train warns (Model.Warnings). Measured with
	// 20,000 and 100,000 samples (the number hardly depends on it):
	// six generated scenes of 128×96, 83 (A) and 63 (B); twelve, 92 and
	// 68; thirty scenes of 64×48, 122 and 80; the 300 scenes of 32×24 of
	// the package's tests, 246 and 126; Kodak kodim01-12 relit
	// (testimages.RelightPhoto), 224 and 101; three of them, 113 and 50.
	// B's are lower because illuminant A compresses the chromaticity
	// diagram.
	MinChromaticities = 75
)

// Chromaticities returns the effective number of distinct chromaticities
// of the LMS colours in the rows of x: exp(H), H the Shannon entropy of
// the histogram of their u'v' chromaticities in square bins of side
// ChromaticityBin, over the colours with luminance Y >= 0.01. It is the
// number of equally filled bins with the same entropy: a few dominant
// surfaces count as a few, however many shades and stray pixels come
// with them, and it does not grow with the number of samples as counts
// of distinct colours do. It is 0 if no colour is bright enough.
func Chromaticities(x mat.Matrix) float64 {
	n, _ := x.Dims()
	h := map[[2]int32]float64{}
	total := 0.0
	for i := range n {
		c := colorspace.LMS{x.At(i, 0), x.At(i, 1), x.At(i, 2)}.XYZ()
		if !(c[1] >= chromaticityMinY) || math.IsInf(c[1], 0) {
			continue
		}
		u, v := c.UV()
		if math.IsNaN(u) || math.IsNaN(v) || math.IsInf(u, 0) || math.IsInf(v, 0) {
			continue
		}
		h[[2]int32{int32(math.Floor(u / ChromaticityBin)), int32(math.Floor(v / ChromaticityBin))}]++
		total++
	}
	if total == 0 {
		return 0
	}
	e := 0.0
	for _, k := range h {
		p := k / total
		e -= p * math.Log(p)
	}
	return math.Exp(e)
}

// chromaticityWarnings returns the warnings for environments whose
// effective number of chromaticities is below MinChromaticities.
func chromaticityWarnings(na, nb float64) []string {
	var w []string
	for i, n := range []float64{na, nb} {
		if n < MinChromaticities {
			w = append(w, fmt.Sprintf("environment %c spreads over only %.0f chromaticities (effective number in u'v' bins of %g; want >= %d): "+
				"too few surfaces, the mapping will follow their particular shape (train on more, more varied images)",
				"AB"[i], n, ChromaticityBin, MinChromaticities))
		}
	}
	return w
}
