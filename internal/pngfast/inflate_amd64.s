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

// FASTLOOKUP loads the fast entry of the next 12 bits of R9 into AX.
#define FASTLOOKUP \
	MOVL    R9, BX; \
	ANDL    $0xfff, BX; \
	MOVL    (R10)(BX*4), AX

// FASTTAKE is FAST2 after its lookup (see FAST2).
#define FASTTAKE \
	TESTL   $0x600, AX; \
	JNZ     other; \
	MOVQ    R9, CX; \
	SHRXQ   AX, R9, R9; \
	SUBB    AL, DL; \
	BEXTRL  R14, AX, R13; \
	MOVL    AX, BX; \
	ANDL    $31, BX; \
	SUBL    R13, BX; \
	SHRXQ   BX, CX, R15; \
	BZHIQ   R13, R15, R15; \
	MOVL    AX, BX; \
	SHRL    $25, BX; \
	ADDL    (R11)(BX*4), R15; \
	MOVQ    DI, R8; \
	SUBQ    R15, R8; \
	MOVL    AX, R12; \
	SHRL    $16, R12; \
	MOVL    R12, BX; \
	ANDL    $0x1ff, BX; \
	TESTL   $0x100, AX; \
	CMOVQEQ 0(SP), R8; \
	CMOVQEQ R13, BX; \
	CMPQ    R8, 0(SP); \
	JLO     far; \
	MOVQ    DI, R13; \
	SUBQ    R8, R13; \
	CMPQ    R13, $16; \
	JLO     near; \
	CMPQ    BX, $16; \
	JHI     near; \
	MOVWLZX (R8), R15; \
	TESTL   $0x100, AX; \
	CMOVLEQ R12, R15; \
	VMOVDQU (R8), X0; \
	VPINSRW $0, R15, X0, X0; \
	VMOVDQU X0, (DI); \
	ADDQ    BX, DI

// FAST2 decodes the symbol of the fast entry of the next 12 bits without
// a branch between a literal and a match: it takes the entry's bits
// (maxFastBits at most), and stores 16 bytes at DI, the first two the literals or a
// match's 16 bytes (from out's start for a literal, its word 0 replaced
// by the literals), then moves DI by the literals or the length. It
// jumps to other for an entry of another kind (nothing taken), to far
// for a distance before out's start (taken: far gives them back), to
// near for a match of a distance under 16 or a length over 16, or a
// literal within 16 bytes of out's start (taken: AX the entry, BX the
// bytes to make, R8 the source, R12 the literals, R13 the distance).
// CX keeps the bit buffer from before the entry.
#define FAST2 \
	FASTLOOKUP; \
	FASTTAKE

// FAST1 is FAST with the bit buffer refilled after the entry's load,
// before its bits are taken: the refill waits on the last entry's bits,
// as the load does, and the two overlap (a refill before the lookup, at
// the loop's top, added two steps to each two entries' chain of
// dependent steps). Two entries of maxFastBits leave 12 bits for the
// next lookup.
#define FAST1 \
	FASTLOOKUP; \
	REFILL; \
	FASTTAKE

// func codesBMI2(fast *[1 << litBits]uint32, lit *[litTableLen]uint32, dist *[distTableLen]uint32, base *[128]uint32, in []byte, pos int, bb uint64, nb uint, out []byte, o int) (int, uint64, uint, int)
// Registers: R9 bit buffer, DX its bits, SI next input byte, DI next
// output byte, R10 the fast table, R11 the distance bases, R14 a BEXTR
// control (4 bits from bit 12). Frame: 0(SP) the output's start, 8(SP)
// the last place of SI with 16 bytes left, 16(SP) the last of DI with
// kernelOutMargin bytes left, 24(SP) and 32(SP) the bit buffer and its
// count before a symbol of the other kinds, restored when its match is
// left to Go.
TEXT ·codesBMI2(SB), NOSPLIT, $40-144
	MOVQ fast+0(FP), R10
	MOVQ base+24(FP), R11
	MOVQ in_base+32(FP), SI
	MOVQ in_len+40(FP), R8
	LEAQ -16(SI)(R8*1), R8
	MOVQ R8, 8(SP)
	ADDQ pos+56(FP), SI
	MOVQ bb+64(FP), R9
	MOVQ nb+72(FP), DX
	MOVQ out_base+80(FP), DI
	MOVQ DI, 0(SP)
	MOVQ out_len+88(FP), R12
	LEAQ -320(DI)(R12*1), R12
	MOVQ R12, 16(SP)
	ADDQ o+104(FP), DI
	MOVL $0x040C, R14

reloop:
	// Other symbols leave the bit buffer with fewer bits than the next
	// lookup's.
	CMPQ SI, 8(SP)
	JHI  done
	REFILL

loop:
	CMPQ SI, 8(SP)
	JHI  done
	CMPQ DI, 16(SP)
	JHI  done
	FAST1
	FAST2
	JMP  loop

far:
	// A distance before the output's start: the entry given back.
	MOVQ CX, R9
	MOVL AX, BX
	ANDL $31, BX
	ADDB BL, DL
	JMP  done

near:
	TESTL $0x100, AX
	JNZ   copy
	MOVW  R12, (DI) // the second overwritten next if one literal
	ADDQ  BX, DI
	JMP   reloop

copy:
	// Copy BX bytes from R8 to DI, R13 behind: 16 or 8 bytes a step
	// when R13 allows, each read behind where it is stored, up to 15
	// bytes past the match stored too (overwritten by what follows it).
	CMPQ R13, $16
	JLO  short

copy16:
	VMOVDQU (R8), X0
	VMOVDQU X0, (DI)
	ADDQ    $16, R8
	ADDQ    $16, DI
	SUBQ    $16, BX
	JGT     copy16
	ADDQ    BX, DI
	JMP     reloop

short:
	CMPQ R13, $8
	JLO  bytes

copy8:
	MOVQ (R8), CX
	MOVQ CX, (DI)
	ADDQ $8, R8
	ADDQ $8, DI
	SUBQ $8, BX
	JGT  copy8
	ADDQ BX, DI
	JMP  reloop

bytes:
	MOVB (R8), CX
	MOVB CX, (DI)
	INCQ R8
	INCQ DI
	DECQ BX
	JNZ  bytes
	JMP  reloop

other:
	// The entry of the first table, not a literal of it: a longer code,
	// a length whose extra bits or distance code the fast entry does not
	// hold, the end of the block or an invalid code. After a refill the
	// buffer holds a length code, its extra bits, a distance code and its
	// extra bits (15+5+15+13 bits).
	REFILL
	MOVQ R9, 24(SP)
	MOVQ DX, 32(SP)
	MOVQ lit+8(FP), R8
	MOVL R9, BX
	ANDL $0xfff, BX
	MOVL (R8)(BX*4), AX
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
	MOVL   (R8)(AX*4), AX
	MOVL   AX, BX
	ANDL   $0x700, BX
	JNZ    notsub
	// A single literal of a longer code.
	SHRXQ AX, R9, R9
	SUBB  AL, DL
	SHRL  $16, AX
	MOVB  AX, (DI)
	INCQ  DI
	JMP   reloop

notsub:
	// BX: the kind of entry AX.
	CMPL BX, $0x100
	JNE  done // the end of the block or an invalid code

	// A length: its code, extra bits, then the distance.
	SHRXQ  AX, R9, R9
	SUBB   AL, DL
	BEXTRL R14, AX, BX
	BZHIQ  BX, R9, CX
	SHRXQ  BX, R9, R9
	SUBB   BL, DL
	SHRL   $16, AX
	LEAQ   (AX)(CX*1), R13

	MOVQ dist+16(FP), R12
	MOVL R9, BX
	ANDL $0xff, BX
	MOVL (R12)(BX*4), AX
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
	MOVL   (R12)(AX*4), AX
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
	MOVQ   DI, R8
	SUBQ   AX, R8
	CMPQ   R8, 0(SP)
	JLO    restore // before the output's start
	MOVQ   R13, BX
	MOVQ   AX, R13
	JMP    copy

restore:
	// The match is left to Go: the state before its length code.
	MOVQ 24(SP), R9
	MOVQ 32(SP), DX

done:
	SUBQ in_base+32(FP), SI
	MOVQ SI, ret+112(FP)
	MOVQ R9, ret1+120(FP)
	MOVQ DX, ret2+128(FP)
	SUBQ out_base+80(FP), DI
	MOVQ DI, ret3+136(FP)
	RET
