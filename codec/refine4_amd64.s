#include "textflag.h"
#include "go_asm.h"

// Registers of search4: DI the state p, SI its x, R8 the cell's key, R9
// its rate r, R10 the cache's slots (64 bytes each: the key+1, then from
// byte 32 the row), R12 its mask, R13
// the move back (from), CX the round's best move so far (bc, -1: none),
// R15 the cache's hash multiplier, X0 best, X1 λ; AX, BX, DX, R14 and
// X2-X4 scratch.

// BITSOFF sets dst to bitsOff of the index less its centre in R: 0 at
// the centre, else refineNonzeroBits - 1 plus its distance. Clobbers R.
#define BITSOFF(R, dst) \
	MOVQ R, R14 \
	NEGQ R14 \
	CMOVQLT R, R14 \
	LEAQ (const_refineNonzeroBits-1)(R14), dst \
	TESTQ R14, R14 \
	CMOVQEQ R14, dst

// CAND tries move C (dimension J, index plus one with INC INCQ, less
// one with DECQ; ST ADDQ or SUBQ) as search4Go does, going on at NEXT,
// or at MISS where the move's inverse is not in the cache; RT computes
// its rate into DX from the index in DX.
#define CAND(C, J, INC, ST, RT, MISS, NEXT) \
	CMPQ R13, $C \
	JEQ NEXT \
	MOVQ (refine4Run_cell+8*J)(DI), DX \
	INC DX \
	CMPQ DX, (refine4Run_top+8*J)(DI) \
	JCC NEXT \
	RT \
	CVTSQ2SD DX, X2 \
	MULSD X1, X2 \
	UCOMISD X2, X0 \
	JLS NEXT \
	MOVQ R8, AX \
	ST (refine4Run_st+8*J)(DI), AX \
	MOVQ AX, BX \
	IMULQ R15, BX \
	SHRQ $32, BX \
	ANDQ R12, BX \
	INCQ AX \
	SHLQ $6, BX \
	ADDQ R10, BX \
	CMPQ AX, (BX) \
	JNE MISS \
	MOVSD 32(BX), X3 \
	SUBSD (SI), X3 \
	MULSD X3, X3 \
	MOVSD 40(BX), X4 \
	SUBSD 8(SI), X4 \
	MULSD X4, X4 \
	ADDSD X4, X3 \
	MOVSD 48(BX), X4 \
	SUBSD 16(SI), X4 \
	MULSD X4, X4 \
	ADDSD X4, X3 \
	MOVSD 56(BX), X4 \
	SUBSD 24(SI), X4 \
	MULSD X4, X4 \
	ADDSD X4, X3 \
	ADDSD X2, X3 \
	UCOMISD X3, X0 \
	JLS NEXT \
	MOVSD X3, X0 \
	MOVQ $C, CX \
	MOVQ DX, refine4Run_br(DI)

// RT0 is the first dimension's rate: the cell's (not counted).
#define RT0 \
	MOVQ R9, DX

// RTJ is dimension J's: the cell's with J's rate replaced by the index
// DX's.
#define RTJ(J) \
	SUBQ (refine4Run_ctr+8*J)(DI), DX \
	BITSOFF(DX, BX) \
	LEAQ (R9)(BX*1), DX \
	SUBQ (refine4Run_boff+8*J)(DI), DX

// func search4(p *refine4Run) (miss bool)
TEXT ·search4(SB), NOSPLIT, $0-9
	MOVQ p+0(FP), DI
	MOVQ refine4Run_x(DI), SI
	MOVQ refine4Run_key(DI), R8
	MOVQ refine4Run_r(DI), R9
	MOVQ refine4Run_slots(DI), R10
	MOVQ refine4Run_mask(DI), R12
	MOVQ refine4Run_from(DI), R13
	MOVQ refine4Run_bc(DI), CX
	MOVQ $0x9E3779B97F4A7C15, R15
	MOVSD refine4Run_best(DI), X0
	MOVSD refine4Run_lambda(DI), X1
	// Go on at move p.c.
	MOVQ refine4Run_c(DI), AX
	CMPQ AX, $0
	JEQ c0
	CMPQ AX, $1
	JEQ c1
	CMPQ AX, $2
	JEQ c2
	CMPQ AX, $3
	JEQ c3
	CMPQ AX, $4
	JEQ c4
	CMPQ AX, $5
	JEQ c5
	CMPQ AX, $6
	JEQ c6
	CMPQ AX, $7
	JEQ c7
	JMP round

c0:
	CAND(0, 0, DECQ, SUBQ, RT0, miss0, c1)
c1:
	CAND(1, 0, INCQ, ADDQ, RT0, miss1, c2)
c2:
	CAND(2, 1, DECQ, SUBQ, RTJ(1), miss2, c3)
c3:
	CAND(3, 1, INCQ, ADDQ, RTJ(1), miss3, c4)
c4:
	CAND(4, 2, DECQ, SUBQ, RTJ(2), miss4, c5)
c5:
	CAND(5, 2, INCQ, ADDQ, RTJ(2), miss5, c6)
c6:
	CAND(6, 3, DECQ, SUBQ, RTJ(3), miss6, c7)
c7:
	CAND(7, 3, INCQ, ADDQ, RTJ(3), miss7, round)

round:
	// The round is over: the best move, if any, is made.
	TESTQ CX, CX
	JLT done
	MOVQ CX, AX
	SHRQ $1, AX
	MOVQ CX, DX
	ANDQ $1, DX
	LEAQ -1(DX)(DX*1), DX
	ADDQ DX, refine4Run_cell(DI)(AX*8)
	MOVQ refine4Run_st(DI)(AX*8), BX
	IMULQ DX, BX
	ADDQ BX, R8
	MOVQ refine4Run_cell(DI)(AX*8), DX
	SUBQ refine4Run_ctr(DI)(AX*8), DX
	BITSOFF(DX, BX)
	MOVQ BX, refine4Run_boff(DI)(AX*8)
	MOVQ refine4Run_br(DI), R9
	MOVQ CX, R13
	XORQ $1, R13
	MOVQ refine4Run_move(DI), AX
	INCQ AX
	MOVQ AX, refine4Run_move(DI)
	CMPQ AX, $const_maxRefine
	JGE done
	MOVQ $-1, CX
	JMP c0

done:
	MOVQ $8, AX
	MOVB $0, miss+8(FP)
	JMP store

miss0:
	MOVQ $0, AX
	JMP miss
miss1:
	MOVQ $1, AX
	JMP miss
miss2:
	MOVQ $2, AX
	JMP miss
miss3:
	MOVQ $3, AX
	JMP miss
miss4:
	MOVQ $4, AX
	JMP miss
miss5:
	MOVQ $5, AX
	JMP miss
miss6:
	MOVQ $6, AX
	JMP miss
miss7:
	MOVQ $7, AX

miss:
	MOVB $1, miss+8(FP)

store:
	MOVQ AX, refine4Run_c(DI)
	MOVQ CX, refine4Run_bc(DI)
	MOVQ R8, refine4Run_key(DI)
	MOVQ R9, refine4Run_r(DI)
	MOVQ R13, refine4Run_from(DI)
	MOVSD X0, refine4Run_best(DI)
	RET

// HINTSLOT writes the address of the slot of the cell numbered K (a
// line) at pf[CX], asks for its line and adds 1 to CX. Clobbers AX.
#define HINTSLOT(K) \
	MOVQ K, AX \
	IMULQ R13, AX \
	SHRQ $32, AX \
	ANDQ R12, AX \
	SHLQ $6, AX \
	ADDQ R10, AX \
	MOVQ AX, (SI)(CX*8) \
	PREFETCHT0 (AX) \
	INCQ CX

// HINTDIM writes the slots of the neighbours in dimension J that lie
// within the bins (SKIPLO, SKIPHI its labels). Clobbers DX and R14.
#define HINTDIM(J, SKIPLO, SKIPHI) \
	MOVLQSX (4*J)(R9), DX \
	TESTQ DX, DX \
	JLE SKIPLO \
	MOVQ R8, R14 \
	SUBQ (refine4Run_st+8*J)(DI), R14 \
	HINTSLOT(R14) \
SKIPLO: \
	INCQ DX \
	CMPQ DX, (refine4Run_top+8*J)(DI) \
	JGE SKIPHI \
	MOVQ R8, R14 \
	ADDQ (refine4Run_st+8*J)(DI), R14 \
	HINTSLOT(R14) \
SKIPHI:

// func hintLines4(p *refine4Run, pf *[maxPrefetch]uintptr, n int, key uint64, cell *[4]int32) (count int)
TEXT ·hintLines4(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ pf+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ key+24(FP), R8
	MOVQ cell+32(FP), R9
	MOVQ refine4Run_slots(DI), R10
	MOVQ refine4Run_mask(DI), R12
	MOVQ $0x9E3779B97F4A7C15, R13
	HINTSLOT(R8)
	HINTDIM(0, lo0, hi0)
	HINTDIM(1, lo1, hi1)
	HINTDIM(2, lo2, hi2)
	HINTDIM(3, lo3, hi3)
	MOVQ CX, count+40(FP)
	// prefetchLines(pf, n): the slots' lines are asked for above.
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JLE hinted
hint:
	MOVQ (SI), AX
	PREFETCHT0 (AX)
	ADDQ $8, SI
	DECQ CX
	JNZ hint
hinted:
	RET
