package codec

// hasRunKernel selects runDual (arith_amd64.s) for run with version 6's
// adaptation: plain amd64 instructions, on every amd64 machine.
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
