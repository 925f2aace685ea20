package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestKNNFisherMoons5D checks SPCAFisher on moons5d, the moons among
// three irrelevant axes of noise, where SPCATangent only ties with
// Euclidean k-NN: with its frame, K, Ratio and k chosen by leave-one-out
// (TrainSelect; γ 0 and K 0.1 or 0.3 only, to keep the test short: the
// SPCA fits in 5-D and the tangents take most of its time) it must beat
// Euclidean and Mahalanobis k-NN in held-out accuracy averaged over seed
// pairs 1-2 by at least half a point (ten pairs with the whole grid:
// classify/MEASUREMENTS.md, session 19).
func TestKNNFisherMoons5D(t *testing.T) {
	base := spca.DefaultOptions()
	base.Seed, base.Resolution = 1, 1<<14
	set := "moons5d"
	acc := map[Metric]float64{}
	const pairs = 2
	for _, m := range []Metric{Euclidean, Mahalanobis, SPCAFisher} {
		grid := SelectionGrid(base)
		if m == SPCAFisher {
			grid = grid[:0]
			for _, o := range SelectionGrid(base) {
				if o.Gamma == 0 && (o.K == 0.1 || o.K == 0.3) {
					grid = append(grid, o)
				}
			}
		}
		for _, a := range pairAccuracies(t, set, pairs, m, grid) {
			acc[m] += a / pairs
		}
	}
	t.Logf("%s: Euclidean %.4f, Mahalanobis %.4f, fisher %.4f", set, acc[Euclidean], acc[Mahalanobis], acc[SPCAFisher])
	if best := max(acc[Euclidean], acc[Mahalanobis]); acc[SPCAFisher] < best+0.005 {
		t.Errorf("%s: fisher k-NN %.4f, not half a point above Euclidean/Mahalanobis %.4f", set, acc[SPCAFisher], best)
	}
}

// TestFisherFrame checks SPCAFisher's frame on moons5d: the directions
// of the three noise axes (2-4) get at most a third of the weight of the
// moons' plane (0-1) in the frame's metric FrameᵀFrame, the identity
// frame votes as SPCATangent, and the frame survives a file round trip.
func TestFisherFrame(t *testing.T) {
	train, _ := testimages.GenerateClasses("moons5d", 200, 1)
	test, _ := testimages.GenerateClasses("moons5d", 100, 2)
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution, opt.K = 1, 1<<12, 0.3
	c, err := Train(train.X, train.Label, 2, SPCAFisher, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	var g mat.Dense
	g.Mul(c.Frame.T(), c.Frame)
	plane := min(g.At(0, 0), g.At(1, 1))
	for j := 2; j < 5; j++ {
		if g.At(j, j) > plane/3 {
			t.Errorf("noise axis %d: weight %.3f, plane %.3f", j, g.At(j, j), plane)
		}
	}
	// The identity frame: SPCATangent's votes.
	tan, err := Train(train.X, train.Label, 2, SPCATangent, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	id := *c
	id.Frame = c.fisherFrames(nil)[0]
	if err := id.build(); err != nil {
		t.Fatal(err)
	}
	pf, _ := id.Predict(test.X)
	pt, _ := tan.Predict(test.X)
	for i := range pf {
		if pf[i] != pt[i] {
			t.Fatalf("sample %d: identity frame votes %d, spca-tangent %d", i, pf[i], pt[i])
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if v := binary.LittleEndian.Uint32(data[8:]); v != 4 {
		t.Errorf("spca-fisher written as version %d, want 4", v)
	}
	r, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(r.Frame, c.Frame) || r.Ratio != c.Ratio {
		t.Errorf("frame or ratio changed by the round trip")
	}
	p1, _ := c.Predict(test.X)
	p2, _ := r.Predict(test.X)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("sample %d: %d before the round trip, %d after", i, p1[i], p2[i])
		}
	}
	// A frame value that is not finite, and the metric in another
	// version, are *FormatErrors.
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint64(bad[len(bad)-4-8:], math.Float64bits(math.NaN()))
	var fe *FormatError
	if _, err := Read(bytes.NewReader(checksum.Refresh(bad))); !errors.As(err, &fe) || !strings.Contains(err.Error(), "frame") {
		t.Errorf("NaN frame value: %v, want a *FormatError naming the frame", err)
	}
	v3 := bytes.Clone(data)
	binary.LittleEndian.PutUint32(v3[8:], 3)
	if _, err := Read(bytes.NewReader(checksum.Refresh(v3))); !errors.As(err, &fe) {
		t.Errorf("spca-fisher in a version 3 file: %v, want a *FormatError", err)
	}
}

// TestFisherExtremeScales checks SPCAFisher on arcs-thin times 1e-300 and
// 1e300, as TestTangentExtremeScales does SPCATangent: the same frame
// weights (to 1e-9) and held-out accuracy within a point of the unscaled
// classifier's (the gaps' outer products of samples at 1e300 overflow,
// at 1e-300 underflow, unless scaled as the map scales them).
func TestFisherExtremeScales(t *testing.T) {
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution = 1, 1<<12
	train, _ := testimages.GenerateClasses("arcs-thin", 120, 1)
	test, _ := testimages.GenerateClasses("arcs-thin", 200, 2)
	run := func(s float64) (float64, *mat.Dense) {
		var x, q mat.Dense
		x.Scale(s, train.X)
		q.Scale(s, test.X)
		c, err := Train(&x, train.Label, 2, SPCAFisher, 3, opt)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		acc, err := c.Accuracy(&q, test.Label)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		var g mat.Dense
		g.Mul(c.Frame.T(), c.Frame)
		return acc, &g
	}
	base, g := run(1)
	if base < 0.9 {
		t.Fatalf("unscaled: accuracy %.3f", base)
	}
	for _, s := range []float64{1e-300, 1e300} {
		acc, gs := run(s)
		if math.Abs(acc-base) > 0.01 || !mat.EqualApprox(gs, g, 1e-9) {
			t.Errorf("scale %g: accuracy %.3f (unscaled %.3f), frame metric %v (unscaled %v)", s, acc, base, mat.Formatted(gs), mat.Formatted(g))
		}
	}
}
