package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/patches"
)

// TestAdaptiveRoundTrip codes indices of every kind (centres, small and
// large residuals, the ends of the bins, patches whose rest is all at
// the centre) with the arithmetic coder of versions 5 and 7 (counted) and decodes them back
// exactly; truncated and random streams decode to an error or to indices
// within the bins, never a panic.
func TestAdaptiveRoundTrip(t *testing.T) {
	const dims, cols, rows = 9, 13, 7
	n := cols * rows
	bins := []int{600, 40, 40, 30, 65535, 20, 20, 9, 3}
	centre := []int{300, 20, 20, 15, 30000, 10, 10, 4, 1}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]int32, n*dims)
	for i := 0; i < n; i++ {
		quiet := rng.IntN(3) == 0
		for j := 0; j < dims; j++ {
			q := centre[j]
			switch r := rng.IntN(10); {
			case j >= 2 && quiet:
			case r < 5:
			case r < 8:
				q += rng.IntN(5) - 2
			case r < 9:
				q = rng.IntN(bins[j])
			default:
				q = []int{0, bins[j] - 1}[rng.IntN(2)]
			}
			idx[i*dims+j] = int32(min(max(q, 0), bins[j]-1))
		}
	}
	for _, v := range []struct {
		leading int
		counted bool
	}{{0, false}, {2, false}, {0, true}, {2, true}} {
		leading := v.leading
		stream := encodeAdaptive(nil, idx, dims, cols, centre, leading, true, v.counted, nil, nil)
		data, rest, err := parseAdaptive(stream)
		if err != nil || len(rest) != 0 {
			t.Fatalf("parse: %v, %d bytes left", err, len(rest))
		}
		got := make([]int32, len(idx))
		if err := decodeAdaptive(data, got, dims, cols, centre, bins, leading, true, v.counted, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, idx) {
			t.Fatalf("leading %d, counted %v: the indices decode differently", leading, v.counted)
		}
		t.Logf("leading %d, counted %v: %d indices in %d bytes", leading, v.counted, len(idx), len(data))
		for _, bad := range [][]byte{data[:len(data)/2], nil, randomBytes(rng, len(data))} {
			err := decodeAdaptive(bad, got, dims, cols, centre, bins, leading, true, v.counted, nil)
			if err != nil {
				continue
			}
			for k, q := range got {
				if q < 0 || int(q) >= bins[k%dims] {
					t.Fatalf("index %d of dimension %d accepted", q, k%dims)
				}
			}
		}
	}
	if _, _, err := parseAdaptive([]byte{9, 0, 0, 0, 1}); err == nil {
		t.Error("a stream longer than the file parsed")
	}
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestDeblockHeader checks the deblocking strength a version-5 file
// records: the default, none, one given, and a hostile one refused; the
// filter changes the decoded pixels deterministically and leaves the
// rest of the file as it was.
func TestDeblockHeader(t *testing.T) {
	m := smallStepModel(t)
	_, test := images()
	img := test[0]
	files := map[int][]byte{}
	for _, k := range []int{0, -1, 2} {
		var b bytes.Buffer
		if err := Encode(&b, img, m, &Options{Deblock: k, Step: 2 * m.Step}); err != nil {
			t.Fatal(err)
		}
		h, err := DecodeHeader(bytes.NewReader(b.Bytes()))
		want := map[int]int{-1: 0, 2: 2}[k]
		if err != nil || h.Version != adaptiveVersion(m) || (k != 0 && h.Deblock != want) {
			t.Fatalf("Deblock %d: header %+v, %v; want strength %d", k, h, err, want)
		}
		files[k] = b.Bytes()
	}
	a, err := Decode(bytes.NewReader(files[2]), m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(bytes.NewReader(files[2]), m)
	if err != nil {
		t.Fatal(err)
	}
	off, err := Decode(bytes.NewReader(files[-1]), m)
	if err != nil {
		t.Fatal(err)
	}
	if !imagesEqual(a, b) || imagesEqual(a, off) {
		t.Error("deblocking: decodings differ, or the filter changed nothing")
	}
	def, err := Decode(bytes.NewReader(files[0]), m)
	if err != nil {
		t.Fatal(err)
	}
	orig := patches.Luminance(img)
	e0, e2, e4 := patches.RMSE(orig, patches.Luminance(off)), patches.RMSE(orig, patches.Luminance(a)), patches.RMSE(orig, patches.Luminance(def))
	hd, _, _ := parseHeader(files[0])
	t.Logf("RMSE at twice the model's step: no filter %.3f, strength 2 %.3f, chosen (%d) %.3f", e0, e2, hd.Deblock, e4)
	// The encoder chooses the strength with the smallest error among
	// 0..maxDeblock, no filter and 2 included.
	if e4 > e0+1e-9 || e4 > e2+1e-9 {
		t.Errorf("the chosen deblocking (%d) gives RMSE %.3f, more than none (%.3f) or strength 2 (%.3f)", hd.Deblock, e4, e0, e2)
	}
	if err := Encode(&bytes.Buffer{}, img, m, &Options{Deblock: maxDeblock + 1}); err == nil {
		t.Error("a strength beyond the maximum encoded")
	}
	// The strength is the header's last byte, before the streams.
	h, _, _ := parseHeader(files[2])
	bad := h.appendTo(nil)
	bad[len(bad)-1] = maxDeblock + 1
	bad = checksum.Append(append(bad, files[2][len(bad):len(files[2])-4]...))
	var fe *FormatError
	if _, err := Decode(bytes.NewReader(bad), m); !errors.As(err, &fe) {
		t.Errorf("strength %d: %v, want a *FormatError", maxDeblock+1, err)
	}
}

// TestActivityClass checks the table of arActivityClass against the
// classes it stands for: 0, 1, 2, 3-4, 5-8, beyond.
func TestActivityClass(t *testing.T) {
	for a := 0; a < 1000; a++ {
		want := 5
		switch {
		case a <= 2:
			want = a
		case a <= 4:
			want = 3
		case a <= 8:
			want = 4
		}
		if got := arActivityClass(a); got != want {
			t.Fatalf("distance %d: class %d, want %d", a, got, want)
		}
	}
}

// TestEncoderValue checks that rangeEncoder.value, the coder's state in
// locals, writes the same bytes and leaves the same probabilities as the
// zero flag by bit then encodeNonzero, over residuals of every size
// (zero, unary, Exp-Golomb, both signs) in both adaptations and every
// neighbour context.
func TestEncoderValue(t *testing.T) {
	for _, dual := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		a, b := newARModel(2), newARModel(2)
		ea, eb := newRangeEncoder(dual), newRangeEncoder(dual)
		for range 20000 {
			j, act, busy := rng.IntN(2), rng.IntN(arActivity), rng.IntN(arBusy)
			v := randomResidual(rng, 4)
			if v == 0 {
				ea.bit(&a.dims[j].zero[act][busy], 0)
			} else {
				ea.bit(&a.dims[j].zero[act][busy], 1)
				a.encodeNonzero(ea, j, act, v)
			}
			eb.value(&b.dims[j].zero[act][busy], &b.dims[j], act, v)
		}
		if !slices.Equal(a.dims, b.dims) {
			t.Errorf("dual %v: the probabilities differ", dual)
		}
		if !bytes.Equal(ea.finish(), eb.finish()) {
			t.Errorf("dual %v: the streams differ", dual)
		}
	}
}

// TestDecoderRun checks rangeDecoder.run against the bit by bit coder:
// residuals coded by bit and encodeNonzero, mostly runs of zeros ending
// in values of every size (unary, Exp-Golomb, both signs), in contexts
// from neighbour distances up to 20 (capped to arDevMax as arDevs keeps
// them) and every busy class, decode to the same values, dimension by
// dimension, and leave the same probabilities, in both adaptations.
func TestDecoderRun(t *testing.T) {
	const dims = 12
	for _, dual := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(5, 6))
		a, b := newARModel(dims), newARModel(dims)
		e := newRangeEncoder(dual)
		type patch struct {
			j, end, busy int
			devL, devU   []uint8
			v            []int
		}
		var ps []patch
		for range 5000 {
			p := patch{j: rng.IntN(dims), busy: rng.IntN(arBusy), devL: make([]uint8, dims), devU: make([]uint8, dims), v: make([]int, dims)}
			p.end = p.j + 1 + rng.IntN(dims-p.j)
			for k := range dims {
				l, u := rng.IntN(21), rng.IntN(21)
				p.devL[k], p.devU[k] = uint8(min(l, arDevMax)), uint8(min(u, arDevMax))
				act := arActivityClass(l + u)
				if k < p.j || k >= p.end {
					continue
				}
				switch r := rng.IntN(20); {
				case r < 16:
				case r < 19:
					p.v[k] = rng.IntN(2*arMaxUnary+5) - arMaxUnary - 2
				default:
					p.v[k] = rng.IntN(1<<20) - 1<<19
				}
				if p.v[k] == 0 {
					e.bit(&a.dims[k].zero[act][p.busy], 0)
					continue
				}
				e.bit(&a.dims[k].zero[act][p.busy], 1)
				a.encodeNonzero(e, k, act, p.v[k])
			}
			ps = append(ps, p)
		}
		d := newRangeDecoder(e.finish(), dual)
		for pi, p := range ps {
			for j := p.j; j < p.end; j++ {
				next, v, err := d.run(b, j, p.end, p.devL, p.devU, p.busy)
				if err != nil {
					t.Fatalf("dual %v, patch %d: %v", dual, pi, err)
				}
				want := j
				for want < p.end && p.v[want] == 0 {
					want++
				}
				if next != want || (want < p.end && v != p.v[want]) || (want == p.end && v != 0) {
					t.Fatalf("dual %v, patch %d from %d: dimension %d value %d, want %d and %d", dual, pi, j, next, v, want, p.v[min(want, dims-1)])
				}
				j = next
			}
		}
		if !slices.Equal(a.dims, b.dims) {
			t.Errorf("dual %v: the probabilities differ", dual)
		}
	}
}

// TestClassDevs checks that the distance arClassDevs gives each class is
// of that class, as run reads it.
func TestClassDevs(t *testing.T) {
	for c, dv := range arClassDevs {
		if got := int(arDevClasses[dv]); got != c || arActivityClass(int(dv)) != c {
			t.Errorf("class %d: distance %d has class %d", c, dv, got)
		}
	}
}

// TestAdaptTarget checks arProb.adapt's single formula, a − (a−t)>>s,
// against the two it stands for, a + (4096−a)>>s after a 0 and a − a>>s
// after a 1, for every estimate from 0 to 4096 and every shift below 16.
func TestAdaptTarget(t *testing.T) {
	for s := uint8(0); s < 16; s++ {
		for a := uint16(0); a <= 1<<arProbBits; a++ {
			for _, mask := range []uint16{0, 0xffff} {
				p := arProb{a, a}
				p.adapt(mask, s, s)
				want := a + (1<<arProbBits-a)>>s
				if mask != 0 {
					want = a - a>>s
				}
				if p.a != want || p.b != want {
					t.Fatalf("shift %d, estimate %d, bit %d: %d and %d, want %d", s, a, mask&1, p.a, p.b, want)
				}
			}
		}
	}
}

// TestRunDual checks run's kernel (runDual, where there is one) against
// its Go loop on what a hostile file gives them: random bytes, streams
// short enough to be read far past their end, probabilities anywhere in
// [1, 4095] (mostly near the ends, so that magnitudes reach the
// Exp-Golomb code), neighbour distances up to 15, every busy class and
// every span of dimensions. Each call must return the same dimension,
// residual and error and leave the same coder state and probabilities.
func TestRunDual(t *testing.T) {
	if !hasRunKernel {
		t.Skip("no run kernel on this architecture")
	}
	rng := rand.New(rand.NewPCG(24, 4))
	calls := 0
	for trial := range 300 {
		dims := 1 + rng.IntN(64)
		data := make([]byte, rng.IntN(300))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if trial%3 == 0 {
			clear(data[len(data)/2:]) // long runs of zero flags
		}
		a := randomProbs(rng, newARModel(dims), false)
		b := &arModel{dims: slices.Clone(a.dims)}
		da, db := newRangeDecoder(data, true), newRangeDecoder(data, true)
		if !da.kernel {
			t.Fatal("a dual decoder without the kernel")
		}
		db.kernel = false
		devL, devU := make([]uint8, dims), make([]uint8, dims)
		for da.pos < len(data)+64 && calls < 200000 {
			for k := range dims {
				devL[k], devU[k] = uint8(rng.IntN(16)), uint8(rng.IntN(16))
			}
			j := rng.IntN(dims)
			end, busy := j+1+rng.IntN(dims-j), rng.IntN(arBusy)
			ja, va, ea := da.run(a, j, end, devL, devU, busy)
			jb, vb, eb := db.run(b, j, end, devL, devU, busy)
			calls++
			if ja != jb || va != vb || (ea == nil) != (eb == nil) {
				t.Fatalf("trial %d, call %d (dimensions %d to %d, busy %d): kernel %d %d %v, Go %d %d %v", trial, calls, j, end, busy, ja, va, ea, jb, vb, eb)
			}
			if da.rng != db.rng || da.code != db.code || da.pos != db.pos {
				t.Fatalf("trial %d, call %d: kernel's state %#x %#x %d, Go's %#x %#x %d", trial, calls, da.rng, da.code, da.pos, db.rng, db.code, db.pos)
			}
			if !slices.Equal(a.dims, b.dims) {
				t.Fatalf("trial %d, call %d: the probabilities differ", trial, calls)
			}
			if ea != nil {
				break
			}
		}
	}
	t.Logf("%d calls", calls)
}

// TestUnaryDual checks the decoder's unary kernel (unaryDual, through
// unaryExpGolomb, where there is one) against the Go loop of bit: the
// same values, coder states and probabilities after every call, on
// random streams (and zeros past their end) with probabilities anywhere
// in [1, 4095] and mostly near the ends, so that codes of every length
// up to arMaxUnary and beyond (Exp-Golomb) and every normalisation come.
func TestUnaryDual(t *testing.T) {
	if !hasRunKernel {
		t.Skip("no coder kernel on this architecture")
	}
	rng := rand.New(rand.NewPCG(24, 8))
	calls, long := 0, 0
	for trial := range 300 {
		data := make([]byte, rng.IntN(300))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if trial%3 == 0 {
			for i := range data[len(data)/2:] {
				data[len(data)/2+i] = 0xFF // long codes
			}
		}
		a := randomProbs(rng, newARModel(1), trial%2 == 0)
		a.count[0] = a.dims[0].mag[0]
		a.countExp = a.dims[0].exp
		b := &arModel{count: a.count, countExp: a.countExp}
		da, db := newRangeDecoder(data, true), newRangeDecoder(data, true)
		db.kernel = false
		for n := 0; da.pos < len(data)+64 && n < 2000; n++ {
			va, oka := da.unaryExpGolomb(&a.count[0], &a.countExp)
			vb, okb := db.unaryExpGolomb(&b.count[0], &b.countExp)
			calls++
			if va >= arMaxUnary {
				long++
			}
			if va != vb || oka != okb {
				t.Fatalf("trial %d, call %d: kernel %d %v, Go %d %v", trial, calls, va, oka, vb, okb)
			}
			if da.rng != db.rng || da.code != db.code || da.pos != db.pos {
				t.Fatalf("trial %d, call %d: kernel's state %#x %#x %d, Go's %#x %#x %d", trial, calls, da.rng, da.code, da.pos, db.rng, db.code, db.pos)
			}
			if a.count != b.count || a.countExp != b.countExp {
				t.Fatalf("trial %d, call %d: the probabilities differ", trial, calls)
			}
			if !oka {
				break
			}
		}
	}
	if long == 0 {
		t.Fatal("no code reached the Exp-Golomb part")
	}
	t.Logf("%d calls, %d beyond the unary part", calls, long)
}

// TestValueDual checks the encoder's kernel (valueDual, where there is
// one) against value's Go code: values of every size, probabilities
// anywhere in [1, 4095] and mostly near the ends (two bytes out per
// decision, long runs of 0xFF bytes pending, carries), into outputs of
// every spare capacity. The streams, the coder's state and the
// probabilities must be the same after every value; a probability of 0
// must panic as zeroRange does, not loop writing bytes.
func TestValueDual(t *testing.T) {
	if !hasRunKernel {
		t.Skip("no coder kernel on this architecture")
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for trial := range 200 {
		a, b, ea, eb := kernelAndGoCoders(t, rng, 3)
		for i := range 500 {
			j, act, busy := rng.IntN(3), rng.IntN(arActivity), rng.IntN(arBusy)
			v := randomResidual(rng, 3)
			ea.value(&a.dims[j].zero[act][busy], &a.dims[j], act, v)
			eb.value(&b.dims[j].zero[act][busy], &b.dims[j], act, v)
			if d := coderStateDiff(ea, eb); d != "" {
				t.Fatalf("trial %d, value %d (%d): %s", trial, i, v, d)
			}
			if !slices.Equal(a.dims, b.dims) {
				t.Fatalf("trial %d, value %d: the probabilities differ", trial, i)
			}
		}
	}
	e, m := newRangeEncoder(true), newARModel(1)
	m.dims[0].zero[0][0] = arProb{}
	defer func() {
		if recover() == nil {
			t.Error("a probability of 0 did not panic")
		}
	}()
	e.value(&m.dims[0].zero[0][0], &m.dims[0], 0, 0)
}

// TestRunEncDual checks the encoder's run kernel (runEncDual, where there
// is one) against run's Go loop, which codes each dimension with value's
// Go code: rows of indices around random centres (mostly at them, so
// that runs are long; magnitudes up to the Exp-Golomb code), neighbour
// rows near and far from the centres (distances past arDevMax),
// probabilities anywhere in [1, 4095] and mostly near the ends (two bytes
// out per decision, long runs of 0xFF bytes pending, carries), every busy
// class and span of dimensions, into outputs of every spare capacity.
// Each call must return the same dimension and leave the same stream,
// coder state and probabilities.
func TestRunEncDual(t *testing.T) {
	if !hasRunKernel {
		t.Skip("no coder kernel on this architecture")
	}
	rng := rand.New(rand.NewPCG(24, 6))
	calls, nonzero := 0, 0
	for trial := range 200 {
		dims := 1 + rng.IntN(64)
		a, b, ea, eb := kernelAndGoCoders(t, rng, dims)
		centre, row, left, up := make([]int32, dims), make([]int32, dims), make([]int32, dims), make([]int32, dims)
		for i := range 300 {
			zeros := rng.IntN(10)
			for k := range dims {
				centre[k] = int32(rng.IntN(1 << 20))
				row[k] = centre[k] + int32(randomResidual(rng, zeros))
				left[k] = centre[k] + int32(rng.IntN(25)-12)
				up[k] = centre[k] + int32(rng.IntN(25)-12)
			}
			j := rng.IntN(dims)
			end, busy := j+1+rng.IntN(dims-j), rng.IntN(arBusy)
			ja := ea.run(a, row, left, up, centre, j, end, busy)
			jb := eb.run(b, row, left, up, centre, j, end, busy)
			calls++
			if ja < end {
				nonzero++
			}
			if ja != jb {
				t.Fatalf("trial %d, run %d (dimensions %d to %d, busy %d): kernel %d, Go %d", trial, i, j, end, busy, ja, jb)
			}
			if d := coderStateDiff(ea, eb); d != "" {
				t.Fatalf("trial %d, run %d: %s", trial, i, d)
			}
			if !slices.Equal(a.dims, b.dims) {
				t.Fatalf("trial %d, run %d: the probabilities differ", trial, i)
			}
		}
		if !bytes.Equal(ea.finish(), eb.finish()) {
			t.Fatalf("trial %d: the finished streams differ", trial)
		}
	}
	t.Logf("%d runs, %d ending off the centre", calls, nonzero)
	e, m := newRangeEncoder(true), newARModel(2)
	m.dims[1].zero[0][0] = arProb{}
	defer func() {
		if recover() == nil {
			t.Error("a probability of 0 did not panic")
		}
	}()
	z := []int32{0, 0}
	e.run(m, z, z, z, z, 0, 2, 0)
}

// kernelAndGoCoders returns a model of dims dimensions with random
// probabilities and a copy of it, an encoder that uses the coder kernel
// and one that runs the Go code, the first with a random spare capacity
// of output (0 to 7 bytes) so that the kernel grows it at every offset.
func kernelAndGoCoders(t *testing.T, rng *rand.Rand, dims int) (a, b *arModel, ea, eb *rangeEncoder) {
	t.Helper()
	a = randomProbs(rng, newARModel(dims), true)
	b = &arModel{dims: slices.Clone(a.dims)}
	ea, eb = newRangeEncoder(true), newRangeEncoder(true)
	if !ea.kernel {
		t.Fatal("a dual encoder without the kernel")
	}
	eb.kernel = false
	ea.out = make([]byte, 0, rng.IntN(8))
	return a, b, ea, eb
}

// coderStateDiff describes how the kernel's encoder ea and the Go one eb
// differ in state or output, "" if they do not.
func coderStateDiff(ea, eb *rangeEncoder) string {
	if ea.low == eb.low && ea.rng == eb.rng && ea.cache == eb.cache && ea.cacheSize == eb.cacheSize && bytes.Equal(ea.out, eb.out) {
		return ""
	}
	return fmt.Sprintf("kernel's state %#x %#x %d %d, %d bytes; Go's %#x %#x %d %d, %d bytes",
		ea.low, ea.rng, ea.cache, ea.cacheSize, len(ea.out), eb.low, eb.rng, eb.cache, eb.cacheSize, len(eb.out))
}

// randomResidual returns an index residual for the coder's tests: 0 in
// zeros out of 10, else one of up to arMaxUnary+2 in magnitude (9 in 10)
// or up to 2^19 (the Exp-Golomb code), either sign.
func randomResidual(rng *rand.Rand, zeros int) int {
	switch r := rng.IntN(10); {
	case r < zeros:
		return 0
	case r < 9:
		return rng.IntN(2*arMaxUnary+5) - arMaxUnary - 2
	}
	return rng.IntN(1<<20) - 1<<19
}

// randomProbs sets every probability of m's dimensions at random in
// [1, 4095], half of them within 40 of 0 (magnitudes then reach the
// Exp-Golomb code) and, with high, a third within 40 of 4096 and a
// third near 0; it returns m.
func randomProbs(rng *rand.Rand, m *arModel, high bool) *arModel {
	for j := range m.dims {
		d := &m.dims[j]
		for _, ps := range [][]arProb{d.zero[0][:], d.zero[1][:], d.zero[2][:], d.zero[3][:], d.zero[4][:], d.zero[5][:], d.sign[:], d.mag[0][:], d.mag[1][:], d.mag[2][:], d.exp[:]} {
			for i := range ps {
				pa, pb := 1+rng.IntN(4095), 1+rng.IntN(4095)
				switch r := rng.IntN(6); {
				case high && r < 2, !high && r < 3:
					pa, pb = 1+rng.IntN(40), 1+rng.IntN(40)
				case high && r < 4:
					pa, pb = 4095-rng.IntN(40), 4095-rng.IntN(40)
				}
				ps[i] = arProb{uint16(pa), uint16(pb)}
			}
		}
	}
	return m
}
