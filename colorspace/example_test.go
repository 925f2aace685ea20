package colorspace_test

import (
	"fmt"

	"github.com/spcalab/spca/colorspace"
)

func Example() {
	red := colorspace.SRGB{1, 0, 0}
	fmt.Printf("XYZ %.4f\n", red.XYZ())
	fmt.Printf("Lab %.2f\n", red.Lab())

	orange := colorspace.SRGB{1, 0.5, 0}.Lab()
	fmt.Printf("ΔE00(red, orange) = %.2f\n", colorspace.DeltaE2000(red.Lab(), orange))

	// Output:
	// XYZ [0.4124 0.2126 0.0193]
	// Lab [53.24 80.09 67.20]
	// ΔE00(red, orange) = 21.01
}

// A grey card rendered under illuminant A and mapped by the Bradford
// transform to the colour that corresponds to it under D65: the neutral
// surface becomes neutral again.
func ExampleBradford() {
	a := colorspace.IlluminantA()
	wa := colorspace.WhitePoint(a)
	wd65 := colorspace.WhitePoint(colorspace.IlluminantD65())
	cat := colorspace.Bradford(wa, wd65)

	grey := colorspace.Render(colorspace.Constant(0.2), a)
	x, y := cat.Apply(grey).Chromaticity()
	fmt.Printf("grey under A, adapted to D65: (x, y) = (%.4f, %.4f)\n", x, y)
	x, y = wd65.Chromaticity()
	fmt.Printf("D65 white:                     (x, y) = (%.4f, %.4f)\n", x, y)

	// Output:
	// grey under A, adapted to D65: (x, y) = (0.3127, 0.3290)
	// D65 white:                     (x, y) = (0.3127, 0.3290)
}

func ExampleXYZ_LMS() {
	fmt.Printf("%.6f\n", colorspace.WhiteD65.LMS())
	fmt.Printf("%.4f\n", colorspace.SRGB{0, 0, 1}.XYZ().LMS())

	// Output:
	// [1.000000 1.000000 1.000000]
	// [0.0465 0.0867 0.8728]
}
