package adapt_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"strings"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// A LUT of a mapping, written as a .cube file and applied to an image.
// (With a trained model, use model.Mapper(adapt.SPCA) instead of the
// gray-world map built here by hand.)
func ExampleBuildLUT() {
	gw := adapt.NewGrayWorld([3]float64{0.5, 0.5, 0.5}, [3]float64{0.6, 0.5, 0.3})
	lut, err := adapt.BuildLUT(gw, 3, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var cube strings.Builder
	lut.WriteCube(&cube)
	lines := strings.Split(cube.String(), "\n")
	fmt.Println(strings.Join(lines[:6], "\n"))

	img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.NRGBA{200, 160, 90, 255})
	img.Set(1, 0, color.NRGBA{200, 160, 90, 128}) // alpha is kept
	out, _ := lut.Apply(img, 0)
	fmt.Println(out.At(0, 0), out.At(1, 0))
	// Output:
	// TITLE "spca adapt: grayworld mapping from light B to light A, sRGB in and out"
	// # Input and output: sRGB-encoded R'G'B' in [0, 1]; red varies fastest.
	// LUT_3D_SIZE 3
	// DOMAIN_MIN 0 0 0
	// DOMAIN_MAX 1 1 1
	// 0 0 0
	// {115 168 132 255} {115 168 132 128}
}

// Mapping single colours.
func ExampleMapper() {
	gw := adapt.NewGrayWorld([3]float64{0.5, 0.5, 0.5}, [3]float64{0.6, 0.5, 0.3})
	src := []colorspace.LMS{{0.6, 0.5, 0.3}}
	dst := make([]colorspace.LMS, 1)
	if err := gw.MapLMS(dst, src); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	fmt.Printf("%v: %.3f\n", gw.Method(), dst[0])
	// Output:
	// grayworld: [0.500 0.500 0.500]
}

// Train the adaptation from images of scenes under two lights, map a
// colour, correct an image and export the mapping as a 3-D LUT. The
// scenes need not be the same under both lights: SPCA pairs the colours
// by their place in each light's distribution.
func ExampleTrain() {
	underA, underB := testimages.SceneSet(6, 32, 24, 1) // A: daylight, B: a warm light
	opt := adapt.DefaultOptions()
	opt.Samples = 2000
	opt.SPCA.Resolution = 1 << 10 // a coarse lattice, fast to fit
	opt.NoLUT = true              // the LUTs below are built when asked for
	model, err := adapt.Train(underA, underB, &opt)
	if err != nil {
		fmt.Println(err)
		return
	}

	// One colour: the white of light B, mapped towards A's white.
	whiteA, whiteB := testimages.SceneWhites()
	mapper, err := model.Mapper(adapt.SPCA) // or adapt.CAT16, adapt.PCAWhitening, ...
	if err != nil {
		fmt.Println(err)
		return
	}
	c := []colorspace.LMS{whiteB.LMS()}
	if err := mapper.MapLMS(c, c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("u'v' distance to A's white: %.3f before, below 0.01 after: %v\n",
		uvDistance(whiteB, whiteA), uvDistance(c[0].XYZ(), whiteA) < 0.01)

	// A whole image, through a LUT of the mapping (what spca adapt apply does).
	im, err := model.ImageMapperFor(adapt.SPCA, 17, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	corrected, err := im.Apply(underB[0], 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(corrected.Bounds())

	// The LUT alone, as a .cube file for other programs (or lut.SaveCube).
	lut, err := model.LUTFor(adapt.SPCA, 17, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var cube strings.Builder
	if err := lut.WriteCube(&cube); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Split(cube.String(), "\n")[2])
	// Output:
	// u'v' distance to A's white: 0.081 before, below 0.01 after: true
	// (0,0)-(32,24)
	// LUT_3D_SIZE 17
}

// uvDistance is the distance between the u'v' chromaticities of a and b.
func uvDistance(a, b colorspace.XYZ) float64 {
	ua, va := a.UV()
	ub, vb := b.UV()
	return math.Hypot(ua-ub, va-vb)
}
