package codec

import (
	"bytes"
	"image"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestTrainOptionsZeroBins checks that options built field by field get
// the documented default resolution: a zero Bins failed with
// "resolution 0 bins must be between n² = 4 and 32768".
func TestTrainOptionsZeroBins(t *testing.T) {
	so := spca.DefaultOptions()
	so.Resolution = 1 << 10
	m, err := Train([]image.Image{testimages.Texture(64, 64, 1)}, &TrainOptions{Patch: 2, Samples: 1000, SPCA: so})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range m.Channels[0].Bins {
		total += b
	}
	if total != DefaultBins || m.Step != 0 {
		t.Errorf("zero Bins: resolution %d, step %g; want %d bins, the fixed-resolution mode", total, m.Step, DefaultBins)
	}
}

// TestConcurrentUse checks what the package documentation promises: one
// model, read from a file with its sections left for first use, encodes
// and decodes from several goroutines at once with the same bytes and
// pixels as one goroutine does. (Run with -race to check the locking.)
func TestConcurrentUse(t *testing.T) {
	train := []image.Image{testimages.Texture(128, 128, 1), testimages.Texture(128, 128, 2)}
	opt := PhotoTrainOptions()
	opt.Patch, opt.Samples, opt.SPCA.Resolution = 4, 2000, 1<<12
	trained, err := Train(train, &opt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := trained.Save(path); err != nil {
		t.Fatal(err)
	}
	img := testimages.Texture(96, 64, 3)
	var want bytes.Buffer
	if err := Encode(&want, img, trained, &Options{Step: 20}); err != nil {
		t.Fatal(err)
	}
	wantImg, err := Decode(bytes.NewReader(want.Bytes()), trained)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var got bytes.Buffer
			if err := Encode(&got, img, m, &Options{Step: 20}); err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("goroutine %d: %d bytes coded, %d by one goroutine, or other bytes", g, got.Len(), want.Len())
			}
			dec, err := Decode(&got, m)
			if err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(dec.(*image.Gray).Pix, wantImg.(*image.Gray).Pix) {
				t.Errorf("goroutine %d decoded other pixels", g)
			}
		})
	}
	wg.Wait()
}

// TestEvaluateModelRow checks that Evaluate's rows include the model
// itself whatever the gammas asked for: with options whose Gammas were
// nil (&EvalOptions{NoJPEG: true}) it gave no SPCA row at all, and with
// gammas that miss the model's own it measured the model and dropped
// its row (the command line added the model's gamma itself).
func TestEvaluateModelRow(t *testing.T) {
	so := spca.DefaultOptions()
	so.Resolution = 1 << 10
	m, err := Train([]image.Image{testimages.Texture(64, 64, 1)}, &TrainOptions{Patch: 2, Gamma: 0.5, Samples: 1000, SPCA: so})
	if err != nil {
		t.Fatal(err)
	}
	test := []image.Image{testimages.Texture(32, 32, 2)}
	for _, tc := range []struct {
		opt  *EvalOptions
		want []string
	}{
		{&EvalOptions{NoPCA: true, NoJPEG: true}, []string{"spca gamma 0", "spca gamma 1/3", "spca gamma 0.5 (model)", "spca gamma 1"}},
		{&EvalOptions{Gammas: []float64{1}, NoPCA: true, NoJPEG: true}, []string{"spca gamma 0.5 (model)", "spca gamma 1"}},
	} {
		res, err := Evaluate(m, test, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Method)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Gammas %v: rows %q, want %q", tc.opt.Gammas, got, tc.want)
		}
	}
}
