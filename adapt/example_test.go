package adapt_test

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"strings"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/colorspace"
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
