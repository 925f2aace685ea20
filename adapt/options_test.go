package adapt

import "testing"

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
