package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/spca"
)

// TestMahalanobisNearest checks the Mahalanobis metric against its
// definition, d² = (q - x)ᵀ Σ⁻¹ (q - x) with Σ the covariance of the
// training samples: with one class per training sample and k = 1, Predict
// names the training sample nearest to each query by that distance. The
// samples are strongly correlated and scaled apart in 3-D, so that the
// Euclidean nearest differs for most queries, and so does the nearest of
// a whitening by the transposed Cholesky factor (L⁻ᵀ instead of L⁻¹:
// whitened coordinates of another covariance, which no other test saw).
func TestMahalanobisNearest(t *testing.T) {
	const n, d, queries = 60, 3, 200
	rng := rand.New(rand.NewPCG(27, 1))
	mix := mat.NewDense(d, d, []float64{
		3, 0, 0,
		2.5, 0.4, 0,
		-1, 2, 0.3,
	})
	sample := func(rows int) *mat.Dense {
		z := mat.NewDense(rows, d, nil)
		for i := range rows {
			for j := range d {
				z.Set(i, j, rng.NormFloat64())
			}
		}
		var x mat.Dense
		x.Mul(z, mix.T())
		return &x
	}
	x := sample(n)
	label := make([]int, n)
	for i := range label {
		label[i] = i
	}
	c, err := Train(x, label, n, Mahalanobis, 1, spca.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil)
	var ch mat.Cholesky
	if !ch.Factorize(&cov) {
		t.Fatal("singular covariance")
	}
	q := sample(queries)
	got, err := c.Predict(q)
	if err != nil {
		t.Fatal(err)
	}
	diff := mat.NewVecDense(d, nil)
	var sol mat.VecDense
	wrong, euclidDiffers := 0, 0
	for i := range queries {
		best, bestD, near, nearD := -1, 0.0, -1, 0.0
		for r := range n {
			e := 0.0
			for j := range d {
				v := q.At(i, j) - x.At(r, j)
				diff.SetVec(j, v)
				e += v * v
			}
			if err := ch.SolveVecTo(&sol, diff); err != nil {
				t.Fatal(err)
			}
			m := mat.Dot(diff, &sol)
			if best < 0 || m < bestD {
				best, bestD = r, m
			}
			if near < 0 || e < nearD {
				near, nearD = r, e
			}
		}
		if got[i] != best {
			wrong++
		}
		if near != best {
			euclidDiffers++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d queries: Predict's nearest is not the nearest by the Mahalanobis distance", wrong, queries)
	}
	if euclidDiffers < queries/4 {
		t.Errorf("the Euclidean nearest differs for only %d of %d queries: the samples do not tell the metrics apart", euclidDiffers, queries)
	}
}

// TestReadUnknownVersion checks that a classifier file of a version this
// build does not read (0, the next one, 255), its checksum valid, is
// refused with a *FormatError naming the version, for every metric's
// file: a later program's file is not parsed as one of this build's
// layouts.
func TestReadUnknownVersion(t *testing.T) {
	for _, metric := range []Metric{Euclidean, SPCAFisher} {
		c, _ := smallClassifier(t, metric)
		file := encode(t, c)
		for _, v := range []uint32{0, fileVersion + 1, 255} {
			b := append([]byte(nil), file[:len(file)-4]...)
			binary.LittleEndian.PutUint32(b[len(fileMagic):], v)
			_, err := Read(bytes.NewReader(checksum.Append(b)))
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", v)) {
				t.Errorf("%v, version %d: %v, want a *FormatError naming the version", metric, v, err)
			}
		}
	}
}
