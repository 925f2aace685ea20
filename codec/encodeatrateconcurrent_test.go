package codec

import (
	"bytes"
	"fmt"
	"image"
	"sync"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestEncodeAtRateConcurrent runs rate searches (EncodeAtRate) at the
// same time, on images of other sizes (odd, one patch row, the coarse
// estimate's size, colour 4:2:0) and targets, in different orders, so
// that the pooled scratch, index buffers and magnitude lists of one
// search go to the next in another goroutine: every file is the one the
// search writes alone, with its step. Run with -race to see a buffer
// shared by two searches at once.
func TestEncodeAtRateConcurrent(t *testing.T) {
	grey := smallModel(t, func(o *TrainOptions) { o.Gamma, o.Step, o.Patch = 0, 10, 4 })
	colour := smallColorModel(t, true)
	type job struct {
		m   *Model
		img image.Image
		bpp float64
	}
	var jobs []job
	jobs = append(jobs, job{grey, testimages.Texture(384, 256, 71), 1}, job{grey, testimages.Texture(37, 5, 72), 0.3},
		job{grey, testimages.Texture(37, 5, 72), 1.5}, job{grey, testimages.Texture(131, 67, 73), 0.3},
		job{colour, testimages.ColorTexture(97, 61, 74), 1}, job{colour, testimages.ColorTexture(160, 96, 75), 2})
	type result struct {
		file []byte
		step float64
	}
	run := func(j job) (result, error) {
		var b bytes.Buffer
		step, _, err := EncodeAtRate(&b, j.img, j.m, j.bpp, nil)
		return result{b.Bytes(), step}, err
	}
	want := make([]result, len(jobs))
	for i, j := range jobs {
		r, err := run(j)
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		want[i] = r
	}
	const workers = 3
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range len(jobs) {
				i := (k*(2*g+1) + g) % len(jobs) // each goroutine its own order
				got, err := run(jobs[i])
				if err == nil && (got.step != want[i].step || !bytes.Equal(got.file, want[i].file)) {
					err = fmt.Errorf("job %d (%v, %g bpp): step %v and %d bytes, alone %v and %d bytes (or other bytes)",
						i, jobs[i].img.Bounds().Size(), jobs[i].bpp, got.step, len(got.file), want[i].step, len(want[i].file))
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
}
