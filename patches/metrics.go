package patches

import (
	"fmt"
	"math"
)

// Peak is the peak signal value used by PSNR and SSIM: planes are on the
// 0..255 scale whatever the bit depth of the image they came from.
const Peak = 255

func checkMetric(what string, a, b Plane) {
	checkSame(what, a, b)
	if len(a.Pix) == 0 {
		panic(fmt.Sprintf("patches: %s: empty planes", what))
	}
}

// MSE returns the mean squared difference between the samples of a and b.
// It panics if their sizes differ or they are empty.
func MSE(a, b Plane) float64 {
	checkMetric("MSE", a, b)
	s := 0.0
	for i, v := range a.Pix {
		d := v - b.Pix[i]
		s += d * d
	}
	return s / float64(len(a.Pix))
}

// RMSE returns the root mean squared difference between the samples of a
// and b, in 8-bit levels. It panics if their sizes differ or they are
// empty.
func RMSE(a, b Plane) float64 { return math.Sqrt(MSE(a, b)) }

// PSNR returns the peak signal-to-noise ratio 10·log10(255²/MSE) of b
// against a in decibels; it is +Inf if the planes are equal. It panics if
// their sizes differ or they are empty.
func PSNR(a, b Plane) float64 {
	mse := MSE(a, b)
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(Peak*Peak/mse)
}

type ssimConfig struct {
	size     int
	sigma    float64 // 0 for a uniform window
	k1, k2   float64
	dynRange float64
}

// SSIMOption sets a rarely needed parameter of SSIM.
type SSIMOption func(*ssimConfig)

// SSIMGaussian sets a size×size Gaussian window of standard deviation
// sigma (the default is 11 and 1.5). It panics unless size ≥ 1 and
// sigma > 0.
func SSIMGaussian(size int, sigma float64) SSIMOption {
	if size < 1 || !(sigma > 0) {
		panic(fmt.Sprintf("patches: SSIMGaussian(%d, %v): want size ≥ 1, sigma > 0", size, sigma))
	}
	return func(c *ssimConfig) { c.size, c.sigma = size, sigma }
}

// SSIMUniform sets a size×size window of equal weights, such as the 8×8
// sliding window some evaluations use. It panics unless size ≥ 1.
func SSIMUniform(size int) SSIMOption {
	if size < 1 {
		panic(fmt.Sprintf("patches: SSIMUniform(%d): want size ≥ 1", size))
	}
	return func(c *ssimConfig) { c.size, c.sigma = size, 0 }
}

// SSIM returns the mean structural similarity index of b against a (Wang,
// Bovik, Sheikh & Simoncelli, "Image quality assessment: from error
// visibility to structural similarity", IEEE Trans. Image Processing 13(4),
// 2004):
//
//	SSIM(x, y) = (2 μx μy + C1)(2 σxy + C2) / ((μx² + μy² + C1)(σx² + σy² + C2))
//
// with C1 = (0.01 L)², C2 = (0.03 L)² and L = 255, where the local means,
// variances and covariance are weighted by a window, by default an 11×11
// circular-symmetric Gaussian of standard deviation 1.5 normalised to sum
// 1, as in the paper (see SSIMGaussian, SSIMUniform). The index is
// computed at every position where the window lies entirely inside the
// planes (no padding) and averaged. There is no automatic downsampling of
// large images. A window larger than the planes is shrunk to fit (a
// Gaussian keeps its sigma). Equal planes give 1.
//
// SSIM panics if the sizes of a and b differ or they are empty.
func SSIM(a, b Plane, opts ...SSIMOption) float64 {
	checkMetric("SSIM", a, b)
	cfg := ssimConfig{size: 11, sigma: 1.5, k1: 0.01, k2: 0.03, dynRange: Peak}
	for _, o := range opts {
		o(&cfg)
	}
	m := min(cfg.size, a.W, a.H)
	win := make([]float64, m)
	c := float64(m-1) / 2
	sum := 0.0
	for i := range win {
		if cfg.sigma > 0 {
			d := float64(i) - c
			win[i] = math.Exp(-d * d / (2 * cfg.sigma * cfg.sigma))
		} else {
			win[i] = 1
		}
		sum += win[i]
	}
	for i := range win {
		win[i] /= sum
	}

	// Horizontal pass: five H × W' moment images, W' = W-m+1.
	w, h := a.W, a.H
	wo, ho := w-m+1, h-m+1
	var hm [5][]float64
	for k := range hm {
		hm[k] = make([]float64, h*wo)
	}
	for y := range h {
		ra, rb := a.Pix[y*w:(y+1)*w], b.Pix[y*w:(y+1)*w]
		for x := range wo {
			var sa, sb, saa, sbb, sab float64
			for k, wk := range win {
				va, vb := ra[x+k], rb[x+k]
				sa += wk * va
				sb += wk * vb
				saa += wk * va * va
				sbb += wk * vb * vb
				sab += wk * va * vb
			}
			i := y*wo + x
			hm[0][i], hm[1][i], hm[2][i], hm[3][i], hm[4][i] = sa, sb, saa, sbb, sab
		}
	}

	c1 := (cfg.k1 * cfg.dynRange) * (cfg.k1 * cfg.dynRange)
	c2 := (cfg.k2 * cfg.dynRange) * (cfg.k2 * cfg.dynRange)
	total := 0.0
	for y := range ho {
		for x := range wo {
			var mom [5]float64
			for k, wk := range win {
				i := (y+k)*wo + x
				for q := range mom {
					mom[q] += wk * hm[q][i]
				}
			}
			ma, mb := mom[0], mom[1]
			va := mom[2] - ma*ma
			vb := mom[3] - mb*mb
			cov := mom[4] - ma*mb
			total += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
		}
	}
	return total / float64(wo*ho)
}
