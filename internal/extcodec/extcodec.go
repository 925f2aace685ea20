// Package extcodec runs the reference image codecs installed on the
// system (libjpeg-turbo's cjpeg, WebP's cwebp, JPEG XL's cjxl, libavif's
// avifenc) on grey or colour images, for the rate–distortion comparisons
// of spca codec eval. Codecs not found on PATH are reported, not run.
package extcodec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
)

// Codec is an external encoder and its decoder.
type Codec struct {
	Name string // as reported: "cjpeg -optimize", "cwebp", ...
	// Qualities are the settings swept, in ascending order: from the
	// lowest the program takes (its lowest rate) to 95 in steps of 5, and
	// finer below 10, so that Cover finds points on both sides of a
	// model's qualities. The 7 qualities from 20 of sessions 12-28 left
	// cjpeg's rates above 0.45 bpp on kodim13-24 in colour, where the
	// model's went down to 0.11 bpp: its BD-rates covered only its
	// highest 3-4 points.
	Qualities []int
	enc, dec  string // programs
	ext       string // of the coded file
	// input is the extension of the input file: ".pgm" or ".png" (a
	// colour image goes to cjpeg as PPM, the same netpbm writer).
	input   string
	encArgs func(q int, in, out string) []string
	decArgs func(in, out string) []string
	decOut  string // extension of the decoded file: ".png" unless set
	// greyByGo: grey files are decoded by Go (patches.Load), as every
	// grey comparison since session 12 was; colour ones by dec, whose
	// chroma upsampling is the one its users get (image/jpeg repeats each
	// chroma sample where djpeg interpolates: cjpeg's RGB PSNR on
	// kodim13-24 lower by 0.11-0.68 dB, 5 % of BD-rate).
	greyByGo bool
}

// All lists the codecs compared, cjpeg first: the reference of the
// Bjøntegaard rates.
var All = []Codec{
	// cjpeg codes colour with its default 4:2:0 chroma.
	{Name: "cjpeg -optimize", Qualities: qualities(1, 2, 3, 5, 7), enc: "cjpeg", dec: "djpeg", ext: ".jpg", input: ".pgm",
		encArgs: func(q int, in, out string) []string {
			return []string{"-optimize", "-quality", strconv.Itoa(q), "-outfile", out, in}
		},
		decArgs: func(in, out string) []string { return []string{"-outfile", out, in} },
		decOut:  ".pnm", greyByGo: true},
	// Decoded by dwebp: Go's x/image/webp returns the studio-range
	// YCbCr as if full range (a PSNR of 28 dB at any quality).
	{Name: "cwebp", Qualities: qualities(0, 1, 2, 3, 5, 7), enc: "cwebp", dec: "dwebp", ext: ".webp", input: ".png",
		encArgs: func(q int, in, out string) []string {
			return []string{"-quiet", "-q", strconv.Itoa(q), in, "-o", out}
		},
		decArgs: func(in, out string) []string { return []string{"-quiet", in, "-o", out} }},
	// cjxl 0.7 refuses -q below 5 (a distance above 25).
	{Name: "cjxl", Qualities: qualities(5, 7), enc: "cjxl", dec: "djxl", ext: ".jxl", input: ".png",
		encArgs: func(q int, in, out string) []string {
			return []string{in, out, "-q", strconv.Itoa(q), "--quiet"}
		},
		decArgs: func(in, out string) []string { return []string{in, out, "--quiet"} }},
	{Name: "avifenc", Qualities: qualities(0, 3, 5, 7), enc: "avifenc", dec: "avifdec", ext: ".avif", input: ".png",
		// avifenc 0.11 has no -q: the quality maps to the quantiser
		// (0 best, 63 worst) as later versions map -q.
		encArgs: func(q int, in, out string) []string {
			qz := strconv.Itoa((100 - q) * 63 / 100)
			return []string{"--min", qz, "--max", qz, "-j", "1", in, out}
		},
		decArgs: func(in, out string) []string { return []string{in, out} }},
}

// qualities returns low followed by 10, 15, ..., 95.
func qualities(low ...int) []int {
	q := append([]int(nil), low...)
	for v := 10; v <= 95; v += 5 {
		q = append(q, v)
	}
	return q
}

// Available splits the codecs into those whose programs are on PATH and
// the names of the others.
func Available(codecs []Codec) (have []Codec, missing []string) {
	for _, c := range codecs {
		ok := true
		for _, p := range []string{c.enc, c.dec} {
			if p != "" {
				if _, err := exec.LookPath(p); err != nil {
					ok = false
				}
			}
		}
		if ok {
			have = append(have, c)
		} else {
			missing = append(missing, c.Name)
		}
	}
	return have, missing
}

// Sweep codes every image at each quality and returns one codec.Result
// per quality, averaged over the images as codec.Evaluate averages (bits
// per pixel of the coded files). Grey (color false), it codes the
// luminance as a grey image, measured on the luminance; colour, it codes
// the image itself, measured as a colour model's files (codec.Quality:
// PSNR of R, G and B, SSIM of the luma). A colour model measured against
// the luminance alone paid for its chroma and was measured on it, the
// reference neither: spca's colour model of kodim01-12 read -3.3 % of
// BD-rate by PSNR against cjpeg on kodim13-24, -31.2 % against cjpeg's
// colour files.
func (c Codec) Sweep(images []image.Image, qualities []int, color bool) ([]codec.Result, error) {
	dir, err := os.MkdirTemp("", "spca-extcodec-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var out []codec.Result
	for _, q := range qualities {
		r, err := c.code(dir, images, q, color)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Cover sweeps c.Qualities upwards (as Sweep) and returns the points that
// cover the qualities from low to high, by PSNR and by SSIM: from the
// highest setting at or below low's (on either metric) to the first at or
// above high's on both, at least 4 points; the settings above are not
// coded. Where the lowest or the highest setting does not reach, note
// says so. A model's curve from low to high, compared with each codec's
// points around it, is compared over its own qualities with every codec.
func (c Codec) Cover(images []image.Image, color bool, low, high codec.Result) (pts []codec.Result, note string, err error) {
	dir, err := os.MkdirTemp("", "spca-extcodec-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	// lowP and lowS are the last points at or below low by PSNR and by
	// SSIM (-1: none); the points kept start at the lower of the two.
	lowP, lowS := -1, -1
	start := func() int { return max(min(lowP, lowS), 0) }
	for i, q := range c.Qualities {
		r, err := c.code(dir, images, q, color)
		if err != nil {
			return nil, "", err
		}
		pts = append(pts, r)
		if r.PSNR <= low.PSNR {
			lowP = i
		}
		if r.SSIM <= low.SSIM {
			lowS = i
		}
		if r.PSNR >= high.PSNR && r.SSIM >= high.SSIM && len(pts)-start() >= 4 {
			break
		}
	}
	first := min(start(), max(len(pts)-4, 0))
	var short []string
	if lowP < 0 {
		short = append(short, fmt.Sprintf("lowest %s is at %.2f dB, above the model's lowest %.2f dB", strings.TrimPrefix(pts[0].Method, c.Name+" "), pts[0].PSNR, low.PSNR))
	}
	if lowS < 0 {
		short = append(short, fmt.Sprintf("lowest %s is at SSIM %.4f, above the model's lowest %.4f", strings.TrimPrefix(pts[0].Method, c.Name+" "), pts[0].SSIM, low.SSIM))
	}
	last := pts[len(pts)-1]
	if last.PSNR < high.PSNR {
		short = append(short, fmt.Sprintf("highest %s is at %.2f dB, below the model's highest %.2f dB", strings.TrimPrefix(last.Method, c.Name+" "), last.PSNR, high.PSNR))
	}
	if last.SSIM < high.SSIM {
		short = append(short, fmt.Sprintf("highest %s is at SSIM %.4f, below the model's highest %.4f", strings.TrimPrefix(last.Method, c.Name+" "), last.SSIM, high.SSIM))
	}
	if len(short) > 0 {
		note = fmt.Sprintf("%s: its %s: BD-rates over the qualities both reach", c.Name, strings.Join(short, "; its "))
	}
	return pts[first:], note, nil
}

// Matched codes each image at the quality whose rate is closest to bpp
// (a binary search over c's qualities up to 100, as codec.Evaluate's
// image/jpeg row), decodes it with c's decoder and measures it as Sweep
// does: the JPEG row of codec eval at the model's rate. Its Method is
// c.Name + " (matched bpp)".
func (c Codec) Matched(images []image.Image, bpp float64, color bool) (codec.Result, error) {
	dir, err := os.MkdirTemp("", "spca-extcodec-")
	if err != nil {
		return codec.Result{}, err
	}
	defer os.RemoveAll(dir)
	var sum codec.Result
	for i, img := range images {
		in, err := c.input1(dir, i, img, color)
		if err != nil {
			return codec.Result{}, err
		}
		pixels := float64(img.Bounds().Dx() * img.Bounds().Dy())
		best, bestDiff := 0, math.Inf(1)
		for lo, hi := c.Qualities[0], 100; lo <= hi; {
			q := (lo + hi) / 2
			coded := filepath.Join(dir, fmt.Sprintf("%d-%d%s", i, q, c.ext))
			if err := run(c.enc, c.encArgs(q, in, coded)); err != nil {
				return codec.Result{}, err
			}
			fi, err := os.Stat(coded)
			if err != nil {
				return codec.Result{}, err
			}
			os.Remove(coded)
			rate := 8 * float64(fi.Size()) / pixels
			if diff := math.Abs(rate - bpp); diff < bestDiff {
				best, bestDiff = q, diff
			}
			if rate > bpp {
				hi = q - 1
			} else {
				lo = q + 1
			}
		}
		os.Remove(in)
		r, err := c.codeOne(dir, i, img, best, color)
		if err != nil {
			return codec.Result{}, err
		}
		sum.BPP += r.BPP
		sum.PSNR += r.PSNR
		sum.SSIM += r.SSIM
		sum.RMSE += r.RMSE
	}
	n := float64(len(images))
	return codec.Result{Method: c.Name + " (matched bpp)",
		BPP: sum.BPP / n, PSNR: sum.PSNR / n, SSIM: sum.SSIM / n, RMSE: sum.RMSE / n}, nil
}

// Decoder is the program that decodes c's files.
func (c Codec) Decoder() string { return c.dec }

// HeaderBytes is the size of c's file of a 1×1 image (grey, or colour
// if color) at quality 75: about what c writes besides the coded data.
func (c Codec) HeaderBytes(color bool) (int, error) {
	dir, err := os.MkdirTemp("", "spca-extcodec-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	in, err := c.input1(dir, 0, image.NewRGBA(image.Rect(0, 0, 1, 1)), color)
	if err != nil {
		return 0, err
	}
	coded := filepath.Join(dir, "0"+c.ext)
	if err := run(c.enc, c.encArgs(75, in, coded)); err != nil {
		return 0, err
	}
	fi, err := os.Stat(coded)
	if err != nil {
		return 0, err
	}
	return int(fi.Size()), nil
}

// input1 writes image i as c's input file in dir and returns its path:
// grey (color false) the luminance, colour the image, PPM where c reads
// netpbm.
func (c Codec) input1(dir string, i int, img image.Image, color bool) (string, error) {
	src, ext := img, c.input
	if !color {
		src = patches.FromPlane(patches.Luminance(img), false)
	} else if ext == ".pgm" {
		ext = ".ppm"
	}
	in := filepath.Join(dir, fmt.Sprintf("%d%s", i, ext))
	// patches.Save writes PGM or PPM through internal/netpbm.
	return in, patches.Save(in, src)
}

// code codes every image at quality q in dir, two at a time (the
// programs are single-threaded as run: the 2 cores of the machine the
// comparisons were made on), and returns their mean rate and qualities.
func (c Codec) code(dir string, images []image.Image, q int, color bool) (codec.Result, error) {
	res := make([]codec.Result, len(images))
	errs := make([]error, len(images))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, img := range images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res[i], errs[i] = c.codeOne(dir, i, img, q, color)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return codec.Result{}, err
	}
	var sum codec.Result
	for _, r := range res {
		sum.BPP += r.BPP
		sum.PSNR += r.PSNR
		sum.SSIM += r.SSIM
		sum.RMSE += r.RMSE
	}
	n := float64(len(images))
	return codec.Result{Method: fmt.Sprintf("%s q%d", c.Name, q),
		BPP: sum.BPP / n, PSNR: sum.PSNR / n, SSIM: sum.SSIM / n, RMSE: sum.RMSE / n}, nil
}

// codeOne codes image i at quality q in dir and measures it.
func (c Codec) codeOne(dir string, i int, img image.Image, q int, color bool) (codec.Result, error) {
	in, err := c.input1(dir, i, img, color)
	if err != nil {
		return codec.Result{}, err
	}
	coded := filepath.Join(dir, fmt.Sprintf("%d-%d%s", i, q, c.ext))
	if err := run(c.enc, c.encArgs(q, in, coded)); err != nil {
		return codec.Result{}, err
	}
	fi, err := os.Stat(coded)
	if err != nil {
		return codec.Result{}, err
	}
	decoded := coded
	if !(c.greyByGo && !color) {
		decoded = coded + ".png"
		if c.decOut != "" {
			decoded = coded + c.decOut
		}
		if err := run(c.dec, c.decArgs(coded, decoded)); err != nil {
			return codec.Result{}, err
		}
	}
	dimg, err := patches.Load(decoded)
	if err != nil {
		return codec.Result{}, fmt.Errorf("extcodec: %s: %w", c.Name, err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if dimg.Bounds().Dx() != w || dimg.Bounds().Dy() != h {
		return codec.Result{}, fmt.Errorf("extcodec: %s decoded a %d×%d image from %d×%d", c.Name, dimg.Bounds().Dx(), dimg.Bounds().Dy(), w, h)
	}
	for _, f := range []string{in, coded, decoded} {
		os.Remove(f)
	}
	r := codec.Quality(img, dimg, color)
	r.BPP = 8 * float64(fi.Size()) / float64(w*h)
	return r, nil
}

func run(prog string, args []string) error {
	cmd := exec.Command(prog, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("extcodec: %s: %v: %s", prog, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
