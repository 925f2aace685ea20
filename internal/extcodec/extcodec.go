// Package extcodec runs the reference image codecs installed on the
// system (libjpeg-turbo's cjpeg, WebP's cwebp, JPEG XL's cjxl, libavif's
// avifenc) on grey or colour images, for the rate–distortion comparisons
// of spca codec eval. Codecs not found on PATH are reported, not run.
package extcodec

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
)

// Codec is an external encoder and its decoder.
type Codec struct {
	Name string // as reported: "cjpeg -optimize", "cwebp", ...
	// Qualities is the default sweep of the quality setting.
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
	{Name: "cjpeg -optimize", Qualities: []int{20, 35, 50, 65, 80, 90, 95}, enc: "cjpeg", dec: "djpeg", ext: ".jpg", input: ".pgm",
		encArgs: func(q int, in, out string) []string {
			return []string{"-optimize", "-quality", strconv.Itoa(q), "-outfile", out, in}
		},
		decArgs: func(in, out string) []string { return []string{"-outfile", out, in} },
		decOut:  ".pnm", greyByGo: true},
	// Decoded by dwebp: Go's x/image/webp returns the studio-range
	// YCbCr as if full range (a PSNR of 28 dB at any quality).
	{Name: "cwebp", Qualities: []int{20, 35, 50, 65, 80, 90, 95}, enc: "cwebp", dec: "dwebp", ext: ".webp", input: ".png",
		encArgs: func(q int, in, out string) []string {
			return []string{"-quiet", "-q", strconv.Itoa(q), in, "-o", out}
		},
		decArgs: func(in, out string) []string { return []string{"-quiet", in, "-o", out} }},
	{Name: "cjxl", Qualities: []int{30, 45, 60, 75, 85, 92, 96}, enc: "cjxl", dec: "djxl", ext: ".jxl", input: ".png",
		encArgs: func(q int, in, out string) []string {
			return []string{in, out, "-q", strconv.Itoa(q), "--quiet"}
		},
		decArgs: func(in, out string) []string { return []string{in, out, "--quiet"} }},
	{Name: "avifenc", Qualities: []int{20, 35, 50, 65, 80, 90, 95}, enc: "avifenc", dec: "avifdec", ext: ".avif", input: ".png",
		// avifenc 0.11 has no -q: the quality maps to the quantiser
		// (0 best, 63 worst) as later versions map -q.
		encArgs: func(q int, in, out string) []string {
			qz := strconv.Itoa((100 - q) * 63 / 100)
			return []string{"--min", qz, "--max", qz, "-j", "1", in, out}
		},
		decArgs: func(in, out string) []string { return []string{in, out} }},
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
		var sum codec.Result
		for i, img := range images {
			src, ext := img, c.input
			if !color {
				src = patches.FromPlane(patches.Luminance(img), false)
			} else if ext == ".pgm" {
				ext = ".ppm"
			}
			in := filepath.Join(dir, fmt.Sprintf("%d%s", i, ext))
			// patches.Save writes PGM or PPM through internal/netpbm.
			if err := patches.Save(in, src); err != nil {
				return nil, err
			}
			coded := filepath.Join(dir, fmt.Sprintf("%d-%d%s", i, q, c.ext))
			if err := run(c.enc, c.encArgs(q, in, coded)); err != nil {
				return nil, err
			}
			fi, err := os.Stat(coded)
			if err != nil {
				return nil, err
			}
			decoded := coded
			if !(c.greyByGo && !color) {
				decoded = coded + ".png"
				if c.decOut != "" {
					decoded = coded + c.decOut
				}
				if err := run(c.dec, c.decArgs(coded, decoded)); err != nil {
					return nil, err
				}
			}
			dimg, err := patches.Load(decoded)
			if err != nil {
				return nil, fmt.Errorf("extcodec: %s: %w", c.Name, err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			if dimg.Bounds().Dx() != w || dimg.Bounds().Dy() != h {
				return nil, fmt.Errorf("extcodec: %s decoded a %d×%d image from %d×%d", c.Name, dimg.Bounds().Dx(), dimg.Bounds().Dy(), w, h)
			}
			r := codec.Quality(img, dimg, color)
			sum.BPP += 8 * float64(fi.Size()) / float64(w*h)
			sum.PSNR += r.PSNR
			sum.SSIM += r.SSIM
			sum.RMSE += r.RMSE
		}
		n := float64(len(images))
		out = append(out, codec.Result{Method: fmt.Sprintf("%s q%d", c.Name, q),
			BPP: sum.BPP / n, PSNR: sum.PSNR / n, SSIM: sum.SSIM / n, RMSE: sum.RMSE / n})
	}
	return out, nil
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
