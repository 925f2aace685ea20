package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/fse"
	"github.com/spcalab/spca/internal/parallel"
)

// The indices of a channel are coded dimension by dimension in raster
// order of the blocks. The first (DC-like) dimension is coded as the
// difference from its left neighbour (the upper one in the first column),
// as JPEG codes DC. Every other dimension is coded as its signed distance
// from the dimension's most frequent index, in one of three context
// classes chosen by how far its left and upper neighbours are from it
// (flat, moderate, busy): context-adaptive entropy coding with a separate
// FSE table per class. Symbols are bytes; values from 255 up are escaped
// into a side stream of 16-bit values.
//
// Files of entropy-constrained models (version 3) also code, for every
// patch, a rest flag: whether any coefficient beyond SPCA has an index
// other than its dimension's centre, in three context classes by how many
// of the left and upper neighbours have theirs set. Those dimensions then
// code only the patches whose flag is set; the others are at the centre.
// The dead-zone quantisers of that mode put about nine in ten of the
// coefficients beyond SPCA in the zero cell: the flag saves bits (4×4
// Kodak luma at step 8: 2.2 % fewer) and the decoder skips those
// coefficients without reading a symbol. Measured alternatives: coding
// each patch's last significant dimension, as JPEG's end of block does,
// saved 0.4 % on Kodak and cost 3.5–5.6 % on the test textures (the flag:
// 0.4–1.1 %), and 4.5 % in the fixed-resolution mode with its few dense
// bins (2×2 Kodak luma at 66 bins). That mode codes no flags: its
// default 2×2 patches are all SPCA, which leaves a flag nothing to cover
// (not measured for its larger patches).

const (
	methodRaw byte = iota
	methodFSE
	methodRLE
	contexts = 3
	escape   = 255
)

// symbolStreams holds the byte streams of one channel.
type symbolStreams struct {
	// flags holds the rest flags per context class (nil in files
	// without them), covering the dimensions from `from` on.
	flags [][]byte
	from  int
	sub   [][]byte // per (dimension, context): dim 0 has one, others `contexts`
	esc   []uint16
}

// zigzag maps a residual to a symbol, 0, −1, 1, −2, 2, … to 0, 1, 2, 3,
// 4, …, without branches: the sign of a residual is unpredictable.
func zigzag(v int) int {
	return v<<1 ^ v>>signShift
}

// unzigzag inverts zigzag without branches (the sign of a residual is
// unpredictable, and this runs once per decoded index).
func unzigzag(s int) int {
	return (s >> 1) ^ -(s & 1)
}

// contextOfActivity is the context class of the neighbours' activity a
// (0: both at the centre index, 1: a <= 2, 2: more), indexed by min(a, 3).
var contextOfActivity = [4]int{0, 1, 1, 2}

func streamIndex(j, ctx int) int {
	if j == 0 {
		return 0
	}
	return 1 + (j-1)*contexts + ctx
}

func numStreams(dims int) int { return 1 + (dims-1)*contexts }

// dcPrediction is the predicted index of block i (column col of rows of
// cols blocks) of the first dimension: its left neighbour, the upper one
// in the first column, the centre cj for the first block; the upper
// neighbours are in the row buffer above. toSymbolsDim, fromSymbolsDC
// and fromSymbolsAC share it and acContext, so that coder and decoder see
// the same model.
func dcPrediction(i, col, cols, left int, above []int32, cj int) int {
	switch {
	case col > 0:
		return left
	case i >= cols:
		return int(above[0])
	}
	return cj
}

// acContext is the context class of block i of a further dimension: how
// far its left and upper neighbours are from the centre cj.
func acContext(i, col, cols, left int, above []int32, cj int) int {
	up := cj
	if i >= cols {
		up = int(above[col])
	}
	if col == 0 {
		left = cj
	}
	return neighbourContext(left, up, cj)
}

// neighbourContext is acContext from the neighbours' indices, the centre
// standing for a missing one (which adds no activity).
func neighbourContext(left, up, cj int) int {
	return contextOfActivity[min(abs(left-cj)+abs(up-cj), 3)]
}

// restFlags returns, for every patch of idx (blocks×dims), 1 if one of
// its dimensions from `from` on has an index other than the dimension's
// centre, else 0.
func restFlags(idx []int32, dims, from int, centre []int) []uint8 {
	return restFlagsInto(make([]uint8, len(idx)/dims), idx, dims, from, centre)
}

// restCountsInto is restFlagsInto that also writes into counts (one per
// patch) how many of each patch's dimensions from `from` on are off their
// centre, counted without a branch on each (the encoder's counted mode
// needs them all: counting them patch by patch while coding, a branch
// per dimension mispredicted, was a fifth of encodeAdaptive's time), 8
// at a time with AVX2.
func restCountsInto(flags []uint8, counts []int32, idx []int32, dims, from int, centre []int) {
	n := len(idx) / dims
	c32 := make([]int32, dims-from)
	for j := range c32 {
		c32[j] = int32(centre[from+j])
	}
	const block = 4096
	parallel.For((n+block-1)/block, func(b int) {
		if w := len(c32); restCountsKernel && w >= 4 && w%4 == 0 {
			lo, hi := b*block, min(n, (b+1)*block)
			restCountsAVX2(idx[lo*dims:hi*dims], dims, from, c32, counts[lo:hi], flags[lo:hi])
			return
		}
		for i := b * block; i < min(n, (b+1)*block); i++ {
			row := idx[i*dims+from : (i+1)*dims]
			row = row[:len(c32)]
			var c uint32
			j := 0
			if hasGather {
				// 8 at a time: the equal ones counted.
				j = len(row) &^ 7
				c = uint32(j - sameCountAVX2(row[:j], c32[:j]))
			}
			for ; j < len(row); j++ {
				d := uint32(row[j] - c32[j])
				c += (d | -d) >> 31 // 1 where d != 0
			}
			counts[i] = int32(c)
			flags[i] = uint8(min(c, 1))
		}
	})
}

// restCountsKernel selects restCountsAVX2 for restCountsInto where it
// has AVX2 (hasGather); the tests turn it off.
var restCountsKernel = hasGather

// restFlagsInto is restFlags writing into flags (one per patch, all 0).
func restFlagsInto(flags []uint8, idx []int32, dims, from int, centre []int) []uint8 {
	n := len(idx) / dims
	const block = 4096
	parallel.For((n+block-1)/block, func(b int) {
		for i := b * block; i < min(n, (b+1)*block); i++ {
			for j, q := range idx[i*dims+from : (i+1)*dims] {
				if int(q) != centre[from+j] {
					flags[i] = 1
					break
				}
			}
		}
	})
	return flags
}

// restFrom is the first dimension the rest flags cover: the first
// coefficient beyond SPCA, and never the first dimension.
func restFrom(leading int) int { return max(1, leading) }

// flagContext is the context class of the rest flag of block i: how many
// of its left and upper neighbours have theirs set.
func flagContext(i, col, cols int, flags []uint8) int {
	c := 0
	if col > 0 {
		c += int(flags[i-1])
	}
	if i >= cols {
		c += int(flags[i-cols])
	}
	return c
}

// flagStreams splits the rest flags into their context streams.
func flagStreams(flags []uint8, cols int) [][]byte {
	out := make([][]byte, contexts)
	for i, col := 0, 0; i < len(flags); i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		c := flagContext(i, col, cols, flags)
		out[c] = append(out[c], flags[i])
	}
	return out
}

// fromFlagStreams decodes the rest flags of n blocks, checking each and
// that the streams hold exactly n.
func fromFlagStreams(streams [][]byte, n, cols int) ([]uint8, error) {
	if len(streams) != contexts {
		return nil, errors.New("missing rest-flag stream")
	}
	flags := make([]uint8, n)
	var pos [contexts]int
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		c := flagContext(i, col, cols, flags)
		if pos[c] >= len(streams[c]) {
			return nil, errors.New("rest-flag stream too short")
		}
		v := streams[c][pos[c]]
		pos[c]++
		if v > 1 {
			return nil, fmt.Errorf("rest flag %d", v)
		}
		flags[i] = v
	}
	for c := range pos {
		if pos[c] != len(streams[c]) {
			return nil, errors.New("rest-flag stream too long")
		}
	}
	return flags, nil
}

func abs(v int) int {
	m := v >> signShift
	return (v ^ m) - m
}

// toSymbols splits the indices (blocks×dims) into context streams,
// dimensions in parallel (each has its own streams; the escapes are
// gathered in order of dimension, as fromSymbols expects them). With
// flags, it codes the rest flag of every patch over the dimensions from
// restFrom(leading) on, and those dimensions only where it is set.
func toSymbols(idx []int32, dims, cols int, centre []int, leading int, flags bool) *symbolStreams {
	s := &symbolStreams{sub: make([][]byte, numStreams(dims)), from: restFrom(leading)}
	var rest []uint8
	tasks := dims
	if flags {
		rest = restFlags(idx, dims, s.from, centre)
		tasks++ // the flags' streams
	}
	esc := make([][]uint16, dims)
	flagged, flaggedCol := flaggedPatches(rest, cols)
	parallel.For(tasks, func(j int) {
		switch {
		case j == dims:
			s.flags = flagStreams(rest, cols)
		case j < s.from || rest == nil:
			esc[j] = toSymbolsDim(s.sub, idx, j, dims, cols, centre[j])
		default:
			esc[j] = toSymbolsFlagged(s.sub, idx, j, dims, cols, centre[j], flagged, flaggedCol)
		}
	})
	for _, e := range esc {
		s.esc = append(s.esc, e...)
	}
	return s
}

// toSymbolsDim writes the symbols of dimension j, which the rest flags
// do not cover, into its streams of sub and returns its escapes: the
// mirror of fromSymbolsDC and fromSymbolsAC, with the same contexts and
// DC prediction and the neighbours kept in a row buffer.
func toSymbolsDim(sub [][]byte, idx []int32, j, dims, cols, cj int) []uint16 {
	n := len(idx) / dims
	streams := dimStreams(j)
	var out [contexts][]byte
	for c := range streams {
		out[c] = make([]byte, 0, n)
	}
	var esc []uint16
	above := make([]int32, cols)
	left := 0
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		q := int(idx[i*dims+j])
		c, pred := 0, cj
		if j == 0 {
			pred = dcPrediction(i, col, cols, left, above, cj)
		} else {
			c = acContext(i, col, cols, left, above, cj)
		}
		out[c], esc = appendSymbol(out[c], esc, zigzag(q-pred))
		above[col] = int32(q)
		left = q
	}
	for c, k := range streams {
		sub[k] = out[c]
	}
	return esc
}

// toSymbolsFlagged is toSymbolsDim for a dimension the rest flags cover:
// only the patches listed in flagged (increasing, in columns flaggedCol)
// have a symbol, the mirror of fromSymbolsFlagged. The others' indices
// are the centre, so the contexts can read every neighbour from idx.
// (Looping over every patch with the flags masking the symbols took a
// quarter longer on a 4×4 texture.)
func toSymbolsFlagged(sub [][]byte, idx []int32, j, dims, cols, cj int, flagged, flaggedCol []int32) []uint16 {
	streams := dimStreams(j)
	var out [contexts][]byte
	for c := range streams {
		out[c] = make([]byte, 0, len(flagged))
	}
	var esc []uint16
	for x, f := range flagged {
		i, col := int(f), int(flaggedCol[x])
		left, up := cj, cj
		if col > 0 {
			left = int(idx[(i-1)*dims+j])
		}
		if i >= cols {
			up = int(idx[(i-cols)*dims+j])
		}
		c := neighbourContext(left, up, cj)
		out[c], esc = appendSymbol(out[c], esc, zigzag(int(idx[i*dims+j])-cj))
	}
	for c, k := range streams {
		sub[k] = out[c]
	}
	return esc
}

// appendSymbol appends the zigzag-coded residual v to a stream; from
// escape on, as the escape symbol, with v − escape appended to the
// escape values.
func appendSymbol(stream []byte, esc []uint16, v int) ([]byte, []uint16) {
	if v >= escape {
		esc = append(esc, uint16(v-escape))
		v = escape
	}
	return append(stream, byte(v)), esc
}

// flaggedPatches lists the patches whose rest flag is set, with their
// columns in rows of cols blocks; nil without flags.
func flaggedPatches(rest []uint8, cols int) (flagged, flaggedCol []int32) {
	for i, col := 0, 0; i < len(rest); i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		if rest[i] != 0 {
			flagged = append(flagged, int32(i))
			flaggedCol = append(flaggedCol, int32(col))
		}
	}
	return flagged, flaggedCol
}

// packStreams entropy-codes the streams of a channel in parallel and
// appends them to dst in order: the rest flags' (if any), the symbol
// streams, the escapes.
func packStreams(dst []byte, s *symbolStreams) []byte {
	esc := make([]byte, 0, 2*len(s.esc))
	for _, v := range s.esc {
		esc = binary.LittleEndian.AppendUint16(esc, v)
	}
	in := append(append(append([][]byte(nil), s.flags...), s.sub...), esc)
	out := make([][]byte, len(in))
	parallel.For(len(in), func(k int) {
		var sc fse.Scratch
		out[k] = packStream(nil, in[k], &sc)
	})
	for _, b := range out {
		dst = append(dst, b...)
	}
	return dst
}

// fromSymbols rebuilds the indices, checking every value against bins.
// It mirrors toSymbols. Dimensions are independent (contexts look at the
// same dimension only), so groups of them are decoded in parallel, each
// dimension taking its escapes from its own offset in the escape stream.
// If leading is not nil, it is called once the dimensions the rest flags
// do not cover are in idx (all of them in files without flags), while
// the others are still being decoded; it may read those dimensions of
// idx only, and is not called if they fail to decode.
func fromSymbols(s *symbolStreams, idx []int32, dims, cols int, centre, bins []int, leading func()) error {
	first := make([]int, dims+1) // escape offset of each dimension
	for j := 0; j < dims; j++ {
		n := 0
		for _, k := range dimStreams(j) {
			if k >= len(s.sub) {
				return errors.New("missing symbol stream")
			}
			n += bytes.Count(s.sub[k], []byte{escape})
		}
		first[j+1] = first[j] + n
	}
	if first[dims] != len(s.esc) {
		return errors.New("escape stream length mismatch")
	}
	// The first dimension alone, the others in groups decoded together:
	// each dimension's decoding is a chain (a context depends on the
	// index just decoded), and interleaving independent chains keeps the
	// processor busy while each waits.
	split := dims // the first dimension decoded from the flagged patches' list
	if s.flags != nil {
		split = s.from
	}
	groups := func(from, to int) [][]int {
		var gs [][]int
		if from == 0 {
			gs, from = append(gs, []int{0}), 1
		}
		for j := from; j < to; j += acGroup {
			var g []int
			for a := j; a < min(j+acGroup, to); a++ {
				g = append(g, a)
			}
			gs = append(gs, g)
		}
		return gs
	}
	// Each dimension decodes into a plane of its own, interleaved into
	// idx afterwards: groups writing their dimensions of the same
	// patches straight into idx shared its cache lines (a 4×4 patch's
	// 16 indices fill one) between the cores, and two cores decoded
	// only a fifth faster than one.
	n := len(idx) / dims
	planes := getIndices(n * dims)
	defer putIndices(planes)
	plane := func(j int) []int32 { return planes[j*n : (j+1)*n] }
	decoders := func(g []int) []acDecoder {
		ds := make([]acDecoder, len(g))
		for a, j := range g {
			ds[a] = newACDecoder(s, j, cols, centre[j], bins[j], s.esc[first[j]:first[j+1]], plane(j))
		}
		return ds
	}
	// The dimensions before split, then leading, run beside the rest
	// flags and the dimensions they cover: the flags' decoding is a
	// chain of its own, and the leading cells' inversion (leading) needs
	// only the first dimensions (on a 4×4 texture the two together took
	// 0.3 + 0.6 ms of a 3.9 ms decode on two cores, one after the other).
	var leadErr error
	var wg sync.WaitGroup
	wg.Add(1)
	parallel.Go(func() {
		defer wg.Done()
		gs := groups(0, split)
		errs := make([]error, len(gs))
		parallel.For(len(gs), func(gi int) {
			g := gs[gi]
			if g[0] == 0 {
				errs[gi] = fromSymbolsDC(s, plane(0), cols, centre[0], bins[0])
				return
			}
			errs[gi] = fromSymbolsAC(decoders(g), n, cols)
		})
		if leadErr = firstError(errs); leadErr != nil {
			return
		}
		interleave(idx, planes, dims, 0, split)
		if leading != nil {
			leading()
		}
	})
	restErr := func() error {
		if split == dims {
			return nil
		}
		rest, err := fromFlagStreams(s.flags, n, cols)
		if err != nil {
			return err
		}
		// The dimensions the rest flags cover are decoded for the
		// flagged patches only: a third of a 4×4 texture's patches have
		// none.
		flagged, flaggedCol := flaggedPatches(rest, cols)
		gs := groups(split, dims)
		errs := make([]error, len(gs))
		parallel.For(len(gs), func(gi int) {
			errs[gi] = fromSymbolsFlagged(decoders(gs[gi]), flagged, flaggedCol, cols)
		})
		return firstError(errs)
	}()
	wg.Wait()
	if err := firstError([]error{leadErr, restErr}); err != nil {
		return err
	}
	interleave(idx, planes, dims, split, dims)
	return nil
}

// firstError returns the first error of errs that is not nil, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// interleave copies dimensions from to to-1 of the n = len(planes)/dims
// planes (dimension j's in planes[j*n:(j+1)*n]) into the rows of idx
// (dims per patch), in parallel over blocks of patches, a plane at a time
// within a block: reading the planes in order and writing idx with a
// stride took 0.22 ms on a 4×4 image (one core) where copying row by
// row took 0.58.
func interleave(idx, planes []int32, dims, from, to int) {
	n := len(idx) / dims
	const block = 4096
	parallel.For((n+block-1)/block, func(b int) {
		lo, hi := b*block, min(n, (b+1)*block)
		for j := from; j < to; j++ {
			out := idx[lo*dims+j:]
			for i, v := range planes[j*n+lo : j*n+hi] {
				out[i*dims] = v
			}
		}
	})
}

// acGroup is the number of further dimensions decoded together.
const acGroup = 4

// acDecoder is the state of decoding one further dimension (j >= 1).
type acDecoder struct {
	j, cj, bj int
	subs      [contexts][]byte
	pos       [contexts]int
	esc       []uint16 // the dimension's escapes, in order
	e         int
	above     []int32 // the previous row of blocks
	left      int
	out       []int32 // the dimension's index of every patch
}

func newACDecoder(s *symbolStreams, j, cols, cj, bj int, esc []uint16, out []int32) acDecoder {
	d := acDecoder{j: j, cj: cj, bj: bj, esc: esc, above: make([]int32, cols), out: out}
	for c, k := range dimStreams(j) {
		d.subs[c] = s.sub[k]
	}
	return d
}

// next reads the next symbol of context c and returns the index it codes,
// streamEnded if the stream has ended; the caller checks it against the
// bins (valid). Small enough to be inlined: it runs once per decoded
// index.
func (d *acDecoder) next(c int) int {
	p := d.pos[c]
	if p >= len(d.subs[c]) {
		return streamEnded
	}
	v := int(d.subs[c][p])
	d.pos[c] = p + 1
	if v == escape {
		v += int(d.esc[d.e])
		d.e++
	}
	return d.cj + unzigzag(v)
}

// streamEnded is next's index where a stream has ended.
const streamEnded = math.MinInt

// valid reports whether q is one of the dimension's bins.
func (d *acDecoder) valid(q int) bool { return uint(q) < uint(d.bj) }

// indexError is the error of an index q that is not valid.
func (d *acDecoder) indexError(q int) error {
	if q == streamEnded {
		return errors.New("symbol stream too short")
	}
	return fmt.Errorf("index %d out of the %d bins of dimension %d", q, d.bj, d.j+1)
}

// fromSymbolsAC decodes the dimensions of ds, which the rest flags do
// not cover, for n blocks into their planes, block by block, each with
// the contexts toSymbolsDim coded it with.
func fromSymbolsAC(ds []acDecoder, n, cols int) error {
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		for a := range ds {
			d := &ds[a]
			q := d.next(acContext(i, col, cols, d.left, d.above, d.cj))
			if !d.valid(q) {
				return d.indexError(q)
			}
			d.out[i] = int32(q)
			d.above[col] = int32(q)
			d.left = q
		}
	}
	return checkStreamsEnd(ds)
}

// fromSymbolsFlagged is fromSymbolsAC for dimensions the rest flags
// cover, decoding only the patches listed in flagged (increasing, in
// columns flaggedCol): the others' indices are the centre, filled in
// first, so that each context can read its neighbours from the plane.
// (Looping over every patch with the flags masking the symbols, without
// a branch, was 10 % slower on a 4×4 texture, a third of whose patches
// have no flag.)
func fromSymbolsFlagged(ds []acDecoder, flagged, flaggedCol []int32, cols int) error {
	for a := range ds {
		d := &ds[a]
		for i := range d.out {
			d.out[i] = int32(d.cj)
		}
	}
	for x, f := range flagged {
		i, col := int(f), int(flaggedCol[x])
		for a := range ds {
			d := &ds[a]
			left, up := d.cj, d.cj
			if col > 0 {
				left = int(d.out[i-1])
			}
			if i >= cols {
				up = int(d.out[i-cols])
			}
			q := d.next(neighbourContext(left, up, d.cj))
			if !d.valid(q) {
				return d.indexError(q)
			}
			d.out[i] = int32(q)
		}
	}
	return checkStreamsEnd(ds)
}

// checkStreamsEnd reports an error if a stream of ds holds symbols beyond
// those decoded.
func checkStreamsEnd(ds []acDecoder) error {
	for a := range ds {
		for c := range ds[a].subs {
			if ds[a].pos[c] != len(ds[a].subs[c]) {
				return errors.New("symbol stream too long")
			}
		}
	}
	return nil
}

// dimStreams lists the streams of dimension j.
func dimStreams(j int) []int {
	if j == 0 {
		return []int{0}
	}
	return []int{streamIndex(j, 0), streamIndex(j, 1), streamIndex(j, 2)}
}

// fromSymbolsDC decodes the first dimension into out (one index per
// block): one stream, each index predicted by dcPrediction; its escapes
// come first in the escape stream.
func fromSymbolsDC(s *symbolStreams, out []int32, cols, cj, bj int) error {
	n := len(out)
	sub := s.sub[0]
	if len(sub) != n {
		return errors.New("symbol stream length mismatch")
	}
	above := make([]int32, cols)
	left, esc := 0, 0
	for i, col := 0, 0; i < n; i, col = i+1, col+1 {
		if col == cols {
			col = 0
		}
		v := int(sub[i])
		if v == escape {
			v += int(s.esc[esc])
			esc++
		}
		q := dcPrediction(i, col, cols, left, above, cj) + unzigzag(v)
		if q < 0 || q >= bj {
			return fmt.Errorf("index %d out of the %d bins of dimension 1", q, bj)
		}
		out[i] = int32(q)
		above[col] = int32(q)
		left = q
	}
	return nil
}

// packStream entropy-codes one byte stream: method, symbol count, payload.
func packStream(dst, in []byte, sc *fse.Scratch) []byte {
	method, payload := methodRaw, in
	out, err := fse.Compress(in, sc)
	switch {
	case err == nil && len(out) < len(in):
		method, payload = methodFSE, out
	case errors.Is(err, fse.ErrUseRLE):
		method, payload = methodRLE, in[:1]
	}
	dst = append(dst, method)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(in)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// scratches holds FSE decoders' scratch memory (tables) for reuse across
// streams and files.
var scratches = sync.Pool{New: func() any { return new(fse.Scratch) }}

// packedStream is one parsed, still entropy-coded stream.
type packedStream struct {
	method  byte
	count   int
	payload []byte
}

// parseStream reads one stream header and payload from b, expecting at
// most limit symbols (an int64: the callers' products of blocks and
// dimensions exceed 2^31 for images within the default pixel budget,
// 10^8 pixels 1 high in 15×15 patches, and wrapped on 32-bit platforms).
func parseStream(b []byte, limit int64) (packedStream, []byte, error) {
	if len(b) < 9 {
		return packedStream{}, nil, errors.New("truncated stream header")
	}
	// Both sizes compared as stored, before they become ints: on a
	// 32-bit platform 2^31 and more were negative ints, which passed
	// both checks, and the payload's slice, or the run-length stream's
	// allocation, panicked.
	method, count, plen := b[0], binary.LittleEndian.Uint32(b[1:]), binary.LittleEndian.Uint32(b[5:])
	b = b[9:]
	// No more than an int holds either (2^31 - 1 on 32-bit platforms),
	// for the symbols' buffer.
	if limit = min(limit, math.MaxInt); int64(count) > limit {
		return packedStream{}, nil, fmt.Errorf("stream of %d symbols where at most %d fit the image", count, limit)
	}
	if uint64(plen) > uint64(len(b)) {
		return packedStream{}, nil, errors.New("truncated stream")
	}
	return packedStream{method: method, count: int(count), payload: b[:plen]}, b[plen:], nil
}

// decode returns the symbols of the stream.
func (p packedStream) decode(sc *fse.Scratch) ([]byte, error) {
	switch p.method {
	case methodRaw:
		if len(p.payload) != p.count {
			return nil, errors.New("raw stream length mismatch")
		}
		return p.payload, nil
	case methodRLE:
		if len(p.payload) != 1 {
			return nil, errors.New("bad run-length stream")
		}
		out := make([]byte, p.count)
		for i := range out {
			out[i] = p.payload[0]
		}
		return out, nil
	case methodFSE:
		// Decoded straight into a buffer of the stream's size (the
		// decoder appends blocks of up to 256 symbols), which the scratch
		// then lets go of: no growing, no copy.
		sc.Out = make([]byte, 0, p.count+256)
		sc.DecompressLimit = p.count
		dec, err := fse.Decompress(p.payload, sc)
		sc.Out = nil
		if err != nil {
			return nil, fmt.Errorf("entropy-coded stream: %v", err)
		}
		if len(dec) != p.count {
			return nil, errors.New("entropy-coded stream length mismatch")
		}
		return dec, nil
	}
	return nil, fmt.Errorf("unknown stream method %d", p.method)
}

// signShift shifts an int's sign bit down to every bit (-1 or 0): 63, or
// 31 on 32-bit platforms (where go vet refuses a shift of 63, which Go
// would still take as the sign).
const signShift = bits.UintSize - 1
