#include "textflag.h"
#include "go_asm.h"

// Registers of runDual: R8 the next input byte, R9 the input's end, R10
// the range, R11 the code, R12 the dimension j, R13 end; in the zero
// flags' loop SI and DI the neighbours' distances and DX the model's
// dimensions offset by busy; AX, BX, CX and R14 scratch.

// DECIDE decodes one decision of the probability at P as decideMasked
// does, adapts it as arProb.adapt does with shifts 3 and 6 (as
// a - (a-t)>>s, t = 0 after a 1, 4097 - 2^s after a 0), and leaves CX
// all ones after a 0, zero after a 1. Clobbers AX and R14.
#define DECIDE(P) \
	MOVWLZX (P), AX \
	MOVWLZX 2(P), CX \
	ADDL CX, AX \
	SHRL $1, AX \
	MOVL R10, CX \
	SHRL $const_arProbBits, CX \
	IMULL CX, AX \
	MOVL R10, CX \
	SUBL AX, CX \
	MOVL R11, R14 \
	SUBL AX, R14 \
	CMPL R11, AX \
	CMOVLCC CX, AX \
	CMOVLCC R14, R11 \
	MOVL AX, R10 \
	SBBL CX, CX \
	MOVL $(1<<const_arProbBits+1-1<<const_arAdaptFast), AX \
	ANDL CX, AX \
	MOVWLZX (P), R14 \
	SUBL AX, R14 \
	SARL $const_arAdaptFast, R14 \
	MOVWLZX (P), AX \
	SUBL R14, AX \
	MOVW AX, (P) \
	MOVL $(1<<const_arProbBits+1-1<<const_arAdaptSlow), AX \
	ANDL CX, AX \
	MOVWLZX 2(P), R14 \
	SUBL AX, R14 \
	SARL $const_arAdaptSlow, R14 \
	MOVWLZX 2(P), AX \
	SUBL R14, AX \
	MOVW AX, 2(P)

// NORMDEC shifts bytes into the decoder's code (zeros past the input's
// end) until the range is at least arTopValue, as decideMasked does, then
// jumps to BACK; L and PAST are its labels.
#define NORMDEC(L, PAST, BACK) \
L: \
	SHLL $8, R10 \
	SHLL $8, R11 \
	CMPQ R8, R9 \
	JCC PAST \
	MOVBLZX (R8), AX \
	ORL AX, R11 \
PAST: \
	INCQ R8 \
	CMPL R10, $const_arTopValue \
	JCS L \
	JMP BACK

// ACT sets dst to the activity class of dimension j (arDevClasses of
// devL[j] + devU[j], masked as run masks it). Clobbers CX.
#define ACT(dst) \
	MOVBLZX (SI)(R12*1), dst \
	MOVBLZX (DI)(R12*1), CX \
	ADDL CX, dst \
	ANDL $31, dst \
	LEAQ ·arDevClasses(SB), CX \
	MOVBLZX (CX)(dst*1), dst

// LOADDEC loads the state of the decoder at BX into runDual's
// registers: R8 the next input byte, R9 the input's end, R10 the range,
// R11 the code.
#define LOADDEC \
	MOVQ rangeDecoder_in(BX), R8 \
	MOVQ (rangeDecoder_in+8)(BX), R9 \
	ADDQ R8, R9 \
	ADDQ rangeDecoder_pos(BX), R8 \
	MOVL rangeDecoder_rng(BX), R10 \
	MOVL rangeDecoder_code(BX), R11

// STOREDEC stores LOADDEC's registers back into the decoder at BX.
#define STOREDEC \
	MOVL R10, rangeDecoder_rng(BX) \
	MOVL R11, rangeDecoder_code(BX) \
	SUBQ rangeDecoder_in(BX), R8 \
	MOVQ R8, rangeDecoder_pos(BX)

// SIGNMAG decodes the sign of the residual at dimension R12, in the
// context of the class of the distances at SI and DI, with
// p.sign[min(act, 2)] into DI (zero for a negative residual), then its
// magnitude less one in unary with p.mag[min(act/2, 2)] into SI, up to
// arMaxUnary; DX is left at the dimension's probabilities. It jumps to
// END after the unary 0 and falls through where SI reached arMaxUnary.
// The caller places the normalisations: NORMDEC(SIGNNORM, ..., SIGNDONE)
// and NORMDEC(MAGNORM, ..., MAGDONE).
#define SIGNMAG(SIGNNORM, SIGNDONE, MAG, MAGNORM, MAGDONE, END) \
	ACT(SI) \
	MOVQ dims+8(FP), DX \
	IMUL3Q $arDim__size, R12, AX \
	ADDQ AX, DX \
	MOVL SI, AX \
	MOVL $2, CX \
	CMPL AX, CX \
	CMOVLGT CX, AX \
	LEAQ arDim_sign(DX)(AX*4), BX \
	DECIDE(BX) \
	MOVL CX, DI \
	CMPL R10, $const_arTopValue \
	JCS SIGNNORM \
SIGNDONE: \
	SHRL $1, SI \
	MOVL $2, CX \
	CMPL SI, CX \
	CMOVLGT CX, SI \
	IMUL3Q $(4*const_arMaxUnary), SI, SI \
	LEAQ arDim_mag(DX)(SI*1), BX \
	XORL SI, SI \
MAG: \
	DECIDE(BX) \
	CMPL R10, $const_arTopValue \
	JCS MAGNORM \
MAGDONE: \
	TESTL CX, CX \
	JNE END \
	ADDQ $4, BX \
	INCQ SI \
	CMPQ SI, $const_arMaxUnary \
	JLT MAG

// patchDual's decisions branch on their outcome (where DECIDE selects
// both by masks and the caller branched on the mask after it), each
// outcome adapting the probability by its own constants: a decision of
// the zero flags, magnitudes, rest flag and count took 38 instructions
// with DECIDE, its normalisation check and the branch, 23 so (the
// outcomes are the ones DECIDE selects, the adaptations the same
// operations). The sign, which no predictor can guess, keeps DECIDE.

// BOUND compares the decoder's code with the bound of a 0 of the
// probability at P: it leaves the bound in AX, the slow estimate in
// R14 and the flags of the code less the bound (carry: a 0, for
// ZEROARM; else a 1, for ONEARM). Clobbers CX.
#define BOUND(P) \
	MOVL R10, CX \
	SHRL $const_arProbBits, CX \
	MOVWLZX (P), AX \
	MOVWLZX 2(P), R14 \
	ADDL R14, AX \
	SHRL $1, AX \
	IMULL CX, AX \
	CMPL R11, AX

// ZEROARM ends BOUND's decision at P as a 0, as DECIDE does: the range
// becomes the bound and the estimates adapt as a - (a-t)>>s with t =
// 4097 - 2^s. Clobbers AX, CX and R14.
#define ZEROARM(P) \
	MOVL AX, R10 \
	MOVWLZX (P), AX \
	LEAL -(1<<const_arProbBits+1-1<<const_arAdaptFast)(AX), CX \
	SARL $const_arAdaptFast, CX \
	SUBL CX, AX \
	MOVW AX, (P) \
	LEAL -(1<<const_arProbBits+1-1<<const_arAdaptSlow)(R14), CX \
	SARL $const_arAdaptSlow, CX \
	SUBL CX, R14 \
	MOVW R14, 2(P)

// ONEARM ends BOUND's decision at P as a 1, as DECIDE does: the bound
// comes off the range and the code, and the estimates adapt as a - a>>s.
// Clobbers AX, CX and R14.
#define ONEARM(P) \
	SUBL AX, R10 \
	SUBL AX, R11 \
	MOVWLZX (P), AX \
	MOVL AX, CX \
	SHRL $const_arAdaptFast, CX \
	SUBL CX, AX \
	MOVW AX, (P) \
	MOVL R14, CX \
	SHRL $const_arAdaptSlow, CX \
	SUBL CX, R14 \
	MOVW R14, 2(P)

// SIGNMAGB is SIGNMAG with the magnitude's decisions through BOUND: it
// jumps to ZERO at the unary 0, where the caller ends the decision
// (ZEROARM at BX), and falls through where SI reached arMaxUnary. The
// class of dimension j is the one its zero flag took, which patchDual
// keeps in its result's slot: ACT's chain of three loads lay between
// the zero flag's mispredicted branch and the sign's decision.
#define SIGNMAGB(SIGNNORM, SIGNDONE, MAG, MAGNORM, MAGDONE, ZERO) \
	MOVQ status+40(FP), SI \
	MOVQ dims+8(FP), DX \
	IMUL3Q $arDim__size, R12, AX \
	ADDQ AX, DX \
	MOVL SI, AX \
	MOVL $2, CX \
	CMPL AX, CX \
	CMOVLGT CX, AX \
	LEAQ arDim_sign(DX)(AX*4), BX \
	DECIDE(BX) \
	MOVL CX, DI \
	CMPL R10, $const_arTopValue \
	JCS SIGNNORM \
SIGNDONE: \
	SHRL $1, SI \
	MOVL $2, CX \
	CMPL SI, CX \
	CMOVLGT CX, SI \
	IMUL3Q $(4*const_arMaxUnary), SI, SI \
	LEAQ arDim_mag(DX)(SI*1), BX \
	XORL SI, SI \
MAG: \
	BOUND(BX) \
	JCS ZERO \
	ONEARM(BX) \
	CMPL R10, $const_arTopValue \
	JCS MAGNORM \
MAGDONE: \
	ADDQ $4, BX \
	INCQ SI \
	CMPQ SI, $const_arMaxUnary \
	JLT MAG

// BUSYCLASS turns AX, a count of a patch's residuals off 0, into its
// busy class arBusyCounts[min(AX, 31) + p.boff] (BX is p). Clobbers CX.
#define BUSYCLASS \
	MOVL $31, CX \
	CMPQ AX, CX \
	CMOVQGT CX, AX \
	ADDQ patchRun_boff(BX), AX \
	LEAQ ·arBusyCounts(SB), CX \
	MOVBLZX (CX)(AX*1), AX

// CTXLANES sets the lane constants the AVX-512 context prologues of
// patchDual and patchEncDual share: Z8 arDim's size, Z9 lane i's offset
// of dims[i].zero, Z10 sixteen dimensions' stride, Z11 the busy classes'
// stride (4*arBusy), Z12 2, Z13 arDim_sign, Z14 arDim_mag, Z15 the
// stride of mag's classes (4*arMaxUnary).
#define CTXLANES \
	MOVL $arDim__size, AX; \
	VPBROADCASTD AX, Z8; \
	VPMOVZXBD encIota<>(SB), Z9; \
	VPMULLD Z8, Z9, Z9; \
	MOVL $arDim_zero, AX; \
	VPBROADCASTD AX, Z10; \
	VPADDD Z10, Z9, Z9; \
	MOVL $(16*arDim__size), AX; \
	VPBROADCASTD AX, Z10; \
	MOVL $(4*const_arBusy), AX; \
	VPBROADCASTD AX, Z11; \
	MOVL $2, AX; \
	VPBROADCASTD AX, Z12; \
	MOVL $arDim_sign, AX; \
	VPBROADCASTD AX, Z13; \
	MOVL $arDim_mag, AX; \
	VPBROADCASTD AX, Z14; \
	MOVL $(4*const_arMaxUnary), AX; \
	VPBROADCASTD AX, Z15

// CTXOFFS turns sixteen dimensions' activity classes in Z2 (lane i
// dimension j+i, Z9 their zero flags' offsets) into their contexts in
// Z3 as the prologues keep them: the zero flags' offset from dims,
// j*arDim__size + arDim_zero + 4*arBusy*act (16 bits), then the offsets
// from the dimension's probabilities of its sign's, p.sign[min(act, 2)],
// and of its magnitude's, p.mag[min(act/2, 2)] (8 bits each, as
// SIGNMAGOFF finds them). Clobbers Z2 and Z4.
#define CTXOFFS \
	VPMULLD Z11, Z2, Z3; \
	VPADDD Z9, Z3, Z3; \
	VPMINUD Z12, Z2, Z4; \
	VPSLLD $2, Z4, Z4; \
	VPADDD Z13, Z4, Z4; \
	VPSLLD $16, Z4, Z4; \
	VPADDD Z4, Z3, Z3; \
	VPSRLD $1, Z2, Z2; \
	VPMINUD Z12, Z2, Z2; \
	VPMULLD Z15, Z2, Z2; \
	VPADDD Z14, Z2, Z2; \
	VPSLLD $24, Z2, Z2; \
	VPADDD Z2, Z3, Z3

// func runDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, j, end, busy int) (jOut, k, neg int)
TEXT ·runDual(SB), NOSPLIT, $0-80
	MOVQ d+0(FP), BX
	LOADDEC
	MOVQ dims+8(FP), DX
	MOVQ busy+48(FP), AX
	LEAQ (DX)(AX*4), DX
	MOVQ devL+16(FP), SI
	MOVQ devU+24(FP), DI
	MOVQ j+32(FP), R12
	MOVQ end+40(FP), R13

zeros:
	// The zero flag of dimension j: p.zero[act][busy].
	ACT(AX)
	IMUL3Q $arDim__size, R12, BX
	ADDQ DX, BX
	LEAQ (AX)(AX*4), AX
	LEAQ arDim_zero(BX)(AX*4), BX
	DECIDE(BX)
	CMPL R10, $const_arTopValue
	JCS zeronorm

zerodone:
	TESTL CX, CX
	JEQ nonzero
	INCQ R12
	CMPQ R12, R13
	JLT zeros
	MOVQ $0, k+64(FP)
	MOVQ $0, neg+72(FP)
	JMP store

	NORMDEC(zeronorm, zeropast, zerodone)

nonzero:
	// The sign, p.sign[min(act, 2)], then the magnitude less one in
	// unary, p.mag[min(act/2, 2)], up to arMaxUnary.
	SIGNMAG(signnorm, signdone, mag, magnorm, magdone, magend)

magend:
	MOVQ SI, k+64(FP)
	XORL AX, AX
	TESTL DI, DI
	SETEQ AL
	MOVQ AX, neg+72(FP)

store:
	MOVQ R12, jOut+56(FP)
	MOVQ d+0(FP), BX
	STOREDEC
	RET

	NORMDEC(signnorm, signpast, signdone)

	NORMDEC(magnorm, magpast, magdone)

// func unaryDual(d *rangeDecoder, p *arProb, n int) (u int)
// The unary decisions of unaryExpGolomb's decoder with version 6's
// shifts, with runDual's registers: the probabilities at p, p+4, ...,
// a 1 each up to the first 0 or n of them; it returns how many 1s came.
TEXT ·unaryDual(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), BX
	LOADDEC
	MOVQ p+8(FP), BX
	MOVQ n+16(FP), R13
	XORL SI, SI
	CMPQ SI, R13
	JGE unaryend

unary:
	DECIDE(BX)
	CMPL R10, $const_arTopValue
	JCS unarynorm

unarydone:
	TESTL CX, CX
	JNE unaryend
	ADDQ $4, BX
	INCQ SI
	CMPQ SI, R13
	JLT unary

unaryend:
	MOVQ SI, u+24(FP)
	MOVQ d+0(FP), BX
	STOREDEC
	RET

	NORMDEC(unarynorm, unarypast, unarydone)
// func patchDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, p *patchRun) (status int)
// runDual's loop carried on past the nonzero residuals of a patch: each
// is written into the patch (p.row, p.dev, p.listed) and counted (p.cnt
// += p.step, the busy class then arBusyCounts[min(p.cnt, 31) + p.boff]) and the run goes
// on, up to p.end or until p.cnt reaches 0. From dimension 0 on (p.j =
// 0), the first dimension is decoded too, as decodeAdaptive's first
// call of runDual decodes it (its centre p.centre[0] is then the
// patch's prediction), and not counted. Registers as runDual's; the
// patch's arrays are loaded from p at each nonzero residual. It returns
// 0 there (p.j the dimension after the last decoded), 1 where a
// magnitude less one reached arMaxUnary at dimension p.j (p.neg its
// sign; nothing of it written: the caller reads the Exp-Golomb code),
// 2 where the index at dimension p.j (written into p.row) is out of
// [0, p.bins[p.j]), 3 where the count after the rest flag reached
// arMaxUnary in unary (its Exp-Golomb code follows, for the caller), or
// 4 where the count, p.counted, exceeds the dimensions after the flag.
// Where p.pending is not 0, the run stops at p.end for the rest flag
// (see pflag) and, if it is 1, goes on after it to p.dims.
TEXT ·patchDual(SB), NOSPLIT, $288-48
	MOVQ d+0(FP), BX
	LOADDEC
	MOVQ p+32(FP), BX
	CMPQ patchRun_vec(BX), $0
	JEQ pprepped
	// With p.vec (AVX-512, p.dims <= 64) the contexts of every dimension
	// into ctx, 16 a step (the last under a mask): CTXOFFS's offsets of
	// its zero flag, sign and magnitude, from act, the class of devL[j] +
	// devU[j] (ACT). Each zero flag found them on its own by ACT's chain
	// of three loads, which lay between a mispredicted outcome and the
	// next decision's bound.
	MOVQ devL+16(FP), SI
	MOVQ devU+24(FP), DI
	MOVQ patchRun_dims(BX), CX
	VPMOVZXBD ·arDevClasses(SB), Z5
	VPMOVZXBD ·arDevClasses+16(SB), Z6
	MOVL $31, AX
	VPBROADCASTD AX, Z7
	CTXLANES
	LEAQ ctx-272(SP), R14
	XORL AX, AX

pprep:
	MOVL $0xFFFF, DX
	BZHIL CX, DX, DX
	KMOVW DX, K1
	VPMOVZXBD.Z (SI)(AX*1), K1, Z2
	VPMOVZXBD.Z (DI)(AX*1), K1, Z3
	VPADDD Z3, Z2, Z2
	VPANDD Z7, Z2, Z2
	VPERMI2D Z6, Z5, Z2
	CTXOFFS
	VMOVDQU32 Z3, (R14)(AX*4)
	VPADDD Z10, Z9, Z9
	ADDQ $16, AX
	SUBQ $16, CX
	JGT pprep
	VZEROUPPER
	// ctx[p.dims] = 0: pnonzerov's look at dimension j+1 stays in dims.
	MOVQ patchRun_dims(BX), AX
	MOVL $0, (R14)(AX*4)

pprepped:
	MOVQ patchRun_j(BX), R12
	MOVQ patchRun_end(BX), R13
	CMPQ R12, R13
	JGE pdone
	TESTQ R12, R12
	JNE pbusy
	// The first dimension: its zero flag in the context of the class
	// whose distance p.dev[0] holds (p.none[0] is 0), busy 0; a residual
	// off 0 is not counted.
	MOVQ dims+8(FP), DX
	MOVQ patchRun_dev(BX), SI
	MOVQ patchRun_none(BX), DI
	ACT(AX)
	MOVQ AX, status+40(FP)
	MOVQ DX, BX
	LEAQ (AX)(AX*4), AX
	LEAQ arDim_zero(BX)(AX*4), BX
	BOUND(BX)
	JCC pfirstone
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pfirstnorm

pfirstdone:
	INCQ R12
	CMPQ R12, R13
	JLT pbusy
	JMP pdone

	NORMDEC(pfirstnorm, pfirstpast, pfirstdone)

pfirstone:
	ONEARM(BX)
	CMPL R10, $const_arTopValue
	JCC pnonzero
	NORMDEC(pfirstonenorm, pfirstonepast, pnonzero)

pbusy:
	// DX: the model's dimensions offset by the busy class of p.cnt.
	MOVQ p+32(FP), BX
	MOVQ patchRun_cnt(BX), AX
	BUSYCLASS
	MOVQ dims+8(FP), DX
	LEAQ (DX)(AX*4), DX
	MOVQ devL+16(FP), SI
	MOVQ devU+24(FP), DI
	CMPQ patchRun_vec(BX), $0
	JNE pzerosv

pzeros:
	ACT(AX)
	MOVQ AX, status+40(FP)
	IMUL3Q $arDim__size, R12, BX
	ADDQ DX, BX
	LEAQ (AX)(AX*4), AX
	LEAQ arDim_zero(BX)(AX*4), BX
	BOUND(BX)
	JCC pzeroone
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pzeronorm

pzerodone:
	INCQ R12
	CMPQ R12, R13
	JLT pzeros
	JMP pdone

	NORMDEC(pzeronorm, pzeropast, pzerodone)

pzeroone:
	ONEARM(BX)
	CMPL R10, $const_arTopValue
	JCC pnonzero
	NORMDEC(pzeroonenorm, pzeroonepast, pnonzero)

pzerosv:
	// The zero flags with the prologue's contexts.
	MOVWLZX ctx-272(SP)(R12*4), BX
	ADDQ DX, BX
	BOUND(BX)
	JCC pzeroonev
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pzeronormv

pzerodonev:
	INCQ R12
	CMPQ R12, R13
	JLT pzerosv
	JMP pdone

	NORMDEC(pzeronormv, pzeropastv, pzerodonev)

pzeroonev:
	ONEARM(BX)
	CMPL R10, $const_arTopValue
	JCC pnonzerov
	NORMDEC(pzeroonenormv, pzeroonepastv, pnonzerov)

pnonzerov:
	// A residual off 0 at j > 0 with the prologue. What the zero flag
	// after it takes is known now, whatever the residual: the busy base
	// of p.cnt + p.step into nbase and dimension j+1's zero flag's
	// probability, (a+b)>>1, into np (this residual's decisions do not
	// touch it). pcount found them after the magnitude's last decision,
	// often mispredicted, by a chain of loads through p.cnt's store
	// (pbusy) to the probability, ~25 cycles before the next bound (12
	// kodim13-24 grey d8b, decode in one process: -3 %).
	MOVQ p+32(FP), BX
	MOVQ patchRun_cnt(BX), AX
	ADDQ patchRun_step(BX), AX
	BUSYCLASS
	MOVQ dims+8(FP), CX
	LEAQ (CX)(AX*4), AX
	MOVQ AX, nbase-280(SP)
	MOVWLZX ctx-268(SP)(R12*4), CX
	ADDQ AX, CX
	MOVWLZX (CX), R14
	MOVWLZX 2(CX), CX
	ADDL CX, R14
	SHRL $1, R14
	MOVL R14, np-288(SP)
	// The sign, then the magnitude in SIGNMAGB's loop, with the
	// prologue's offsets of their probabilities (SIGNMAGB's class
	// through the frame, its minimums and scales were a chain after the
	// zero flag's mispredicted branches).
	MOVL ctx-272(SP)(R12*4), SI
	IMUL3Q $arDim__size, R12, DX
	ADDQ dims+8(FP), DX
	MOVL SI, AX
	SHRL $16, AX
	MOVBLZX AL, AX
	LEAQ (DX)(AX*1), BX
	DECIDE(BX)
	MOVL CX, DI
	CMPL R10, $const_arTopValue
	JCS psignnormv

psigndonev:
	SHRL $24, SI
	LEAQ (DX)(SI*1), BX
	XORL SI, SI
	JMP pmag

	NORMDEC(psignnormv, psignpastv, psigndonev)

pnonzero:
	// The sign and the unary magnitude, as runDual decodes them.
	SIGNMAGB(psignnorm, psigndone, pmag, pmagnorm, pmagdone, pmagzero)
	// The Exp-Golomb code follows: the caller's.
	MOVQ p+32(FP), BX
	XORL AX, AX
	TESTL DI, DI
	SETEQ AL
	MOVQ AX, patchRun_neg(BX)
	MOVQ R12, patchRun_j(BX)
	MOVQ d+0(FP), BX
	STOREDEC
	MOVQ $1, status+40(FP)
	RET

pmagzero:
	// The magnitude's unary 0.
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pmagzeronorm

pmagend:
	// |v| = SI+1; dev[j] = min(|v|, arDevMax); row[j] = centre[j] + v
	// (v negative where the sign decision was a 1: DI zero).
	MOVQ p+32(FP), BX
	LEAQ 1(SI), AX
	MOVQ AX, R14
	MOVL $const_arDevMax, CX
	CMPQ R14, CX
	CMOVQGT CX, R14
	MOVQ patchRun_dev(BX), CX
	MOVB R14, (CX)(R12*1)
	MOVQ AX, R14
	NEGQ R14
	TESTL DI, DI
	CMOVQEQ R14, AX
	MOVQ patchRun_centre(BX), CX
	MOVL (CX)(R12*4), R14
	ADDL AX, R14
	MOVQ patchRun_row(BX), CX
	MOVL R14, (CX)(R12*4)
	// An index out of [0, bins[j]) (unsigned: negative ones too) ends
	// the patch: status 2, p.j its dimension.
	MOVQ patchRun_bins(BX), CX
	CMPL R14, (CX)(R12*4)
	JCC prange
	CMPQ R12, patchRun_lead(BX)
	JLT pcount
	MOVQ patchRun_nl(BX), AX
	MOVQ patchRun_listed(BX), CX
	MOVL R12, (CX)(AX*4)
	INCQ AX
	MOVQ AX, patchRun_nl(BX)

pcount:
	TESTQ R12, R12
	JEQ pfirstoff
	INCQ R12
	MOVQ patchRun_cnt(BX), AX
	ADDQ patchRun_step(BX), AX
	MOVQ AX, patchRun_cnt(BX)
	JEQ pdone
	CMPQ R12, R13
	JGE pdone
	CMPQ patchRun_vec(BX), $0
	JEQ pbusy
	// With the prologue (pnonzerov): the zero flag of j as pzerosv's,
	// with nbase and np.
	MOVQ nbase-280(SP), DX
	MOVWLZX ctx-272(SP)(R12*4), BX
	ADDQ DX, BX
	MOVL R10, CX
	SHRL $const_arProbBits, CX
	MOVL np-288(SP), AX
	IMULL CX, AX
	MOVWLZX 2(BX), R14
	CMPL R11, AX
	JCC pzeroonev
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pzeronormv
	JMP pzerodonev

pfirstoff:
	INCQ R12
	CMPQ R12, R13
	JLT pbusy

pdone:
	MOVQ p+32(FP), BX
	CMPQ patchRun_pending(BX), $0
	JNE pflag

pend:
	MOVQ R12, patchRun_j(BX)
	MOVQ d+0(FP), BX
	STOREDEC
	MOVQ $0, status+40(FP)
	RET

pflag:
	// The rest flag (at p.j = p.end, the flag's dimension), of
	// probability p.flag[busy class of p.cnt]; then, if it is 1, the
	// count of the dimensions off their centre after it, in unary with
	// the probabilities p.count, and the run through them.
	MOVQ $0, patchRun_pending(BX)
	MOVQ patchRun_cnt(BX), CX
	MOVL $31, SI
	CMPQ CX, SI
	CMOVQGT SI, CX
	ADDQ patchRun_boff(BX), CX
	LEAQ ·arBusyCounts(SB), SI
	MOVBLZX (SI)(CX*1), CX
	MOVQ patchRun_flag(BX), AX
	LEAQ (AX)(CX*4), BX
	BOUND(BX)
	JCS pflagzero
	ONEARM(BX)
	CMPL R10, $const_arTopValue
	JCS pflagnorm

pflagdone:
	MOVQ p+32(FP), BX
	MOVQ $1, patchRun_rest(BX)
	MOVQ patchRun_count(BX), BX
	XORL SI, SI

pcountbit:
	BOUND(BX)
	JCS pcountzero
	ONEARM(BX)
	CMPL R10, $const_arTopValue
	JCS pcountnorm

pcountdone:
	ADDQ $4, BX
	INCQ SI
	CMPQ SI, $const_arMaxUnary
	JLT pcountbit
	// The count's Exp-Golomb code follows: the caller's.
	MOVQ p+32(FP), BX
	MOVQ R12, patchRun_j(BX)
	MOVQ d+0(FP), BX
	STOREDEC
	MOVQ $3, status+40(FP)
	RET

pcountzero:
	// The count's unary 0.
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pcountzeronorm

pcounted:
	// SI+1 dimensions off their centre from p.j on, at most p.dims - p.j.
	MOVQ p+32(FP), BX
	INCQ SI
	MOVQ SI, patchRun_cnt(BX)
	MOVQ SI, patchRun_counted(BX)
	MOVQ patchRun_dims(BX), R13
	MOVQ R13, AX
	SUBQ R12, AX
	CMPQ SI, AX
	JGT pcounterr
	MOVQ R13, patchRun_end(BX)
	MOVQ $-1, patchRun_step(BX)
	MOVQ $32, patchRun_boff(BX)
	CMPQ R12, R13
	JLT pbusy
	JMP pend

pcounterr:
	MOVQ R12, patchRun_j(BX)
	MOVQ d+0(FP), BX
	STOREDEC
	MOVQ $4, status+40(FP)
	RET

pflagzero:
	// The rest flag is 0: the patch ends.
	ZEROARM(BX)
	CMPL R10, $const_arTopValue
	JCS pflagzeronorm

pflagzerodone:
	MOVQ p+32(FP), BX
	JMP pend

	NORMDEC(pflagnorm, pflagpast, pflagdone)

	NORMDEC(pflagzeronorm, pflagzeropast, pflagzerodone)

	NORMDEC(pcountnorm, pcountpast, pcountdone)

	NORMDEC(pcountzeronorm, pcountzeropast, pcounted)

prange:
	MOVQ R12, patchRun_j(BX)
	MOVQ d+0(FP), BX
	STOREDEC
	MOVQ $2, status+40(FP)
	RET

	NORMDEC(psignnorm, psignpast, psigndone)

	NORMDEC(pmagnorm, pmagpast, pmagdone)

	NORMDEC(pmagzeronorm, pmagzeropast, pmagend)

// Registers of valueDual: R8 low, R10 the range, R9 the output's array,
// R11 its length, DI the encoder, DX the bit as a mask (all ones for a
// 1), SI the value, R12 the probability, R13 the dimension's
// probabilities then the unary position; AX, BX, CX and R14 scratch.

// ENCODE codes the bit DX with the probability at P as rangeEncoder.bit
// does and adapts it as arProb.adapt does with shifts 3 and 6. Clobbers
// AX, BX and CX.
#define ENCODE(P) \
	MOVWLZX (P), AX \
	MOVWLZX 2(P), BX \
	ADDL BX, AX \
	SHRL $1, AX \
	MOVL R10, BX \
	SHRL $const_arProbBits, BX \
	IMULL BX, AX \
	MOVL AX, BX \
	ANDL DX, BX \
	ADDQ BX, R8 \
	SUBL AX, R10 \
	TESTL DX, DX \
	CMOVLEQ AX, R10 \
	MOVL DX, BX \
	NOTL BX \
	ANDL $(1<<const_arProbBits+1-1<<const_arAdaptFast), BX \
	MOVWLZX (P), AX \
	MOVL AX, CX \
	SUBL BX, CX \
	SARL $const_arAdaptFast, CX \
	SUBL CX, AX \
	MOVW AX, (P) \
	MOVL DX, BX \
	NOTL BX \
	ANDL $(1<<const_arProbBits+1-1<<const_arAdaptSlow), BX \
	MOVWLZX 2(P), AX \
	MOVL AX, CX \
	SUBL BX, CX \
	SARL $const_arAdaptSlow, CX \
	SUBL CX, AX \
	MOVW AX, 2(P)

// NORMENC shifts the encoder's range up by bytes until it is at least
// arTopValue, each time doing rangeEncoder.shiftLow (bytes out at R9+R11,
// the carry into the pending ones), then jumps to BACK; a range of 0
// jumps to zerorange instead. L, FLUSH, BYTE and KEEP are its labels.
#define NORMENC(L, FLUSH, BYTE, KEEP, BACK) \
L: \
	TESTL R10, R10 \
	JEQ zerorange \
	SHLL $8, R10 \
	MOVL R8, AX \
	CMPL AX, $0xFF000000 \
	JCS FLUSH \
	MOVQ R8, AX \
	SHRQ $32, AX \
	JEQ KEEP \
FLUSH: \
	MOVQ R8, CX \
	SHRQ $32, CX \
	MOVBLZX rangeEncoder_cache(DI), BX \
	MOVQ rangeEncoder_cacheSize(DI), R14 \
BYTE: \
	LEAL (BX)(CX*1), AX \
	MOVB AL, (R9)(R11*1) \
	INCQ R11 \
	MOVL $0xFF, BX \
	DECQ R14 \
	JNE BYTE \
	MOVQ R8, AX \
	SHRQ $24, AX \
	MOVB AL, rangeEncoder_cache(DI) \
	MOVQ R14, rangeEncoder_cacheSize(DI) \
KEEP: \
	INCQ rangeEncoder_cacheSize(DI) \
	ANDQ $0xFFFFFF, R8 \
	SHLQ $8, R8 \
	CMPL R10, $const_arTopValue \
	JCS L \
	JMP BACK

// UNARYTAIL ends valueDual and runEncDual: the magnitude less one, K,
// in unary from position U (0) with the probabilities at P (a 1 for
// each position below K, a 0 at K, up to arMaxUnary), the status result
// (STATUS: its name and offset; 1 where K reached arMaxUnary), the
// coder's state stored, and the normalisations of the three codings
// (norm1-norm3, back to coded1-coded3). Clobbers AX, BX, CX, DX and R14.
#define UNARYTAIL(P, K, U, STATUS) \
mag: \
	XORL DX, DX \
	CMPQ K, U \
	SETNE DL \
	NEGL DX \
	ENCODE(P) \
	CMPL R10, $const_arTopValue \
	JCS norm3 \
coded3: \
	TESTL DX, DX \
	JEQ done \
	ADDQ $4, P \
	INCQ U \
	CMPQ U, $const_arMaxUnary \
	JLT mag \
	MOVQ $1, STATUS(FP) \
	JMP store \
done: \
	MOVQ $0, STATUS(FP) \
store: \
	MOVQ R8, rangeEncoder_low(DI) \
	MOVL R10, rangeEncoder_rng(DI) \
	MOVQ R11, (rangeEncoder_out+8)(DI) \
	RET \
zerorange: \
	MOVQ $2, STATUS(FP) \
	JMP store \
	NORMENC(norm1, norm1flush, norm1byte, norm1keep, coded1) \
	NORMENC(norm2, norm2flush, norm2byte, norm2keep, coded2) \
	NORMENC(norm3, norm3flush, norm3byte, norm3keep, coded3)

// func valueDual(e *rangeEncoder, zero *arProb, p *arDim, act, v int) (status int)
TEXT ·valueDual(SB), NOSPLIT, $0-48
	MOVQ e+0(FP), DI
	MOVQ rangeEncoder_low(DI), R8
	MOVL rangeEncoder_rng(DI), R10
	MOVQ rangeEncoder_out(DI), R9
	MOVQ (rangeEncoder_out+8)(DI), R11
	MOVQ v+32(FP), SI
	MOVQ p+16(FP), R13

	// The zero flag: a 1 for a value off the centre.
	XORL DX, DX
	TESTQ SI, SI
	SETNE DL
	NEGL DX
	MOVQ zero+8(FP), R12
	ENCODE(R12)
	CMPL R10, $const_arTopValue
	JCS norm1

coded1:
	TESTQ SI, SI
	JEQ done

	// The sign, p.sign[min(act, 2)]: a 1 for a negative value.
	MOVQ SI, DX
	SARQ $63, DX
	XORQ DX, SI
	SUBQ DX, SI
	MOVQ act+24(FP), AX
	MOVL $2, CX
	CMPQ AX, CX
	CMOVQGT CX, AX
	LEAQ arDim_sign(R13)(AX*4), R12
	ENCODE(R12)
	CMPL R10, $const_arTopValue
	JCS norm2

coded2:
	// The magnitude less one, k, in unary up to arMaxUnary with
	// p.mag[min(act/2, 2)]: a 1 for each position below k, a 0 at k.
	DECQ SI
	MOVQ act+24(FP), AX
	SHRQ $1, AX
	MOVL $2, CX
	CMPQ AX, CX
	CMOVQGT CX, AX
	IMUL3Q $(4*const_arMaxUnary), AX, AX
	LEAQ arDim_mag(R13)(AX*1), R12
	XORL R13, R13

	UNARYTAIL(R12, SI, R13, status+40)

// Registers of runEncDual: R8 low, R10 the range, R9 the output's array,
// R11 its length, DI the encoder, DX the bit as a mask (all ones for a
// 1), R12 the dimension j, R13 end, SI the activity class; after the run
// of zeros R13 the dimension's probabilities then the unary position, R12
// the magnitude less one, SI the probability; AX, BX, CX and R14
// scratch.

// DEV adds to dst the distance of the index at R(12) of the row at
// ROW(FP) from CX (the centre), capped at arDevMax. Clobbers AX and R14.
#define DEV(ROW, dst) \
	MOVQ ROW, AX \
	MOVL (AX)(R12*4), R14 \
	SUBL CX, R14 \
	MOVL R14, AX \
	SARL $31, AX \
	XORL AX, R14 \
	SUBL AX, R14 \
	MOVL $const_arDevMax, AX \
	CMPL R14, AX \
	CMOVLGT AX, R14 \
	ADDL R14, dst

// func runEncDual(e *rangeEncoder, dims *arDim, row, left, up, centre *int32, j, end, busy int) (jOut, status int)
TEXT ·runEncDual(SB), NOSPLIT, $0-88
	MOVQ e+0(FP), DI
	MOVQ rangeEncoder_low(DI), R8
	MOVL rangeEncoder_rng(DI), R10
	MOVQ rangeEncoder_out(DI), R9
	MOVQ (rangeEncoder_out+8)(DI), R11
	MOVQ j+48(FP), R12
	MOVQ end+56(FP), R13

zeros:
	// The context of dimension j: arDevClasses of the neighbours'
	// capped distances from the centre cj (CX).
	MOVQ centre+40(FP), AX
	MOVL (AX)(R12*4), CX
	XORL BX, BX
	DEV(left+24(FP), BX)
	DEV(up+32(FP), BX)
	LEAQ ·arDevClasses(SB), AX
	MOVBLZX (AX)(BX*1), SI
	// The zero flag, p.zero[act][busy]: a 1 for a residual off 0.
	MOVQ row+16(FP), AX
	XORL DX, DX
	CMPL (AX)(R12*4), CX
	SETNE DL
	NEGL DX
	IMUL3Q $arDim__size, R12, BX
	ADDQ dims+8(FP), BX
	LEAQ (SI)(SI*4), AX
	ADDQ busy+64(FP), AX
	LEAQ arDim_zero(BX)(AX*4), R14
	ENCODE(R14)
	CMPL R10, $const_arTopValue
	JCS norm1

coded1:
	TESTL DX, DX
	JNE nonzero
	INCQ R12
	CMPQ R12, R13
	JLT zeros
	MOVQ R12, jOut+72(FP)
	MOVQ $0, status+80(FP)
	JMP store

nonzero:
	MOVQ R12, jOut+72(FP)
	// The residual again, and dimension j's probabilities in R13.
	MOVQ row+16(FP), AX
	MOVL (AX)(R12*4), AX
	MOVQ centre+40(FP), CX
	SUBL (CX)(R12*4), AX
	IMUL3Q $arDim__size, R12, R13
	ADDQ dims+8(FP), R13
	// The sign, p.sign[min(act, 2)]: a 1 for a negative residual; R12
	// its magnitude.
	MOVL AX, DX
	SARL $31, DX
	XORL DX, AX
	SUBL DX, AX
	MOVL AX, R12
	MOVL SI, AX
	MOVL $2, CX
	CMPL AX, CX
	CMOVLGT CX, AX
	LEAQ arDim_sign(R13)(AX*4), R14
	ENCODE(R14)
	CMPL R10, $const_arTopValue
	JCS norm2

coded2:
	// The magnitude less one, k, in unary up to arMaxUnary with
	// p.mag[min(act/2, 2)]: a 1 for each position below k, a 0 at k.
	DECQ R12
	SHRL $1, SI
	MOVL $2, CX
	CMPL SI, CX
	CMOVLGT CX, SI
	IMUL3Q $(4*const_arMaxUnary), SI, SI
	LEAQ arDim_mag(R13)(SI*1), SI
	XORL R13, R13

	UNARYTAIL(SI, R12, R13, status+80)

// patchEncDual's decisions branch on the bit, which the encoder knows
// before it codes it (where ENCODE selects both outcomes by masks, and
// the caller branched on the bit after it), each outcome adapting the
// probability by its own constants, as the decoder's ZEROARM and ONEARM:
// a zero flag took ~78 instructions with ENCODE, ~58 so, a unary 1 ~45,
// ~24 so (the same range, low and probabilities: TestPatchKernel).

// ENC0 codes a 0 with the probability at P as rangeEncoder.bit does:
// the range becomes the bound, and the estimates adapt as a - (a-t)>>s
// with t = 4097 - 2^s. Clobbers AX, BX and CX.
#define ENC0(P) \
	MOVWLZX (P), AX \
	MOVWLZX 2(P), BX \
	LEAL (AX)(BX*1), CX \
	SHRL $1, CX \
	SHRL $const_arProbBits, R10 \
	IMULL CX, R10 \
	LEAL -(1<<const_arProbBits+1-1<<const_arAdaptFast)(AX), CX \
	SARL $const_arAdaptFast, CX \
	SUBL CX, AX \
	MOVW AX, (P) \
	LEAL -(1<<const_arProbBits+1-1<<const_arAdaptSlow)(BX), CX \
	SARL $const_arAdaptSlow, CX \
	SUBL CX, BX \
	MOVW BX, 2(P)

// ENC1 codes a 1 with the probability at P as rangeEncoder.bit does:
// the bound goes onto low and off the range, and the estimates adapt as
// a - a>>s. Clobbers AX, BX and CX.
#define ENC1(P) \
	MOVWLZX (P), AX \
	MOVWLZX 2(P), BX \
	ADDL BX, AX \
	SHRL $1, AX \
	MOVL R10, CX \
	SHRL $const_arProbBits, CX \
	IMULL CX, AX \
	ADDQ AX, R8 \
	SUBL AX, R10 \
	MOVWLZX (P), AX \
	MOVL AX, CX \
	SHRL $const_arAdaptFast, CX \
	SUBL CX, AX \
	MOVW AX, (P) \
	MOVL BX, CX \
	SHRL $const_arAdaptSlow, CX \
	SUBL CX, BX \
	MOVW BX, 2(P)

// SIGNMAGOFF turns the activity class act in SI into the offsets from
// a dimension's probabilities of its sign's, p.sign[min(act, 2)], and
// of its magnitude's, p.mag[min(act/2, 2)]: SI = sign | mag<<8, as
// patchEncDual's prologue finds them for every dimension. Clobbers AX
// and CX.
#define SIGNMAGOFF \
	MOVL SI, AX \
	MOVL $2, CX \
	CMPL AX, CX \
	CMOVLGT CX, AX \
	SHLL $2, AX \
	ADDL $arDim_sign, AX \
	SHRL $1, SI \
	CMPL SI, CX \
	CMOVLGT CX, SI \
	IMUL3L $(4*const_arMaxUnary), SI, SI \
	ADDL $arDim_mag, SI \
	SHLL $8, SI \
	ORL AX, SI

// func patchEncDual(e *rangeEncoder, dims *arDim, left, up *int32, p *patchRun) (status int)
// patchDual for the encoder: the residuals of a patch (p.row less
// p.centre, the first dimension's from its prediction p.centre[0], in
// the context p.act0, not counted) from p.j on below p.end, each coded as
// runEncDual codes it, the dimensions off their centre listed and
// counted as patchDual does; with p.pending, at p.end the rest flag
// p.rest and, if 1, the count p.counted less one in unary (p.count),
// then the rest of the patch counting down. Registers as runEncDual's,
// but DX the residual (then the unary 1s still to code) and SI the
// activity class (then the unary probabilities); p and the magnitude
// live in the frame. It returns 0, 1 where a magnitude less one reached
// arMaxUnary at dimension p.j (its Exp-Golomb code and bookkeeping are
// the caller's), 2 where the range fell to 0 (zeroRange's bug), or 3
// where the count less one reached arMaxUnary (its Exp-Golomb code, then
// the count down, are the caller's). The caller makes room for the bytes
// (pending ones and two per decision).
//
// With p.vec (AVX-512, p.dims <= 64) a prologue finds every dimension's
// residual and context 16 at a time into the frame (res, ctx), where
// each zero flag took DEV's two capped distances, the class and the
// offsets on its own: ~40 instructions a dimension visited, 16% of the
// kernel's time on the 4×4 batch. Without, each zero flag finds them
// as before (eslowctx).
TEXT ·patchEncDual(SB), NOSPLIT, $528-48
	MOVQ e+0(FP), DI
	MOVQ rangeEncoder_low(DI), R8
	MOVL rangeEncoder_rng(DI), R10
	MOVQ rangeEncoder_out(DI), R9
	MOVQ (rangeEncoder_out+8)(DI), R11
	MOVQ p+32(FP), BX
	CMPQ patchRun_vec(BX), $0
	JEQ eprepped
	// The residuals row[j] - centre[j] into res and the contexts into
	// ctx: the zero flags' offset from dims, j*arDim__size + arDim_zero
	// + 4*arBusy*act (16 bits), then SIGNMAGOFF's two offsets (8 bits
	// each), act the class (arDevClasses) of the capped distances of
	// left[j] and up[j] from centre[j] (DEV); 16 dimensions a step, the
	// last under a mask.
	MOVQ patchRun_row(BX), R12
	MOVQ patchRun_centre(BX), R13
	MOVQ left+16(FP), SI
	MOVQ up+24(FP), DX
	MOVQ patchRun_dims(BX), CX
	VPMOVZXBD ·arDevClasses(SB), Z5
	VPMOVZXBD ·arDevClasses+16(SB), Z6
	MOVL $const_arDevMax, AX
	VPBROADCASTD AX, Z7
	CTXLANES
	LEAQ res-264(SP), R14
	LEAQ ctx-520(SP), DI
	XORL AX, AX

eprep:
	MOVL $0xFFFF, BX
	BZHIL CX, BX, BX
	KMOVW BX, K1
	VMOVDQU32.Z (R12)(AX*4), K1, Z0
	VMOVDQU32.Z (R13)(AX*4), K1, Z1
	VMOVDQU32.Z (SI)(AX*4), K1, Z2
	VMOVDQU32.Z (DX)(AX*4), K1, Z3
	VPSUBD Z1, Z0, Z0
	VPSUBD Z1, Z2, Z2
	VPSUBD Z1, Z3, Z3
	VPABSD Z2, Z2
	VPABSD Z3, Z3
	VPMINSD Z7, Z2, Z2
	VPMINSD Z7, Z3, Z3
	VPADDD Z3, Z2, Z2
	VPERMI2D Z6, Z5, Z2
	CTXOFFS
	VMOVDQU32 Z0, (R14)(AX*4)
	VMOVDQU32 Z3, (DI)(AX*4)
	VPADDD Z10, Z9, Z9
	ADDQ $16, AX
	SUBQ $16, CX
	JGT eprep
	VZEROUPPER
	MOVQ e+0(FP), DI
	MOVQ p+32(FP), BX

eprepped:
	MOVQ patchRun_j(BX), R12
	MOVQ patchRun_end(BX), R13
	CMPQ R12, R13
	JGE eend
	TESTQ R12, R12
	JNE ezeros
	// The first dimension's zero flag, p.zero[act0][0].
	MOVQ patchRun_act0(BX), SI
	MOVQ patchRun_row(BX), AX
	MOVL (AX), DX
	MOVQ patchRun_centre(BX), CX
	SUBL (CX), DX
	MOVQ dims+8(FP), BX
	LEAQ (SI)(SI*4), AX
	LEAQ arDim_zero(BX)(AX*4), R14
	TESTL DX, DX
	JNE efirstone
	ENC0(R14)
	CMPL R10, $const_arTopValue
	JCS efirstnorm

efirstdone:
	INCQ R12
	CMPQ R12, R13
	JLT ezeros
	JMP eend

efirstone:
	ENC1(R14)
	CMPL R10, $const_arTopValue
	JCS efirstonenorm

efirstsign:
	SIGNMAGOFF
	JMP enonzero

ezeros:
	// The zero flags from dimension j on, p.zero[act][busy]: busy (p.bcur)
	// holds up to the next residual off 0, so its probabilities' address
	// less the context's offset is found once (zbase); DX the residual,
	// then SI the offsets of its sign and magnitude.
	MOVQ p+32(FP), BX
	CMPQ patchRun_vec(BX), $0
	JEQ eslowctx
	MOVQ patchRun_bcur(BX), AX
	SHLQ $2, AX
	ADDQ dims+8(FP), AX
	MOVQ AX, zbase-528(SP)

ezerosv:
	MOVL res-264(SP)(R12*4), DX
	MOVWLZX ctx-520(SP)(R12*4), R14
	ADDQ zbase-528(SP), R14
	TESTL DX, DX
	JNE ezonev
	ENC0(R14)
	CMPL R10, $const_arTopValue
	JCS ezeronormv

ezerodonev:
	INCQ R12
	CMPQ R12, R13
	JLT ezerosv
	JMP eend

ezonev:
	MOVL ctx-520(SP)(R12*4), SI
	SHRL $16, SI
	JMP ezone

ezerocode:
	ENC0(R14)
	CMPL R10, $const_arTopValue
	JCS ezeronorm

ezerodone:
	INCQ R12
	CMPQ R12, R13
	JLT ezeros
	JMP eend

ezone:
	ENC1(R14)
	CMPL R10, $const_arTopValue
	JCS ezeronenorm

enonzero:
	// The sign, p.sign[min(act, 2)] (SI's low byte its offset): a 1 for
	// a negative residual, coded by ENCODE's masks (a branch on it would
	// be a coin flip); its magnitude into the frame.
	MOVL DX, AX
	SARL $31, AX
	XORL AX, DX
	SUBL AX, DX
	MOVQ DX, mag-8(SP)
	MOVL AX, DX
	IMUL3Q $arDim__size, R12, R14
	ADDQ dims+8(FP), R14
	MOVBLZX SI, AX
	ADDQ AX, R14
	ENCODE(R14)
	CMPL R10, $const_arTopValue
	JCS esignnorm

esigndone:
	// The magnitude less one, k, in unary up to arMaxUnary, p.mag[min(act/2,
	// 2)]: min(k, arMaxUnary) 1s (DX counting them down), then a 0 if k
	// is below arMaxUnary.
	MOVQ mag-8(SP), DX
	IMUL3Q $arDim__size, R12, AX
	ADDQ dims+8(FP), AX
	SHRL $8, SI
	ADDQ AX, SI
	DECQ DX
	MOVL $const_arMaxUnary, AX
	CMPQ DX, AX
	CMOVQHI AX, DX

emagone:
	// One conditional branch a position, as a loop on the bit would be.
	TESTQ DX, DX
	JEQ emagtail
	ENC1(SI)
	CMPL R10, $const_arTopValue
	JCS emagnorm

emagdone:
	ADDQ $4, SI
	DECQ DX
	JMP emagone

emagtail:
	MOVQ mag-8(SP), AX
	DECQ AX
	CMPQ AX, $const_arMaxUnary
	JCC emagbig
	ENC0(SI)
	CMPL R10, $const_arTopValue
	JCS emagzeronorm

emagend:
	// Listed from p.lead on, without a branch (j < p.lead only while
	// p.nl is 0, where the store is overwritten or left past p.nl);
	// counted but in the first dimension.
	MOVQ p+32(FP), BX
	MOVQ patchRun_nl(BX), AX
	MOVQ patchRun_listed(BX), CX
	MOVL R12, (CX)(AX*4)
	XORL CX, CX
	CMPQ R12, patchRun_lead(BX)
	SETGE CL
	ADDQ CX, AX
	MOVQ AX, patchRun_nl(BX)
	TESTQ R12, R12
	JEQ efirstoff
	INCQ R12
	MOVQ patchRun_cnt(BX), AX
	ADDQ patchRun_step(BX), AX
	MOVQ AX, patchRun_cnt(BX)
	JEQ eend
	BUSYCLASS
	MOVQ AX, patchRun_bcur(BX)
	CMPQ R12, R13
	JLT ezeros
	JMP eend

emagbig:
	// The Exp-Golomb code follows: the caller's.
	MOVQ p+32(FP), BX
	MOVQ R12, patchRun_j(BX)
	MOVQ $1, status+40(FP)
	JMP estore

efirstoff:
	INCQ R12
	CMPQ R12, R13
	JLT ezeros

eend:
	MOVQ p+32(FP), BX
	CMPQ patchRun_pending(BX), $0
	JNE eflag

eover:
	MOVQ R12, patchRun_j(BX)
	MOVQ $0, status+40(FP)

estore:
	MOVQ R8, rangeEncoder_low(DI)
	MOVL R10, rangeEncoder_rng(DI)
	MOVQ R11, (rangeEncoder_out+8)(DI)
	RET

eflag:
	// The rest flag p.rest, p.flag[busy].
	MOVQ $0, patchRun_pending(BX)
	MOVQ patchRun_bcur(BX), AX
	MOVQ patchRun_flag(BX), R14
	LEAQ (R14)(AX*4), R14
	CMPQ patchRun_rest(BX), $0
	JNE eflagone
	ENC0(R14)
	CMPL R10, $const_arTopValue
	JCS eflagnorm

eflagdone:
	MOVQ p+32(FP), BX
	JMP eover

eflagone:
	ENC1(R14)
	CMPL R10, $const_arTopValue
	JCS eflagonenorm

eflagonedone:
	// The count less one, k, in unary up to arMaxUnary, p.count:
	// min(k, arMaxUnary) 1s, then a 0 if k is below arMaxUnary (k
	// unsigned, as the position's count up to it was).
	MOVQ p+32(FP), BX
	MOVQ patchRun_count(BX), SI
	MOVQ patchRun_counted(BX), DX
	DECQ DX
	MOVL $const_arMaxUnary, AX
	CMPQ DX, AX
	CMOVQHI AX, DX

ecountone:
	TESTQ DX, DX
	JEQ ecounttail
	ENC1(SI)
	CMPL R10, $const_arTopValue
	JCS ecountnorm

ecountdone:
	ADDQ $4, SI
	DECQ DX
	JMP ecountone

ecounttail:
	MOVQ p+32(FP), BX
	MOVQ patchRun_counted(BX), AX
	DECQ AX
	CMPQ AX, $const_arMaxUnary
	JCC ecountbig
	ENC0(SI)
	CMPL R10, $const_arTopValue
	JCS ecountzeronorm

ecountend:
	// Counting down from p.counted through the rest of the patch.
	MOVQ p+32(FP), BX
	MOVQ patchRun_counted(BX), AX
	MOVQ AX, patchRun_cnt(BX)
	MOVQ $-1, patchRun_step(BX)
	MOVQ $32, patchRun_boff(BX)
	MOVL $31, CX
	CMPQ AX, CX
	CMOVQGT CX, AX
	ADDQ $32, AX
	LEAQ ·arBusyCounts(SB), CX
	MOVBLZX (CX)(AX*1), AX
	MOVQ AX, patchRun_bcur(BX)
	MOVQ patchRun_dims(BX), R13
	MOVQ R13, patchRun_end(BX)
	CMPQ R12, R13
	JLT ezeros
	JMP eover

ecountbig:
	MOVQ R12, patchRun_j(BX)
	MOVQ $3, status+40(FP)
	JMP estore

eslowctx:
	// Without the prologue: the context of dimension j as runEncDual
	// finds it, then as ezeros.
	MOVQ patchRun_centre(BX), AX
	MOVL (AX)(R12*4), CX
	XORL SI, SI
	DEV(left+16(FP), SI)
	DEV(up+24(FP), SI)
	LEAQ ·arDevClasses(SB), AX
	MOVBLZX (AX)(SI*1), SI
	MOVQ patchRun_row(BX), AX
	MOVL (AX)(R12*4), DX
	SUBL CX, DX
	MOVQ patchRun_bcur(BX), AX
	IMUL3Q $arDim__size, R12, BX
	ADDQ dims+8(FP), BX
	LEAQ (SI)(SI*4), CX
	ADDQ CX, AX
	LEAQ arDim_zero(BX)(AX*4), R14
	TESTL DX, DX
	JEQ ezerocode
	SIGNMAGOFF
	JMP ezone

zerorange:
	MOVQ p+32(FP), BX
	MOVQ R12, patchRun_j(BX)
	MOVQ $2, status+40(FP)
	JMP estore

	NORMENC(efirstnorm, efirstflush, efirstbyte, efirstkeep, efirstdone)
	NORMENC(efirstonenorm, efirstoneflush, efirstonebyte, efirstonekeep, efirstsign)
	NORMENC(ezeronorm, ezeroflush, ezerobyte, ezerokeep, ezerodone)
	NORMENC(ezeronormv, ezeroflushv, ezerobytev, ezerokeepv, ezerodonev)
	NORMENC(ezeronenorm, ezeroneflush, ezeronebyte, ezeronekeep, enonzero)
	NORMENC(esignnorm, esignflush, esignbyte, esignkeep, esigndone)
	NORMENC(emagnorm, emagflush, emagbyte, emagkeep, emagdone)
	NORMENC(emagzeronorm, emagzeroflush, emagzerobyte, emagzerokeep, emagend)
	NORMENC(eflagnorm, eflagflush, eflagbyte, eflagkeep, eflagdone)
	NORMENC(eflagonenorm, eflagoneflush, eflagonebyte, eflagonekeep, eflagonedone)
	NORMENC(ecountnorm, ecountflush, ecountbyte, ecountkeep, ecountdone)
	NORMENC(ecountzeronorm, ecountzeroflush, ecountzerobyte, ecountzerokeep, ecountend)

// encIota holds the bytes 0, 1, ..., 15: the lanes' dimensions of
// patchEncDual's and patchDual's prologues.
DATA encIota<>+0(SB)/8, $0x0706050403020100
DATA encIota<>+8(SB)/8, $0x0f0e0d0c0b0a0908
GLOBL encIota<>(SB), RODATA|NOPTR, $16
