package adapt

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/spca"
)

// TestOptionsZeroFields checks that options built field by field get the
// documented defaults: &Options{Samples: 500} failed with "both
// environments: invalid option: K must be a fraction in (0, 1]" (the
// zero spca.Options), &Options{} with "Samples 0: must be positive".
func TestOptionsZeroFields(t *testing.T) {
	def := DefaultOptions()
	o := (&Options{Samples: 500, NoLUT: true}).withDefaults()
	if o.SPCA.K != def.SPCA.K || o.SPCA.Bandwidth != def.SPCA.Bandwidth || o.SPCA.DensityFloor != def.SPCA.DensityFloor || !o.SPCA.FloorOfMean {
		t.Errorf("zero SPCA became %+v, want DefaultOptions' %+v", o.SPCA, def.SPCA)
	}
	if o.Samples != 500 || !o.NoLUT {
		t.Errorf("set fields changed: Samples %d NoLUT %v", o.Samples, o.NoLUT)
	}
	if o := (&Options{}).withDefaults(); o.Samples != DefaultSamples {
		t.Errorf("zero Samples became %d, want DefaultSamples %d", o.Samples, DefaultSamples)
	}
	so := def.SPCA
	so.K = 0.5
	if o := (&Options{SPCA: so}).withDefaults(); o.SPCA.K != 0.5 {
		t.Errorf("SPCA options with K 0.5 replaced: K %g", o.SPCA.K)
	}
	if o := (*Options)(nil).withDefaults(); o.Seed != def.Seed || o.Samples != def.Samples {
		t.Errorf("nil options: %+v, want DefaultOptions", o)
	}
}

// TestTrainSamplesBadValues checks that LMS samples that are not finite,
// or beyond ±MaxLMS, are a *spca.DataError naming the sample: a NaN
// panicked in the eigendecomposition of the baselines' principal axes
// ("mat: use without successful factorization").
func TestTrainSamplesBadValues(t *testing.T) {
	good := mat.NewDense(50, 3, nil)
	for i := range 50 {
		for k := range 3 {
			good.Set(i, k, 0.1+0.01*float64((i*7+k*13)%50))
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(-1), 1e200} {
		bad := mat.DenseCopyOf(good)
		bad.Set(3, 1, v)
		for env, pair := range [][2]*mat.Dense{{bad, good}, {good, bad}} {
			_, err := TrainSamples(pair[0], pair[1], &Options{NoLUT: true})
			var de *spca.DataError
			want := fmt.Sprintf("environment %c: bad data: sample 4, cone 2 is %g", "AB"[env], v)
			if !errors.As(err, &de) || !strings.Contains(err.Error(), want) {
				t.Errorf("%g in environment %c: %v, want a *spca.DataError with %q", v, "AB"[env], err, want)
			}
		}
	}
}
