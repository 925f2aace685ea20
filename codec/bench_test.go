package codec

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

var (
	benchOnce  sync.Once
	benchModel *Model
	benchImg   image.Image
	best       struct {
		once sync.Once
		m    *Model
	}
)

// benchSetup trains a 2×2 luminance model (resolution 66) on generated
// textures and returns it with a 768×512 test image (the Kodak size).
func benchSetup(b *testing.B) (*Model, image.Image) {
	benchOnce.Do(func() {
		var train []image.Image
		for s := uint64(1); s <= 3; s++ {
			train = append(train, testimages.Texture(384, 256, s))
		}
		m, err := Train(train, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchModel = m
		benchImg = testimages.Texture(768, 512, 42)
		var w bytes.Buffer
		Encode(&w, benchImg, m, nil) // builds the fast path and codebook
		Decode(&w, m)
	})
	return benchModel, benchImg
}

// bestSetup trains the best configuration measured, 4×4 patches with gamma
// 0 in the entropy-constrained mode (step 8, about 1.3 bpp on the test
// image), on the textures of benchSetup.
func bestSetup(b *testing.B) *Model {
	_, img := benchSetup(b)
	best.once.Do(func() {
		var train []image.Image
		for s := uint64(1); s <= 3; s++ {
			train = append(train, testimages.Texture(384, 256, s))
		}
		o := DefaultTrainOptions()
		o.Patch, o.Gamma, o.Step = 4, 0, 8
		m, err := Train(train, &o)
		if err != nil {
			b.Fatal(err)
		}
		var w bytes.Buffer
		Encode(&w, img, m, nil)
		Decode(&w, m)
		best.m = m
	})
	return best.m
}

// BenchmarkEncode compares SPCA encoding (fast and exact paths) with
// image/jpeg at quality 75 on the same 768×512 grayscale image.
func BenchmarkEncode(b *testing.B) {
	m, img := benchSetup(b)
	b.Run("spca", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spca-responses", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, &Options{Assign: AssignResponses}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spca-exact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, &Options{Exact: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spca-4x4-step", func(b *testing.B) {
		m := bestSetup(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jpeg-q75", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := jpeg.Encode(&w, img, &jpeg.Options{Quality: 75}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	m, img := benchSetup(b)
	var s, j bytes.Buffer
	Encode(&s, img, m, nil)
	jpeg.Encode(&j, img, &jpeg.Options{Quality: 75})
	b.Run("spca", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Decode(bytes.NewReader(s.Bytes()), m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spca-4x4-step", func(b *testing.B) {
		m := bestSetup(b)
		var s bytes.Buffer
		Encode(&s, img, m, nil)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := Decode(bytes.NewReader(s.Bytes()), m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jpeg-q75", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := jpeg.Decode(bytes.NewReader(j.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFile encodes and decodes a real image with a trained model,
// beside image/jpeg: SPCA_BENCH_MODEL names the model file and
// SPCA_BENCH_IMAGE the image (for instance a Kodak picture and a model
// trained on others by spca codec train). Skipped unless both are set.
func BenchmarkFile(b *testing.B) {
	mp, ip := os.Getenv("SPCA_BENCH_MODEL"), os.Getenv("SPCA_BENCH_IMAGE")
	if mp == "" || ip == "" {
		b.Skip("SPCA_BENCH_MODEL and SPCA_BENCH_IMAGE not set")
	}
	m, err := LoadModel(mp)
	if err != nil {
		b.Fatal(err)
	}
	img, err := patches.Load(ip)
	if err != nil {
		b.Fatal(err)
	}
	if len(m.Channels) == 1 { // both coders then see the same grey image
		g := image.NewGray(img.Bounds())
		draw.Draw(g, g.Rect, img, g.Rect.Min, draw.Src)
		img = g
	}
	var s, j bytes.Buffer
	if err := Encode(&s, img, m, nil); err != nil { // builds the tables
		b.Fatal(err)
	}
	if err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 75}); err != nil {
		b.Fatal(err)
	}
	b.Run("encode-spca", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Without the loop filter of version 9 (its fit's cost: the
	// difference from encode-spca).
	b.Run("encode-spca-noloop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := Encode(&w, img, m, &Options{NoLoopFilter: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode-jpeg-q75", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var w bytes.Buffer
			if err := jpeg.Encode(&w, img, &jpeg.Options{Quality: 75}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The fast quantisation of the luma plane alone: the SPCA part of an
	// encode, the part the fast path's tables decide.
	b.Run("quantize-luma", func(b *testing.B) {
		c := m.Channels[0]
		y, _ := c.PCA.Project(m.planes(img)[0], m.Patch)
		idx := make([]int32, len(y.RawMatrix().Data))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			c.quantizeFast(y, idx)
		}
	})
	b.Run("decode-spca", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Decode(bytes.NewReader(s.Bytes()), m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-jpeg-q75", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := jpeg.Decode(bytes.NewReader(j.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkModelLoad reads the default (2×2, gamma 1/3, 66 bins) and the
// best (4×4, gamma 0, uniform step) models of the benchmarks, as model
// files of this version ("compact") and as files of the version-1/2
// layout in the compressed container, the format written before version
// 3 ("legacy", its ID hashed once read, as a decoder must), and without
// the step basis ("compact-nobasis", as written before it). It reports
// the file size; SPCA_BENCH_MODEL adds a model file ("file"), and that
// file loaded as a process loads it ("file-load": LoadModel from the
// file, no spare nor kept buffers left by the load before), whose B/op
// (-benchmem) are the fresh bytes of a process's load.
func BenchmarkModelLoad(b *testing.B) {
	models := map[string]*Model{"default": nil, "best": nil}
	models["default"], _ = benchSetup(b)
	models["best"] = bestSetup(b)
	if p := os.Getenv("SPCA_BENCH_MODEL"); p != "" {
		m, err := LoadModel(p)
		if err != nil {
			b.Fatal(err)
		}
		models["file"] = m
		b.Run("file-load", func(b *testing.B) {
			defer ReleaseBuffers()
			for i := 0; i < b.N; i++ {
				ReleaseBuffers()
				m, err := LoadModel(p)
				if err != nil {
					b.Fatal(err)
				}
				m.ID()
				m.Close()
			}
		})
	}
	for _, name := range []string{"default", "best", "file"} {
		m := models[name]
		if m == nil {
			continue
		}
		var compact bytes.Buffer
		if _, err := m.WriteTo(&compact); err != nil {
			b.Fatal(err)
		}
		var noBasis bytes.Buffer
		if _, err := m.writeTo(&noBasis, false); err != nil {
			b.Fatal(err)
		}
		legacy := compressed(plainFile(b, m))
		for _, f := range []struct {
			format string
			data   []byte
		}{{"compact", compact.Bytes()}, {"compact-nobasis", noBasis.Bytes()}, {"legacy", legacy}} {
			b.Run(name+"-"+f.format, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					m, err := ReadModel(bytes.NewReader(f.data))
					if err != nil {
						b.Fatal(err)
					}
					m.ID()
				}
				b.ReportMetric(float64(len(f.data)), "file-bytes")
			})
		}
	}
}

// BenchmarkRefineNearest times the encoder's rate–distortion refinement
// of the cells (refineNearest) alone, on the indices quantizeFast gives,
// with the 4×4 gamma-0 model of bestSetup, and with the model file
// SPCA_BENCH_MODEL on the image SPCA_BENCH_IMAGE where both are set. The
// cell cache stays warm across iterations, as in a batch.
func BenchmarkRefineNearest(b *testing.B) {
	_, img := benchSetup(b)
	models := []struct {
		name string
		m    *Model
	}{{"4x4-textures", bestSetup(b)}}
	if mp, ip := os.Getenv("SPCA_BENCH_MODEL"), os.Getenv("SPCA_BENCH_IMAGE"); mp != "" && ip != "" {
		m, err := LoadModel(mp)
		if err != nil {
			b.Fatal(err)
		}
		if img, err = patches.Load(ip); err != nil {
			b.Fatal(err)
		}
		models = append(models, struct {
			name string
			m    *Model
		}{"file", m})
	}
	for _, mm := range models {
		m := mm.m
		if m.Step == 0 {
			continue
		}
		c := m.Channels[0]
		if _, err := c.loadFast(); err != nil {
			b.Fatal(err)
		}
		y, idx, _, _ := c.quantizePlane(m.planes(img)[0], m.Patch, false, false)
		work := make([]int32, len(idx))
		b.Run(mm.name, func(b *testing.B) {
			for range b.N {
				copy(work, idx)
				c.refineNearest(y, work, m.Step)
			}
		})
	}
}

// BenchmarkDecodeFiles decodes a batch of .spc files in one process, as
// spca decode does with many inputs: SPCA_BENCH_MODEL names the model and
// SPCA_BENCH_SPC a glob of files it encoded (for instance kodim13-24 in
// grey). It reports the wall and CPU time per image (the CPU time of
// the codec alone with -cpu 1). Skipped unless both are set.
func BenchmarkDecodeFiles(b *testing.B) {
	mp, glob := os.Getenv("SPCA_BENCH_MODEL"), os.Getenv("SPCA_BENCH_SPC")
	if mp == "" || glob == "" {
		b.Skip("SPCA_BENCH_MODEL and SPCA_BENCH_SPC not set")
	}
	m, err := LoadModel(mp)
	if err != nil {
		b.Fatal(err)
	}
	names, err := filepath.Glob(glob)
	if err != nil || len(names) == 0 {
		b.Fatalf("SPCA_BENCH_SPC=%s: no files (%v)", glob, err)
	}
	files := make([][]byte, len(names))
	for i, name := range names {
		if files[i], err = os.ReadFile(name); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := Decode(bytes.NewReader(files[0]), m); err != nil { // reads the model's sections
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if _, err := Decode(bytes.NewReader(f), m); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu = processCPU() - cpu
	imgs := float64(b.N * len(files))
	b.ReportMetric(b.Elapsed().Seconds()*1000/imgs, "ms/img")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()*1000/imgs, "cpu-ms/img")
	}
}

// BenchmarkEncodeFiles encodes a batch of images in one process, as spca
// encode does with many inputs: SPCA_BENCH_MODEL names the model and
// SPCA_BENCH_IMAGES a glob of images (coded in grey by a grey model, as
// the CLI codes them). It reports the wall and CPU time per image (the
// CPU time of the codec alone with -cpu 1). Skipped unless both are set.
func BenchmarkEncodeFiles(b *testing.B) {
	mp, glob := os.Getenv("SPCA_BENCH_MODEL"), os.Getenv("SPCA_BENCH_IMAGES")
	if mp == "" || glob == "" {
		b.Skip("SPCA_BENCH_MODEL and SPCA_BENCH_IMAGES not set")
	}
	m, err := LoadModel(mp)
	if err != nil {
		b.Fatal(err)
	}
	names, err := filepath.Glob(glob)
	if err != nil || len(names) == 0 {
		b.Fatalf("SPCA_BENCH_IMAGES=%s: no files (%v)", glob, err)
	}
	imgs := make([]image.Image, len(names))
	for i, name := range names {
		if imgs[i], err = patches.Load(name); err != nil {
			b.Fatal(err)
		}
	}
	var w bytes.Buffer
	if err := Encode(&w, imgs[0], m, nil); err != nil { // reads the model's sections
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		for _, img := range imgs {
			w.Reset()
			if err := Encode(&w, img, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu = processCPU() - cpu
	n := float64(b.N * len(imgs))
	b.ReportMetric(b.Elapsed().Seconds()*1000/n, "ms/img")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()*1000/n, "cpu-ms/img")
	}
}

// BenchmarkDeblockErrors times the encoder's search of the deblocking
// strength (deblockErrorsGray: the squared error at every strength) on
// the reconstruction of the 4×4 model of bestSetup, and with the model
// file SPCA_BENCH_MODEL on the image SPCA_BENCH_IMAGE where both are set.
func BenchmarkDeblockErrors(b *testing.B) {
	_, img := benchSetup(b)
	type named struct {
		name string
		m    *Model
		img  image.Image
	}
	models := []named{{"4x4-textures", bestSetup(b), img}}
	if mp, ip := os.Getenv("SPCA_BENCH_MODEL"), os.Getenv("SPCA_BENCH_IMAGE"); mp != "" && ip != "" {
		m, err := LoadModel(mp)
		if err != nil {
			b.Fatal(err)
		}
		fi, err := patches.Load(ip)
		if err != nil {
			b.Fatal(err)
		}
		g := image.NewGray(fi.Bounds())
		draw.Draw(g, g.Rect, fi, g.Rect.Min, draw.Src)
		models = append(models, named{"file", m, g})
	}
	for _, mm := range models {
		m := mm.m
		c := m.Channels[0]
		if _, err := c.loadFast(); err != nil {
			b.Fatal(err)
		}
		p := m.planes(mm.img)[0]
		_, idx, grid, _ := c.quantizePlane(p, m.Patch, false, false)
		rec := c.reconstructGray(idx, c.leadRows(idx, grid.Blocks()), grid, false, nil).(*image.Gray)
		b.Run(mm.name, func(b *testing.B) {
			for range b.N {
				deblockErrorsGray(p, rec, m.Step, m.Patch)
			}
		})
	}
}
