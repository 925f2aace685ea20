package codec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPatchKernel checks decodeAdaptive's patches through patchDual
// against its loop of runDual calls, and encodeAdaptive's through
// patchEncDual against its calls of valueDual, runEncDual and bit
// (patchKernel off), on counted streams of tracked 8×8 and 4×4 models:
// the same bytes, the same indices, the same edge predictor sums, cells
// and ends, on streams of calm and busy patches with residuals of every
// size (Exp-Golomb ones, the ends of the bins) and counts beyond the
// unary part (8×8); and on damaged streams (cut, bits flipped, random)
// the same error, or the same indices where both decode.
func TestPatchKernel(t *testing.T) {
	if !patchKernel {
		t.Skip("no patch kernel on this architecture")
	}
	for _, mi := range []int{0, 1} {
		testPatchKernel(t, reuseTestModels(t)[mi], uint64(mi))
	}
}

func testPatchKernel(t *testing.T, model *Model, seed uint64) {
	c := rereadModel(t, model).Channels[0]
	dims, k := c.Dims(), c.Leading()
	if !c.edgePredictable() || k == 0 {
		t.Fatalf("a %d-dimension test model without an edge predictor", dims)
	}
	rng := rand.New(rand.NewPCG(24, 44+seed))
	indices := func(blocks int, off float64) []int32 {
		idx := make([]int32, blocks*dims)
		for i := range idx {
			j := i % dims
			v := c.Centre[j]
			if rng.Float64() < off*float64(dims-j)/float64(dims) {
				switch r := rng.IntN(20); {
				case r < 14:
					v += 1 + rng.IntN(3)
				case r < 17:
					v -= 1 + rng.IntN(20) // some beyond arMaxUnary
				case r < 19:
					v = rng.IntN(c.Bins[j])
				default:
					v = []int{0, c.Bins[j] - 1}[rng.IntN(2)]
				}
			}
			idx[i] = int32(min(max(v, 0), c.Bins[j]-1))
		}
		return idx
	}
	decode := func(kernel bool, data []byte, blocks, cols int) ([]int32, *edgePredictor, error) {
		defer func(old bool) { patchKernel = old }(patchKernel)
		patchKernel = kernel
		p := c.newEdgePredictor(blocks, cols)
		p.trackCells(c, blocks)
		got := make([]int32, blocks*dims)
		err := decodeAdaptive(data, got, dims, cols, c.Centre, c.Bins, k, true, true, p)
		return got, p, err
	}
	encode := func(kernel bool, idx []int32, blocks, cols int) []byte {
		defer func(old bool) { patchKernel = old }(patchKernel)
		patchKernel = kernel
		return encodeAdaptive(nil, idx, dims, cols, c.Centre, k, true, true, c.newEdgePredictor(blocks, cols), nil)
	}
	const cols = 17
	escapes, damaged, longCounts := 0, 0, 0
	for trial := range 40 {
		off := []float64{0.02, 0.2, 0.6, 1}[trial%4]
		blocks := cols * (3 + rng.IntN(12))
		idx := indices(blocks, off)
		for i, q := range idx {
			if j := i % dims; j > 0 && abs(int(q)-c.Centre[j]) > arMaxUnary {
				escapes++
			}
		}
		stream := encode(true, idx, blocks, cols)
		if !bytes.Equal(stream, encode(false, idx, blocks, cols)) {
			t.Fatalf("%d dimensions, trial %d: the kernel codes other bytes", dims, trial)
		}
		for i := range blocks {
			n := 0
			for j := restFrom(k); j < dims; j++ {
				if int(idx[i*dims+j]) != c.Centre[j] {
					n++
				}
			}
			if n > arMaxUnary {
				longCounts++
			}
		}
		data, _, err := parseAdaptive(stream)
		if err != nil {
			t.Fatal(err)
		}
		got, p, err := decode(true, data, blocks, cols)
		want, q, errGo := decode(false, data, blocks, cols)
		if err != nil || errGo != nil || !slices.Equal(got, idx) || !slices.Equal(want, idx) {
			t.Fatalf("trial %d: kernel %v, Go %v, or the indices decode differently", trial, err, errGo)
		}
		if !slices.Equal(p.right, q.right) || !slices.Equal(p.low, q.low) || !slices.Equal(p.mean, q.mean) ||
			!slices.Equal(p.ref, q.ref) || !slices.Equal(p.ends, q.ends) || !slices.Equal(p.rows, q.rows) {
			t.Fatalf("trial %d: the edge predictors differ", trial)
		}
		for _, bad := range [][]byte{data[:len(data)/2], flipBits(rng, data), randomBytes(rng, len(data))} {
			got, _, err := decode(true, bad, blocks, cols)
			want, _, errGo := decode(false, bad, blocks, cols)
			if (err == nil) != (errGo == nil) || err != nil && err.Error() != errGo.Error() {
				t.Fatalf("trial %d: damaged stream: kernel %v, Go %v", trial, err, errGo)
			}
			if err != nil {
				damaged++
			} else if !slices.Equal(got, want) {
				t.Fatalf("trial %d: a damaged stream decodes differently", trial)
			}
		}
	}
	if escapes == 0 || damaged == 0 || dims > restFrom(k)+arMaxUnary && longCounts == 0 {
		t.Fatalf("%d dimensions: %d Exp-Golomb residuals, %d counts, %d damaged streams refused: the test covers too little", dims, escapes, longCounts, damaged)
	}
	t.Logf("%d dimensions: %d Exp-Golomb residuals, %d counts beyond the unary part, %d damaged streams refused alike", dims, escapes, longCounts, damaged)
}

// flipBits returns data with a few bits flipped.
func flipBits(rng *rand.Rand, data []byte) []byte {
	out := slices.Clone(data)
	for range 1 + rng.IntN(4) {
		if len(out) > 0 {
			out[rng.IntN(len(out))] ^= 1 << rng.IntN(8)
		}
	}
	return out
}

// patchDualGo is patchDual in Go, decision by decision through d.bit
// (a decoder without the kernel), for TestPatchDual: the same statuses,
// writes and counts, in the same order.
func patchDualGo(d *rangeDecoder, m *arModel, devL, devU, dev, none []uint8, row, centre, bins, listed []int32, flag, count []arProb, p *patchRun) int {
	dims := m.dims
	j := p.j
	act := func(j int, a, b []uint8) int { return int(arDevClasses[(a[j]+b[j])&31]) }
	// nonzero decodes the sign and magnitude at j and records them; it
	// returns a status, or -1 to go on.
	nonzero := func(j, a int) int {
		neg := d.bit(&dims[j].sign[min(a, 2)])
		k := 0
		for k < arMaxUnary && d.bit(&dims[j].mag[min(a/2, 2)][k]) == 1 {
			k++
		}
		if k == arMaxUnary {
			p.neg, p.j = neg, j
			return 1
		}
		v := k + 1
		dev[j] = uint8(min(v, arDevMax))
		if neg == 1 {
			v = -v
		}
		q := centre[j] + int32(v)
		row[j] = q
		if uint32(q) >= uint32(bins[j]) {
			p.j = j
			return 2
		}
		if j >= p.lead {
			listed[p.nl] = int32(j)
			p.nl++
		}
		return -1
	}
	if j < p.end && j == 0 {
		a := act(0, dev, none)
		if d.bit(&dims[0].zero[a][0]) == 1 {
			if st := nonzero(0, a); st >= 0 {
				return st
			}
		}
		j++
	}
	for {
		for j < p.end {
			busy := arBusyCounts[min(p.cnt, 31)+p.boff]
			a := act(j, devL, devU)
			if d.bit(&dims[j].zero[a][busy]) == 0 {
				j++
				continue
			}
			if st := nonzero(j, a); st >= 0 {
				return st
			}
			j++
			p.cnt += p.step
			if p.cnt == 0 {
				break
			}
		}
		if p.pending == 0 {
			p.j = j
			return 0
		}
		p.pending = 0
		if d.bit(&flag[arBusyCounts[min(p.cnt, 31)+p.boff]]) == 0 {
			p.j = j
			return 0
		}
		p.rest = 1
		c := 0
		for c < arMaxUnary && d.bit(&count[c]) == 1 {
			c++
		}
		p.j = j
		if c == arMaxUnary {
			return 3
		}
		p.cnt, p.counted = c+1, c+1
		if c+1 > p.dims-j {
			return 4
		}
		p.end, p.step, p.boff = p.dims, -1, 32
	}
}

// TestPatchDual checks patchDual against patchDualGo on random streams
// (and zeros past their end) with probabilities anywhere in [1, 4095],
// many near the ends, patches of 1-64 dimensions with random bins,
// centres, neighbours' distances, rest-flag dimension and lead: the same
// statuses, indices, distances, lists, counts, coder states and
// probabilities after every call, through every status (Exp-Golomb
// residuals and counts, indices out of range, counts too large).
func TestPatchDual(t *testing.T) {
	if !patchKernel {
		t.Skip("no patch kernel on this architecture")
	}
	rng := rand.New(rand.NewPCG(24, 45))
	var statuses [5]int
	for trial := range 400 {
		dims := 1 + rng.IntN(64)
		data := randomBytes(rng, rng.IntN(400))
		if trial%3 == 0 {
			clear(data[len(data)/2:])
		}
		a := randomProbs(rng, newARModel(dims), trial%2 == 0)
		for c := range a.flag {
			for b := range a.flag[c] {
				a.flag[c][b] = arProb{uint16(1 + rng.IntN(4095)), uint16(1 + rng.IntN(4095))}
			}
		}
		for c := range a.count {
			for u := range a.count[c] {
				pa := uint16(1 + rng.IntN(4095))
				if rng.IntN(2) == 0 {
					pa = uint16(1 + rng.IntN(30)) // long counts
				}
				a.count[c][u] = arProb{pa, pa}
			}
		}
		b := &arModel{dims: slices.Clone(a.dims), flag: a.flag, count: a.count, countExp: a.countExp}
		da, db := newRangeDecoder(data, true), newRangeDecoder(data, true)
		db.kernel = false
		for call := 0; da.pos < len(data)+64 && call < 500; call++ {
			devL, devU, dev, none := make([]uint8, dims), make([]uint8, dims), make([]uint8, dims), make([]uint8, dims)
			bins, centre := make([]int32, dims), make([]int32, dims)
			for j := range dims {
				devL[j], devU[j], dev[j] = uint8(rng.IntN(16)), uint8(rng.IntN(16)), uint8(rng.IntN(16))
				bins[j] = int32(1 + rng.IntN([]int{3, 30, 1000}[rng.IntN(3)]))
				centre[j] = int32(rng.IntN(int(bins[j])))
			}
			from := 1 + rng.IntN(dims)
			pa := patchRun{end: from, step: 1, lead: rng.IntN(dims + 1), dims: dims, cnt: rng.IntN(3)}
			if patchDecVector && trial%4 < 2 {
				pa.vec = 1 // patchDual's prologue (patchDualGo ignores vec)
			}
			if rng.IntN(4) != 0 {
				pa.j, pa.cnt = 0, 0
			} else {
				pa.j = rng.IntN(from)
			}
			if from < dims {
				pa.pending = 1
			}
			fc, cc := rng.IntN(contexts), rng.IntN(arActivity)
			pb := pa
			rowA, rowB := slices.Clone(centre), slices.Clone(centre)
			devA, devB := slices.Clone(dev), slices.Clone(dev)
			listA, listB := make([]int32, dims), make([]int32, dims)
			pa.row, pa.centre, pa.bins, pa.dev, pa.none, pa.listed = &rowA[0], &centre[0], &bins[0], &devA[0], &none[0], &listA[0]
			pa.flag, pa.count = &a.flag[fc][0], &a.count[cc][0]
			sa := patchDual(da, &a.dims[0], &devL[0], &devU[0], &pa)
			sb := patchDualGo(db, b, devL, devU, devB, none, rowB, centre, bins, listB, b.flag[fc][:], b.count[cc][:], &pb)
			pa.row, pa.centre, pa.bins, pa.dev, pa.none, pa.listed, pa.flag, pa.count = nil, nil, nil, nil, nil, nil, nil, nil
			statuses[sb]++
			if sa != sb || pa != pb || !slices.Equal(rowA, rowB) || !slices.Equal(devA, devB) || !slices.Equal(listA, listB) {
				t.Fatalf("trial %d, call %d (%d dimensions, flag at %d): kernel %d %+v, Go %d %+v", trial, call, dims, from, sa, pa, sb, pb)
			}
			if da.rng != db.rng || da.code != db.code || da.pos != db.pos {
				t.Fatalf("trial %d, call %d: kernel's state %#x %#x %d, Go's %#x %#x %d", trial, call, da.rng, da.code, da.pos, db.rng, db.code, db.pos)
			}
			if !slices.Equal(a.dims, b.dims) || a.flag != b.flag || a.count != b.count {
				t.Fatalf("trial %d, call %d: the probabilities differ", trial, call)
			}
		}
	}
	for st, n := range statuses {
		if n == 0 {
			t.Fatalf("status %d never came (%v): the test covers too little", st, statuses)
		}
	}
	t.Logf("statuses 0-4: %v", statuses)
}

// TestPatchEnd4 checks patchEnd4, without branches on the data, against
// patchEnd on random 4×4 rows: leading indices at or off their centre,
// lists of dimensions from 4 on (empty ones too), and a stale entry in
// the list's array past n.
func TestPatchEnd4(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 47))
	centre := []int{7, 3, 0, 12, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}
	for range 20000 {
		row := make([]int32, 16)
		for j := range row {
			row[j] = int32(centre[j])
			if rng.IntN(2) == 0 {
				row[j] += int32(1 + rng.IntN(3))
			}
		}
		listed := make([]int32, 16)
		n := 0
		for j := 4; j < 16; j++ {
			if int(row[j]) != centre[j] {
				listed[n] = int32(j)
				n++
			}
		}
		listed[n%16] = int32(rng.IntN(16)) // stale
		if got, want := patchEnd4(row, centre, listed, n), patchEnd(row, centre, listed[:n], 4); got != want {
			t.Fatalf("row %v, listed %v: patchEnd4 %d, patchEnd %d", row, listed[:n], got, want)
		}
	}
}
