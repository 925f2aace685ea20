package spca_test

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
	"gonum.org/v1/gonum/mat"
)

// TestReadPathsAgree reads corrupted copies (bytes changed, checksum
// refreshed) and truncations of snapped lattices (version 6, of 2 and 3
// dimensions) through a bytes.Reader, whose known length takes the
// decoder's one-pass paths (floatPlane, gridcode.JoinPlanes with axis 0
// undone as stored), through a bytes.Buffer, whose Next takes the slab
// path (snappedSlabs), and through a reader that does not tell its length
// (intPlane, the running sums axis by axis): both must accept or reject
// alike, and what they accept must be the same model (its compact bytes
// written again). No input may panic.
func TestReadPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 15))
	s := testimages.Spiral(300, 1)
	curve := mat.NewDense(300, 3, nil) // the spiral lifted on a bowl
	for i := 0; i < 300; i++ {
		a, b := s.X.At(i, 0), s.X.At(i, 1)
		curve.Set(i, 0, a)
		curve.Set(i, 1, b)
		curve.Set(i, 2, math.Sin(a)*math.Cos(b)+0.01*rng.NormFloat64())
	}
	for _, x := range []*mat.Dense{s.X, curve} {
		good := snappedCompact(t, x)
		_, dims := x.Dims()
		accepted := 0
		for k := 0; k < 300; k++ {
			var d []byte
			switch k % 3 {
			case 0:
				d = good[:rng.IntN(len(good))]
			case 1:
				d = checksum.Refresh(good[:rng.IntN(len(good))])
			default:
				d = append([]byte(nil), good...)
				for f := 0; f <= k%4; f++ {
					d[rng.IntN(len(d)-4)] ^= byte(1 + rng.IntN(255))
				}
				d = checksum.Refresh(d)
			}
			a, errA := spca.Read(bytes.NewReader(d))
			s, errS := spca.Read(struct{ io.Reader }{bytes.NewReader(d)})
			b, errB := spca.Read(bytes.NewBuffer(d)) // Next: the lattice a slab at a time
			if (errA == nil) != (errS == nil) || (errA == nil) != (errB == nil) {
				t.Fatalf("%d-D, case %d: read %v, streamed %v, from a buffer %v", dims, k, errA, errS, errB)
			}
			if errA != nil {
				continue
			}
			accepted++
			var wa, ws, wb bytes.Buffer
			_, errA = a.WriteCompactTo(&wa)
			_, errS = s.WriteCompactTo(&ws)
			_, errB = b.WriteCompactTo(&wb)
			if (errA == nil) != (errS == nil) || !bytes.Equal(wa.Bytes(), ws.Bytes()) {
				t.Fatalf("%d-D, case %d: the models read and streamed differ", dims, k)
			}
			if (errA == nil) != (errB == nil) || !bytes.Equal(wa.Bytes(), wb.Bytes()) {
				t.Fatalf("%d-D, case %d: the models read from a reader and a buffer differ", dims, k)
			}
		}
		if accepted < 50 {
			t.Fatalf("%d-D: only %d of 300 inputs accepted: the lattice paths are hardly compared", dims, accepted)
		}
		t.Logf("%d-D: %d bytes, version %d, %d of 300 inputs accepted and equal", dims, len(good), good[8], accepted)
	}
}

// snappedCompact fits x at gamma 0 on a lattice of 2048 nodes, snaps the
// lattice and returns the model's compact file (version 6: the lattice
// stored as integers, read through the integer scratch).
func snappedCompact(t *testing.T, x mat.Matrix) []byte {
	t.Helper()
	o := withGamma(0)
	o.Resolution = 2048
	m, err := spca.Fit(x, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SnapLattice(1e-3); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := m.WriteCompactTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
