package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// withFrame returns the version-4 file data (d×d frame just before the
// checksum) with its frame set to f, row by row, the checksum made valid.
func withFrame(data []byte, d int, f []float64) []byte {
	bad := bytes.Clone(data)
	at := len(bad) - 4 - 8*d*d
	for i, v := range f {
		binary.LittleEndian.PutUint64(bad[at+8*i:], math.Float64bits(v))
	}
	return checksum.Refresh(bad)
}

// TestReadFisherFrameShape reads SPCAFisher files (arcs-thin, d 2) whose
// frame is not one Train makes (rows orthogonal, norms at most 1, the
// largest 1): *FormatErrors naming the frame. They were read, and then
// frames of values 1e200 to the largest float64, or of 5e-324, refused
// every query ('its distance overflows'), one of zeros or 1e-300 gave
// every query class 0 (accuracy 0.500), and a rank-one frame 0.660.
// Frames of Train's shape are read and vote as expected: the trained
// frame, its negative (the same metric), and a rotation weighted 1 and
// 0.3; each rewrites to the same bytes.
func TestReadFisherFrameShape(t *testing.T) {
	opt := spca.DefaultOptions()
	opt.Seed, opt.Resolution = 1, 1<<12
	train, _ := testimages.GenerateClasses("arcs-thin", 120, 1)
	test, _ := testimages.GenerateClasses("arcs-thin", 200, 2)
	c, err := Train(train.X, train.Label, 2, SPCAFisher, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, d := train.X.Dims()
	data := encode(t, c)
	base, err := c.Accuracy(test.X, test.Label)
	if err != nil || base < 0.9 {
		t.Fatalf("the trained classifier: accuracy %.3f (%v)", base, err)
	}
	for name, f := range map[string][]float64{
		"all 1e300":           {1e300, 1e300, 1e300, 1e300},
		"all 1e200":           {1e200, 1e200, 1e200, 1e200},
		"diagonal 1e150":      {1e150, 0, 0, 1e150},
		"diagonal MaxFloat":   {math.MaxFloat64, 0, 0, math.MaxFloat64},
		"diagonal 5e-324":     {5e-324, 0, 0, 5e-324},
		"diagonal 1e-300":     {1e-300, 0, 0, 1e-300},
		"zeros":               {0, 0, 0, 0},
		"rank one":            {1, 1, 1, 1},
		"rows not orthogonal": {1, 0, 0.6, 0.8},
		"norm 1 + 1e-6":       {1 + 1e-6, 0, 0, 0.5},
	} {
		_, err := Read(bytes.NewReader(withFrame(data, d, f)))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "frame") {
			t.Errorf("frame %s %v: %v, want a *FormatError naming the frame", name, f, err)
		}
	}
	fr := c.Frame.RawMatrix().Data
	cos, sin := math.Cos(0.5), math.Sin(0.5)
	for name, f := range map[string][]float64{
		"trained":         fr,
		"negative":        {-fr[0], -fr[1], -fr[2], -fr[3]},
		"rotation 1, 0.3": {cos, -sin, 0.3 * sin, 0.3 * cos},
	} {
		file := withFrame(data, d, f)
		r, err := Read(bytes.NewReader(file))
		if err != nil {
			t.Errorf("frame %s %v: %v", name, f, err)
			continue
		}
		acc, err := r.Accuracy(test.X, test.Label)
		if err != nil || (name != "rotation 1, 0.3" && acc != base) || acc < 0.6 {
			t.Errorf("frame %s: accuracy %.3f (trained %.3f), %v", name, acc, base, err)
		}
		if !bytes.Equal(encode(t, r), file) {
			t.Errorf("frame %s: rewriting gives other bytes", name)
		}
	}
}
