package adapt_test

import (
	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/testimages"
)

// The README's adaptation snippet, compiled as written (see
// internal/readme).
func Example_readme() {
	underA, underB := testimages.SceneSet(4, 32, 24, 1)
	imgB := underB[0]
	// README begin
	model, err := adapt.Train(underA, underB, nil)                        // the same scenes, or any, under lights A and B
	mapper, err := model.Mapper(adapt.SPCA)                               // or adapt.CAT16, adapt.VonKries, ...
	lut, err := adapt.BuildLUT(mapper, 33, nil)                           // a 3-D LUT: lut.WriteCube, lut.Apply
	corrected, err := lut.Apply(imgB, 0)                                  // imgB as if seen under A
	ev, err := adapt.Evaluate(model, underA, underB, adapt.EvalOptions{}) // CIEDE2000 per method
	// README end
	_, _, _ = corrected, ev, err
}
