package codec

import (
	"bytes"
	"image"
	"math"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestRateEstimateScratch checks that rateEstimate leaves its scratch
// zero (it clears only what it counted) and that one scratch reused over
// steps, strides, images and channels of other sizes (colour 4:2:0)
// gives the estimates of a fresh scratch each time, bit for bit.
func TestRateEstimateScratch(t *testing.T) {
	shared := takeEstScratch(64)
	defer putEstScratch(shared)
	for _, c := range rateEstimateCases(t) {
		in, pixels, est := caseRateModel(t, c.img, c.m)
		dims := 0
		for _, ch := range c.m.Channels {
			dims = max(dims, ch.Dims())
		}
		for _, f := range []float64{0.3, 1, 3, 0.5} {
			for _, stride := range []int{estRowStride, estCoarseStride} {
				s := c.m.Step * f
				fresh := &estScratch{counts: make([]int32, estBusy*dims*estWidth), zeros: make([]int32, estBusy*dims)}
				want := rateEstimate(in, est.bases, c.m, s, pixels, stride, fresh)
				got := rateEstimate(in, est.bases, c.m, s, pixels, stride, shared)
				if math.Float64bits(got) != math.Float64bits(want) || !(want > 0) {
					t.Errorf("%T step %.3f stride %d: %v with a reused scratch, %v with a fresh one", c.img, s, stride, got, want)
				}
				for _, sc := range []*estScratch{fresh, shared} {
					for i, v := range sc.counts {
						if v != 0 {
							t.Fatalf("%T step %.3f stride %d: count %d left at %d", c.img, s, stride, i, v)
						}
					}
					for i, v := range sc.zeros {
						if v != 0 {
							t.Fatalf("%T step %.3f stride %d: zero count %d left at %d", c.img, s, stride, i, v)
						}
					}
				}
			}
		}
		est.release()
		in.release()
	}
}

// TestRateSearchIndexBuffers checks that the rate search's index
// buffers, handed back to the pool after each image, may hold anything:
// with the pool filled with buffers of garbage, every file is the one of
// a search with fresh buffers, over images coded one after another.
func TestRateSearchIndexBuffers(t *testing.T) {
	m := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 })
	imgs := []image.Image{testimages.Texture(192, 128, 71), testimages.Texture(160, 96, 72)}
	code := func(img image.Image, bpp float64) []byte {
		var buf bytes.Buffer
		if _, _, err := EncodeAtRate(&buf, img, m, bpp, nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var want [][]byte
	for _, img := range imgs {
		for _, bpp := range []float64{0.5, 2} {
			want = append(want, code(img, bpp))
		}
	}
	for round := 0; round < 2; round++ {
		i := 0
		for _, img := range imgs {
			for _, bpp := range []float64{0.5, 2} {
				for range 4 {
					g := make([]int32, 192*128)
					for j := range g {
						g[j] = math.MaxInt32 - int32(j)
					}
					putIndices(g)
				}
				if got := code(img, bpp); !bytes.Equal(got, want[i]) {
					t.Errorf("round %d, image %d at %g bpp: another file after the pool held garbage", round, i/2, bpp)
				}
				i++
			}
		}
	}
}
