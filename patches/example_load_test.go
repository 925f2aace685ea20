package patches_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// Save writes an image atomically (PNG, TIFF or PGM/PPM by extension);
// Load reads it back, with functional options for the rare knobs, such
// as the pixel budget checked from the header before decoding.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "patches-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "texture.png")
	if err := patches.Save(path, testimages.Texture(64, 48, 1)); err != nil {
		fmt.Println(err)
		return
	}

	img, err := patches.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := patches.Luminance(img) // a Plane of float64 grey levels, 0..255
	fmt.Println(img.Bounds(), y.W, y.H)

	_, err = patches.Load(path, patches.MaxPixels(1000))
	fmt.Println(errors.Is(err, patches.ErrTooLarge))
	// Output:
	// (0,0)-(64,48) 64 48
	// true
}
