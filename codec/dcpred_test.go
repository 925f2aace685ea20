package codec

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEdgeVersion checks format version 6 against version 5 on the same
// indices: the same pixels in fewer bytes, and version 6 refused for a
// model whose first indices cannot be predicted from pixels (gamma > 0).
func TestEdgeVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	var size5, size6 int
	for _, img := range test {
		var b5, b6 bytes.Buffer
		if err := encodeVersion(&b5, img, m, nil, formatVersionAdaptive); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b6, img, m, nil); err != nil {
			t.Fatal(err)
		}
		if v := b6.Bytes()[len(Magic)]; v != formatVersionEdges {
			t.Fatalf("a gamma-0 model wrote version %d", v)
		}
		a, err := Decode(bytes.NewReader(b5.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(bytes.NewReader(b6.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix) {
			t.Error("versions 5 and 6 decode to other pixels")
		}
		size5 += b5.Len()
		size6 += b6.Len()
	}
	t.Logf("version 5: %d bytes, version 6: %d", size5, size6)
	if size6 >= size5 {
		t.Errorf("version 6 takes %d bytes, version 5 %d", size6, size5)
	}
	var b bytes.Buffer
	if err := encodeVersion(&b, test[0], smallStepModel(t), nil, formatVersionEdges); err == nil {
		t.Error("version 6 written for a gamma-1/3 model")
	}
}

// TestNearestSorted checks the bisection of predict against its scan on
// increasing levels, with targets on, between and beyond them and levels
// so close that rounding makes distances equal.
func TestNearestSorted(t *testing.T) {
	scan := func(first []float64, y0 float64) int {
		best, dist := 0, -1.0
		for b, v := range first {
			d := v - y0
			if d < 0 {
				d = -d
			}
			if dist < 0 || d < dist {
				best, dist = b, d
			}
		}
		return best
	}
	rng := rand.New(rand.NewPCG(24, 1))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(40)
		first := make([]float64, n)
		v := rng.NormFloat64() * 100
		for b := range first {
			first[b] = v
			if rng.IntN(4) == 0 {
				v = math.Nextafter(v, math.Inf(1)) // neighbours one ulp apart
			} else {
				v += rng.Float64() * 10
			}
		}
		if !increasing(first) {
			t.Fatalf("trial %d: levels not increasing", trial)
		}
		targets := []float64{first[0] - 1, first[n-1] + 1, math.Inf(1), math.Inf(-1), math.NaN()}
		for b := range first {
			targets = append(targets, first[b], math.Nextafter(first[b], 0))
			if b > 0 {
				targets = append(targets, (first[b-1]+first[b])/2)
			}
		}
		for _, y0 := range targets {
			if got, want := nearestSorted(first, y0), scan(first, y0); got != want {
				t.Fatalf("levels %v, target %v: bisection %d, scan %d", first, y0, got, want)
			}
		}
	}
	if increasing([]float64{1, 1}) || increasing([]float64{math.NaN()}) || increasing(nil) {
		t.Error("increasing accepts levels that do not increase")
	}
}
