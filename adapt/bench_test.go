package adapt

import (
	"image"
	"image/draw"
	"strconv"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/testimages"
)

// bigImage returns a 4000×3000 8-bit RGBA image (12 megapixels) tiled from
// a rendered B scene.
func bigImage(b *testing.B) *image.RGBA {
	b.Helper()
	_, tile := testimages.Scene(500, 375, 7)
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := 0; y < 3000; y += 375 {
		for x := 0; x < 4000; x += 500 {
			draw.Draw(img, image.Rect(x, y, x+500, y+375), tile, image.Point{}, draw.Src)
		}
	}
	return img
}

// BenchmarkApplyLUT maps a 12-megapixel 8-bit image through a 65-node
// LUT with 2 goroutines (the target is ≥ 66 Mpx/s, 12 MP in < 0.2 s).
func BenchmarkApplyLUT(b *testing.B) {
	benchmarkApply(b, bigImage(b), plainLUT(b))
}

// BenchmarkApplyLUT16 is BenchmarkApplyLUT for a 16-bit image.
func BenchmarkApplyLUT16(b *testing.B) {
	benchmarkApply(b, bigImage16(b), plainLUT(b))
}

// BenchmarkApplyLightnessLUT maps the 12-megapixel 8-bit image through
// the test model's LightnessLUT (what `adapt apply` uses for SPCA) with 2
// goroutines.
func BenchmarkApplyLightnessLUT(b *testing.B) {
	benchmarkApply(b, bigImage(b), lightnessLUT(b))
}

// BenchmarkApplyLightnessLUT16 is BenchmarkApplyLightnessLUT for a 16-bit
// image.
func BenchmarkApplyLightnessLUT16(b *testing.B) {
	benchmarkApply(b, bigImage16(b), lightnessLUT(b))
}

// bigImage16 is bigImage as a 16-bit image.
func bigImage16(b *testing.B) *image.NRGBA64 {
	src := bigImage(b)
	img := image.NewNRGBA64(src.Bounds())
	draw.Draw(img, img.Bounds(), src, image.Point{}, draw.Src)
	return img
}

// plainLUT is the default-size LUT of the test model's SPCA mapping.
func plainLUT(b *testing.B) ImageMapper {
	mp, _ := testModel(b).Mapper(SPCA)
	l, err := BuildLUT(mp, DefaultLUTSize, nil)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// lightnessLUT is what adapt apply maps the test model's SPCA with.
func lightnessLUT(b *testing.B) ImageMapper {
	l, err := testModel(b).ImageMapperFor(SPCA, DefaultLUTSize, nil)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// benchmarkApply maps img through l with 2 goroutines and reports
// megapixels per second.
func benchmarkApply(b *testing.B, img image.Image, l ImageMapper) {
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.Apply(img, 2); err != nil {
			b.Fatal(err)
		}
	}
	px := float64(img.Bounds().Dx() * img.Bounds().Dy())
	b.ReportMetric(px*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpx/s")
}

// BenchmarkExactSPCA maps 20000 distinct colours of the benchmark image
// with the exact SPCA model (all CPUs), the per-pixel alternative to the
// LUT; Mpx/s counts colours.
func BenchmarkExactSPCA(b *testing.B) {
	m := testModel(b)
	mp, _ := m.Mapper(SPCA)
	src, err := SampleLMS([]image.Image{bigImage(b)}, 20000, 3)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := src.Dims()
	cs := make([]colorspace.LMS, n)
	for i := range cs {
		copy(cs[i][:], src.RawRowView(i))
	}
	dst := make([]colorspace.LMS, n)
	b.ResetTimer()
	for b.Loop() {
		if err := mp.MapLMS(dst, cs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpx/s")
}

// BenchmarkBuildLUT builds LUTs of sizes 33 and 65 from the exact SPCA
// model (all CPUs).
func BenchmarkBuildLUT(b *testing.B) {
	m := testModel(b)
	mp, _ := m.Mapper(SPCA)
	for _, size := range []int{33, 65} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildLUT(mp, size, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size*size*size)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
