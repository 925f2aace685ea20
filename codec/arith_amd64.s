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

// ACT sets dst to the activity class of dimension j (arDevClasses of
// devL[j] + devU[j], masked as run masks it). Clobbers CX.
#define ACT(dst) \
	MOVBLZX (SI)(R12*1), dst \
	MOVBLZX (DI)(R12*1), CX \
	ADDL CX, dst \
	ANDL $31, dst \
	LEAQ ·arDevClasses(SB), CX \
	MOVBLZX (CX)(dst*1), dst

// func runDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, j, end, busy int) (jOut, k, neg int)
TEXT ·runDual(SB), NOSPLIT, $0-80
	MOVQ d+0(FP), BX
	MOVQ rangeDecoder_in(BX), R8
	MOVQ (rangeDecoder_in+8)(BX), R9
	ADDQ R8, R9
	ADDQ rangeDecoder_pos(BX), R8
	MOVL rangeDecoder_rng(BX), R10
	MOVL rangeDecoder_code(BX), R11
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

zeronorm:
	SHLL $8, R10
	SHLL $8, R11
	CMPQ R8, R9
	JCC zeropast
	MOVBLZX (R8), AX
	ORL AX, R11

zeropast:
	INCQ R8
	CMPL R10, $const_arTopValue
	JCS zeronorm
	JMP zerodone

nonzero:
	// The sign, p.sign[min(act, 2)], then the magnitude less one in
	// unary, p.mag[min(act/2, 2)], up to arMaxUnary.
	ACT(SI)
	MOVQ dims+8(FP), DX
	IMUL3Q $arDim__size, R12, AX
	ADDQ AX, DX
	MOVL SI, AX
	MOVL $2, CX
	CMPL AX, CX
	CMOVLGT CX, AX
	LEAQ arDim_sign(DX)(AX*4), BX
	DECIDE(BX)
	MOVL CX, DI
	CMPL R10, $const_arTopValue
	JCS signnorm

signdone:
	SHRL $1, SI
	MOVL $2, CX
	CMPL SI, CX
	CMOVLGT CX, SI
	IMUL3Q $(4*const_arMaxUnary), SI, SI
	LEAQ arDim_mag(DX)(SI*1), BX
	XORL SI, SI

mag:
	DECIDE(BX)
	CMPL R10, $const_arTopValue
	JCS magnorm

magdone:
	TESTL CX, CX
	JNE magend
	ADDQ $4, BX
	INCQ SI
	CMPQ SI, $const_arMaxUnary
	JLT mag

magend:
	MOVQ SI, k+64(FP)
	XORL AX, AX
	TESTL DI, DI
	SETEQ AL
	MOVQ AX, neg+72(FP)

store:
	MOVQ R12, jOut+56(FP)
	MOVQ d+0(FP), BX
	MOVL R10, rangeDecoder_rng(BX)
	MOVL R11, rangeDecoder_code(BX)
	SUBQ rangeDecoder_in(BX), R8
	MOVQ R8, rangeDecoder_pos(BX)
	RET

signnorm:
	SHLL $8, R10
	SHLL $8, R11
	CMPQ R8, R9
	JCC signpast
	MOVBLZX (R8), AX
	ORL AX, R11

signpast:
	INCQ R8
	CMPL R10, $const_arTopValue
	JCS signnorm
	JMP signdone

magnorm:
	SHLL $8, R10
	SHLL $8, R11
	CMPQ R8, R9
	JCC magpast
	MOVBLZX (R8), AX
	ORL AX, R11

magpast:
	INCQ R8
	CMPL R10, $const_arTopValue
	JCS magnorm
	JMP magdone
