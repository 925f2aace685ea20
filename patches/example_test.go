package patches_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/spcalab/spca/patches"
)

func ExampleExtract() {
	// A 3×3 plane cut into 2×2 blocks: padded to 4×4 by repeating the
	// last column and row.
	p := patches.Plane{W: 3, H: 3, Pix: []float64{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}}
	x, grid := patches.Extract(p, 2)
	fmt.Printf("%v\n", mat.Formatted(x))
	fmt.Printf("%+v\n", grid)

	// Halve the blocks, put them back.
	x.Scale(0.5, x)
	q := patches.Assemble(x, grid)
	fmt.Println(q.W, q.H, q.Pix)
	fmt.Printf("PSNR %.2f dB\n", patches.PSNR(p, q))
	// Output:
	// ⎡1  2  4  5⎤
	// ⎢3  3  6  6⎥
	// ⎢7  8  7  8⎥
	// ⎣9  9  9  9⎦
	// {W:3 H:3 PaddedW:4 PaddedH:4 N:2}
	// 3 3 [0.5 1 1.5 2 2.5 3 3.5 4 4.5]
	// PSNR 39.15 dB
}

func ExampleHalve() {
	// A 4×2 chroma plane at half resolution, as 4:2:0 coding stores it,
	// and doubled back: a ramp in x comes back as a ramp inside, with
	// the edges held.
	p := patches.Plane{W: 4, H: 2, Pix: []float64{
		10, 20, 30, 40,
		10, 20, 30, 40,
	}}
	half := patches.Halve(p)
	fmt.Println(half.W, half.H, half.Pix)
	back := patches.Double(half, 4, 2)
	fmt.Println(back.Pix[:4])
	// Output:
	// 2 1 [15 35]
	// [15 20 30 35]
}
