package testimages_test

import (
	"fmt"

	"github.com/spcalab/spca/testimages"
)

func ExampleSpiral() {
	s := testimages.Spiral(1000, 1)
	n, d := s.X.Dims()
	_, m := s.Latent.Dims()
	fmt.Printf("X: %d×%d\n", n, d)
	fmt.Printf("Latent: %d×%d %v\n", n, m, s.LatentNames)
	// Output:
	// X: 1000×2
	// Latent: 1000×2 [arc offset]
}

func ExampleGenerate() {
	for _, name := range testimages.Names() {
		s, err := testimages.Generate(name, 10, 1)
		if err != nil {
			fmt.Println(err)
			continue
		}
		_, d := s.X.Dims()
		fmt.Println(name, d, s.LatentNames)
	}
	_, err := testimages.Generate("moons", 10, 1)
	fmt.Println(err)
	// Output:
	// spiral 2 [arc offset]
	// swissroll 3 [angle height]
	// delicado-fixed 3 [arc along across]
	// delicado-twisted 3 [arc along across]
	// curve3d 3 [t]
	// testimages: unknown data set "moons" (known: [spiral swissroll delicado-fixed delicado-twisted curve3d])
}
