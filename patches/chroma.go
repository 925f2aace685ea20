package patches

import "image"

// HasChroma reports whether some pixel of img has unequal red, green and
// blue: whether the image is in colour rather than grey, whatever its
// colour model. Grey image types answer without reading pixels.
func HasChroma(img image.Image) bool {
	switch img.(type) {
	case *image.Gray, *image.Gray16, *image.Alpha, *image.Alpha16:
		return false
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != g || g != bl {
				return true
			}
		}
	}
	return false
}
