package spca_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// Dimensionality reduction: keep the first D' = 2 responses of a noisy
// swiss roll (3-D samples on a rolled-up sheet) and map them back. With
// gamma 0 the responses unfold the roll, so two of them hold the sheet
// and the third only the noise across it (0.5 in each coordinate, 0.87
// in all): D' = 2 reconstructs the roll to that noise. The responses not
// kept are held at their medians, recorded by RecordTypical.
func ExampleModel_InverseReduced() {
	roll := testimages.SwissRoll(1000, 0.5, 1)
	opt := spca.DefaultOptions()
	opt.Gamma = 0
	opt.Resolution = 1 << 12 // a coarse lattice, fast to fit
	model, err := spca.Fit(roll.X, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := model.RecordTypical(roll.X); err != nil {
		fmt.Println(err)
		return
	}
	r, _, err := model.TransformBatch(roll.X)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _ := r.Dims()
	for _, keep := range []int{1, 2, 3} {
		back, err := model.InverseReduced(r.Slice(0, n, 0, keep))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("D' = %d: RMS error %.1f\n", keep, rmsDistance(back, roll.X))
	}
	// Output:
	// D' = 1: RMS error 8.1
	// D' = 2: RMS error 0.9
	// D' = 3: RMS error 0.0
}

// The SPCA distance between two samples is the Euclidean distance of
// their responses. With gamma 0 the first response is the arc length
// along the spiral (scaled to [0, 1]), so two points on neighbouring
// turns, 1 apart in the plane, are far apart, and two points as far
// apart along one turn are close.
func ExampleModel_Distance() {
	s := testimages.Spiral(1000, 1)
	opt := spca.DefaultOptions()
	opt.Gamma = 0
	model, err := spca.Fit(s.X, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The centre line of the spiral: (0.5 + t/2π)(cos t, sin t).
	at := func(t float64) []float64 {
		r := 0.5 + t/(2*math.Pi)
		return []float64{r * math.Cos(t), r * math.Sin(t)}
	}
	a := at(math.Pi / 2)
	for _, b := range [][]float64{at(5 * math.Pi / 2), at(math.Pi/2 + 1.25)} {
		d, err := model.Distance(a, b)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("Euclidean %.2f, SPCA %.2f\n", math.Hypot(a[0]-b[0], a[1]-b[1]), d)
	}
	// Output:
	// Euclidean 1.00, SPCA 0.72
	// Euclidean 1.01, SPCA 0.14
}

// Models are written with WriteTo (or Save, atomically, to a file) and
// read back with Read (or Load): the same transform, bit for bit. A file
// that is not a model, or a damaged one, gives a *FormatError; samples
// the model cannot use a *DataError.
func ExampleRead() {
	s := testimages.Spiral(500, 1)
	model, err := spca.Fit(s.X, spca.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if _, err := model.WriteTo(&file); err != nil {
		fmt.Println(err)
		return
	}
	back, err := spca.Read(bytes.NewReader(file.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	r1, _, _ := model.TransformBatch(s.X)
	r2, _, _ := back.TransformBatch(s.X)
	fmt.Println(mat.Equal(r1, r2))

	_, err = spca.Read(bytes.NewReader(file.Bytes()[:100]))
	var fe *spca.FormatError
	fmt.Println(errors.As(err, &fe), err)

	_, err = back.Transform(make([]float64, 2), []float64{1, math.NaN()})
	var de *spca.DataError
	fmt.Println(errors.As(err, &de), err)
	// Output:
	// true
	// true spca: invalid model file: truncated
	// true spca: bad data: sample value 2 is NaN
}

// Tune chooses the curve-drawing parameters (K, Tau, Q) on a grid by the
// projection error of the samples onto the first principal curve; the
// returned options are ready for Fit.
func ExampleTune() {
	s := testimages.Spiral(500, 1)
	grid := spca.TuneGrid{K: []float64{0.05, 0.1, 0.2}, Tau: []float64{0.05, 0.1}, Q: []float64{10}}
	res, err := spca.Tune(s.X, spca.DefaultOptions(), grid)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("K %g, Tau %g, Q %g: projection error %.3f\n", res.Best.K, res.Best.Tau, res.Best.Q, res.Error)
	fmt.Println(len(res.Table), "grid points")
	// Output:
	// K 0.1, Tau 0.05, Q 10: projection error 0.108
	// 6 grid points
}
