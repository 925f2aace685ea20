package codec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"slices"
	"sync"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/spca"
)

// Result is the quality of one coding method on a set of images, averaged
// over the images: RMSE and PSNR (8-bit units, luminance for grayscale
// models, the mean over R, G and B for colour), SSIM (luminance), and the
// actual bits per pixel of the coded files. FixedBPP is what the same
// cells would cost as fixed-length indices (FixedLengthBits), the rate
// the entropy coding is measured against; 0 for JPEG.
type Result struct {
	Method   string  `json:"method"`
	RMSE     float64 `json:"rmse"`
	PSNR     float64 `json:"psnr_db"`
	SSIM     float64 `json:"ssim"`
	BPP      float64 `json:"bpp"`
	FixedBPP float64 `json:"fixed_length_bpp,omitempty"`
	Bins     []int   `json:"bins,omitempty"` // per coefficient, first channel
	Step     float64 `json:"step,omitempty"` // quantiser step of the entropy-constrained mode
}

// EvalOptions control Evaluate. Nil means: gammas 0, 1/3 and 1, PCA +
// Lloyd–Max, and JPEG at the bits per pixel of the given model.
type EvalOptions struct {
	// Gammas are the gammas of the SPCA rows, each SPCA refitted on the
	// model's training sample; nil means 0, 1/3 and 1. The model's own
	// gamma is always among them: its row, "spca gamma G (model)", is
	// the model itself.
	Gammas []float64
	NoPCA  bool
	NoJPEG bool
	Exact  bool // exact SPCA path instead of the fast path
	// Assign is the assignment of patches to cells for the SPCA rows
	// (see Options).
	Assign Assignment
	// Effort is the encoder's effort for the SPCA rows (see Options).
	Effort int
	// MatchedPCA adds the PCA baseline at the rate of the model on these
	// images (its resolution or step searched so that it codes them at no
	// more bits per pixel): the comparison at equal rate, beside the one
	// at equal resolution.
	MatchedPCA bool
	// Progress, if set, is called after each method.
	Progress func(method string, done, total int)
	// JPEG, if set, measures the JPEG row instead of Go's image/jpeg:
	// the images coded at the rate closest to bpp (the model's), colour
	// or grey as the model, measured by Quality, its Method set. The
	// command line's codes a colour model's images with cjpeg and djpeg
	// when installed (internal/extcodec).
	JPEG func(images []image.Image, bpp float64, color bool) (Result, error)
}

// Evaluate codes the images with the model m and with the comparison
// methods at the same total resolution per channel: SPCA refitted with
// each gamma on m's training sample, PCA with a Lloyd–Max quantiser per
// coefficient (the honest linear baseline), and Go's image/jpeg at the
// quality whose bits per pixel are closest to m's on each image.
func Evaluate(m *Model, images []image.Image, o *EvalOptions) ([]Result, error) {
	if o == nil {
		o = &EvalOptions{}
	}
	if len(images) == 0 {
		return nil, fmt.Errorf("codec: no images to evaluate")
	}
	gammas := o.Gammas
	if gammas == nil {
		gammas = []float64{0, 1.0 / 3, 1}
	}
	if !slices.Contains(gammas, m.Gamma) {
		// The model's row was measured and then left out.
		gammas = append(slices.Clone(gammas), m.Gamma)
		slices.Sort(gammas)
	}
	total := 0
	for _, b := range m.Channels[0].Bins {
		total += b
	}
	var out []Result
	steps := len(gammas) + 2
	if o.MatchedPCA && !o.NoPCA {
		steps++
	}
	step := 0
	report := func(name string) {
		step++
		if o.Progress != nil {
			o.Progress(name, step, steps)
		}
	}
	main, err := measure(m, images, &Options{Exact: o.Exact, Assign: o.Assign, Effort: o.Effort})
	if err != nil {
		return nil, err
	}
	main.Method = fmt.Sprintf("spca gamma %s (model)", gammaName(m.Gamma))
	for _, g := range gammas {
		if g == m.Gamma {
			out = append(out, main)
			report(main.Method)
			continue
		}
		v, err := m.variant(g, total, m.Step)
		if err != nil {
			return nil, err
		}
		r, err := measure(v, images, &Options{Exact: o.Exact, Assign: o.Assign, Effort: o.Effort})
		if err != nil {
			return nil, err
		}
		r.Method = "spca gamma " + gammaName(g)
		out = append(out, r)
		report(r.Method)
	}
	if !o.NoPCA {
		v, err := m.pcaBaseline(total, m.Step)
		if err != nil {
			return nil, err
		}
		r, err := measure(v, images, nil)
		if err != nil {
			return nil, err
		}
		r.Method = pcaName(m)
		out = append(out, r)
		report(r.Method)
		if o.MatchedPCA {
			if err := v.searchRate(images, main.BPP, m.Step > 0); err != nil {
				return nil, err
			}
			r, err := measure(v, images, nil)
			if err != nil {
				return nil, err
			}
			r.Method = pcaName(m) + " (matched bpp)"
			out = append(out, r)
			report(r.Method)
		}
	}
	if !o.NoJPEG {
		jpegRow := measureJPEG
		if o.JPEG != nil {
			jpegRow = o.JPEG
		}
		r, err := jpegRow(images, main.BPP, m.Color)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		report(r.Method)
	}
	return out, nil
}

// pcaName names the PCA baseline of m's mode.
func pcaName(m *Model) string {
	if m.Step > 0 {
		return "pca + uniform"
	}
	return "pca + lloyd-max"
}

func gammaName(g float64) string {
	switch {
	case g == 0:
		return "0"
	case math.Abs(g-1.0/3) < 1e-12:
		return "1/3"
	}
	return fmt.Sprintf("%g", g)
}

// variant refits SPCA with another gamma on the same training sample and
// curve options, at the same total resolution (or, if step > 0, the same
// quantiser step).
func (m *Model) variant(gamma float64, total int, step float64) (*Model, error) {
	return m.variantWith(total, step, func(o *spca.Options) { o.Gamma = gamma })
}

// variantWith is variant with the SPCA options changed by set.
func (m *Model) variantWith(total int, step float64, set func(*spca.Options)) (*Model, error) {
	first := m.Channels[0].SPCA.Options()
	set(&first)
	v := &Model{Patch: m.Patch, Color: m.Color, Subsample: m.Subsample, Gamma: first.Gamma}
	for _, c := range m.Channels {
		k := c.Leading()
		train, err := c.TrainingSample()
		if err != nil {
			return nil, err
		}
		rows, _ := train.Dims()
		lead := train.Slice(0, rows, 0, k)
		so := c.SPCA.Options()
		set(&so)
		so.Scale = nil
		so.Directions = identity(k)
		sm, err := spca.Fit(lead, so)
		if err != nil {
			return nil, err
		}
		v.Channels = append(v.Channels, &Channel{PCA: c.PCA, SPCA: sm, train: train, Bins: make([]int, c.Dims())})
	}
	return v, v.setResolution(total, step)
}

// PCABaseline returns the linear baseline of m, a model in the
// entropy-constrained mode: the same PCA, training sample, dead-zone
// quantisers of the same step on every coefficient, outlier coding and
// entropy coder, without SPCA. RateSweep of both over the same steps
// compares the transforms with the same machinery at every rate.
func PCABaseline(m *Model) (*Model, error) {
	if m.Step == 0 {
		return nil, errors.New("codec: the PCA baseline of a rate sweep needs a model in the entropy-constrained mode")
	}
	if m.base != nil {
		m = m.base
	}
	return m.pcaBaseline(0, m.Step)
}

// pcaBaseline is the linear baseline: the same PCA with a Lloyd–Max
// quantiser per coefficient, bins allocated on the PCA coefficient
// entropies (fixed-resolution mode), or with a dead-zone uniform
// quantiser of the same step per coefficient (entropy-constrained mode).
func (m *Model) pcaBaseline(total int, step float64) (*Model, error) {
	v := &Model{Patch: m.Patch, Color: m.Color, Subsample: m.Subsample}
	for _, c := range m.Channels {
		train, err := c.TrainingSample()
		if err != nil {
			return nil, err
		}
		v.Channels = append(v.Channels, &Channel{PCA: c.PCA, train: train, Bins: make([]int, c.Dims())})
	}
	return v, v.setResolution(total, step)
}

// setResolution is SetStep(step) if step > 0, else SetBins(total).
func (m *Model) setResolution(total int, step float64) error {
	if step > 0 {
		return m.SetStep(step)
	}
	return m.SetBins(total)
}

// measure codes and decodes every image with m.
func measure(m *Model, images []image.Image, o *Options) (Result, error) {
	res := make([]Result, len(images))
	errs := make([]error, len(images))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, img := range images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var b bytes.Buffer
			if err := Encode(&b, img, m, o); err != nil {
				errs[i] = err
				return
			}
			bits := 8 * float64(b.Len())
			dec, err := Decode(&b, m)
			if err != nil {
				errs[i] = err
				return
			}
			res[i] = Quality(img, dec, m.Color)
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			res[i].BPP = bits / float64(w*h)
			res[i].FixedBPP = m.FixedLengthBits(w, h) / float64(w*h)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Result{}, err
		}
	}
	r := average(res)
	r.Bins = append([]int(nil), m.Channels[0].Bins...)
	r.Step = m.Step
	return r, nil
}

// Quality compares a decoded image with its original as Evaluate and
// RateSweep measure a model's files: SSIM of the luma; RMSE and PSNR of
// the luma, or for colour (color true) of R, G and B together (the mean
// of their squared errors). Another codec's files measured by it compare
// with a model's on the same terms.
func Quality(orig, dec image.Image, color bool) Result {
	lo, ld := patches.Luminance(orig), patches.Luminance(dec)
	r := Result{SSIM: patches.SSIM(lo, ld)}
	if !color {
		r.RMSE = patches.RMSE(lo, ld)
	} else {
		a, b := rgbPlanes(orig), rgbPlanes(dec)
		mse := 0.0
		for c := 0; c < 3; c++ {
			mse += patches.MSE(a[c], b[c]) / 3
		}
		r.RMSE = math.Sqrt(mse)
	}
	r.PSNR = 20 * math.Log10(255/r.RMSE)
	return r
}

// rgbPlanes splits an image into R, G, B planes on the 0..255 scale.
func rgbPlanes(img image.Image) [3]patches.Plane {
	b := img.Bounds()
	var p [3]patches.Plane
	for c := range p {
		p[c] = patches.NewPlane(b.Dx(), b.Dy())
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := y*b.Dx() + x
			p[0].Pix[i] = float64(r) / 257
			p[1].Pix[i] = float64(g) / 257
			p[2].Pix[i] = float64(bl) / 257
		}
	}
	return p
}

func average(rs []Result) Result {
	var a Result
	for _, r := range rs {
		a.RMSE += r.RMSE / float64(len(rs))
		a.SSIM += r.SSIM / float64(len(rs))
		a.BPP += r.BPP / float64(len(rs))
		a.FixedBPP += r.FixedBPP / float64(len(rs))
		a.PSNR += r.PSNR / float64(len(rs))
	}
	return a
}

// measureJPEG codes each image with image/jpeg at the quality whose bits
// per pixel are closest to bpp.
func measureJPEG(images []image.Image, bpp float64, color bool) (Result, error) {
	res := make([]Result, len(images))
	for i, img := range images {
		src := img
		if !color {
			src = patches.FromPlane(patches.Luminance(img), false)
		}
		pixels := float64(img.Bounds().Dx() * img.Bounds().Dy())
		best, bestDiff := Result{}, math.Inf(1)
		lo, hi := 1, 100
		for lo <= hi {
			q := (lo + hi) / 2
			var b bytes.Buffer
			if err := jpeg.Encode(&b, src, &jpeg.Options{Quality: q}); err != nil {
				return Result{}, err
			}
			rate := 8 * float64(b.Len()) / pixels
			dec, err := jpeg.Decode(&b)
			if err != nil {
				return Result{}, err
			}
			if diff := math.Abs(rate - bpp); diff < bestDiff {
				best, bestDiff = Quality(img, dec, color), diff
				best.BPP = rate
			}
			if rate > bpp {
				hi = q - 1
			} else {
				lo = q + 1
			}
		}
		res[i] = best
	}
	r := average(res)
	r.Method = "jpeg (matched bpp)"
	return r, nil
}
