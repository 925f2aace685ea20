package spca

import "math"

// Distance returns the SPCA distance between the samples x and y: the
// Euclidean distance between their responses, R(x) and R(y). The
// responses are the coordinates of the data's curvilinear, density-
// equalised frame, so this generalises the Mahalanobis distance (the
// Euclidean distance after PCA whitening) to curved manifolds, as the
// seed's section "SPCA in classification" describes. For many distances
// transform the samples once (TransformBatch) and measure there.
func (m *Model) Distance(x, y []float64) (float64, error) {
	rx := make([]float64, m.d)
	ry := make([]float64, m.d)
	if _, err := m.Transform(rx, x); err != nil {
		return 0, err
	}
	if _, err := m.Transform(ry, y); err != nil {
		return 0, err
	}
	return math.Sqrt(dist2(rx, ry)), nil
}
