package adapt

import (
	"fmt"
	"math"

	"github.com/spcalab/spca/colorspace"
)

// ReflectanceSet is a named set of surface reflectances for
// CorrespondingColours.
type ReflectanceSet struct {
	Name         string
	Reflectances []colorspace.Spectrum
}

// CorrespondingResult is the chromaticity error of one method on one
// reflectance set: the distance in the CIE 1976 u'v' diagram between the
// corrected colour of each surface under illuminant A and its colour
// under D65.
type CorrespondingResult struct {
	Method string  `json:"method"`
	Mean   float64 `json:"mean_duv"`
	Max    float64 `json:"max_duv"`
	// Whites tells where the method's whites come from: "model" (SPCA
	// and the baselines estimated from the training data) or "true"
	// (the oracles, given the illuminants' white points); empty for
	// Uncorrected.
	Whites string `json:"whites,omitempty"`
}

// CorrespondingSet is the result of CorrespondingColours for one set.
type CorrespondingSet struct {
	Set     string                `json:"set"`
	N       int                   `json:"n"`
	Methods []CorrespondingResult `json:"methods"`
}

// CorrespondingMethods lists the methods CorrespondingColours reports:
// the model's SPCA, PCA+whitening and gray-world maps, the four von Kries
// oracles with the true white points of illuminant A and D65, and no
// adaptation (and, for a model with an alignment matrix, Aligned before
// it).
func CorrespondingMethods() []Method {
	return []Method{SPCA, PCAWhitening, GrayWorld, VonKries, Bradford, CAT02, CAT16, Uncorrected}
}

// CorrespondingColours measures how well each method predicts
// corresponding colours across the illuminants of the model's
// environments: every reflectance of every set is rendered under CIE
// illuminant A (environment B) and under D65 (environment A) with
// colorspace.Render; the A-lit colour, scaled so that the perfect white
// has the luminance of the model's white of B (Model.WhiteB), is mapped
// by each method, and the result's u'v' chromaticity is compared with the
// D65-lit colour's. Chromaticity ignores luminance, so the comparison
// does not depend on the exposures of the environments.
//
// The oracles (von Kries, Bradford, CAT02, CAT16) use the true whites,
// the white points of illuminant A and D65, not the model's. Sets with no
// reflectance are skipped.
func CorrespondingColours(m *Model, sets []ReflectanceSet) ([]CorrespondingSet, error) {
	illA, d65 := colorspace.IlluminantA(), colorspace.IlluminantD65()
	wA, wD := colorspace.WhitePoint(illA), colorspace.WhitePoint(d65)
	k := m.WhiteB[1]
	if !(k > 0) || math.IsInf(k, 0) {
		return nil, fmt.Errorf("adapt: corresponding colours: the model's white of B %v has no luminance", m.WhiteB)
	}
	var mappers []Mapper
	var whites []string
	methods := CorrespondingMethods()
	if m.Align != (colorspace.Mat3{}) {
		methods = append(methods[:len(methods)-1], Aligned, Uncorrected)
	}
	for _, method := range methods {
		switch method {
		case VonKries, Bradford, CAT02, CAT16:
			mappers = append(mappers, NewVonKriesOracle(method, wD, wA))
			whites = append(whites, "true")
		case Uncorrected:
			mappers = append(mappers, Identity())
			whites = append(whites, "")
		default:
			mp, err := m.Mapper(method)
			if err != nil {
				return nil, err
			}
			mappers = append(mappers, mp)
			whites = append(whites, "model")
		}
	}
	var out []CorrespondingSet
	for _, set := range sets {
		n := len(set.Reflectances)
		if n == 0 {
			continue
		}
		src := make([]colorspace.LMS, n)
		ref := make([][2]float64, n)
		for i, r := range set.Reflectances {
			x := colorspace.Render(r, illA)
			src[i] = colorspace.XYZ{x[0] * k, x[1] * k, x[2] * k}.LMS()
			u, v := colorspace.Render(r, d65).UV()
			ref[i] = [2]float64{u, v}
		}
		cs := CorrespondingSet{Set: set.Name, N: n}
		dst := make([]colorspace.LMS, n)
		for j, mp := range mappers {
			if err := mp.MapLMS(dst, src); err != nil {
				return nil, fmt.Errorf("adapt: corresponding colours, %v: %w", mp.Method(), err)
			}
			r := CorrespondingResult{Method: mp.Method().String(), Whites: whites[j]}
			for i, c := range dst {
				u, v := c.XYZ().UV()
				d := math.Hypot(u-ref[i][0], v-ref[i][1])
				if math.IsNaN(d) {
					d = math.Inf(1) // a black output has no chromaticity
				}
				r.Mean += d
				r.Max = max(r.Max, d)
			}
			r.Mean /= float64(n)
			cs.Methods = append(cs.Methods, r)
		}
		out = append(out, cs)
	}
	return out, nil
}

// Result returns the result of the named method, or nil.
func (s *CorrespondingSet) Result(method Method) *CorrespondingResult {
	for i := range s.Methods {
		if s.Methods[i].Method == method.String() {
			return &s.Methods[i]
		}
	}
	return nil
}
