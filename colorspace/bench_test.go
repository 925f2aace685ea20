package colorspace

import (
	"math/rand/v2"
	"testing"
)

const benchPixels = 1_000_000

func benchImage() []SRGB {
	rnd := rand.New(rand.NewPCG(3, 4))
	px := make([]SRGB, benchPixels)
	for i := range px {
		// 8-bit values, as decoded from an image file.
		px[i] = SRGB{float64(rnd.IntN(256)) / 255, float64(rnd.IntN(256)) / 255, float64(rnd.IntN(256)) / 255}
	}
	return px
}

var sinkLab []Lab

// BenchmarkSRGBToLab converts 10⁶ pixels from sRGB to CIELAB (D65) per
// iteration.
func BenchmarkSRGBToLab(b *testing.B) {
	px := benchImage()
	out := make([]Lab, len(px))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, c := range px {
			out[i] = c.Lab()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPixels, "ns/pixel")
	sinkLab = out
}

// BenchmarkSRGBToLabLUT is the same conversion with the transfer function of
// 8-bit input tabulated, the usual way to convert whole images.
func BenchmarkSRGBToLabLUT(b *testing.B) {
	px := benchImage()
	var lut [256]float64
	for i := range lut {
		lut[i] = SRGBToLinear(float64(i) / 255)
	}
	idx := make([][3]uint8, len(px))
	for i, c := range px {
		idx[i] = [3]uint8{uint8(c[0]*255 + 0.5), uint8(c[1]*255 + 0.5), uint8(c[2]*255 + 0.5)}
	}
	out := make([]Lab, len(px))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, c := range idx {
			out[i] = LinearRGB{lut[c[0]], lut[c[1]], lut[c[2]]}.XYZ().Lab(WhiteD65)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchPixels, "ns/pixel")
	sinkLab = out
}
