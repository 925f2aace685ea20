package codec

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestDeblockGray checks that the 8-bit filter of the decoder
// (deblockGray) sets the same pixels as deblockEdges with rounding and
// clamping accessors, on smooth and noisy images (some edges filtered,
// some not, some clamped), at every strength and several steps.
func TestDeblockGray(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const w, h = 37, 29
	for trial := 0; trial < 12; trial++ {
		n := 4 + 4*(trial/6) // 4×4 and 8×8 patches (the AVX passes differ)
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			// Later trials clamp at 0 and 255; odd ones are blocky
			// (steps across the edges, so moves clipped at ±tc).
			v := 128 + float64(100+10*trial)*math.Sin(float64(i%w)/7+float64(trial)) + float64(rng.IntN(1+8*trial))
			if trial%2 == 1 {
				x, y := i%w/n, i/w/n
				v += float64((x*7+y*13)%11) * float64(trial)
			}
			img.Pix[i] = uint8(math.Max(0, math.Min(255, v)))
		}
		for k := 1; k <= maxDeblock; k++ {
			// Steps whose thresholds are whole, halves and neither.
			for _, step := range []float64{4, 7.3, 14.75, 15, 60} {
				alpha, beta, tc := deblockParams(k, step, n)
				if step == 60 {
					// Thresholds that clip the moves (deblockParams's
					// never do), for the filter's clipping branch.
					alpha, beta, tc = 5*float64(k), 3*float64(k), 0.7*float64(k)
				}
				want := bytes.Clone(img.Pix)
				get := func(i int) float64 { return float64(want[i]) }
				set := func(i int, v float64) { want[i] = uint8(math.Max(0, math.Min(255, math.Round(v)))) }
				deblockEdges(get, set, w, w, h, n, alpha, beta, tc)
				got := bytes.Clone(img.Pix)
				deblockGray(got, w, w, h, n, alpha, beta, tc)
				if !bytes.Equal(got, want) {
					t.Fatalf("trial %d (%dx%d), strength %d, step %g: deblockGray differs from deblockEdges", trial, n, n, k, step)
				}
				if trial%6 == 5 && k == maxDeblock && step == 60 && bytes.Equal(got, img.Pix) {
					t.Fatal("no pixel filtered: the test exercises nothing")
				}
			}
		}
	}
}

// TestDeblockErrorsGray checks the encoder's search (deblockErrorsGray,
// which adds up the changes of the pixels each edge sets) against
// filtering a copy at every strength and summing every pixel's squared
// error: equal where the original holds whole numbers, as 8-bit images
// do, on patches of 2, 4 and 8 pixels (2: the edges overlap, and the
// search filters a copy per strength; 4 and 8: it goes by edge).
func TestDeblockErrorsGray(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const w, h = 45, 31
	for _, n := range []int{2, 4, 8} {
		for trial := 0; trial < 4; trial++ {
			rec := image.NewGray(image.Rect(0, 0, w, h))
			orig := patches.NewPlane(w, h)
			for i := range rec.Pix {
				v := 128 + 100*math.Sin(float64(i%w)/7+float64(trial)) + float64(rng.IntN(1+8*trial))
				if trial%2 == 1 { // blocky
					v += float64((i%w/n*7+i/w/n*13)%11) * float64(trial)
				}
				rec.Pix[i] = uint8(math.Max(0, math.Min(255, v)))
				orig.Pix[i] = math.Max(0, math.Min(255, math.Round(v+float64(rng.IntN(9))-4)))
			}
			orig8 := make([]uint8, w*h)
			for i, v := range orig.Pix {
				orig8[i] = uint8(v)
			}
			for _, step := range []float64{4, 15, 60} {
				got := deblockErrorsGray(orig, rec, step, n)
				// From 8-bit pixels (the encoder of a grey image): the same.
				if got8 := deblockErrorsGray8(orig8, rec, step, n, 1); !slices.Equal(got8, got) {
					t.Fatalf("n %d trial %d step %g: from 8-bit pixels %v, from the plane %v", n, trial, step, got8, got)
				}
				if n >= 4 && !deblockErrorsByEdge(make([]float64, maxDeblock+1), make([]int16, w*h), rec.Pix, w, h, n, step, 1) {
					t.Fatalf("n %d step %g: the search by edge refused", n, step)
				}
				filtered := 0
				for k := 0; k <= maxDeblock; k++ {
					work := image.NewGray(rec.Rect)
					copy(work.Pix, rec.Pix)
					deblockImage(work, k, step, n)
					if !bytes.Equal(work.Pix, rec.Pix) {
						filtered++
					}
					var want float64
					for i, v := range work.Pix {
						d := float64(v) - orig.Pix[i]
						want += d * d
					}
					if got[k] != want {
						t.Fatalf("n %d trial %d step %g strength %d: error %g, filtering a copy gives %g", n, trial, step, k, got[k], want)
					}
				}
				if trial == 3 && step == 60 && filtered == 0 {
					t.Fatalf("n %d: no strength filters anything: the test exercises nothing", n)
				}
			}
		}
	}
}

// BenchmarkDeblockGray filters a 768×512 grey image (a generated texture
// made blocky by averaging 8×8 blocks halfway) at the strength of the
// decoder's default model's files: what a decode of a Kodak-sized image
// spends deblocking.
func BenchmarkDeblockGray(b *testing.B) {
	const w, h, n = 768, 512, 8
	src := testimages.Texture(w, h, 7)
	img := image.NewGray(image.Rect(0, 0, w, h))
	for by := 0; by < h; by += n {
		for bx := 0; bx < w; bx += n {
			sum := 0
			for y := by; y < by+n; y++ {
				for x := bx; x < bx+n; x++ {
					sum += int(src.GrayAt(x, y).Y)
				}
			}
			for y := by; y < by+n; y++ {
				for x := bx; x < bx+n; x++ {
					img.Pix[y*w+x] = uint8((int(src.GrayAt(x, y).Y) + sum/(n*n) + 1) / 2)
				}
			}
		}
	}
	alpha, beta, tc := deblockParams(4, 30, n)
	pix := make([]uint8, len(img.Pix))
	b.ResetTimer()
	for range b.N {
		copy(pix, img.Pix)
		deblockGray(pix, w, w, h, n, alpha, beta, tc)
	}
}

// TestDeblockHorizErrKernel checks the search by edge from 8-bit
// originals (the AVX2 kernel over horizontal edges where the machine has
// it) against the same originals as int16 (the Go loop) on blocky images
// with saturated parts, patches of 4 and 8 pixels, widths past a group
// of 16 columns and past the kernel's chunk of columns.
func TestDeblockHorizErrKernel(t *testing.T) {
	if !hasAVX2 {
		t.Log("no AVX2: both go through the Go loop")
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for _, sz := range [][2]int{{100, 41}, {2100, 12}} {
		w, h := sz[0], sz[1]
		for trial := range 6 {
			rec := make([]uint8, w*h)
			o8, o16 := make([]uint8, w*h), make([]int16, w*h)
			for i := range rec {
				x, y := i%w, i/w
				v := 128 + 170*math.Sin(float64(x)/9+float64(trial)) + 40*math.Cos(float64(y)/5) + float64(rng.IntN(1+3*trial))
				v += float64((x/8*7+y/8*13)%11) * float64(trial%3)
				rec[i] = uint8(math.Max(0, math.Min(255, v)))
				o := math.Max(0, math.Min(255, math.Round(v+float64(rng.IntN(7))-3)))
				o8[i], o16[i] = uint8(o), int16(o)
			}
			for _, n := range []int{4, 8} {
				for _, step := range []float64{8, 40, 120} {
					var sse int64
					for i, v := range rec {
						d := int64(v) - int64(o8[i])
						sse += d * d
					}
					got, want := make([]float64, maxDeblock+1), make([]float64, maxDeblock+1)
					got[0], want[0] = float64(sse), float64(sse)
					ok8 := deblockErrorsByEdge(got, o8, rec, w, h, n, step, 1)
					ok16 := deblockErrorsByEdge(want, o16, rec, w, h, n, step, 1)
					if ok8 != ok16 || !slices.Equal(got, want) {
						t.Fatalf("%dx%d trial %d n %d step %g: 8-bit originals %v (%v), int16 %v (%v)", w, h, trial, n, step, got, ok8, want, ok16)
					}
				}
			}
		}
	}
}

// TestSSE8 checks sse8 (AVX2 where the machine has it) against the
// plain sum on lengths around its groups of 16 and its chunks, random
// bytes and the largest differences.
func TestSSE8(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 24))
	for _, n := range []int{0, 1, 15, 16, 17, 100, maxSSE8 - 1, maxSSE8, maxSSE8 + 17, 3*maxSSE8 + 5} {
		for _, extreme := range []bool{false, true} {
			a, b := make([]uint8, n), make([]uint8, n)
			var want int64
			for i := range a {
				if extreme {
					a[i], b[i] = 255*uint8(i%2), 255*uint8(1-i%2)
				} else {
					a[i], b[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
				}
				d := int64(a[i]) - int64(b[i])
				want += d * d
			}
			if got := sse8(a, b); got != want {
				t.Fatalf("%d bytes (extreme %v): %d, want %d", n, extreme, got, want)
			}
		}
	}
}

// blockyPlane returns a w×h plane of a smooth wave with noise and, if
// blocky, steps across the n×n patch edges: some edges pass the filter's
// tests, some fail, some are clipped. Values stay near 0..255, some
// beyond (chroma and unclamped reconstructions do).
func blockyPlane(rng *rand.Rand, w, h, n, trial int, blocky bool) patches.Plane {
	p := patches.NewPlane(w, h)
	for i := range p.Pix {
		x, y := i%w, i/w
		v := 128 + float64(60+20*trial)*math.Sin(float64(x)/7+float64(trial)) + 30*math.Cos(float64(y)/5) + rng.Float64()*float64(1+4*trial)
		if blocky {
			v += float64((x/n*7+y/n*13)%11) * float64(1+trial)
		}
		p.Pix[i] = v
	}
	return p
}

// TestDeblockFloat checks the decoder's filters of float64 planes
// (deblockFloat: colour channels) and of 16-bit grey images
// (deblockGray16) against deblockEdges with accessors, bit for bit, on
// patches of 2 (overlapping edges), 3, 4 and 8 pixels, every strength.
func TestDeblockFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 16))
	const w, h = 43, 30
	for _, n := range []int{2, 3, 4, 8} {
		for trial := range 4 {
			p := blockyPlane(rng, w, h, n, trial, trial%2 == 1)
			g16 := image.NewGray16(image.Rect(0, 0, w, h))
			for i, v := range p.Pix {
				x := uint16(math.Max(0, math.Min(65535, math.Round(257*v))))
				g16.Pix[2*i], g16.Pix[2*i+1] = byte(x>>8), byte(x)
			}
			for k := 1; k <= maxDeblock; k++ {
				for _, step := range []float64{4, 15, 60} {
					alpha, beta, tc := deblockParams(k, step, n)
					if step == 60 { // moves clipped at ±tc
						alpha, beta, tc = 5*float64(k), 3*float64(k), 0.7*float64(k)
					}
					want := slices.Clone(p.Pix)
					deblockEdges(func(i int) float64 { return want[i] }, func(i int, v float64) { want[i] = v }, w, w, h, n, alpha, beta, tc)
					got := slices.Clone(p.Pix)
					deblockFloat(got, w, w, h, n, alpha, beta, tc)
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("n %d trial %d strength %d step %g: pixel %d is %v, deblockEdges gives %v", n, trial, k, step, i, got[i], want[i])
						}
					}
					if k == maxDeblock && trial == 3 && step == 60 && slices.Equal(got, p.Pix) {
						t.Fatalf("n %d: nothing filtered: the test exercises nothing", n)
					}
					want16 := slices.Clone(g16.Pix)
					get := func(i int) float64 { return float64(uint16(want16[2*i])<<8 | uint16(want16[2*i+1])) }
					set := func(i int, v float64) {
						x := uint16(math.Max(0, math.Min(65535, math.Round(v))))
						want16[2*i], want16[2*i+1] = byte(x>>8), byte(x)
					}
					deblockEdges(get, set, w, w, h, n, 257*alpha, 257*beta, 257*tc)
					got16 := slices.Clone(g16.Pix)
					deblockGray16(got16, w, w, h, n, 257*alpha, 257*beta, 257*tc)
					if !bytes.Equal(got16, want16) {
						t.Fatalf("n %d trial %d strength %d step %g: deblockGray16 differs from deblockEdges", n, trial, k, step)
					}
				}
			}
		}
	}
}

// BenchmarkDeblockSearchFloat is the encoder's deblocking search of a
// 768×512 float64 plane (a colour channel's, or a 16-bit image's): the
// filtered copies of deblockErrors against searchDeblockFloat.
func BenchmarkDeblockSearchFloat(b *testing.B) {
	const w, h, n = 768, 512, 8
	rng := rand.New(rand.NewPCG(7, 7))
	rec := blockyPlane(rng, w, h, n, 2, true)
	orig := rec.Clone()
	for i := range orig.Pix {
		orig.Pix[i] += rng.NormFloat64() * 3
	}
	b.Run("copies", func(b *testing.B) {
		for range b.N {
			deblockErrors(orig, rec, 30, n, false)
		}
	})
	b.Run("search", func(b *testing.B) {
		for range b.N {
			searchDeblockFloat(orig, rec, 30, n, 1)
		}
	})
}

// TestSearchDeblockFloat checks the encoder's search of float64 planes
// (searchDeblockFloat) against deblockErrors, which filters a copy at
// every strength and sums every sample's squared error: each error
// within the search's bound, a strength said to set nothing with
// exactly the unfiltered error, and chooseDeblock's strength bestDeblock's
// of the exact errors, for one to three channels (colour: Y and half-size
// chroma) on patches of 4, 5 and 8 samples, smooth and blocky, several
// steps. A planted tie makes chooseDeblock use the exact errors.
func TestSearchDeblockFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 17))
	decided := 0
	for _, n := range []int{4, 5, 8} {
		for trial := range 6 {
			var ss []deblockSearch
			var exact [][]float64
			for c := range 1 + trial%3 {
				w, h := 61-20*min(c, 1), 47-16*min(c, 1)
				rec := blockyPlane(rng, w, h, n, trial, trial%2 == 1)
				orig := rec.Clone()
				for i := range orig.Pix {
					orig.Pix[i] += rng.NormFloat64() * float64(1+trial)
				}
				step := []float64{4, 15, 30, 60, 120, 400}[trial]
				s := searchDeblockFloat(orig, rec, step, n, 1)
				want := deblockErrors(orig, rec, step, n, false)
				if s.bound == nil {
					t.Fatalf("n %d: no search by edge", n)
				}
				for k, e := range s.errs {
					if math.Abs(e-want[k]) > s.bound[k] {
						t.Fatalf("n %d trial %d channel %d strength %d: error %v, filtering a copy gives %v (bound %g)", n, trial, c, k, e, want[k], s.bound[k])
					}
					if s.same[k] && want[k] != want[0] {
						t.Fatalf("n %d trial %d strength %d: said to set nothing, but its error %v is not the unfiltered %v", n, trial, k, want[k], want[0])
					}
					if s.bound[k] > 1e-7*want[k] {
						t.Fatalf("n %d trial %d strength %d: bound %g of an error %g is loose", n, trial, k, s.bound[k], want[k])
					}
				}
				ss, exact = append(ss, s), append(exact, want)
			}
			got, used := chooseDeblock(slices.Clone(ss))
			if want := bestDeblock(exact); got != want {
				t.Fatalf("n %d trial %d: strength %d, the exact errors give %d", n, trial, got, want)
			}
			if !used {
				decided++
			}
			// A tie: strength 3's errors those of the winner's, in every
			// channel: the bounds cannot separate them.
			tied := slices.Clone(ss)
			for c := range tied {
				tied[c].errs = slices.Clone(tied[c].errs)
				tied[c].same = slices.Clone(tied[c].same)
				tied[c].errs[3], tied[c].same[3] = tied[c].errs[got], false
			}
			if got != 3 {
				if _, used := chooseDeblock(tied); !used {
					t.Fatalf("n %d trial %d: a tie decided without the exact errors", n, trial)
				}
			}
		}
	}
	if decided < 12 {
		t.Fatalf("the bounds decided %d of 18 searches alone: the search saves nothing", decided)
	}
	// Thresholds that clip moves (deblockParams's clip none but by
	// rounding): the strengths an edge clips at are taken one by one, and
	// a band with a vertical edge clipped at its first strength is
	// filtered at each.
	clipped := 0
	for _, n := range []int{4, 8} {
		for trial := range 4 {
			rec := blockyPlane(rng, 53, 41, n, trial+2, true)
			orig := rec.Clone()
			for i := range orig.Pix {
				orig.Pix[i] += rng.NormFloat64() * 2
			}
			params := func(k int) (alpha, beta, tc float64) {
				kf := float64(k)
				return (4 + float64(trial)) * kf, 3 * kf, 0.3 * kf * float64(1+trial)
			}
			s := searchDeblockAt(orig, rec, n, params, 1)
			want := deblockErrorsAt(orig, rec, n, params)
			for k, e := range s.errs {
				if math.Abs(e-want[k]) > s.bound[k] {
					t.Fatalf("clipping n %d trial %d strength %d: error %v, filtering a copy gives %v (bound %g)", n, trial, k, e, want[k], s.bound[k])
				}
			}
			if want[maxDeblock] != want[1] {
				clipped++
			}
		}
	}
	if clipped == 0 {
		t.Fatal("the clipping thresholds filter nothing")
	}
	// Thresholds of a subnormal step, whose inverse is +Inf (an edge of
	// equal samples then guesses from 0·Inf = NaN): no panic, the same
	// errors.
	rec := blockyPlane(rng, 20, 20, 4, 0, false)
	for i := range 40 {
		rec.Pix[i] = 7 // equal samples
	}
	tiny := func(k int) (alpha, beta, tc float64) {
		kf := float64(k)
		return kf * 1e-310, kf * 1e-310, kf * 1e-310
	}
	s := searchDeblockAt(rec, rec, 4, tiny, 1)
	if want := deblockErrorsAt(rec, rec, 4, tiny); !slices.Equal(s.errs, want) {
		t.Fatalf("subnormal thresholds: %v, want %v", s.errs, want)
	}
}

// TestSearchDeblockAtSame checks searchDeblockAt against
// searchDeblockAtRef, its form before the sums became methods and
// deblockParams's three tests one: the same errors, bounds and
// unchanged strengths to the last bit, with deblockParams (the doubled
// tests) and with thresholds that are not doubled (clipping ones, and
// the subnormal ones), on blocky and smooth planes of patches of 4, 5
// and 8.
func TestSearchDeblockAtSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	same := func(what string, orig, rec patches.Plane, n int, params func(k int) (alpha, beta, tc float64)) {
		t.Helper()
		got, want := searchDeblockAt(orig, rec, n, params, 1), searchDeblockAtRef(orig, rec, n, params)
		bits := func(a, b []float64) bool {
			return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
		}
		if !bits(got.errs, want.errs) || !bits(got.bound, want.bound) || !slices.Equal(got.same, want.same) {
			t.Fatalf("%s: errors %v bounds %v same %v, the reference gives %v %v %v", what, got.errs, got.bound, got.same, want.errs, want.bound, want.same)
		}
	}
	moved := 0
	for _, n := range []int{4, 5, 8} {
		for trial := range 6 {
			rec := blockyPlane(rng, 67, 45, n, trial, trial%2 == 1)
			orig := rec.Clone()
			for i := range orig.Pix {
				orig.Pix[i] += rng.NormFloat64() * float64(1+trial)
			}
			for _, step := range []float64{4, 15, 30, 60, 120, 400} {
				params := func(k int) (alpha, beta, tc float64) { return deblockParams(k, step, n) }
				same(fmt.Sprintf("n %d trial %d step %v", n, trial, step), orig, rec, n, params)
				if s := searchDeblockAt(orig, rec, n, params, 1); !s.same[maxDeblock] {
					moved++
				}
			}
			clip := func(k int) (alpha, beta, tc float64) {
				kf := float64(k)
				return (4 + float64(trial)) * kf, 3 * kf, 0.3 * kf * float64(1+trial)
			}
			same(fmt.Sprintf("clipping n %d trial %d", n, trial), orig, rec, n, clip)
			// Doubled thresholds that clip: the one test of the
			// doubled path, with strengths taken one by one.
			dclip := func(k int) (alpha, beta, tc float64) {
				kf := float64(k)
				return 6 * kf, 3 * kf, 0.2 * kf * float64(1+trial)
			}
			same(fmt.Sprintf("doubled clipping n %d trial %d", n, trial), orig, rec, n, dclip)
		}
	}
	if moved < 30 {
		t.Fatalf("the deblocking moved samples in only %d of 108 searches", moved)
	}
	rec := blockyPlane(rng, 20, 20, 4, 0, false)
	for i := range 40 {
		rec.Pix[i] = 7
	}
	rec.Pix[45] = math.NaN()
	tiny := func(k int) (alpha, beta, tc float64) {
		kf := float64(k)
		return kf * 1e-310, kf * 1e-310, kf * 1e-310
	}
	same("subnormal thresholds", rec, rec, 4, tiny)
	orig := rec.Clone()
	orig.Pix[3] += 1
	same("a NaN sample", orig, rec, 4, func(k int) (alpha, beta, tc float64) { return deblockParams(k, 30, 4) })
}

// searchDeblockAtRef is searchDeblockAt as it was written before 24col3
// (closures over the sums): the reference its rewrite must match to the
// last bit (TestSearchDeblockAtSame).
func searchDeblockAtRef(orig, rec patches.Plane, n int, params func(k int) (alpha, beta, tc float64)) deblockSearch {
	const never = maxDeblock + 1
	w, h := rec.W, rec.H
	var alpha, beta, tc [never]float64
	for k := 1; k <= maxDeblock; k++ {
		alpha[k], beta[k], tc[k] = params(k)
	}
	// kmin is the first strength whose tests the edge passes: the last
	// of the first strengths of its three tests (each passes from its
	// first on). A threshold's first strength is guessed from its
	// strength 1 (deblockParams's grow in proportion) and set right by
	// comparing with the thresholds: a loop over the strengths was 15 %
	// of this search.
	invA, invB := 1/alpha[1], 1/beta[1]
	first := func(v, inv float64, t *[never]float64) int {
		k := maxDeblock // also where v·inv is NaN (0·Inf: thresholds of a subnormal step)
		if g := v * inv; g < maxDeblock {
			k = int(g) + 1 // v >= 0
		}
		for k > 1 && v < t[k-1] {
			k--
		}
		for k <= maxDeblock && !(v < t[k]) {
			k++
		}
		return k
	}
	kmin := func(p1, p0, q0, q1 float64) int {
		a, b0, b1 := math.Abs(q0-p0), math.Abs(p1-p0), math.Abs(q1-q0)
		if !(a < alpha[maxDeblock] && b0 < beta[maxDeblock] && b1 < beta[maxDeblock]) {
			return never
		}
		return max(first(a, invA, &alpha), first(b0, invB, &beta), first(b1, invB, &beta))
	}
	// unclipped: floatEdge does not clip the edge's move at strength k.
	unclipped := func(p1, p0, q0, q1 float64, k int) bool {
		d := (4*(q0-p0) + p1 - q1) / 8
		return max(-tc[k], min(tc[k], d)) == d
	}
	var diff [never + 1]float64 // diff[k]: change of the error from strength k on
	var count [never + 1]int    // count[k]: samples that change value from strength k on
	var moved float64           // the magnitudes of every term added to diff
	terms := 0
	// change adds the change of sample i from value from to v at the
	// strengths ka..kb-1.
	change := func(i int, from, v float64, ka, kb int) {
		if v == from {
			return
		}
		o := orig.Pix[i]
		dn, df := v-o, from-o
		tn, tf := float64(dn*dn), float64(df*df)
		diff[ka] += tn - tf
		diff[kb] -= tn - tf
		count[ka]++
		count[kb]--
		moved += 2 * (tn + tf)
		terms++
	}
	// edge adds the changes of an edge of samples px at idx that passes
	// from strength ka on, up to kb-1.
	edge := func(px [4]float64, idx [4]int, ka, kb int) {
		for k := ka; k < kb; k++ {
			var v [4]float64
			v[0], v[1], v[2], v[3] = floatEdge(px[0], px[1], px[2], px[3], alpha[k], beta[k], tc[k])
			end := k + 1
			if unclipped(px[0], px[1], px[2], px[3], k) {
				end = kb // the same values from here on
			}
			for j := range v {
				change(idx[j], px[j], v[j], k, end)
			}
			k = end - 1
		}
	}
	sc := deblockScratches.Get().(*deblockScratch)
	defer deblockScratches.Put(sc)
	sc.vonF, sc.kpix = resize(sc.vonF, 4*w), resize(sc.kpix, 4*w)
	von, kpix := sc.vonF, sc.kpix
	// band adds the changes of the four rows from index at around a
	// horizontal edge and reports whether it could: not if a vertical
	// edge there clips its move at its first strength.
	band := func(at int) bool {
		rows := rec.Pix[at:][:4*w]
		copy(von, rows)
		for i := range kpix {
			kpix[i] = never
		}
		// The vertical edges: von holds each sample as they set it,
		// kpix the strength they set it from.
		for r := range 4 {
			row, vr, kr := rows[r*w:][:w], von[r*w:][:w], kpix[r*w:][:w]
			for x := n; x+1 < w; x += n {
				e := row[x-2 : x+2 : x+2]
				k := kmin(e[0], e[1], e[2], e[3])
				if k == never {
					continue
				}
				if !unclipped(e[0], e[1], e[2], e[3], k) {
					return false
				}
				v := vr[x-2 : x+2 : x+2]
				v[0], v[1], v[2], v[3] = floatEdge(e[0], e[1], e[2], e[3], alpha[k], beta[k], tc[k])
				kr[x-2], kr[x-1], kr[x], kr[x+1] = uint8(k), uint8(k), uint8(k), uint8(k)
			}
		}
		for i, k := range kpix {
			if k != never {
				change(at+i, rows[i], von[i], int(k), never)
			}
		}
		// The horizontal edge, column by column, in each state of its
		// samples: from ka on, those whose vertical edge is on.
		for x := range w {
			ks := [4]uint8{kpix[x], kpix[w+x], kpix[2*w+x], kpix[3*w+x]}
			on := [4]float64{von[x], von[w+x], von[2*w+x], von[3*w+x]}
			off := [4]float64{rows[x], rows[w+x], rows[2*w+x], rows[3*w+x]}
			idx := [4]int{at + x, at + w + x, at + 2*w + x, at + 3*w + x}
			for ka := 1; ka <= maxDeblock; {
				kb, px := never, off
				for r, k := range ks {
					if int(k) <= ka {
						px[r] = on[r]
					} else {
						kb = min(kb, int(k))
					}
				}
				if kh := max(ka, kmin(px[0], px[1], px[2], px[3])); kh < kb {
					edge(px, idx, kh, kb)
				}
				ka = kb
			}
		}
		return true
	}
	for y := 0; y < h; y++ {
		if b := (y + 2) / n * n; b >= n && b+1 < h && y <= b+1 {
			if at := (b - 2) * w; y == b-2 && !band(at) {
				// The band filtered at each strength.
				for k := 1; k <= maxDeblock; k++ {
					copy(von, rec.Pix[at:][:4*w])
					for r := range 4 {
						deblockFloat(von[r*w:][:w], w, w, 1, n, alpha[k], beta[k], tc[k])
					}
					r1, r0, s0, s1 := von[:w], von[w:2*w], von[2*w:3*w], von[3*w:]
					for x := range r1 {
						r1[x], r0[x], s0[x], s1[x] = floatEdge(r1[x], r0[x], s0[x], s1[x], alpha[k], beta[k], tc[k])
					}
					for i, v := range von {
						change(at+i, rec.Pix[at+i], v, k, k+1)
					}
				}
			}
			continue
		}
		row := rec.Pix[y*w:][:w]
		for x := n; x+1 < w; x += n {
			e := row[x-2 : x+2 : x+2]
			if k := kmin(e[0], e[1], e[2], e[3]); k < never {
				i := y*w + x
				edge([4]float64{e[0], e[1], e[2], e[3]}, [4]int{i - 2, i - 1, i, i + 1}, k, never)
			}
		}
	}
	var lanes sseLanes
	for y := range h {
		lanes.addRow(rec.Pix[y*w:][:w], orig.Pix[y*w:][:w])
	}
	sse0 := lanes.sum()
	s := deblockSearch{orig: orig, rec: rec, n: n, params: params,
		errs: make([]float64, never), bound: make([]float64, never), same: make([]bool, never)}
	s.errs[0], s.same[0], s.bound[0] = sse0, true, 4*float64(len(rec.Pix))*0x1p-53*sse0
	e, c := sse0, 0
	for k := 1; k <= maxDeblock; k++ {
		e += diff[k]
		c += count[k]
		s.errs[k], s.same[k] = e, c == 0
		// deblockErrors's sum of N terms is within (N-1)·u of their total
		// (u = 2^-53, relative to it), and so is sse0; each change here
		// rounds within u of its terms, and their sums within a u of
		// moved per term. Four times that, to be safe.
		s.bound[k] = 4 * float64(len(rec.Pix)+8*terms+4*never) * 0x1p-53 * (sse0 + moved + math.Abs(e))
	}
	return s
}
