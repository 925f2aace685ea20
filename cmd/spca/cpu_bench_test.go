package main

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkProcessCPU measures the CPU time (user + system) of the built
// spca binary encoding and decoding 768×512 grey photographs, one process
// per image and one process for all of them, against cjpeg -optimize
// -quality 75 and djpeg on the same images in the same run (issue 24:
// at most 3× per process, 2× per image in one process). It needs a codec
// model file (SPCA_BENCH_MODEL), the held-out images (SPCA_BENCH_IMAGES, a
// directory of PNGs; by default ../shared/testdata/heldout from the
// repository root: kodim13-24, coded in grey) and cjpeg and djpeg on PATH;
// it skips otherwise. Run it once: -bench ProcessCPU -benchtime 1x.
//
// The -pgm metrics time spca on the files cjpeg reads and djpeg writes
// (encode from the PGM, decode to a PGM: like for like), the others on
// PNG in and out.
func BenchmarkProcessCPU(b *testing.B) {
	model := os.Getenv("SPCA_BENCH_MODEL")
	if model == "" {
		b.Skip("SPCA_BENCH_MODEL (a codec model file) not set")
	}
	dir := os.Getenv("SPCA_BENCH_IMAGES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "testdata", "heldout")
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) == 0 {
		b.Skipf("no held-out images in %s", dir)
	}
	for _, tool := range []string{"cjpeg", "djpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not on PATH", tool)
		}
	}
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "spca")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	// Grey copies: PNG for spca, PGM for cjpeg.
	var greys, pgms []string
	for _, p := range pngs {
		g := greyImage(b, p)
		base := filepath.Join(tmp, filepath.Base(p[:len(p)-len(filepath.Ext(p))]))
		writeBench(b, base+".png", func(f *os.File) error { return png.Encode(f, g) })
		writeBench(b, base+".pgm", func(f *os.File) error {
			r := g.Bounds()
			if _, err := fmt.Fprintf(f, "P5\n%d %d\n255\n", r.Dx(), r.Dy()); err != nil {
				return err
			}
			_, err := f.Write(g.Pix)
			return err
		})
		greys, pgms = append(greys, base+".png"), append(pgms, base+".pgm")
	}
	n := float64(len(greys))
	for i := 0; i < b.N; i++ {
		var encOne, decOne, encPGM, decPGM, cj, dj time.Duration
		for j, g := range greys {
			spc := g[:len(g)-4] + ".spc"
			encOne += cpuOf(b, bin, "encode", "--quiet", "--model", model, "-o", spc, g)
			decOne += cpuOf(b, bin, "decode", "--quiet", "--model", model, "-o", spc+".png", spc)
			encPGM += cpuOf(b, bin, "encode", "--quiet", "--model", model, "-o", spc+"2", pgms[j])
			decPGM += cpuOf(b, bin, "decode", "--quiet", "--model", model, "-o", spc+".pgm", spc)
			jpg := pgms[j][:len(pgms[j])-4] + ".jpg"
			cj += cpuOf(b, "cjpeg", "-optimize", "-quality", "75", "-outfile", jpg, pgms[j])
			dj += cpuOf(b, "djpeg", "-outfile", jpg+".pgm", jpg)
		}
		outs := filepath.Join(tmp, "batch")
		os.MkdirAll(outs, 0o755)
		encAll := cpuOf(b, bin, append([]string{"encode", "--quiet", "--model", model, "-o", outs}, greys...)...)
		spcs, _ := filepath.Glob(filepath.Join(outs, "*.spc"))
		decAll := cpuOf(b, bin, append([]string{"decode", "--quiet", "--model", model, "-o", outs}, spcs...)...)
		outsPGM := filepath.Join(tmp, "batch-pgm")
		os.MkdirAll(outsPGM, 0o755)
		encAllPGM := cpuOf(b, bin, append([]string{"encode", "--quiet", "--model", model, "-o", outsPGM}, pgms...)...)
		spcs, _ = filepath.Glob(filepath.Join(outsPGM, "*.spc"))
		decAllPGM := cpuOf(b, bin, append([]string{"decode", "--quiet", "--model", model, "--format", "pgm", "-o", outsPGM}, spcs...)...)
		ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / n }
		b.ReportMetric(ms(encOne), "enc-ms/img")
		b.ReportMetric(ms(decOne), "dec-ms/img")
		b.ReportMetric(ms(encPGM), "enc-pgm-ms/img")
		b.ReportMetric(ms(decPGM), "dec-pgm-ms/img")
		b.ReportMetric(ms(encAll), "enc-batch-ms/img")
		b.ReportMetric(ms(decAll), "dec-batch-ms/img")
		b.ReportMetric(ms(encAllPGM), "enc-batch-pgm-ms/img")
		b.ReportMetric(ms(decAllPGM), "dec-batch-pgm-ms/img")
		b.ReportMetric(ms(cj), "cjpeg-ms/img")
		b.ReportMetric(ms(dj), "djpeg-ms/img")
		b.ReportMetric(encOne.Seconds()/cj.Seconds(), "enc-x-cjpeg")
		b.ReportMetric(decOne.Seconds()/dj.Seconds(), "dec-x-djpeg")
		b.ReportMetric(encPGM.Seconds()/cj.Seconds(), "enc-pgm-x-cjpeg")
		b.ReportMetric(decPGM.Seconds()/dj.Seconds(), "dec-pgm-x-djpeg")
		b.ReportMetric(encAll.Seconds()/cj.Seconds(), "enc-batch-x-cjpeg")
		b.ReportMetric(decAll.Seconds()/dj.Seconds(), "dec-batch-x-djpeg")
		b.ReportMetric(encAllPGM.Seconds()/cj.Seconds(), "enc-batch-pgm-x-cjpeg")
		b.ReportMetric(decAllPGM.Seconds()/dj.Seconds(), "dec-batch-pgm-x-djpeg")
	}
}

// cpuOf runs the command and returns its CPU time, user + system.
func cpuOf(b *testing.B, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// greyImage reads a PNG as 8-bit grey (image/draw's luminance).
func greyImage(b *testing.B, path string) *image.Gray {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	return g
}

func writeBench(b *testing.B, path string, write func(*os.File) error) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := write(f); err != nil {
		f.Close()
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
