// Package extcodec runs the reference image codecs installed on the
// system (libjpeg-turbo's cjpeg, WebP's cwebp, JPEG XL's cjxl, libavif's
// avifenc) on grey images, for the rate–distortion comparisons of spca
// codec eval. Codecs not found on PATH are reported, not run.
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
	input     string // extension of the input file: ".pgm" or ".png"
	encArgs   func(q int, in, out string) []string
	decArgs   func(in, out string) []string // nil: decoded by Go (patches.Load)
}

// All lists the codecs compared, cjpeg first: the reference of the
// Bjøntegaard rates.
var All = []Codec{
	{Name: "cjpeg -optimize", Qualities: []int{20, 35, 50, 65, 80, 90, 95}, enc: "cjpeg", ext: ".jpg", input: ".pgm",
		encArgs: func(q int, in, out string) []string {
			return []string{"-optimize", "-quality", strconv.Itoa(q), "-outfile", out, in}
		}},
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

// Sweep codes the luminance of every image at each quality and returns
// one codec.Result per quality, averaged over the images as codec.Evaluate
// averages (bits per pixel of the coded files, PSNR and SSIM of the
// decoded luminance).
func (c Codec) Sweep(images []image.Image, qualities []int) ([]codec.Result, error) {
	dir, err := os.MkdirTemp("", "spca-extcodec-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var out []codec.Result
	for _, q := range qualities {
		var sum codec.Result
		for i, img := range images {
			lum := patches.Luminance(img)
			in := filepath.Join(dir, fmt.Sprintf("%d%s", i, c.input))
			if err := writeGrey(in, lum); err != nil {
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
			if c.decArgs != nil {
				decoded = coded + ".png"
				if err := run(c.dec, c.decArgs(coded, decoded)); err != nil {
					return nil, err
				}
			}
			dimg, err := patches.Load(decoded)
			if err != nil {
				return nil, fmt.Errorf("extcodec: %s: %w", c.Name, err)
			}
			dl := patches.Luminance(dimg)
			if dl.W != lum.W || dl.H != lum.H {
				return nil, fmt.Errorf("extcodec: %s decoded a %d×%d image from %d×%d", c.Name, dl.W, dl.H, lum.W, lum.H)
			}
			sum.BPP += 8 * float64(fi.Size()) / float64(lum.W*lum.H)
			sum.PSNR += patches.PSNR(lum, dl)
			sum.SSIM += patches.SSIM(lum, dl)
			sum.RMSE += patches.RMSE(lum, dl)
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

// writeGrey writes the plane as 8-bit PGM or PNG, by the extension
// (patches.Save, which writes PGM through internal/netpbm).
func writeGrey(path string, p patches.Plane) error {
	return patches.Save(path, patches.FromPlane(p, false))
}
