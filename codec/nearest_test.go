package codec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// The nearest assignment never moves a patch away from its response
// cell's reconstruction, ends where no cell one bin away is nearer, and
// moves enough patches to matter.
func TestNearestAssignment(t *testing.T) {
	m := trainedModel(t)
	c := m.Channels[0]
	_, test := images()
	k, book := c.Leading(), c.codebook()
	stride := make([]int, k)
	s := 1
	for j := k - 1; j >= 0; j-- {
		stride[j] = s
		s *= c.Bins[j]
	}
	cellOf := func(idx []int32, i, dims int) int {
		cell := 0
		for j := 0; j < k; j++ {
			cell += int(idx[i*dims+j]) * stride[j]
		}
		return cell
	}
	moved, total := 0, 0
	for _, img := range test {
		y, cells, _, _ := c.quantizePlane(patches.Luminance(img), m.Patch, true, false)
		n, dims := y.Dims()
		near := append([]int32(nil), cells...)
		if !c.moveToNearest(y, near) {
			t.Fatal("no codebook for the default model")
		}
		for i := 0; i < n; i++ {
			x := y.RawRowView(i)[:k]
			a, b := cellOf(cells, i, dims), cellOf(near, i, dims)
			da, db := dist2(book[a*k:a*k+k], x), dist2(book[b*k:b*k+k], x)
			if db > da {
				t.Fatalf("patch %d: the nearest cell is farther (%g) than the response cell (%g)", i, db, da)
			}
			if a != b {
				moved++
			}
			for j := 0; j < k; j++ {
				for _, d := range []int{-1, 1} {
					v := int(near[i*dims+j]) + d
					if v < 0 || v >= c.Bins[j] {
						continue
					}
					o := b + d*stride[j]
					if e := dist2(book[o*k:o*k+k], x); e < db {
						t.Fatalf("patch %d: the cell one bin away in dimension %d is nearer (%g < %g)", i, j+1, e, db)
					}
				}
			}
			for j := k; j < dims; j++ {
				if near[i*dims+j] != cells[i*dims+j] {
					t.Fatalf("patch %d: coefficient %d beyond SPCA changed", i, j+1)
				}
			}
		}
		total += n
	}
	frac := float64(moved) / float64(total)
	t.Logf("%d of %d patches (%.1f%%) have a nearer reconstruction than their response cell's", moved, total, 100*frac)
	if frac < 0.05 {
		t.Errorf("only %.2f%% of patches moved: the test no longer exercises the search", 100*frac)
	}
}

// Without a codebook (more than maxBook cells) in the fixed-resolution
// mode, the nearest assignment is the response cells'. (In the
// entropy-constrained mode the default refines the cells instead:
// TestRefineNearest.)
func TestNearestFallback(t *testing.T) {
	m := trainedModel(t)
	_, test := images()
	fine := gammaVariant(t, m.Gamma, 600)
	if fine.Channels[0].hasCodebook() {
		t.Fatalf("%v bins still have a codebook: choose more", fine.Channels[0].Bins)
	}
	for _, mm := range []*Model{fine} {
		var a, b bytes.Buffer
		if err := Encode(&a, test[0], mm, nil); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b, test[0], mm, &Options{Assign: AssignResponses}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("bins %v, step %v: the assignments code differently without a codebook", mm.Channels[0].Bins, mm.Step)
		}
	}
	if err := Encode(new(bytes.Buffer), test[0], m, &Options{Assign: 7}); err == nil || err.Error() != "codec: unknown Assignment(7)" {
		t.Errorf("unknown assignment: error %v", err)
	}
}

// descend4 makes the moves of descendK and ends in the same cell, from
// starts near and far from the patches' cells.
func TestDescend4(t *testing.T) {
	m := trainedModel(t)
	c := m.Channels[0]
	ns := c.nearestSearch()
	if ns == nil || ns.k != 4 {
		t.Fatal("the default model has no 4-dimensional codebook")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	train, err := c.TrainingSample()
	if err != nil {
		t.Fatal(err)
	}
	n, _ := train.Dims()
	a, b := make([]int, 4), make([]int, 4)
	moved := 0
	for trial := 0; trial < 20000; trial++ {
		x := train.RawRowView(rng.IntN(n))[:4]
		for j := range a {
			a[j] = rng.IntN(ns.bins[j])
			b[j] = a[j]
		}
		ma, mb := ns.descend4(x, a), ns.descendK(x, b)
		if ma != mb || !slices.Equal(a, b) {
			t.Fatalf("patch %v: descend4 ends in %v after %d moves, descendK in %v after %d", x, a, ma, b, mb)
		}
		if ma > 0 {
			moved++
		}
	}
	if moved < 1000 {
		t.Fatalf("only %d of 20000 descents moved", moved)
	}
}

// TestQuantizeEveryIndex checks that quantizeSamples's paths (exact,
// fast, nearest) write every index of the patches: it takes its index
// buffer from a pool uncleared, so a buffer full of garbage must give the
// indices a zeroed one gives.
func TestQuantizeEveryIndex(t *testing.T) {
	_, test := images()
	defer ReleaseBuffers()
	// The default 2×2 model (all its dimensions leading, a codebook) and a
	// 3×3 step model's luma (rest dimensions after the leading ones).
	type plane struct {
		m *Model
		p patches.Plane
	}
	var planes []plane
	for _, img := range test[:2] {
		planes = append(planes, plane{trainedModel(t), patches.Luminance(img)})
	}
	planes = append(planes, plane{smallColorModel(t, true), patches.Luminance(testimages.ColorTexture(64, 48, 9))})
	for _, mode := range []struct{ exact, nearest bool }{{true, false}, {false, false}, {false, true}} {
		for _, pl := range planes {
			m, p := pl.m, pl.p
			c := m.Channels[0]
			ReleaseBuffers()
			_, want, _, _ := c.quantizePlane(p, m.Patch, mode.exact, mode.nearest)
			want = slices.Clone(want)
			ReleaseBuffers()
			garbage := make([]int32, len(want))
			for i := range garbage {
				garbage[i] = int32(-1 - i%1000)
			}
			planeBuffers.Put(&planeBuffer{idx: garbage})
			_, got, _, _ := c.quantizePlane(p, m.Patch, mode.exact, mode.nearest)
			if &got[0] != &garbage[0] {
				t.Fatal("quantizePlane did not take the pooled index buffer")
			}
			if i := slices.IndexFunc(got, func(v int32) bool { return v < 0 }); i >= 0 || !slices.Equal(got, want) {
				t.Fatalf("exact %v, nearest %v: indices from a buffer of garbage differ from a zeroed one's (first negative at %d)", mode.exact, mode.nearest, i)
			}
		}
	}
}
