package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// Format version 5 codes the indices of a channel with an adaptive binary
// arithmetic coder (a range coder as LZMA's, probabilities of 12 bits
// adapting by 1/32 of their error after every bit) instead of static FSE
// tables: one stream per channel, the patches in raster order, each
// patch's rest flag and then its dimensions in order. Every index is
// coded as the same residual as in versions 1–4 (from the left or upper
// neighbour's index in the first dimension, from the dimension's centre
// in the others), binarised as zero / sign / magnitude (unary to
// arMaxUnary, then Exp-Golomb), each bit with its own probability chosen
// by context: the dimension; the activity of the left and upper
// neighbours' indices of the same dimension (six classes); and, beyond
// the first dimension, how many of the patch's earlier dimensions are off
// their centre (three classes), which tells how busy the patch is. The
// probabilities learn the image's statistics as it is decoded, so the
// contexts can be many more than three static tables per dimension.

const (
	arProbBits  = 12
	arProbInit  = 1 << (arProbBits - 1)
	arAdapt     = 5
	arAdaptFast = 3 // version 6's two estimates (see arProb)
	arAdaptSlow = 6
	arTopValue  = 1 << 24
	arActivity  = 6  // neighbour activity classes
	arBusy      = 5  // classes of the patch's earlier nonzero dimensions
	arMaxUnary  = 14 // magnitude bits coded in unary before Exp-Golomb
	arMaxExpLen = 24 // longest Exp-Golomb prefix a decoder accepts
	// arSlack is how far past its end a decoder may read a stream: the
	// encoder's last bytes flush 5, of which the decoder reads up to 4
	// beyond what it needs.
	arSlack = 8
)

// rangeEncoder is LZMA's binary range encoder.
type rangeEncoder struct {
	shiftA    uint8 // the probabilities' adaptation (see arShifts)
	shiftB    uint8
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int
	out       []byte
	kernel    bool // value is valueDual (version 6's shifts, amd64)
}

// valueRoom is the room valueDual needs beyond the pending bytes: a
// value is at most 16 decisions (zero flag, sign, arMaxUnary unary
// ones), each losing at most 12 bits of range (a probability is at least
// 1/4096), so shifting out at most two bytes.
const valueRoom = 2 * (2 + arMaxUnary)

func newRangeEncoder(dual bool) *rangeEncoder {
	e := &rangeEncoder{rng: 0xFFFFFFFF, cacheSize: 1}
	e.shiftA, e.shiftB = arShifts(dual)
	e.kernel = dual && hasRunKernel
	return e
}

func (e *rangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			e.out = append(e.out, temp+carry)
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

// bit codes b with the adaptive probability p (of a 0) and updates it.
func (e *rangeEncoder) bit(p *arProb, b int) {
	bound := (e.rng >> arProbBits) * p.zero()
	var one uint32
	if b != 0 {
		one = 1
	}
	mask := -one
	e.low += uint64(bound & mask)
	e.rng = bound ^ (bound^(e.rng-bound))&mask
	p.adapt(uint16(mask), e.shiftA&15, e.shiftB&15)
	for e.rng < arTopValue {
		if e.rng == 0 {
			zeroRange()
		}
		e.rng <<= 8
		e.shiftLow()
	}
}

// direct codes b at probability one half.
func (e *rangeEncoder) direct(b int) {
	e.rng >>= 1
	if b != 0 {
		e.low += uint64(e.rng)
	}
	for e.rng < arTopValue {
		if e.rng == 0 {
			zeroRange()
		}
		e.rng <<= 8
		e.shiftLow()
	}
}

// zeroRange panics: the encoder's range is 0, from a probability of 0
// (or of 1), and its normalisation would loop for ever, writing bytes.
// Probabilities stay within [1, 4095] from arModel.reset on
// (TestProbabilityRange), whatever the bits: only a bug, a model left
// unset, makes one 0. The check runs once per byte written.
func zeroRange() {
	panic("codec: range coder's range is 0 (a probability of 0 or 1: a model not reset)")
}

func (e *rangeEncoder) finish() []byte {
	for i := 0; i < 5; i++ {
		e.shiftLow()
	}
	return e.out
}

// rangeDecoder mirrors rangeEncoder. Past the end of its input it reads
// zeros: a truncated or hostile stream decodes to some bits in bounded
// time, and the indices they make are checked.
type rangeDecoder struct {
	in             []byte
	pos            int
	rng            uint32
	code           uint32
	shiftA, shiftB uint8 // the probabilities' adaptation (see arShifts)
	kernel         bool  // run's loop is runDual (version 6's shifts, amd64)
}

func newRangeDecoder(in []byte, dual bool) *rangeDecoder {
	d := &rangeDecoder{in: in, rng: 0xFFFFFFFF}
	d.shiftA, d.shiftB = arShifts(dual)
	d.kernel = dual && hasRunKernel
	for i := 0; i < 5; i++ {
		d.code = d.code<<8 | uint32(d.next())
	}
	return d
}

func (d *rangeDecoder) next() byte {
	if d.pos >= len(d.in) {
		d.pos++
		return 0
	}
	b := d.in[d.pos]
	d.pos++
	return b
}

// normalize shifts in bytes until the range is at least arTopValue.
func (d *rangeDecoder) normalize() {
	for d.rng < arTopValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
}

// bit decodes a bit of the adaptive probability p (of a 0) and updates
// p, selecting the outcome by a mask as arProb.adapt does.
func (d *rangeDecoder) bit(p *arProb) int {
	bound := (d.rng >> arProbBits) * p.zero()
	var one uint32
	if d.code >= bound {
		one = 1
	}
	mask := -one
	rng := bound ^ (bound^(d.rng-bound))&mask
	d.code -= bound & mask
	d.rng = rng
	p.adapt(uint16(mask), d.shiftA&15, d.shiftB&15)
	if rng < arTopValue {
		d.normalize()
	}
	return int(one)
}

func (d *rangeDecoder) direct() int {
	d.rng >>= 1
	b := 0
	if d.code >= d.rng {
		d.code -= d.rng
		b = 1
	}
	for d.rng < arTopValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}

// arProb is an adaptive probability of a 0 (12 bits). Version 5 keeps
// one estimate adapting by 1/32 of its error; version 6 the mean of
// two, adapting by 1/8 (a) and by 1/64 (b): a fast estimate follows the
// image's local statistics, a slow one is precise where they hold (on
// Kodak kodim02-12 even, 8×8 gamma 0 step 30: 1.0 % fewer bits than one
// estimate at 1/32, 0.1 % fewer than one at 1/16). Version 5's estimate
// is kept as two equal ones adapting alike (see arShifts), whose mean
// is that estimate: the coders then do the same work in both versions,
// without branching on the version.
type arProb struct{ a, b uint16 }

// arShifts returns the adaptation shifts of a probability's estimates.
func arShifts(dual bool) (a, b uint8) {
	if dual {
		return arAdaptFast, arAdaptSlow
	}
	return arAdapt, arAdapt
}

// zero returns the probability of a 0.
func (p *arProb) zero() uint32 { return uint32((p.a + p.b) >> 1) }

// adapt updates p after a bit given as a mask (all ones for a 1, zero
// for a 0), with shifts sa, sb below 16: both outcomes are computed and
// one selected, without a branch on the bit, which the coder cannot
// predict.
func (p *arProb) adapt(mask uint16, sa, sb uint8) {
	// a + (4096-a)>>s after a 0 and a - a>>s after a 1 are both
	// a - (a-t)>>s, an arithmetic shift (a floor), with t = 0 after a 1
	// and t = 4096 - (2^s - 1) after a 0: floor(x/m) = -floor((m-1-x)/m)
	// for integers x and m > 0 (TestAdaptTarget checks every a).
	m := int32(int16(mask))
	ta := int32(1<<arProbBits+1-1<<sa) &^ m
	tb := int32(1<<arProbBits+1-1<<sb) &^ m
	a, b := int32(p.a), int32(p.b)
	p.a, p.b = uint16(a-(a-ta)>>sa), uint16(b-(b-tb)>>sb)
}

// arDim holds the probabilities of one dimension.
type arDim struct {
	zero [arActivity][arBusy]arProb
	sign [3]arProb
	mag  [3][arMaxUnary]arProb
	exp  [arMaxExpLen + 1]arProb
}

// arModel holds the probabilities of one channel.
type arModel struct {
	flag [contexts][arBusy]arProb
	dims []arDim
	// count codes, in versions 7 and 8, how many of a patch's dimensions from
	// the rest flag's on are off their centre (less one: the flag says
	// one is), by the class of its neighbours' counts.
	count    [arActivity][arMaxUnary]arProb
	countExp [arMaxExpLen + 1]arProb
}

func newARModel(dims int) *arModel { return new(arModel).reset(dims) }

// reset sets every probability of m, a model of dims dimensions, to one
// half, and returns m.
func (m *arModel) reset(dims int) *arModel {
	m.dims = resize(m.dims, dims)
	fill := func(ps []arProb) {
		for i := range ps {
			ps[i] = arProb{arProbInit, arProbInit}
		}
	}
	for c := range m.flag {
		fill(m.flag[c][:])
	}
	for c := range m.count {
		fill(m.count[c][:])
	}
	fill(m.countExp[:])

	for j := range m.dims {
		d := &m.dims[j]
		for a := range d.zero {
			fill(d.zero[a][:])
		}
		fill(d.sign[:])
		for a := range d.mag {
			fill(d.mag[a][:])
		}
		fill(d.exp[:])
	}
	return m
}

// arActivityClass maps the neighbours' distance a from the centre (or,
// in the first dimension, between them) to one of arActivity classes.
func arActivityClass(a int) int {
	if uint(a) < uint(len(arClasses)) {
		return int(arClasses[a])
	}
	return arActivity - 1
}

// arClasses are the classes of distances 0 to 8: 0, 1, 2, up to 4, up
// to 8 (beyond: the last class; negative distances do not occur).
var arClasses = [...]uint8{0, 1, 2, 3, 3, 4, 4, 4, 4}

// arContext returns the neighbour context of index j of patch i: for the
// first dimension the distance between the left and upper indices,
// otherwise their distance from the centre cj; the missing neighbours
// stand at the centre (or, in the first dimension, equal the other).
func arContext(idx []int32, i, col, cols, dims, j, cj int) int {
	left, up := cj, cj
	hasLeft, hasUp := col > 0, i >= cols
	if hasLeft {
		left = int(idx[(i-1)*dims+j])
	}
	if hasUp {
		up = int(idx[(i-cols)*dims+j])
	}
	if j == 0 {
		return dcContext(idx, i, col, cols, dims)
	}
	return arActivityClass(abs(left-cj) + abs(up-cj))
}

// dcContext is arContext of the first dimension: the class of the mean
// distance of the left and upper indices from the upper-left one, 0
// without all three.
func dcContext(idx []int32, i, col, cols, dims int) int {
	if col == 0 || i < cols {
		return 0
	}
	left, up, ul := int(idx[(i-1)*dims]), int(idx[(i-cols)*dims]), int(idx[(i-cols-1)*dims])
	return arActivityClass((abs(left-ul) + abs(up-ul) + 1) / 2)
}

// arNeighbours returns the indices of the left and upper neighbours of
// patch i in column col, nil where there is none.
func arNeighbours(idx []int32, i, col, cols, dims int) (left, up []int32) {
	if col > 0 {
		left = idx[(i-1)*dims : i*dims]
	}
	if i >= cols {
		up = idx[(i-cols)*dims : (i-cols+1)*dims]
	}
	return left, up
}

// arRestContext is arContext beyond the first dimension (j > 0), from
// the neighbours' indices found once per patch by arNeighbours.
func arRestContext(left, up []int32, j, cj int) int {
	a := 0 // a missing neighbour stands at the centre
	if left != nil {
		a = abs(int(left[j]) - cj)
	}
	if up != nil {
		a += abs(int(up[j]) - cj)
	}
	return arActivityClass(a)
}

// encodeNonzero codes the sign and magnitude of the nonzero value v of
// dimension j in neighbour context act, after its zero flag.
func (m *arModel) encodeNonzero(e *rangeEncoder, j, act, v int) {
	d := &m.dims[j]
	s := 0
	if v < 0 {
		s, v = 1, -v
	}
	e.bit(&d.sign[min(act, 2)], s)
	e.unaryExpGolomb(&d.mag[min(act/2, 2)], &d.exp, v-1)
}

// value codes the index residual v of dimension p in neighbour context
// act: its zero flag, of probability zero, then, if v is not zero, its
// sign and magnitude as encodeNonzero codes them. The bits are bit's,
// written out with the coder's state in locals (the decoder's value
// mirrors it): a call of bit per bit was most of the coder's time.
func (e *rangeEncoder) value(zero *arProb, p *arDim, act, v int) {
	if e.kernel {
		if cap(e.out)-len(e.out) < e.cacheSize+valueRoom {
			e.out = slices.Grow(e.out, e.cacheSize+valueRoom)
		}
		switch valueDual(e, zero, p, act, v) {
		case 1:
			e.expGolomb(&p.exp, abs(v)-1)
		case 2:
			zeroRange()
		}
		return
	}
	low, rng := e.low, e.rng
	sa, sb := e.shiftA&15, e.shiftB&15
	// Each bit as bit codes it: mask all ones for a 1, 0 for a 0.
	var bound, mask uint32
	if v != 0 {
		mask = ^uint32(0)
	}
	bound = (rng >> arProbBits) * zero.zero()
	low += uint64(bound & mask)
	rng = bound ^ (bound^(rng-bound))&mask
	zero.adapt(uint16(mask), sa, sb)
	for rng < arTopValue {
		if rng == 0 {
			zeroRange()
		}
		rng <<= 8
		e.low = low
		e.shiftLow()
		low = e.low
	}
	if v == 0 {
		e.low, e.rng = low, rng
		return
	}
	// The sign.
	mask = 0
	if v < 0 {
		mask, v = ^uint32(0), -v
	}
	sign := &p.sign[min(act, 2)]
	bound = (rng >> arProbBits) * sign.zero()
	low += uint64(bound & mask)
	rng = bound ^ (bound^(rng-bound))&mask
	sign.adapt(uint16(mask), sa, sb)
	for rng < arTopValue {
		if rng == 0 {
			zeroRange()
		}
		rng <<= 8
		e.low = low
		e.shiftLow()
		low = e.low
	}
	// The magnitude less one, in unary up to arMaxUnary.
	mag := &p.mag[min(act/2, 2)]
	k := v - 1
	for u := 0; u < arMaxUnary; u++ {
		mask = ^uint32(0)
		if k == u {
			mask = 0
		}
		pr := &mag[u]
		bound = (rng >> arProbBits) * pr.zero()
		low += uint64(bound & mask)
		rng = bound ^ (bound^(rng-bound))&mask
		pr.adapt(uint16(mask), sa, sb)
		for rng < arTopValue {
			if rng == 0 {
				zeroRange()
			}
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
		if mask == 0 {
			e.low, e.rng = low, rng
			return
		}
	}
	e.low, e.rng = low, rng
	e.expGolomb(&p.exp, k)
}

// run codes the index residuals of dimensions j, j+1, ... below end of
// patch row (from their centre) while they are 0, then the first that is
// not, each as value codes it in the context of the neighbours' rows
// left and up (centre where there is none: arRestContext) and busy, and
// returns that dimension, or end. It is the decoder's run for the
// encoder: with the kernel (runEncDual) the coder's state stays in
// registers through the run, where a call of value per dimension
// reloaded it (callgrind, batch encode of 4 kodim13-16 grey: 1.7 % fewer
// instructions in 4×4, 5.2 % in 8×8).
func (e *rangeEncoder) run(m *arModel, row, left, up, centre []int32, j, end, busy int) int {
	if e.kernel && 0 <= j && j < end {
		// Room for the bytes the run may write: the pending ones and
		// two per decision (see valueRoom).
		if room := e.cacheSize + 2*(end-j) + valueRoom; cap(e.out)-len(e.out) < room {
			e.out = slices.Grow(e.out, room)
		}
		dims := m.dims[:end]
		row, left, up, centre = row[:end], left[:end], up[:end], centre[:end]
		_ = dims[0].zero[0][busy] // busy < arBusy
		j, status := runEncDual(e, &dims[0], &row[0], &left[0], &up[0], &centre[0], j, end, busy)
		if status != 0 {
			e.runEnd(dims, row, centre, j, status)
		}
		return j
	}
	for ; j < end; j++ {
		cj := int(centre[j])
		v := int(row[j]) - cj
		act := arActivityClass(abs(int(left[j])-cj) + abs(int(up[j])-cj))
		dim := &m.dims[j]
		e.value(&dim.zero[act][busy], dim, act, v)
		if v != 0 {
			return j
		}
	}
	return end
}

// runEnd finishes a run of runEncDual that returned status (not 0) at
// dimension j: the Exp-Golomb code of its magnitude (1), or zeroRange's
// panic (2).
func (e *rangeEncoder) runEnd(dims []arDim, row, centre []int32, j, status int) {
	if status == 2 {
		zeroRange()
	}
	e.expGolomb(&dims[j].exp, abs(int(row[j])-int(centre[j]))-1)
}

// unaryExpGolomb codes k >= 0 in unary, a probability per position, up to
// arMaxUnary; beyond, the Exp-Golomb code of k - arMaxUnary: its length in
// unary (probabilities exp), then its bits uncoded.
func (e *rangeEncoder) unaryExpGolomb(unary *[arMaxUnary]arProb, exp *[arMaxExpLen + 1]arProb, k int) {
	for u := 0; u < arMaxUnary; u++ {
		if k == u {
			e.bit(&unary[u], 0)
			return
		}
		e.bit(&unary[u], 1)
	}
	e.expGolomb(exp, k)
}

// expGolomb codes the part of unaryExpGolomb's code of k (at least
// arMaxUnary) after the unary one.
func (e *rangeEncoder) expGolomb(exp *[arMaxExpLen + 1]arProb, k int) {
	r := k - arMaxUnary + 1
	if r < 1 {
		// A negative value (a count of 0 coded as c-1, say) would loop
		// for ever below: a bug, failed as zeroRange fails.
		panic(fmt.Sprintf("codec: Exp-Golomb code of %d (below %d)", k, arMaxUnary))
	}
	n := 0
	for r>>(n+1) != 0 {
		n++
	}
	for b := 0; b < n; b++ {
		e.bit(&exp[b], 1)
	}
	e.bit(&exp[n], 0)
	for b := n - 1; b >= 0; b-- {
		e.direct(r >> b & 1)
	}
}

// unaryExpGolomb decodes what the encoder's unaryExpGolomb codes; false
// when the Exp-Golomb length reaches arMaxExpLen (a corrupt stream).
//
// With the kernel, the unary part is unaryDual's: a call of bit per
// decision, each loading and storing the coder's state, was ~64
// instructions a decision, 2.7 % of a 4×4 batch decode's (a patch's
// count of dimensions off their centre takes 4.6 decisions on average,
// kodim13-24 grey); the Go loop with the state in locals (decideMasked)
// was no better, its registers spilled.
func (d *rangeDecoder) unaryExpGolomb(unary *[arMaxUnary]arProb, exp *[arMaxExpLen + 1]arProb) (int, bool) {
	if d.kernel {
		if u := unaryDual(d, &unary[0], arMaxUnary); u < arMaxUnary {
			return u, true
		}
		return d.expGolomb(exp)
	}
	for u := 0; u < arMaxUnary; u++ {
		if d.bit(&unary[u]) == 0 {
			return u, true
		}
	}
	return d.expGolomb(exp)
}

// expGolomb decodes the part of unaryExpGolomb's code after the unary
// one, returning the whole value.
func (d *rangeDecoder) expGolomb(exp *[arMaxExpLen + 1]arProb) (int, bool) {
	n := 0
	for d.bit(&exp[n]) == 1 {
		n++
		if n >= arMaxExpLen {
			return 0, false
		}
	}
	r := 1
	for b := 0; b < n; b++ {
		r = r<<1 | d.direct()
	}
	return r - 1 + arMaxUnary, true
}

// run decodes the index residuals of dimensions j, j+1, ... below end of
// a patch while they are 0, then the first that is not: its zero flag,
// sign and magnitude, binarised as encodeNonzero codes them. It returns
// that dimension and its residual, or end and 0. Each flag is coded in
// the context of the left and upper neighbours' activity, from their
// indices' capped distances to the centre devL and devU (see arDevs:
// arRestContext's classes), and busy; the sign and magnitude in the
// activity's. The coder's state, with the input position, stays in
// locals through a run: most of a stream's bits are these zero flags,
// nearly all 0, and a call per residual loading and storing the state
// decoded an 8×8 model's image ~7 % slower (BenchmarkDecodeFiles). The
// decisions go through decideMasked, which takes and returns the state
// and is inlined (a closure over the locals was not, and was 5-6 %
// slower).
func (d *rangeDecoder) run(m *arModel, j, end int, devL, devU []uint8, busy int) (int, int, error) {
	if d.kernel && 0 <= j && j < end {
		dims, devL, devU := m.dims[:end], devL[:end], devU[:end]
		_ = dims[0].zero[0][busy] // busy < arBusy
		j, k, neg := runDual(d, &dims[0], &devL[0], &devU[0], j, end, busy)
		if j == end {
			return j, 0, nil
		}
		if k == arMaxUnary {
			var ok bool
			if k, ok = d.expGolomb(&dims[j].exp); !ok {
				return j, 0, errors.New("index residual too long")
			}
		}
		s := -neg
		return j, (k + 1) ^ s - s, nil
	}
	rng, code, pos, in := d.rng, d.code, d.pos, d.in
	sa, sb := d.shiftA&15, d.shiftB&15
	dims, devL, devU := m.dims[:end], devL[:end], devU[:end]
	for ; j < end; j++ {
		act := arDevClasses[(devL[j]+devU[j])&31]
		p := &dims[j]
		zp := &p.zero[act][busy]
		// Each decision's probability adapts by its mask too: only the
		// loop's own branches depend on the bit (the sign's, none).
		var one uint32
		rng, code, pos, one = decideMasked(rng, code, pos, in, zp.zero())
		zp.adapt(uint16(one), sa, sb)
		if one == 0 {
			continue
		}
		// The sign.
		sign := &p.sign[min(act, 2)]
		var neg uint32
		rng, code, pos, neg = decideMasked(rng, code, pos, in, sign.zero())
		sign.adapt(uint16(neg), sa, sb)
		// The magnitude less one, in unary up to arMaxUnary.
		mag := &p.mag[min(act/2, 2)]
		k := 0
		for ; k < arMaxUnary; k++ {
			pr := &mag[k]
			var more uint32
			rng, code, pos, more = decideMasked(rng, code, pos, in, pr.zero())
			pr.adapt(uint16(more), sa, sb)
			if more == 0 {
				break
			}
		}
		d.rng, d.code, d.pos = rng, code, pos
		if k == arMaxUnary {
			var ok bool
			if k, ok = d.expGolomb(&p.exp); !ok {
				return j, 0, errors.New("index residual too long")
			}
		}
		s := int(int32(neg)) // -1 for a negative residual, else 0
		return j, (k + 1) ^ s - s, nil
	}
	d.rng, d.code, d.pos = rng, code, pos
	return j, 0, nil
}

// runTail is the end of decodeAdaptive's run through the kernel where
// the unary magnitude reached arMaxUnary: the Exp-Golomb code of
// dimension j follows (neg: 1 for a negative residual).
func (d *rangeDecoder) runTail(dims []arDim, j, neg int) (int, int, error) {
	k, ok := d.expGolomb(&dims[j].exp)
	if !ok {
		return j, 0, errors.New("index residual too long")
	}
	s := -neg
	return j, (k + 1) ^ s - s, nil
}

// decideMasked decodes one decision of probability zero (of a 0, out of
// 1<<arProbBits) for run, from the coder's state in its locals: it
// returns the new range, code and input position, and the bit as a mask
// (all ones for a 1). The new range and code are selected by the mask,
// not by a branch on the bit, which the processor cannot predict. Small
// enough to be inlined (go build -gcflags=-m), as run needs.
func decideMasked(rng, code uint32, pos int, in []byte, zero uint32) (uint32, uint32, int, uint32) {
	bound := (rng >> arProbBits) * zero
	var mask uint32
	if code >= bound {
		mask = ^uint32(0)
	}
	rng = bound ^ (rng-bound^bound)&mask
	code -= bound & mask
	for rng < arTopValue {
		rng <<= 8
		var b byte
		if pos < len(in) {
			b = in[pos]
		}
		pos++
		code = code<<8 | uint32(b)
	}
	return rng, code, pos, mask
}

// arDevMax is where the distances of indices from their centre that
// run's contexts take are capped: two of them sum to arActivityClass's
// last class from that on, as the exact distances do.
const arDevMax = len(arClasses)

// arDevClasses is arActivityClass of the sum of two capped distances.
var arDevClasses = func() (t [32]uint8) {
	for s := range t {
		t[s] = uint8(arActivityClass(s))
	}
	return t
}()

// arClassDevs holds a distance of each activity class (arDevClasses of
// it is the class): run takes the first dimension's context, found by
// arContext, as its distance in the first entry of the patch's row,
// which the other dimensions' contexts do not read.
var arClassDevs = [arActivity]uint8{0, 1, 2, 3, 5, 9}

// arDevs holds, for decodeAdaptive's run, the capped distance from
// their centre of the indices of the last cols+1 patches decoded (a
// ring: the current patch, its left and its upper neighbour never share
// a slot), and after them a row of zeros for missing neighbours, which
// stand at the centre (arRestContext): rows of dims entries in ring.
type arDevs struct {
	ring       []uint8
	none       []uint8 // the last row of ring
	dims, size int
	slot       int // of the next patch
}

func newARDevs(cols, dims int) *arDevs {
	ring := make([]uint8, (cols+2)*dims)
	return &arDevs{ring: ring, none: ring[(cols+1)*dims:], dims: dims, size: cols + 1}
}

// next returns where ring holds the cleared row of the next patch in
// raster order (i, in column col), and the rows of its left and upper
// neighbours: offsets, not slices (building the three slices was most
// of next's ~85 instructions a 4×4 patch, 2.6 % of the decode's).
func (a *arDevs) next(i, col, cols int) (dev, left, up int) {
	d, slot := a.dims, a.slot
	above := slot + 1
	if above == a.size {
		above = 0
	}
	a.slot = above
	dev = slot * d
	if d == 16 {
		// 4×4 patches: two stores, where clear called memclr.
		*(*[16]uint8)(a.ring[dev:]) = [16]uint8{}
	} else {
		clear(a.ring[dev : dev+d])
	}
	left, up = a.size*d, a.size*d // none
	if col > 0 {
		prev := slot - 1
		if prev < 0 {
			prev = a.size - 1
		}
		left = prev * d
	}
	if i >= cols {
		up = above * d
	}
	return dev, left, up
}

// encodeAdaptive codes the indices (blocks×dims, rows of cols blocks) of
// a channel as format version 5's stream: u32 length, then the range
// coder's bytes. With flags, the rest flag of every patch covers the
// dimensions from restFrom(leading) on. With counted (versions 7-8, needs
// flags), a patch whose rest flag is 1 then codes how many of those
// dimensions are off their centre, its zero flags are coded in the
// context of how many remain instead of how many came before, and none
// are coded after the last.
func encodeAdaptive(dst []byte, idx []int32, dims, cols int, centre []int, leading int, flags, counted bool, edges *edgePredictor, sc *encodeScratch) []byte {
	sc = sc.or()
	n := len(idx) / dims
	from := restFrom(leading)
	var rest []uint8
	var counts []int32
	switch {
	case flags && counted:
		sc.rest, sc.counts = resize(sc.rest, n), resize(sc.counts, n)
		rest, counts = sc.rest, sc.counts
		restCountsInto(rest, counts, idx, dims, from, centre)
	case flags:
		sc.rest = restFlagsInto(zeroed(sc.rest, n), idx, dims, from, centre)
		rest = sc.rest
	}
	m := sc.model.reset(dims)
	e := newRangeEncoder(edges != nil)
	// The coder writes after the stream's length, filled in at the end.
	start := len(dst)
	e.out = append(dst, 0, 0, 0, 0)
	// The dimensions from the edge predictor's leading ones on off their
	// centre, per patch, for updateListed, as the decoder lists them.
	var listed []int32
	lead := 0
	centre32 := resize(sc.centre, dims)
	sc.centre = centre32
	mdims := m.dims[:dims]        // for runEncDual: dims entries, as the rows
	runRoom := 2*dims + valueRoom // the bytes a run may write beyond the pending ones (see run)
	for j, c := range centre {
		centre32[j] = int32(c)
	}
	if edges != nil {
		if cap(sc.listed) < dims {
			sc.listed = make([]int32, 0, dims)
		}
		listed = sc.listed[:0]
		lead = edges.k
	}
	// The patch kernel's state, for counted streams (versions 7-8), and
	// the bytes a patch may write beyond the pending ones: two per
	// decision, at most 2 + arMaxUnary a dimension and 1 + arMaxUnary
	// for the flag and the count.
	var pe *patchRun
	var listedAll []int32
	patchRoom := 2 * ((2+arMaxUnary)*dims + 1 + arMaxUnary)
	// Only with leading dimensions (lead > 0): the kernels take the
	// first dimension's centre to be its prediction, which decides
	// whether a first dimension without leading ones is listed for the
	// edge predictor (with lead 0 it listed it off its prediction, not
	// off its centre, and the predictor's sums then indexed past their
	// end: TestPatchKernelNoLeading).
	if e.kernel && counts != nil && patchKernel && lead > 0 {
		listedAll = make([]int32, dims)
		pe = &patchRun{centre: &centre32[0], listed: &listedAll[0], lead: lead, dims: dims}
		if patchEncVector && dims <= 64 {
			pe.vec = 1
		}
	}
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		listed = listed[:0]
		left, up := arNeighbours(idx, i, col, cols, dims)
		// The first dimension, predicted from the neighbours (the rest
		// flag comes after it: from >= 1).
		q := int(idx[i*dims])
		end := 0 // 1 + the last dimension off its centre, as the decoder finds it
		if q != centre[0] {
			end = 1
			if lead == 0 {
				listed = append(listed, 0)
			}
		}
		var pred int
		if edges != nil {
			if a := i + 2; a < n {
				// The encoder knows the cells ahead: their slots in the
				// predictor's table come in while this patch is coded.
				edges.hintCell(idx[a*dims : a*dims+lead])
			}
			// As the decoder: the neighbours' median only where the
			// predictor falls back on it (its branches missed about
			// one a patch: 4 % of encodeAdaptive's samples).
			if edges.answers(i, col) {
				pred = edges.predict(i, col, 0) // the fallback is not used
			} else {
				pred = edges.predict(i, col, arDCPrediction(idx, i, col, cols, dims, centre[0]))
			}
		} else {
			pred = arDCPrediction(idx, i, col, cols, dims, centre[0])
		}
		act := arContext(idx, i, col, cols, dims, 0, centre[0])
		row := idx[i*dims : (i+1)*dims]
		if pe != nil {
			// Counted streams with the kernel: the patch through
			// patchEncDual, as the decoder's patchDual decodes it.
			left32, up32 := centre32, centre32
			if left != nil {
				left32 = left
			}
			if up != nil {
				up32 = up
			}
			if cap(e.out)-len(e.out) < e.cacheSize+patchRoom {
				e.out = slices.Grow(e.out, e.cacheSize+patchRoom)
			}
			centre32[0] = int32(pred)
			pe.row, pe.nl, pe.act0 = &row[0], 0, act
			pe.j, pe.end, pe.cnt, pe.step, pe.boff, pe.bcur = 0, min(from, dims), 0, 1, 0, int(arBusyCounts[0])
			pe.pending, pe.rest, pe.counted = 0, int(rest[i]), int(counts[i])
			if from < dims {
				pe.pending = 1
				pe.flag = &m.flag[flagContext(i, col, cols, rest)][0]
				pe.count = &m.count[countContext(counts, i, col, cols)][0]
			}
			if st := patchEncDual(e, &mdims[0], &left32[0], &up32[0], pe); st != 0 {
				e.patchEncRest(st, pe, m, mdims, left32, up32, row, centre32, listedAll, patchRoom)
			}
			if edges != nil {
				listed := listedAll[:pe.nl]
				edges.updateListed(i, row, patchEnd(row, centre, listed, from), listed)
			}
			continue
		}
		e.value(&m.dims[0].zero[act][0], &m.dims[0], act, q-pred)
		busy, nz := 0, 0
		remain := -1 // dimensions off their centre still to code (version 7), -1 if not counted
		// A missing neighbour stands at the centre (arRestContext).
		left32, up32 := centre32, centre32
		if left != nil {
			left32 = left
		}
		if up != nil {
			up32 = up
		}
		// Runs stop at the rest flag, then at the end (see
		// decodeAdaptive).
		stop := dims
		if rest != nil {
			stop = from
		}
		for j := 1; j < dims; j++ {
			if j == stop {
				stop = dims
				fc := flagContext(i, col, cols, rest)
				e.bit(&m.flag[fc][busy], int(rest[i]))
				if rest[i] == 0 {
					break
				}
				if counts != nil {
					c := int(counts[i]) // restCountsInto
					m.encodeCount(e, countContext(counts, i, col, cols), c-1)
					remain = c
				}
			}
			if remain == 0 {
				break
			}
			if remain > 0 {
				busy = arBusyClass(remain - 1)
			}
			// The other dimensions are predicted at their centre: a run
			// of zero residuals up to the rest flag (or the end), then
			// the first that is not, as the decoder's run reads them.
			if e.kernel {
				// run through the kernel, called here: run's room check,
				// slicing and call per run were ~2 % of a 4×4 encode's
				// instructions. row, left32, up32, centre32 and mdims hold
				// dims entries; 1 <= j < stop <= dims; busy < arBusy.
				if cap(e.out)-len(e.out) < e.cacheSize+runRoom {
					e.out = slices.Grow(e.out, e.cacheSize+runRoom)
				}
				var status int
				if j, status = runEncDual(e, &mdims[0], &row[0], &left32[0], &up32[0], &centre32[0], j, stop, busy); status != 0 {
					e.runEnd(mdims, row, centre32, j, status)
				}
			} else {
				j = e.run(m, row, left32, up32, centre32, j, stop, busy)
			}
			if j == stop {
				j--
				continue
			}
			end = j + 1
			if j >= lead {
				listed = append(listed, int32(j))
			}
			nz++
			busy = arBusyClass(nz)
			if remain > 0 {
				remain--
			}
		}
		if edges != nil {
			// The dimensions the loop did not reach are at their
			// centre (rest flag or count), and so are those it did not
			// list: updateListed skips them, as in the decoder, and so
			// does the reconstruction (its ends).
			edges.updateListed(i, idx[i*dims:(i+1)*dims], end, listed)
		}
	}
	out := e.finish()
	binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	return out
}

// parseAdaptive splits a version-5 channel stream off body.
func parseAdaptive(body []byte) ([]byte, []byte, error) {
	if len(body) < 4 {
		return nil, nil, errors.New("truncated stream header")
	}
	n := binary.LittleEndian.Uint32(body)
	body = body[4:]
	if uint64(n) > uint64(len(body)) {
		return nil, nil, errors.New("truncated stream")
	}
	return body[:n], body[n:], nil
}

// decodeScratch holds decodeAdaptive's per-image arrays between images:
// made afresh they took 30-120 KB of fresh heap per 768×512 image.
type decodeScratch struct {
	rest   []uint8
	counts []int32
	model  arModel
}

var decodeScratches sync.Pool

// decodeAdaptive decodes a version-5 channel stream into idx (blocks×dims),
// checking every index against its bins.
func decodeAdaptive(data []byte, idx []int32, dims, cols int, centre, bins []int, leading int, flags, counted bool, edges *edgePredictor) error {
	n := len(idx) / dims
	from := restFrom(leading)
	sc, _ := decodeScratches.Get().(*decodeScratch)
	if sc == nil {
		sc = new(decodeScratch)
	}
	defer decodeScratches.Put(sc)
	var rest []uint8
	if flags {
		sc.rest = resize(sc.rest, n)
		rest = sc.rest
		clear(rest) // read as neighbours' before they are set where from = dims
	}
	var counts []int32
	if counted && rest != nil {
		sc.counts = resize(sc.counts, n)
		counts = sc.counts
		clear(counts)
	}
	m := sc.model.reset(dims)
	d := newRangeDecoder(data, edges != nil)
	// The dimensions from the edge predictor's leading ones on off their
	// centre, per patch, for updateListed.
	var listed []int32
	lead := 0
	if edges != nil {
		listed = make([]int32, 0, dims)
		lead = edges.k
	}
	devs := newARDevs(cols, dims)
	ring := devs.ring
	mdims := m.dims[:dims] // for runDual: dims entries, as devs' rows
	centre32 := make([]int32, dims)
	for j, c := range centre {
		centre32[j] = int32(c)
	}
	// The patch kernel's state, for counted streams (versions 7-8).
	if d.kernel && counts != nil && patchKernel && lead > 0 { // as encodeAdaptive
		return decodePatches(d, data, idx, dims, cols, centre, bins, from, m, rest, counts, edges, devs, centre32)
	}
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		// A stream read far past its end is truncated or hostile: stop
		// before decoding the rest of the image from zeros.
		if d.pos > len(data)+arSlack {
			return errors.New("stream too short")
		}
		listed = listed[:0]
		row := idx[i*dims : (i+1)*dims]
		if dims == 16 {
			// Through a copy of the array: copying it at once, or
			// copy, calls memmove (~30 instructions a 4×4 patch).
			c := *(*[16]int32)(centre32)
			*(*[16]int32)(row) = c // run leaves its zeros there; row[0] is set below
		} else {
			copy(row[1:], centre32[1:])
		}
		// The rows of the patch's and its neighbours' distances, at
		// offsets o, oL and oU of ring (dims entries each).
		o, oL, oU := devs.next(i, col, cols)
		// The first dimension, predicted from the neighbours (the rest
		// flag comes after it: from >= 1).
		var pred int
		if edges != nil && edges.answers(i, col) {
			pred = edges.predict(i, col, 0) // the fallback is not used
		} else {
			pred = arDCPrediction(idx, i, col, cols, dims, centre[0])
			if edges != nil {
				pred = edges.predict(i, col, pred)
			}
		}
		ring[o] = arClassDevs[dcContext(idx, i, col, cols, dims)]
		dev, devL, devU := ring[o:o+dims], ring[oL:oL+dims], ring[oU:oU+dims]
		var v int
		var err error
		if d.kernel {
			// run through the kernel, called here (as below): run's
			// checks, slicing and call per run were ~6 % of a 4×4
			// decode's instructions. dev and devs.none hold dims
			// entries, as the model does.
			if j, k, neg := runDual(d, &mdims[0], &dev[0], &devs.none[0], 0, 1, 0); j == 0 {
				if k == arMaxUnary {
					_, v, err = d.runTail(mdims, 0, neg)
				} else {
					v = (k + 1) ^ -neg + neg
				}
			}
		} else {
			_, v, err = d.run(m, 0, 1, dev, devs.none, 0)
		}
		if err != nil {
			return err
		}
		q := pred + v
		if q < 0 || q >= bins[0] {
			return fmt.Errorf("index %d out of range in dimension %d", q, 1)
		}
		row[0] = int32(q)
		end := 0 // 1 + the last dimension off its centre
		if q != centre[0] {
			end = 1
			if lead == 0 {
				listed = append(listed, 0)
			}
		}
		busy, nz := 0, 0
		remain := -1
		// Runs stop at the rest flag, then at the end: stop is the
		// flag's dimension until it is decoded (the loop tested j ==
		// from, rest != nil and j < from for each run).
		stop := dims
		if rest != nil {
			stop = from
		}
		for j := 1; j < dims; j++ {
			if j == stop {
				stop = dims
				fc := flagContext(i, col, cols, rest)
				rest[i] = uint8(d.bit(&m.flag[fc][busy]))
				if rest[i] == 0 {
					break // the rest at their centre, as row is
				}
				if counts != nil {
					c, err := m.decodeCount(d, countContext(counts, i, col, cols))
					if err != nil {
						return err
					}
					if c+1 > dims-from {
						return fmt.Errorf("%d dimensions off their centre in a patch of %d", c+1, dims)
					}
					counts[i] = int32(c + 1)
					remain = c + 1
				}
			}
			if remain == 0 {
				break
			}
			if remain > 0 {
				busy = arBusyClass(remain - 1)
			}
			// The other dimensions are predicted at their centre: a run
			// of zero flags up to the rest flag (or the end), then the
			// sign and magnitude of the first nonzero residual.
			if d.kernel {
				// 1 <= j < stop <= dims, busy < arBusy (arBusyClass).
				var k, neg int
				if j, k, neg = runDual(d, &mdims[0], &devL[0], &devU[0], j, stop, busy); j < stop {
					if k == arMaxUnary {
						_, v, err = d.runTail(mdims, j, neg)
					} else {
						v = (k + 1) ^ -neg + neg
					}
				}
			} else {
				j, v, err = d.run(m, j, stop, devL, devU, busy)
			}
			if err != nil {
				return err
			}
			if j == stop {
				j--
				continue
			}
			cj := centre[j]
			q := cj + v
			if q < 0 || q >= bins[j] {
				return fmt.Errorf("index %d out of range in dimension %d", q, j+1)
			}
			row[j] = int32(q)
			dev[j] = uint8(min(abs(v), arDevMax))
			end = j + 1
			if j >= lead {
				listed = append(listed, int32(j))
			}
			nz++
			busy = arBusyClass(nz)
			if remain > 0 {
				remain--
			}
		}
		if remain > 0 {
			return fmt.Errorf("%d dimensions of patch %d off their centre beyond its last", remain, i+1)
		}
		if edges != nil {
			edges.updateListed(i, row, end, listed)
		}
	}
	if d.pos > len(data)+arSlack {
		return errors.New("stream too short")
	}
	return nil
}

// heldPrediction stands for the first dimension's centre while
// decodePatches decodes a patch before its prediction: patchDual then
// writes heldPrediction plus the residual into the row, which lies in
// [0, math.MaxInt32) for every residual an Exp-Golomb code of at most
// arMaxExpLen bits gives.
const heldPrediction = 1 << 30

// decodePatches is decodeAdaptive's loop for counted streams through the
// patch kernel (patchDual), the decoder's state and checks as there, in
// another order: a patch's residuals are decoded after its first
// dimension's prediction is found but before it is added: the residuals
// do not depend on the prediction (the first dimension's context is
// dcContext's, from the neighbours' final indices), only the next
// patch's first decision does, through the first index. The edges of
// the patch before (updateListed) and the prediction come before
// patchDual in the program (their table slots prefetched as the loop
// begins), so that they are done while the patch's decisions are
// decoded: after patchDual they waited for its last branch, often
// mispredicted, and the next patch's first decision for them (4×4 batch
// decode, BenchmarkDecodeFiles on the AMD Zen 5 of session 23: ~-2.5 %
// of the CPU). Session 21 had moved them after patchDual (the slots of
// the cache of recent cells and of the table of cells missed the
// caches: two loads, ~7 % of the samples then). The first index's
// prediction is checked before the patch's errors, as it was found
// first.
func decodePatches(d *rangeDecoder, data []byte, idx []int32, dims, cols int, centre, bins []int, from int, m *arModel, rest []uint8, counts []int32, edges *edgePredictor, devs *arDevs, centre32 []int32) error {
	n := len(idx) / dims
	ring := devs.ring
	mdims := m.dims[:dims]
	// Two arrays of listed dimensions: the patch's, and the one before's
	// until its edges are updated.
	listed, other := make([]int32, dims), make([]int32, dims)
	bins32 := make([]int32, dims)
	for j, b := range bins[:dims] {
		bins32[j] = int32(min(b, math.MaxInt32))
	}
	centre32[0], bins32[0] = heldPrediction, math.MaxInt32
	pr := &patchRun{centre: &centre32[0], bins: &bins32[0], none: &devs.none[0], lead: edges.k, dims: dims}
	if patchDecVector && dims <= 64 {
		pr.vec = 1
	}
	var prevListed []int32 // the patch before's listed dimensions
	prevEnd := 0           // and patchEnd
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		// A stream read far past its end is truncated or hostile: stop
		// before decoding the rest of the image from zeros.
		if d.pos > len(data)+arSlack {
			return errors.New("stream too short")
		}
		at := i * dims
		row := idx[at : at+dims]
		if dims == 16 {
			// Through a copy of the array (see decodeAdaptive).
			c := *(*[16]int32)(centre32)
			*(*[16]int32)(row) = c
		} else {
			copy(row, centre32)
		}
		o, oL, oU := devs.next(i, col, cols)
		// dcContext's class, written out (the call was ~50
		// instructions a patch).
		dc := 0
		if col > 0 && i >= cols {
			l, u, ul := int(idx[at-dims]), int(idx[at-cols*dims]), int(idx[at-(cols+1)*dims])
			dc = arActivityClass((abs(l-ul) + abs(u-ul) + 1) / 2)
		}
		ring[o] = arClassDevs[dc]
		var key uint64 // of the patch before's cell
		if i > 0 && edges.trackedListed {
			key = edges.hintUpdate(idx[at-dims : at])
		}
		pr.row, pr.dev, pr.listed, pr.nl = &row[0], &ring[o], &listed[0], 0
		pr.j, pr.end, pr.cnt, pr.step, pr.boff = 0, min(from, dims), 0, 1, 0
		pr.pending, pr.rest, pr.counted = 0, 0, 0
		if from < dims {
			pr.pending = 1
			pr.flag = &m.flag[flagContext(i, col, cols, rest)][0]
			pr.count = &m.count[countContext(counts, i, col, cols)][0]
		}
		if i > 0 {
			if prev := idx[at-dims : at]; edges.trackedListed {
				edges.updateListedKey(i-1, key, prev, prevEnd, prevListed)
			} else {
				edges.updateListed(i-1, prev, prevEnd, prevListed)
			}
		}
		var pred int
		if edges.answers(i, col) {
			pred = edges.predict(i, col, 0) // the fallback is not used
		} else {
			pred = edges.predict(i, col, arDCPrediction(idx, i, col, cols, dims, centre[0]))
		}
		if pred < 0 || pred >= bins[0] {
			return fmt.Errorf("index %d out of range in dimension %d", pred, 1)
		}
		var err error
		if st := patchDual(d, &mdims[0], &ring[oL], &ring[oU], pr); st != 0 {
			err = d.patchRest(st, pr, m, mdims, ring[oL:oL+dims], ring[oU:oU+dims], row, ring[o:o+dims], listed)
		}
		if err != nil && pr.j == 0 {
			return err // the first residual's own code
		}
		if q := pred + int(row[0]) - heldPrediction; q < 0 || q >= bins[0] {
			return fmt.Errorf("index %d out of range in dimension %d", q, 1)
		} else {
			row[0] = int32(q)
		}
		if err != nil {
			return err
		}
		// The rest flag and count stored whatever they are (rest and
		// counts are cleared: a patch without the flag keeps 0 and 0)
		// and the count's check by a minimum: no branch on the flag,
		// which the predictor missed often.
		rest[i], counts[i] = uint8(pr.rest), int32(pr.counted)
		if min(pr.rest, pr.cnt) > 0 {
			return fmt.Errorf("%d dimensions of patch %d off their centre beyond its last", pr.cnt, i+1)
		}
		prevListed = listed[:pr.nl]
		if from == 4 && dims >= 4 {
			prevEnd = patchEnd4(row, centre, listed, pr.nl)
		} else {
			prevEnd = patchEnd(row, centre, prevListed, from)
		}
		listed, other = other, listed
	}
	if d.pos > len(data)+arSlack {
		return errors.New("stream too short")
	}
	if n > 0 {
		edges.updateListed(n-1, idx[(n-1)*dims:], prevEnd, prevListed)
	}
	return nil
}

// patchKernel selects patchDual for the patches of counted streams
// where the decoder has the run kernel (d.kernel); the tests turn it off
// to compare with the loop of runDual calls. Through patchDual, a 4×4
// batch decode (12 kodim13-24 grey, p4b) took 9.7 % fewer instructions
// (callgrind: 1,157.6 -> 1,045.7 M): a call of runDual per residual off
// 0, and the Go bookkeeping after each, were ~200 instructions a patch.
var patchKernel = hasRunKernel

// patchRun is the state of a patch that patchDual decodes: the patch's
// indices (row, holding the centres where not decoded yet), the capped
// distances of its residuals (dev, as arDevs keeps them) and its
// dimensions off their centre from lead on (listed, nl of them); the
// next dimension j and the end; and a count cnt of the residuals off 0
// found (step 1) or still to come (step -1: the patch ends when it falls
// to 0), whose busy class arBusyCounts[min(cnt, 31)+boff] the zero flags
// take. With pending, the run stops at end for the rest flag (of
// probability flag[busy class]); after a 1 the count of the dimensions
// off their centre from end on (counted), in unary of probabilities
// count, then the run goes on to dims, counting down.
type patchRun struct {
	row, centre *int32
	bins        *int32 // of each dimension: row's indices lie in [0, bins)
	dev         *uint8
	none        *uint8 // zeros: the first dimension's other neighbour
	listed      *int32
	flag, count *arProb
	j, end      int
	cnt, step   int
	boff        int // 0 while counting up, 32 while counting down
	bcur        int // the encoder's busy class of cnt (patchEncDual)
	act0        int // the encoder's context class of the first dimension
	vec         int // 1: the kernels' AVX-512 prologue (patchEncVector or patchDecVector, dims <= 64)
	lead, nl    int
	dims        int
	pending     int // 1: the rest flag comes at end
	rest        int // the rest flag decoded
	counted     int // the count decoded, plus one
	neg         int // where patchDual returns 1: 1 for a negative residual
}

// arBusyCounts holds patchRun's busy classes: of c residuals off 0
// found before (arBusyClass(c)) in its first 32 entries, of c still to
// come in a counted stream (arBusyClass(c-1), c >= 1) in the next 32,
// up to c = 31 (beyond, the same class).
var arBusyCounts = func() (t [64]uint8) {
	for c := range 32 {
		t[c] = uint8(arBusyClass(c))
		t[32+c] = uint8(arBusyClass(max(c-1, 0)))
	}
	return t
}()

// patchRest goes on with a patch after patchDual returned st (not 0):
// the Exp-Golomb codes of long residuals and counts (patchEscape), each
// followed by patchDual again, or the errors it found. The caller checks
// that dims, devL, devU, row, dev and listed (pr.listed's array) hold
// pr.dims entries.
func (d *rangeDecoder) patchRest(st int, pr *patchRun, m *arModel, dims []arDim, devL, devU []uint8, row []int32, dev []uint8, listed []int32) error {
	for ; st != 0; st = patchDual(d, &dims[0], &devL[0], &devU[0], pr) {
		switch st {
		case 2:
			return fmt.Errorf("index %d out of range in dimension %d", row[pr.j], pr.j+1)
		case 3:
			c, ok := d.expGolomb(&m.countExp)
			if !ok {
				return errors.New("count too long")
			}
			if c+1 > pr.dims-pr.j {
				return fmt.Errorf("%d dimensions off their centre in a patch of %d", c+1, pr.dims)
			}
			pr.cnt, pr.counted, pr.end, pr.step, pr.boff = c+1, c+1, pr.dims, -1, 32
			continue
		case 4:
			return fmt.Errorf("%d dimensions off their centre in a patch of %d", pr.counted, pr.dims)
		}
		if done, err := d.patchEscape(pr, dims, row, dev, listed); done || err != nil {
			return err
		}
	}
	return nil
}

// patchEnd returns 1 + the last dimension of a patch's row off its
// centre, for updateListed, after the patch kernels: the last listed one
// where it lies from the rest flag's dimension from on (every one off its
// centre there is listed), else the last found by a scan below from.
func patchEnd(row []int32, centre []int, listed []int32, from int) int {
	if n := len(listed); n > 0 && int(listed[n-1]) >= from {
		return int(listed[n-1]) + 1
	}
	for j := min(from, len(row)) - 1; j >= 0; j-- {
		if int(row[j]) != centre[j] {
			return j + 1
		}
	}
	return 0
}

// patchEnd4 is patchEnd(row, centre, listed[:n], 4) without branches on
// the data, for 4×4 models (four leading dimensions, the rest flag's
// at 4): the last listed dimension's end where n > 0, else the last
// off its centre below 4's, each set by a conditional move (listed
// dimensions lie from 4 on). The scan's exit and the test of the last
// listed one were about one mispredicted branch a patch (cachegrind's
// model: 45 k in a decode of 4 images). row, centre and listed hold at
// least 4 entries.
func patchEnd4(row []int32, centre []int, listed []int32, n int) int {
	r, c := (*[4]int32)(row), (*[4]int)(centre)
	end := 0
	if int(r[0]) != c[0] {
		end = 1
	}
	if int(r[1]) != c[1] {
		end = 2
	}
	if int(r[2]) != c[2] {
		end = 3
	}
	if int(r[3]) != c[3] {
		end = 4
	}
	last := int(listed[n-1+int(b2u(n == 0))]) + 1
	if n != 0 {
		end = last
	}
	return end
}

// patchEncRest goes on with a patch after patchEncDual returned st (not
// 0): the Exp-Golomb codes of long residuals and counts, each followed
// by patchEncDual again, or zeroRange's panic. row, left, up, centre and
// listed hold pe.dims entries; room is the bytes a call may write.
func (e *rangeEncoder) patchEncRest(st int, pe *patchRun, m *arModel, dims []arDim, left, up, row, centre, listed []int32, room int) {
	for ; st != 0; st = patchEncDual(e, &dims[0], &left[0], &up[0], pe) {
		switch st {
		case 2:
			zeroRange()
		case 3:
			e.expGolomb(&m.countExp, pe.counted-1)
			pe.cnt, pe.end, pe.step, pe.boff = pe.counted, pe.dims, -1, 32
		default:
			j := pe.j
			e.expGolomb(&dims[j].exp, abs(int(row[j])-int(centre[j]))-1)
			if j >= pe.lead {
				listed[pe.nl] = int32(j)
				pe.nl++
			}
			pe.j++
			if j > 0 { // the first dimension is not counted
				pe.cnt += pe.step
				if pe.step < 0 && pe.cnt == 0 {
					return
				}
			}
			if pe.j >= pe.end && pe.pending == 0 {
				return
			}
		}
		pe.bcur = int(arBusyCounts[min(pe.cnt, 31)+pe.boff])
		if cap(e.out)-len(e.out) < e.cacheSize+room {
			e.out = slices.Grow(e.out, e.cacheSize+room)
		}
	}
}

// patchEscape reads the Exp-Golomb code of the residual at dimension
// pr.j, where patchDual returned 1, and records it as patchDual records
// the others; done: the patch is over.
func (d *rangeDecoder) patchEscape(pr *patchRun, dims []arDim, row []int32, dev []uint8, listed []int32) (done bool, err error) {
	j := pr.j
	k, ok := d.expGolomb(&dims[j].exp)
	if !ok {
		return true, errors.New("index residual too long")
	}
	s := -pr.neg
	v := (k + 1) ^ s - s
	q := int(unsafe.Slice(pr.centre, pr.dims)[j]) + v
	if bins := unsafe.Slice(pr.bins, pr.dims); q < 0 || q >= int(bins[j]) {
		return true, fmt.Errorf("index %d out of range in dimension %d", q, j+1)
	}
	row[j], dev[j] = int32(q), uint8(min(abs(v), arDevMax))
	if j >= pr.lead {
		listed[pr.nl] = int32(j)
		pr.nl++
	}
	pr.j++
	if j > 0 { // the first dimension is not counted
		pr.cnt += pr.step
	}
	// Where it is not over, patchDual goes on (at pr.end: the rest flag
	// if pending, else nothing).
	return pr.step < 0 && pr.cnt == 0 || pr.j >= pr.end && pr.pending == 0, nil
}

// countContext is the context of patch i's count of dimensions off their
// centre: the class of its left and upper neighbours' mean count.
func countContext(counts []int32, i, col, cols int) int {
	a, b := 0, 0
	if col > 0 {
		a = int(counts[i-1])
	}
	if i >= cols {
		b = int(counts[i-cols])
	}
	return arActivityClass((a + b + 1) / 2)
}

// encodeCount codes c >= 0 in unary to arMaxUnary, then Exp-Golomb.
func (m *arModel) encodeCount(e *rangeEncoder, ctx, c int) {
	e.unaryExpGolomb(&m.count[ctx], &m.countExp, c)
}

// decodeCount decodes what encodeCount codes.
func (m *arModel) decodeCount(d *rangeDecoder, ctx int) (int, error) {
	c, ok := d.unaryExpGolomb(&m.count[ctx], &m.countExp)
	if !ok {
		return 0, errors.New("count too long")
	}
	return c, nil
}

// arPredict returns the prediction of index j of patch i and the
// neighbour context its zero flag is coded in, as encoder and decoder both
// derive them from the indices decoded so far.
func arPredict(idx []int32, i, col, cols, dims, j int, centre []int, left, up []int32, edges *edgePredictor) (pred, act int) {
	if j != 0 {
		return centre[j], arRestContext(left, up, j, centre[j])
	}
	pred = arDCPrediction(idx, i, col, cols, dims, centre[0])
	if edges != nil {
		pred = edges.predict(i, col, pred)
	}
	return pred, arContext(idx, i, col, cols, dims, 0, centre[0])
}

// arDCPrediction is the prediction of the first dimension's index of
// patch i in version 5: the median of the left, upper and left + upper −
// upper-left indices (LOCO-I's), the left or upper one on the edges.
func arDCPrediction(idx []int32, i, col, cols, dims, cj int) int {
	hasLeft, hasUp := col > 0, i >= cols
	switch {
	case hasLeft && hasUp:
		a, b, c := int(idx[(i-1)*dims]), int(idx[(i-cols)*dims]), int(idx[(i-cols-1)*dims])
		switch {
		case c >= max(a, b):
			return min(a, b)
		case c <= min(a, b):
			return max(a, b)
		}
		return a + b - c
	case hasLeft:
		return int(idx[(i-1)*dims])
	case hasUp:
		return int(idx[(i-cols)*dims])
	}
	return cj
}

// arBusyClass maps the count of a patch's earlier dimensions off their
// centre to one of arBusy classes.
func arBusyClass(nz int) int {
	switch {
	case nz <= 2:
		return nz
	case nz <= 4:
		return 3
	}
	return 4
}
