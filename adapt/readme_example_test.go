package adapt_test

import (
	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// The README's adaptation snippet, compiled as written (see
// internal/readme).
func Example_readme() {
	underA, underB := testimages.SceneSet(4, 32, 24, 1)
	imgB := underB[0]
	colours := []colorspace.LMS{{0.5, 0.4, 0.2}}
	// README begin
	model, err := adapt.Train(underA, underB, nil)                        // the same scenes, or any, under lights A and B
	mapper, err := model.Mapper(adapt.SPCA)                               // or adapt.CAT16, adapt.VonKries, ...
	err = mapper.MapLMS(colours, colours)                                 // []colorspace.LMS, mapped in place
	im, err := model.ImageMapperFor(adapt.SPCA, 65, nil)                  // a 65-node LUT and the map's lightness rule
	corrected, err := im.Apply(imgB, 0)                                   // imgB as if seen under A
	lut, err := model.LUTFor(adapt.SPCA, 33, nil)                         // the LUT alone: lut.SaveCube("b-to-a.cube")
	err = model.Save("adapt.model")                                       // adapt.Load, Read, WriteTo
	ev, err := adapt.Evaluate(model, underA, underB, adapt.EvalOptions{}) // CIEDE2000 per method
	// README end
	_, _, _, _ = corrected, lut, ev, err
}
