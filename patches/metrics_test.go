package patches

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/testimages"
)

func addNoise(p Plane, sigma float64, seed uint64) Plane {
	rng := rand.New(rand.NewPCG(seed, 9))
	q := p.Clone()
	for i := range q.Pix {
		q.Pix[i] += sigma * rng.NormFloat64()
	}
	return q
}

func TestPSNR(t *testing.T) {
	p := Luminance(testimages.Texture(40, 30, 1))
	if got := PSNR(p, p); !math.IsInf(got, 1) {
		t.Errorf("PSNR of equal planes %v", got)
	}
	if RMSE(p, p) != 0 {
		t.Error("RMSE of equal planes")
	}
	// ±5 alternately: MSE 25 exactly.
	q := p.Clone()
	for i := range q.Pix {
		q.Pix[i] += float64(5 - 10*(i%2))
	}
	if got := RMSE(p, q); math.Abs(got-5) > 1e-12 {
		t.Errorf("RMSE %v, want 5", got)
	}
	want := 10 * math.Log10(255*255/25.0) // 34.15 dB
	if got := PSNR(p, q); math.Abs(got-want) > 1e-9 {
		t.Errorf("PSNR %v, want %v", got, want)
	}
	// Gaussian noise of σ = 10: about 28.13 dB.
	if got := PSNR(p, addNoise(p, 10, 1)); math.Abs(got-28.13) > 0.3 {
		t.Errorf("PSNR with σ = 10 noise: %v", got)
	}
	mustPanic(t, "sizes", func() { PSNR(p, NewPlane(3, 3)) })
	mustPanic(t, "empty", func() { PSNR(NewPlane(0, 0), NewPlane(0, 0)) })
}

// ssimDirect computes the Gaussian SSIM without separable filtering.
func ssimDirect(a, b Plane, m int, sigma float64) float64 {
	w := make([]float64, m*m)
	c, sum := float64(m-1)/2, 0.0
	for i := range m {
		for j := range m {
			d2 := (float64(i)-c)*(float64(i)-c) + (float64(j)-c)*(float64(j)-c)
			w[i*m+j] = math.Exp(-d2 / (2 * sigma * sigma))
			sum += w[i*m+j]
		}
	}
	c1, c2 := math.Pow(0.01*255, 2), math.Pow(0.03*255, 2)
	total, count := 0.0, 0
	for y := 0; y+m <= a.H; y++ {
		for x := 0; x+m <= a.W; x++ {
			var ma, mb float64
			for i := range m {
				for j := range m {
					ma += w[i*m+j] / sum * a.At(x+j, y+i)
					mb += w[i*m+j] / sum * b.At(x+j, y+i)
				}
			}
			var va, vb, cov float64
			for i := range m {
				for j := range m {
					da, db := a.At(x+j, y+i)-ma, b.At(x+j, y+i)-mb
					va += w[i*m+j] / sum * da * da
					vb += w[i*m+j] / sum * db * db
					cov += w[i*m+j] / sum * da * db
				}
			}
			total += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			count++
		}
	}
	return total / float64(count)
}

func TestSSIM(t *testing.T) {
	p := Luminance(testimages.Texture(48, 40, 2))
	if got := SSIM(p, p); got != 1 {
		t.Errorf("SSIM of equal planes %v", got)
	}
	prev := 1.0
	for _, sigma := range []float64{2, 5, 10, 20, 40} {
		q := addNoise(p, sigma, 3)
		got := SSIM(p, q)
		if !(got < prev) || got <= 0 {
			t.Errorf("SSIM with σ = %v noise: %v, not below %v", sigma, got, prev)
		}
		prev = got
		if sym := SSIM(q, p); math.Abs(sym-got) > 1e-12 {
			t.Errorf("SSIM not symmetric: %v, %v", got, sym)
		}
		if d := ssimDirect(p, q, 11, 1.5); math.Abs(got-d) > 1e-9 {
			t.Errorf("σ = %v: SSIM %v, direct computation %v", sigma, got, d)
		}
	}
	// A constant offset changes only the luminance term.
	q := p.Clone()
	for i := range q.Pix {
		q.Pix[i] += 30
	}
	if got := SSIM(p, q); got > 0.99 || got < 0.5 {
		t.Errorf("SSIM with offset: %v", got)
	}
	// Other windows, and planes smaller than the window.
	n := addNoise(p, 10, 4)
	u := SSIM(p, n, SSIMUniform(8))
	if u <= 0 || u >= 1 {
		t.Errorf("8×8 uniform SSIM %v", u)
	}
	small := Plane{W: 5, H: 4, Pix: p.Pix[:20]}
	smallN := Plane{W: 5, H: 4, Pix: n.Pix[:20]}
	if got, d := SSIM(small, smallN), ssimDirect(small, smallN, 4, 1.5); math.Abs(got-d) > 1e-9 {
		t.Errorf("4×4 window: %v, direct %v", got, d)
	}
	if got, d := SSIM(p, n, SSIMGaussian(7, 1)), ssimDirect(p, n, 7, 1); math.Abs(got-d) > 1e-9 {
		t.Errorf("7×7 window: %v, direct %v", got, d)
	}
}
