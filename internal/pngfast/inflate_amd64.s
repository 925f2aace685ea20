#include "textflag.h"

// REFILL loads the bit buffer R9 (DX bits, DX <= 63) up to 56 bits or
// more from SI, as inflater.refill's fast path.
#define REFILL \
	MOVQ  (SI), BX; \
	SHLXQ DX, BX, BX; \
	ORQ   BX, R9; \
	MOVL  $63, BX; \
	SUBL  DX, BX; \
	SHRL  $3, BX; \
	ADDQ  BX, SI; \
	ORL   $56, DX

// LITERALS decodes an entry of one or two literals of the first table
// (a code of 12 bits or fewer) and writes both bytes, or jumps to
// notlit with the entry in AX, nothing consumed.
#define LITERALS \
	MOVL   R9, BX; \
	ANDL   $0xfff, BX; \
	MOVL   (R10)(BX*4), AX; \
	TESTL  $0x700, AX; \
	JNZ    notlit; \
	SHRXQ  AX, R9, R9; \
	SUBB   AL, DL; \
	MOVL   AX, BX; \
	SHRL   $16, BX; \
	MOVW   BX, (DI); \
	BEXTRL R15, AX, BX; \
	ADDQ   BX, DI

// func codesBMI2(lit *[litTableLen]uint32, dist *[distTableLen]uint32, in []byte, pos int, bb uint64, nb uint, out []byte, o int) (int, uint64, uint, int)
// Registers: R9 bit buffer, DX its bits, SI next input byte, R8 the last
// place of SI with 16 bytes left, DI next output byte, R12 the last with
// kernelOutMargin bytes left, R10 and R11 the tables, R13 a match's
// length, R14 and R15 BEXTR controls (4 and 2 bits from bit 12).
// Frame: 0(SP) the output's start, 8(SP) and 16(SP) the bit buffer and
// its count before a match, restored when the match is left to Go.
TEXT ·codesBMI2(SB), NOSPLIT, $24-128
	MOVQ lit+0(FP), R10
	MOVQ dist+8(FP), R11
	MOVQ in_base+16(FP), SI
	MOVQ in_len+24(FP), R8
	LEAQ -16(SI)(R8*1), R8
	ADDQ pos+40(FP), SI
	MOVQ bb+48(FP), R9
	MOVQ nb+56(FP), DX
	MOVQ out_base+64(FP), DI
	MOVQ DI, 0(SP)
	MOVQ out_len+72(FP), R12
	LEAQ -320(DI)(R12*1), R12
	ADDQ o+88(FP), DI
	MOVL $0x040C, R14
	MOVL $0x020C, R15

loop:
	CMPQ SI, R8
	JHI  done
	CMPQ DI, R12
	JHI  done
	REFILL
	// Four entries of the first table use 48 bits at most.
	LITERALS
	LITERALS
	LITERALS
	LITERALS
	JMP loop

notlit:
	// AX: the entry of the next bits, not a literal of the first table.
	// After a refill the buffer holds a length code, its extra bits, a
	// distance code and its extra bits (15+5+15+13 bits).
	REFILL
	MOVQ R9, 8(SP)
	MOVQ DX, 16(SP)
	MOVL AX, BX
	ANDL $0x700, BX
	CMPL BX, $0x300
	JNE  notsub

	// A subtable: its entry of the bits after the first 12.
	BEXTRL R14, AX, BX
	MOVQ   R9, CX
	SHRQ   $12, CX
	BZHIQ  BX, CX, CX
	SHRL   $16, AX
	ADDL   CX, AX
	ANDL   $0x1fff, AX
	MOVL   (R10)(AX*4), AX
	MOVL   AX, BX
	ANDL   $0x700, BX
	JNZ    notsub
	// A single literal of a longer code.
	SHRXQ AX, R9, R9
	SUBB  AL, DL
	SHRL  $16, AX
	MOVB  AX, (DI)
	INCQ  DI
	JMP   loop

notsub:
	// BX: the kind of entry AX.
	CMPL BX, $0x100
	JNE  stop // the end of the block or an invalid code

	// A length: its code, extra bits, then the distance.
	SHRXQ  AX, R9, R9
	SUBB   AL, DL
	BEXTRL R14, AX, BX
	BZHIQ  BX, R9, CX
	SHRXQ  BX, R9, R9
	SUBB   BL, DL
	SHRL   $16, AX
	LEAQ   (AX)(CX*1), R13

	MOVL R9, BX
	ANDL $0xff, BX
	MOVL (R11)(BX*4), AX
	MOVL AX, BX
	ANDL $0x700, BX
	CMPL BX, $0x300
	JNE  dist
	BEXTRL R14, AX, BX
	MOVQ   R9, CX
	SHRQ   $8, CX
	BZHIQ  BX, CX, CX
	SHRL   $16, AX
	ADDL   CX, AX
	ANDL   $0x1fff, AX
	MOVL   (R11)(AX*4), AX
	MOVL   AX, BX
	ANDL   $0x700, BX

dist:
	CMPL BX, $0x100
	JNE  restore
	SHRXQ  AX, R9, R9
	SUBB   AL, DL
	BEXTRL R14, AX, BX
	BZHIQ  BX, R9, CX
	SHRXQ  BX, R9, R9
	SUBB   BL, DL
	SHRL   $16, AX
	ADDQ   CX, AX
	MOVQ   DI, BX
	SUBQ   AX, BX
	CMPQ   BX, 0(SP)
	JLO    restore // before the output's start

	// Copy R13 bytes from BX to DI, AX behind: 16 or 8 bytes a step when
	// AX allows, each read behind where it is stored, up to 15 bytes past
	// the match stored too (overwritten by what follows it).
	CMPQ AX, $16
	JLO  short

copy16:
	MOVOU (BX), X0
	MOVOU X0, (DI)
	ADDQ  $16, BX
	ADDQ  $16, DI
	SUBQ  $16, R13
	JGT   copy16
	ADDQ  R13, DI
	JMP   loop

short:
	CMPQ AX, $8
	JLO  bytes

copy8:
	MOVQ (BX), CX
	MOVQ CX, (DI)
	ADDQ $8, BX
	ADDQ $8, DI
	SUBQ $8, R13
	JGT  copy8
	ADDQ R13, DI
	JMP  loop

bytes:
	MOVB (BX), CX
	MOVB CX, (DI)
	INCQ BX
	INCQ DI
	DECQ R13
	JNZ  bytes
	JMP  loop

restore:
	// The match is left to Go: the state before its length code.
	MOVQ 8(SP), R9
	MOVQ 16(SP), DX

stop:
done:
	SUBQ in_base+16(FP), SI
	MOVQ SI, ret+96(FP)
	MOVQ R9, ret1+104(FP)
	MOVQ DX, ret2+112(FP)
	SUBQ out_base+64(FP), DI
	MOVQ DI, ret3+120(FP)
	RET
