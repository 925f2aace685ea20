package codec

// hasRunKernel selects runDual and valueDual (arith_amd64.s) for the
// range coder's run and value with version 6's adaptation: plain amd64
// instructions, on every amd64 machine.
const hasRunKernel = true

// runDual is run's loop for a decoder with version 6's shifts (arAdaptFast,
// arAdaptSlow) on dimensions j to end-1 (j < end), in assembly: the coder's
// state stays in registers, where the Go loop spilled it (about half of
// its instructions). dims points at the first dimension's probabilities
// (the model's dims[0]), devL and devU at the first of the neighbours'
// distances; the caller checks that dims, devL and devU hold end entries
// and that busy < arBusy. It returns the dimension of the first index
// off its centre (end if none), the magnitude less one of its residual as
// counted in unary (arMaxUnary: the Exp-Golomb code follows, for the
// caller to read) and 1 for a negative residual. The decisions are
// decideMasked's, the adaptation arProb.adapt's (TestRunDual).
//
//go:noescape
func runDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, j, end, busy int) (jOut, k, neg int)

// unaryDual decodes the unary part of unaryExpGolomb's code for a
// decoder with version 6's shifts, in assembly, as runDual decodes a
// run: up to n decisions of the probabilities p[0], p[1], ..., a 1 each
// up to the first 0, adapted as arProb.adapt adapts them; it returns the
// number of 1s (n if no 0 came). The caller checks that p holds n
// probabilities (TestUnaryDual).
//
//go:noescape
func unaryDual(d *rangeDecoder, p *arProb, n int) (u int)

// valueDual is rangeEncoder.value for an encoder with version 6's
// shifts, in assembly, as runDual is run's loop: the zero flag, sign and
// unary magnitude of v coded as value codes them (TestValueDual). The
// caller makes room for the bytes it may write (e.cacheSize pending ones
// and two per decision: valueRoom). It returns 0, or 1 where the
// magnitude less one reached arMaxUnary (the Exp-Golomb code, for the
// caller to write, follows), or 2 where the range fell to 0 (a
// probability out of range: zeroRange's bug), leaving the coder's
// state in e.
//
//go:noescape
func valueDual(e *rangeEncoder, zero *arProb, p *arDim, act, v int) (status int)

// runEncDual is rangeEncoder.run for an encoder with version 6's shifts,
// in assembly, as runDual is the decoder's: the residuals row[j] -
// centre[j], from j on below end, coded as value codes them while they
// are 0, then the first that is not (its zero flag, sign and unary
// magnitude), each in the context of the neighbours' rows left and up
// (arRestContext's class, from distances capped as arDevs caps them) and
// busy (TestRunEncDual). dims points at the first dimension's
// probabilities (the model's dims[0]), row, left, up and centre at their
// rows' first entries; the caller checks that they hold end entries and
// that busy < arBusy, and makes room for the bytes the run may write
// (e.cacheSize pending ones and two per decision). It returns the
// dimension of the first residual off 0 (end if none) and the status as
// valueDual's: 1 where the magnitude less one reached arMaxUnary (the
// Exp-Golomb code, for the caller to write, follows), 2 where the range
// fell to 0.
//
//go:noescape
func runEncDual(e *rangeEncoder, dims *arDim, row, left, up, centre *int32, j, end, busy int) (jOut, status int)

// patchDual is runDual's loop carried on past the nonzero residuals of
// a patch, in assembly (see patchRun): the decoder's state stays in
// registers through the patch's dimensions p.j to p.end-1, where a call
// of runDual per nonzero residual, and the Go bookkeeping after each,
// reloaded it. It returns 0, or 1 where a magnitude less one reached
// arMaxUnary at dimension p.j (the Exp-Golomb code follows, for the
// caller to read; p.neg is its sign). The caller checks that dims, devL,
// devU, p.row, p.centre, p.dev and p.listed hold p.end entries and
// p.busy 32, and that every entry of p.busy is below arBusy
// (TestPatchDual).
//
//go:noescape
func patchDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, p *patchRun) (status int)

// patchEncDual is patchDual for the encoder, in assembly: a patch of a
// counted stream coded as encodeAdaptive's calls of valueDual,
// runEncDual and bit code it, with the coder's state in registers (see
// patchRun). It returns 0, 1 where a magnitude less one reached
// arMaxUnary at dimension p.j (the caller writes its Exp-Golomb code and
// records it), 2 where the range fell to 0, or 3 where the count less
// one reached arMaxUnary (the caller writes its Exp-Golomb code, then
// the count down). The caller makes room for the bytes the patch may
// write (TestPatchEncDual).
//
//go:noescape
func patchEncDual(e *rangeEncoder, dims *arDim, left, up *int32, p *patchRun) (status int)

// patchEncVector selects patchEncDual's AVX-512 prologue (see patchRun's
// vec): the residuals and contexts of a patch's dimensions found 16 at a
// time instead of one at each zero flag.
var patchEncVector = hasAVX512

// patchDecVector selects patchDual's AVX-512 prologue (see patchRun's
// vec): the zero flags' contexts of a patch's dimensions found 16 at a
// time instead of one at each zero flag.
var patchDecVector = hasAVX512
