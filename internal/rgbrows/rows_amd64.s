#include "textflag.h"

// Shuffle of 4 RGBA pixels to 12 RGB bytes (the last 4 zero).
DATA dropMask<>+0(SB)/8, $0x0908060504020100
DATA dropMask<>+8(SB)/8, $0x808080800e0d0c0a
GLOBL dropMask<>(SB), RODATA|NOPTR, $16

// Shuffle of 12 RGB bytes to 4 pixels with a zero fourth byte.
DATA spreadMask<>+0(SB)/8, $0x8005040380020100
DATA spreadMask<>+8(SB)/8, $0x800b0a0980080706
GLOBL spreadMask<>(SB), RODATA|NOPTR, $16

DATA alphaMask<>+0(SB)/8, $0xff000000ff000000
DATA alphaMask<>+8(SB)/8, $0xff000000ff000000
GLOBL alphaMask<>(SB), RODATA|NOPTR, $16

// func toRGBSSSE3(dst, src []byte, n int)
TEXT ·toRGBSSSE3(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ n+48(FP), CX
	MOVOU dropMask<>(SB), X2
	CMPQ CX, $2
	JLT one

two:
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	PSHUFB X2, X0
	PSHUFB X2, X1
	MOVOU X0, (DI)
	MOVOU X1, 12(DI)
	ADDQ $32, SI
	ADDQ $24, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE two

one:
	TESTQ CX, CX
	JZ done
	MOVOU (SI), X0
	PSHUFB X2, X0
	MOVOU X0, (DI)

done:
	RET

// func toRGBASSSE3(dst, src []byte, n int)
TEXT ·toRGBASSSE3(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ n+48(FP), CX
	MOVOU spreadMask<>(SB), X2
	MOVOU alphaMask<>(SB), X3
	TESTQ CX, CX
	JZ sdone

sloop:
	MOVOU (SI), X0
	PSHUFB X2, X0
	POR X3, X0
	MOVOU X0, (DI)
	ADDQ $12, SI
	ADDQ $16, DI
	DECQ CX
	JNZ sloop

sdone:
	RET
