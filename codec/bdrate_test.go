package codec

import (
	"math"
	"testing"
)

// TestBDRate checks the Bjøntegaard delta rate on known cases: a codec
// needing 0.8 of the bits at every quality is -20 % whatever the curve
// (exact: log-rates differ by a constant, which the cubic fits exactly);
// the reference against itself is 0; swapping the curves gives
// 1/0.8 - 1 = +25 %; a curve of 4 points with a cubic log-rate is fitted
// exactly, so the delta over a partial overlap is the integral of the
// known difference; too few points and disjoint curves are errors.
func TestBDRate(t *testing.T) {
	var ref, test []RDPoint
	for _, q := range []float64{30, 33, 36, 39, 42} {
		r := 0.05 * math.Exp(0.16*q) * (1 + 0.01*(q-36)) // any smooth, rising curve
		ref = append(ref, RDPoint{BPP: r, Quality: q})
		test = append(test, RDPoint{BPP: 0.8 * r, Quality: q})
	}
	for _, c := range []struct {
		name      string
		ref, test []RDPoint
		want      float64
	}{
		{"0.8 of the bits", ref, test, -20},
		{"itself", ref, ref, 0},
		{"swapped", test, ref, 25},
	} {
		got, err := BDRate(c.ref, c.test)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s: BD-rate %.9f %%, want %v %%", c.name, got, c.want)
		}
	}
	// Exact cubics: ln r_ref = q/10, ln r_test = q/10 - 0.1 + 0.01 (q-35),
	// qualities 30..40 and 35..45 overlapping on [35, 40]: the mean
	// difference is -0.1 + 0.01 * 2.5 = -0.075.
	ref, test = nil, nil
	for _, q := range []float64{30, 32, 34, 36, 38, 40} {
		ref = append(ref, RDPoint{BPP: math.Exp(q / 10), Quality: q})
	}
	for _, q := range []float64{35, 38, 41, 45} {
		test = append(test, RDPoint{BPP: math.Exp(q/10 - 0.1 + 0.01*(q-35)), Quality: q})
	}
	got, err := BDRate(ref, test)
	if err != nil {
		t.Fatal(err)
	}
	if want := (math.Exp(-0.075) - 1) * 100; math.Abs(got-want) > 1e-6 {
		t.Errorf("partial overlap: %.9f %%, want %.9f %%", got, want)
	}
	// Within [36, 39]: the mean difference -0.1 + 0.01 * 2.5 again (the
	// interval is centred on 37.5), and the interval returned; [20, 37]
	// keeps [35, 37]: -0.1 + 0.01 * 1.
	for _, c := range []struct{ lo, hi, from, to, mean float64 }{{36, 39, 36, 39, -0.075}, {20, 37, 35, 37, -0.09}} {
		got, from, to, err := BDRateIn(ref, test, c.lo, c.hi)
		if err != nil {
			t.Fatal(err)
		}
		if want := (math.Exp(c.mean) - 1) * 100; math.Abs(got-want) > 1e-6 || from != c.from || to != c.to {
			t.Errorf("within [%v, %v]: %.9f %% over [%v, %v], want %.9f %% over [%v, %v]", c.lo, c.hi, got, from, to, want, c.from, c.to)
		}
	}
	if _, _, _, err := BDRateIn(ref, test, 41, 44); err == nil {
		t.Error("an interval outside the overlap accepted")
	}
	if _, err := BDRate(ref[:3], test); err == nil {
		t.Error("3 points accepted")
	}
	far := []RDPoint{{1, 50}, {2, 52}, {3, 54}, {4, 56}}
	if _, err := BDRate(ref, far); err == nil {
		t.Error("disjoint curves accepted")
	}
}

func TestQualityGap(t *testing.T) {
	ref := []RDPoint{{1, 30}, {2, 34}, {4, 38}}
	got := QualityGap(ref, []RDPoint{{2, 35}, {math.Sqrt2, 31}, {8, 40}, {0.5, 20}})
	want := []float64{1, -1, math.NaN(), math.NaN()}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-9) {
			t.Errorf("gap %d = %v, want %v", i, got[i], want[i])
		}
	}
}
