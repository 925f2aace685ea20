package main

import (
	"cmp"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spcalab/spca/codec"
)

// BenchmarkProcessCPU measures the CPU time (user + system) of the built
// spca binary encoding and decoding 768×512 photographs, one process per
// image and one process for all of them, against cjpeg -optimize -quality
// 75 and djpeg on the same images in the same run (issue 24: at most 3×
// per process, 2× per image in one process). It needs a codec model file
// (SPCA_BENCH_MODEL), the held-out images (SPCA_BENCH_IMAGES, a directory
// of PNGs; by default ../shared/testdata/heldout from the repository root:
// kodim13-24) and cjpeg and djpeg on PATH; it skips otherwise. A grey
// model codes grey copies of the images, a colour model (codec train
// --color) 8-bit RGB copies, and cjpeg codes the same copies (its default
// 4:2:0 chroma in colour). Run it once: -bench ProcessCPU -benchtime 1x.
//
// The -pgm metrics time spca on the files cjpeg reads and djpeg writes
// (encode from the PGM, decode to a PGM, or PPM in colour: like for
// like), the others on PNG in and out. The batch metrics are the median of batchRuns
// processes. SPCA_BENCH_BASE=BIN measures the spca binary BIN too, in
// the same run (metrics prefixed base-). SPCA_BENCH_BPP=B encodes at B
// bits per pixel (the rate knob, --bpp: every image at its own step;
// decoding then derives each file's step), and SPCA_BENCH_QUALITY=Q
// runs cjpeg at -quality Q instead of 75 (pick Q for a similar rate).
// SPCA_BENCH_ARGS adds encode flags to the head's encodes (as
// SPCA_BENCH_ARGS='--effort 1'; split at spaces), SPCA_BENCH_BASE_ARGS
// to the base's: the base may then be the head's own build at another
// setting (SPCA_BENCH_BASE=its binary).
// SPCA_BENCH_BASE_MODEL gives the base binary another model file (one
// without the step basis, which builds before it cannot read).
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
	color := false
	if m, err := codec.LoadModel(model); err != nil {
		b.Fatal(err)
	} else {
		color = m.Color
		m.Close()
	}
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "spca")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	bin = rewritten(b, bin, filepath.Join(tmp, "spca-head"))
	// Grey or RGB copies: PNG for spca, PGM or PPM for cjpeg (named .pgm
	// either way; cjpeg and djpeg tell them by content).
	var greys, pgms []string
	pixels := 0
	netpbm := "pgm" // spca decode --format of the like-for-like outputs
	if color {
		netpbm = "ppm"
	}
	for _, p := range pngs {
		img, magic, pix := benchImage(b, p, color)
		r := img.Bounds()
		pixels += r.Dx() * r.Dy()
		base := filepath.Join(tmp, filepath.Base(p[:len(p)-len(filepath.Ext(p))]))
		writeBench(b, base+".png", func(f *os.File) error { return png.Encode(f, img) })
		writeBench(b, base+".pgm", func(f *os.File) error {
			if _, err := fmt.Fprintf(f, "%s\n%d %d\n255\n", magic, r.Dx(), r.Dy()); err != nil {
				return err
			}
			_, err := f.Write(pix)
			return err
		})
		greys, pgms = append(greys, base+".png"), append(pgms, base+".pgm")
	}
	n := float64(len(greys))
	// SPCA_BENCH_BASE names another spca binary (an older build) measured
	// in the same run, interleaved image by image: its metrics are prefixed
	// base-, so that a change's effect is not the machine's load.
	// SPCA_BENCH_BASE_MODEL is the base's model file, if not the same (a
	// build before the step basis reads no model that stores it).
	bins, prefixes, models := []string{bin}, []string{""}, []string{model}
	if base := os.Getenv("SPCA_BENCH_BASE"); base != "" {
		bins, prefixes = append(bins, rewritten(b, base, filepath.Join(tmp, "spca-base"))), append(prefixes, "base-")
		models = append(models, cmp.Or(os.Getenv("SPCA_BENCH_BASE_MODEL"), model))
	}
	var rate []string // encode flags
	if bpp := os.Getenv("SPCA_BENCH_BPP"); bpp != "" {
		rate = []string{"--bpp", bpp}
	}
	quality := cmp.Or(os.Getenv("SPCA_BENCH_QUALITY"), "75")
	// SPCA_BENCH_ARGS and SPCA_BENCH_BASE_ARGS: more encode flags for the
	// head and the base, split at spaces ("--effort 1").
	extra := [][]string{strings.Fields(os.Getenv("SPCA_BENCH_ARGS")), strings.Fields(os.Getenv("SPCA_BENCH_BASE_ARGS"))}
	enc := func(k int, args ...string) []string {
		a := append(append([]string{"encode", "--quiet", "--model", models[k]}, rate...), extra[k]...)
		return append(a, args...)
	}
	// Untimed work first: one batch encode of every image per binary,
	// then cjpeg. The first processes after the build run on memory the
	// host has reclaimed (free page reporting): a 2 MB page then costs
	// 3.5-4.7 ms instead of 0.25. The head ran first on the first image
	// and took most of that: identical binaries read 1.07 (0.91-1.17,
	// 12 runs) on the one-process PNG encode row, the row session 28
	// could not explain; a per-process trace (session 29) showed the
	// head's encode of the first image at 85-126 ms against 45-60 for
	// the later ones.
	for k, bin := range bins {
		warm := filepath.Join(tmp, fmt.Sprintf("warm-%d", k))
		os.MkdirAll(warm, 0o755)
		cpuOf(b, bin, enc(k, append([]string{"-o", warm}, greys...)...)...)
	}
	for _, p := range pgms {
		cpuOf(b, "cjpeg", "-outfile", filepath.Join(tmp, "warm.jpg"), p)
	}
	for i := 0; i < b.N; i++ {
		type cpu struct{ encOne, decOne, encPGM, decPGM, encAll, decAll, encAllPGM, decAllPGM time.Duration }
		res := make([]cpu, len(bins))
		var cj, dj time.Duration
		var spcBytes, jpgBytes int64 // of the files of bins[0] and cjpeg
		for j, g := range greys {
			for _, k := range turnOrder(len(bins), j) {
				bin, r := bins[k], &res[k]
				spc := fmt.Sprintf("%s-%d.spc", g[:len(g)-4], k)
				r.encOne += cpuOf(b, bin, enc(k, "-o", spc, g)...)
				r.decOne += cpuOf(b, bin, "decode", "--quiet", "--model", models[k], "-o", spc+".png", spc)
				r.encPGM += cpuOf(b, bin, enc(k, "-o", spc+"2", pgms[j])...)
				r.decPGM += cpuOf(b, bin, "decode", "--quiet", "--model", models[k], "-o", spc+"."+netpbm, spc)
			}
			jpg := pgms[j][:len(pgms[j])-4] + ".jpg"
			cj += cpuOf(b, "cjpeg", "-optimize", "-quality", quality, "-outfile", jpg, pgms[j])
			spcBytes += fileSize(b, fmt.Sprintf("%s-0.spc", g[:len(g)-4]))
			jpgBytes += fileSize(b, jpg)
			dj += cpuOf(b, "djpeg", "-outfile", jpg+"."+netpbm, jpg)
		}
		// One batch process is one sample, and its CPU varies by 10-20 %
		// with the machine's load: each batch runs batchRuns times,
		// interleaved across the binaries, and the median counts.
		type batch struct{ encAll, decAll, encAllPGM, decAllPGM []time.Duration }
		runs := make([]batch, len(bins))
		for run := range batchRuns {
			for _, k := range turnOrder(len(bins), run) {
				bin, r := bins[k], &runs[k]
				outs := filepath.Join(tmp, fmt.Sprintf("batch-%d", k))
				os.MkdirAll(outs, 0o755)
				r.encAll = append(r.encAll, cpuOf(b, bin, enc(k, append([]string{"-o", outs}, greys...)...)...))
				spcs, _ := filepath.Glob(filepath.Join(outs, "*.spc"))
				r.decAll = append(r.decAll, cpuOf(b, bin, append([]string{"decode", "--quiet", "--model", models[k], "-o", outs}, spcs...)...))
				outsPGM := filepath.Join(tmp, fmt.Sprintf("batch-pgm-%d", k))
				os.MkdirAll(outsPGM, 0o755)
				r.encAllPGM = append(r.encAllPGM, cpuOf(b, bin, enc(k, append([]string{"-o", outsPGM}, pgms...)...)...))
				spcs, _ = filepath.Glob(filepath.Join(outsPGM, "*.spc"))
				r.decAllPGM = append(r.decAllPGM, cpuOf(b, bin, append([]string{"decode", "--quiet", "--model", models[k], "--format", netpbm, "-o", outsPGM}, spcs...)...))
			}
		}
		for k := range bins {
			r, m := &res[k], runs[k]
			r.encAll, r.decAll = median(m.encAll), median(m.decAll)
			r.encAllPGM, r.decAllPGM = median(m.encAllPGM), median(m.decAllPGM)
		}
		ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / n }
		b.ReportMetric(ms(cj), "cjpeg-ms/img")
		b.ReportMetric(ms(dj), "djpeg-ms/img")
		b.ReportMetric(8*float64(spcBytes)/float64(pixels), "spca-bpp")
		b.ReportMetric(8*float64(jpgBytes)/float64(pixels), "cjpeg-bpp")
		for k, r := range res {
			p := prefixes[k]
			b.ReportMetric(ms(r.encOne), p+"enc-ms/img")
			b.ReportMetric(ms(r.decOne), p+"dec-ms/img")
			b.ReportMetric(ms(r.encPGM), p+"enc-pgm-ms/img")
			b.ReportMetric(ms(r.decPGM), p+"dec-pgm-ms/img")
			b.ReportMetric(ms(r.encAll), p+"enc-batch-ms/img")
			b.ReportMetric(ms(r.decAll), p+"dec-batch-ms/img")
			b.ReportMetric(ms(r.encAllPGM), p+"enc-batch-pgm-ms/img")
			b.ReportMetric(ms(r.decAllPGM), p+"dec-batch-pgm-ms/img")
			b.ReportMetric(r.encOne.Seconds()/cj.Seconds(), p+"enc-x-cjpeg")
			b.ReportMetric(r.decOne.Seconds()/dj.Seconds(), p+"dec-x-djpeg")
			b.ReportMetric(r.encPGM.Seconds()/cj.Seconds(), p+"enc-pgm-x-cjpeg")
			b.ReportMetric(r.decPGM.Seconds()/dj.Seconds(), p+"dec-pgm-x-djpeg")
			b.ReportMetric(r.encAll.Seconds()/cj.Seconds(), p+"enc-batch-x-cjpeg")
			b.ReportMetric(r.decAll.Seconds()/dj.Seconds(), p+"dec-batch-x-djpeg")
			b.ReportMetric(r.encAllPGM.Seconds()/cj.Seconds(), p+"enc-batch-pgm-x-cjpeg")
			b.ReportMetric(r.decAllPGM.Seconds()/dj.Seconds(), p+"dec-batch-pgm-x-djpeg")
		}
	}
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// rewritten copies the binary at path to a new file dst, written with
// write(2), and returns dst. How a file was written changes what a process
// started from it costs: a fresh go build (the linker writes its output
// through a memory mapping; the page cache then probably holds it in
// small pages) cost ~7 % more CPU per process than the same bytes
// rewritten (8×8 decode of kodim13 grey: 34.8 vs 32.1 ms, 40 interleaved
// rounds, load 13; the session start's binary, copied with cp, 34.5
// either way). The head and the base are both rewritten, so that the
// benchmark compares builds, not files (session 12 found "one build's
// layout" costing ±8 % here).
func rewritten(b *testing.B, path, dst string) string {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		b.Fatal(err)
	}
	return dst
}

// turnOrder returns the order in which the n binaries run at turn t:
// 0, 1, ... on even turns, reversed on odd ones, so that neither binary
// always runs first (right after cjpeg and djpeg, on whatever pages the
// host left). That alone did not explain what session 28 saw (the head's
// one-process encode rows 3-8 % above the base's in 3 of 4 runs): the
// warm-up above does most of it.
func turnOrder(n, t int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if t%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// batchRuns is how many times each batch process runs; its median counts.
const batchRuns = 3

// median returns the median of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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

// benchImage reads a PNG as 8-bit grey (image/draw's luminance) or, with
// color, as 8-bit RGB, and returns it, the netpbm magic of its samples and
// the samples row after row (grey, or R, G, B).
func benchImage(b *testing.B, path string, color bool) (img image.Image, magic string, pix []byte) {
	b.Helper()
	src := readPNG(b, path)
	if !color {
		g := image.NewGray(src.Bounds())
		draw.Draw(g, g.Bounds(), src, src.Bounds().Min, draw.Src)
		return g, "P5", g.Pix
	}
	c := image.NewRGBA(src.Bounds())
	draw.Draw(c, c.Bounds(), src, src.Bounds().Min, draw.Src)
	for i := 0; i < len(c.Pix); i += 4 {
		if c.Pix[i+3] != 0xff {
			b.Fatalf("%s: not opaque", path)
		}
		pix = append(pix, c.Pix[i:i+3]...)
	}
	return c, "P6", pix
}

// readPNG reads a PNG file.
func readPNG(b *testing.B, path string) image.Image {
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
	return img
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
