package codec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPatchKernel checks decodeAdaptive's patches through patchDual
// against its loop of runDual calls (patchKernel off) on counted streams
// of a tracked 4×4 model: the same indices, the same edge predictor
// sums, cells and ends, on streams of calm and busy patches with
// residuals of every size (Exp-Golomb ones, the ends of the bins); and
// on damaged streams (cut, bits flipped, random) the same error, or the
// same indices where both decode.
func TestPatchKernel(t *testing.T) {
	if !patchKernel {
		t.Skip("no patch kernel on this architecture")
	}
	var b bytes.Buffer
	if _, err := reuseTestModels(t)[1].WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	m, err := ReadModel(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Channels[0]
	dims, k := c.Dims(), c.Leading()
	if !c.edgePredictable() || k == 0 {
		t.Skip("the test model has no edge predictor")
	}
	rng := rand.New(rand.NewPCG(24, 44))
	indices := func(blocks int, off float64) []int32 {
		idx := make([]int32, blocks*dims)
		for i := range idx {
			j := i % dims
			v := c.Centre[j]
			if rng.Float64() < off*float64(dims-j)/float64(dims) {
				switch r := rng.IntN(20); {
				case r < 14:
					v += 1 + rng.IntN(3)
				case r < 17:
					v -= 1 + rng.IntN(20) // some beyond arMaxUnary
				case r < 19:
					v = rng.IntN(c.Bins[j])
				default:
					v = []int{0, c.Bins[j] - 1}[rng.IntN(2)]
				}
			}
			idx[i] = int32(min(max(v, 0), c.Bins[j]-1))
		}
		return idx
	}
	decode := func(kernel bool, data []byte, blocks, cols int) ([]int32, *edgePredictor, error) {
		defer func(old bool) { patchKernel = old }(patchKernel)
		patchKernel = kernel
		p := c.newEdgePredictor(blocks, cols)
		p.trackCells(c, blocks)
		got := make([]int32, blocks*dims)
		err := decodeAdaptive(data, got, dims, cols, c.Centre, c.Bins, k, true, true, p)
		return got, p, err
	}
	const cols = 17
	escapes, damaged := 0, 0
	for trial := range 40 {
		off := []float64{0.02, 0.2, 0.6, 1}[trial%4]
		blocks := cols * (3 + rng.IntN(12))
		idx := indices(blocks, off)
		for i, q := range idx {
			if j := i % dims; j > 0 && abs(int(q)-c.Centre[j]) > arMaxUnary {
				escapes++
			}
		}
		stream := encodeAdaptive(nil, idx, dims, cols, c.Centre, k, true, true, c.newEdgePredictor(blocks, cols), nil)
		data, _, err := parseAdaptive(stream)
		if err != nil {
			t.Fatal(err)
		}
		got, p, err := decode(true, data, blocks, cols)
		want, q, errGo := decode(false, data, blocks, cols)
		if err != nil || errGo != nil || !slices.Equal(got, idx) || !slices.Equal(want, idx) {
			t.Fatalf("trial %d: kernel %v, Go %v, or the indices decode differently", trial, err, errGo)
		}
		if !slices.Equal(p.right, q.right) || !slices.Equal(p.low, q.low) || !slices.Equal(p.mean, q.mean) ||
			!slices.Equal(p.ref, q.ref) || !slices.Equal(p.ends, q.ends) || !slices.Equal(p.rows, q.rows) {
			t.Fatalf("trial %d: the edge predictors differ", trial)
		}
		for _, bad := range [][]byte{data[:len(data)/2], flipBits(rng, data), randomBytes(rng, len(data))} {
			got, _, err := decode(true, bad, blocks, cols)
			want, _, errGo := decode(false, bad, blocks, cols)
			if (err == nil) != (errGo == nil) || err != nil && err.Error() != errGo.Error() {
				t.Fatalf("trial %d: damaged stream: kernel %v, Go %v", trial, err, errGo)
			}
			if err != nil {
				damaged++
			} else if !slices.Equal(got, want) {
				t.Fatalf("trial %d: a damaged stream decodes differently", trial)
			}
		}
	}
	if escapes == 0 || damaged == 0 {
		t.Fatalf("%d Exp-Golomb residuals, %d damaged streams refused: the test covers too little", escapes, damaged)
	}
	t.Logf("%d Exp-Golomb residuals, %d damaged streams refused alike", escapes, damaged)
}

// flipBits returns data with a few bits flipped.
func flipBits(rng *rand.Rand, data []byte) []byte {
	out := slices.Clone(data)
	for range 1 + rng.IntN(4) {
		if len(out) > 0 {
			out[rng.IntN(len(out))] ^= 1 << rng.IntN(8)
		}
	}
	return out
}
