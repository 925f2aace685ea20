#include "textflag.h"

// Words 0-2 of a pixel of 3 bytes (word 3, the next pixel's byte, kept).
DATA rgbMask<>+0(SB)/8, $0x0000ffffffffffff
DATA rgbMask<>+8(SB)/8, $0
GLOBL rgbMask<>(SB), RODATA|NOPTR, $16

DATA lowBytes<>+0(SB)/8, $0x00ff00ff00ff00ff
DATA lowBytes<>+8(SB)/8, $0x00ff00ff00ff00ff
GLOBL lowBytes<>(SB), RODATA|NOPTR, $16

// grey16Step0-7 gather step j's bytes of 16 rows (row k's 8 bytes of a
// chunk at byte 8k of the two tables) into the low bytes of 16 dwords
// (byte 4k: 8k+j; the others zeroed by a mask); grey16Back0 and
// grey16Back1 gather rows 0-7 and 8-15 back (step j's 16 bytes at 16j)
// into their qwords.
DATA grey16Step0<>+0(SB)/8, $0x0000000800000000
DATA grey16Step0<>+8(SB)/8, $0x0000001800000010
DATA grey16Step0<>+16(SB)/8, $0x0000002800000020
DATA grey16Step0<>+24(SB)/8, $0x0000003800000030
DATA grey16Step0<>+32(SB)/8, $0x0000004800000040
DATA grey16Step0<>+40(SB)/8, $0x0000005800000050
DATA grey16Step0<>+48(SB)/8, $0x0000006800000060
DATA grey16Step0<>+56(SB)/8, $0x0000007800000070
GLOBL grey16Step0<>(SB), RODATA|NOPTR, $64

DATA grey16Step1<>+0(SB)/8, $0x0000000900000001
DATA grey16Step1<>+8(SB)/8, $0x0000001900000011
DATA grey16Step1<>+16(SB)/8, $0x0000002900000021
DATA grey16Step1<>+24(SB)/8, $0x0000003900000031
DATA grey16Step1<>+32(SB)/8, $0x0000004900000041
DATA grey16Step1<>+40(SB)/8, $0x0000005900000051
DATA grey16Step1<>+48(SB)/8, $0x0000006900000061
DATA grey16Step1<>+56(SB)/8, $0x0000007900000071
GLOBL grey16Step1<>(SB), RODATA|NOPTR, $64

DATA grey16Step2<>+0(SB)/8, $0x0000000a00000002
DATA grey16Step2<>+8(SB)/8, $0x0000001a00000012
DATA grey16Step2<>+16(SB)/8, $0x0000002a00000022
DATA grey16Step2<>+24(SB)/8, $0x0000003a00000032
DATA grey16Step2<>+32(SB)/8, $0x0000004a00000042
DATA grey16Step2<>+40(SB)/8, $0x0000005a00000052
DATA grey16Step2<>+48(SB)/8, $0x0000006a00000062
DATA grey16Step2<>+56(SB)/8, $0x0000007a00000072
GLOBL grey16Step2<>(SB), RODATA|NOPTR, $64

DATA grey16Step3<>+0(SB)/8, $0x0000000b00000003
DATA grey16Step3<>+8(SB)/8, $0x0000001b00000013
DATA grey16Step3<>+16(SB)/8, $0x0000002b00000023
DATA grey16Step3<>+24(SB)/8, $0x0000003b00000033
DATA grey16Step3<>+32(SB)/8, $0x0000004b00000043
DATA grey16Step3<>+40(SB)/8, $0x0000005b00000053
DATA grey16Step3<>+48(SB)/8, $0x0000006b00000063
DATA grey16Step3<>+56(SB)/8, $0x0000007b00000073
GLOBL grey16Step3<>(SB), RODATA|NOPTR, $64

DATA grey16Step4<>+0(SB)/8, $0x0000000c00000004
DATA grey16Step4<>+8(SB)/8, $0x0000001c00000014
DATA grey16Step4<>+16(SB)/8, $0x0000002c00000024
DATA grey16Step4<>+24(SB)/8, $0x0000003c00000034
DATA grey16Step4<>+32(SB)/8, $0x0000004c00000044
DATA grey16Step4<>+40(SB)/8, $0x0000005c00000054
DATA grey16Step4<>+48(SB)/8, $0x0000006c00000064
DATA grey16Step4<>+56(SB)/8, $0x0000007c00000074
GLOBL grey16Step4<>(SB), RODATA|NOPTR, $64

DATA grey16Step5<>+0(SB)/8, $0x0000000d00000005
DATA grey16Step5<>+8(SB)/8, $0x0000001d00000015
DATA grey16Step5<>+16(SB)/8, $0x0000002d00000025
DATA grey16Step5<>+24(SB)/8, $0x0000003d00000035
DATA grey16Step5<>+32(SB)/8, $0x0000004d00000045
DATA grey16Step5<>+40(SB)/8, $0x0000005d00000055
DATA grey16Step5<>+48(SB)/8, $0x0000006d00000065
DATA grey16Step5<>+56(SB)/8, $0x0000007d00000075
GLOBL grey16Step5<>(SB), RODATA|NOPTR, $64

DATA grey16Step6<>+0(SB)/8, $0x0000000e00000006
DATA grey16Step6<>+8(SB)/8, $0x0000001e00000016
DATA grey16Step6<>+16(SB)/8, $0x0000002e00000026
DATA grey16Step6<>+24(SB)/8, $0x0000003e00000036
DATA grey16Step6<>+32(SB)/8, $0x0000004e00000046
DATA grey16Step6<>+40(SB)/8, $0x0000005e00000056
DATA grey16Step6<>+48(SB)/8, $0x0000006e00000066
DATA grey16Step6<>+56(SB)/8, $0x0000007e00000076
GLOBL grey16Step6<>(SB), RODATA|NOPTR, $64

DATA grey16Step7<>+0(SB)/8, $0x0000000f00000007
DATA grey16Step7<>+8(SB)/8, $0x0000001f00000017
DATA grey16Step7<>+16(SB)/8, $0x0000002f00000027
DATA grey16Step7<>+24(SB)/8, $0x0000003f00000037
DATA grey16Step7<>+32(SB)/8, $0x0000004f00000047
DATA grey16Step7<>+40(SB)/8, $0x0000005f00000057
DATA grey16Step7<>+48(SB)/8, $0x0000006f00000067
DATA grey16Step7<>+56(SB)/8, $0x0000007f00000077
GLOBL grey16Step7<>(SB), RODATA|NOPTR, $64

DATA grey16Back0<>+0(SB)/8, $0x7060504030201000
DATA grey16Back0<>+8(SB)/8, $0x7161514131211101
DATA grey16Back0<>+16(SB)/8, $0x7262524232221202
DATA grey16Back0<>+24(SB)/8, $0x7363534333231303
DATA grey16Back0<>+32(SB)/8, $0x7464544434241404
DATA grey16Back0<>+40(SB)/8, $0x7565554535251505
DATA grey16Back0<>+48(SB)/8, $0x7666564636261606
DATA grey16Back0<>+56(SB)/8, $0x7767574737271707
GLOBL grey16Back0<>(SB), RODATA|NOPTR, $64

DATA grey16Back1<>+0(SB)/8, $0x7868584838281808
DATA grey16Back1<>+8(SB)/8, $0x7969594939291909
DATA grey16Back1<>+16(SB)/8, $0x7a6a5a4a3a2a1a0a
DATA grey16Back1<>+24(SB)/8, $0x7b6b5b4b3b2b1b0b
DATA grey16Back1<>+32(SB)/8, $0x7c6c5c4c3c2c1c0c
DATA grey16Back1<>+40(SB)/8, $0x7d6d5d4d3d2d1d0d
DATA grey16Back1<>+48(SB)/8, $0x7e6e5e4e3e2e1e0e
DATA grey16Back1<>+56(SB)/8, $0x7f6f5f4f3f2f1f0f
GLOBL grey16Back1<>(SB), RODATA|NOPTR, $64

// func averageRGBAVX(row, prev []byte, n int)
// Unfilters the first n pixels (3 bytes each) of an Average row, the
// pixel before the first taken as 0: row[i] += (left + up) >> 1, a pixel
// at a time in 16-bit lanes. Each pixel's 4-byte load and store reach
// the next pixel's first byte (stored back unchanged): row and prev hold
// 3n+1 bytes or more. The next pixel's bytes are loaded before this
// pixel's store, which overlaps them: loaded after it, each load waited
// for the store to reach the cache (a store it only partly covers cannot
// be forwarded), ~4 times the pixel's own chain of 4 dependent steps.
TEXT ·averageRGBAVX(SB), NOSPLIT, $0-56
	MOVQ row_base+0(FP), SI
	MOVQ prev_base+24(FP), DX
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ   avgdone
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12       // words 0-2 to bytes, word 3 to 0
	VPXOR   X0, X0, X0          // left, word 3 zero
	MOVL       (SI), X1
	VPUNPCKLBW X15, X1, X1      // raw
avg:
	DECQ       CX
	JZ         avglast
	MOVL       3(SI), X3        // the next pixel's raw, before the store
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2      // up
	VPAND      X14, X2, X2      // word 3 zero: the next pixel's byte kept
	VPADDW     X0, X2, X2
	VPSRLW     $1, X2, X2
	VPADDW     X2, X1, X1
	VPAND      X12, X1, X0
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
	VPUNPCKLBW X15, X3, X1
	ADDQ       $3, SI
	ADDQ       $3, DX
	JMP        avg
avglast:
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2
	VPAND      X14, X2, X2
	VPADDW     X0, X2, X2
	VPSRLW     $1, X2, X2
	VPADDW     X2, X1, X1
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
avgdone:
	RET

// func paethRGBAVX(row, prev []byte, n int)
// Unfilters the first n pixels of a Paeth row as averageRGBAVX does an
// Average row: the one of left a, up b and up-left c nearest a+b-c, ties
// to a then b (paethByte), in 16-bit lanes; word 3 of a, b and c is 0,
// so that the next pixel's byte is stored back unchanged.
TEXT ·paethRGBAVX(SB), NOSPLIT, $0-56
	MOVQ row_base+0(FP), SI
	MOVQ prev_base+24(FP), DX
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ   paethdone
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12       // words 0-2 to bytes, word 3 to 0
	VPXOR   X0, X0, X0          // left a
	VPXOR   X3, X3, X3          // up-left c
	MOVL       (SI), X1
	VPUNPCKLBW X15, X1, X1      // raw
paeth:
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2
	VPAND      X14, X2, X2      // up b
	DECQ       CX
	JZ         paethlast
	MOVL       3(SI), X9        // the next pixel's raw, before the store
	VPSUBW     X3, X2, X4       // b-c
	VPSUBW     X3, X0, X5       // a-c
	VPADDW     X4, X5, X6       // a+b-2c
	VPABSW     X4, X4           // pa
	VPABSW     X5, X5           // pb
	VPABSW     X6, X6           // pc
	VPCMPGTW   X6, X5, X7       // pb > pc
	VPBLENDVB  X7, X3, X2, X8   // b, or c where pb > pc
	VPMINSW    X6, X5, X10
	VPCMPGTW   X10, X4, X10     // pa > min(pb, pc)
	VPBLENDVB  X10, X8, X0, X11 // a, or that where pa > min
	VPADDW     X11, X1, X1
	VPAND      X12, X1, X0
	VPAND      X13, X1, X1
	VMOVDQA    X2, X3
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
	VPUNPCKLBW X15, X9, X1
	ADDQ       $3, SI
	ADDQ       $3, DX
	JMP        paeth
paethlast:
	VPSUBW     X3, X2, X4
	VPSUBW     X3, X0, X5
	VPADDW     X4, X5, X6
	VPABSW     X4, X4
	VPABSW     X5, X5
	VPABSW     X6, X6
	VPCMPGTW   X6, X5, X7
	VPBLENDVB  X7, X3, X2, X8
	VPMINSW    X6, X5, X10
	VPCMPGTW   X10, X4, X10
	VPBLENDVB  X10, X8, X0, X11
	VPADDW     X11, X1, X1
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
paethdone:
	RET

// AVGSTEP unfilters one pixel of an Average row in 16-bit lanes: raw
// (the filtered bytes) becomes the pixel's bytes, packed in its low
// dword, a its left neighbour (word 3 zero), up the pixel above (word 3
// zero); tmp is scratch. The chain from a to a is 4 steps.
#define AVGSTEP(raw, up, a, tmp) \
	VPADDW    a, up, tmp; \
	VPSRLW    $1, tmp, tmp; \
	VPADDW    tmp, raw, raw; \
	VPAND     X12, raw, a; \
	VPAND     X13, raw, raw; \
	VPACKUSWB raw, raw, raw

// PAETHSTEP is AVGSTEP for a Paeth pixel: a left, b up, c up-left (words
// 3 zero), X8-X11 scratch, ties to a then b (paethByte).
#define PAETHSTEP(raw, a, b, c) \
	VPSUBW     c, b, X8; \
	VPSUBW     c, a, X9; \
	VPADDW     X8, X9, X10; \
	VPABSW     X8, X8; \
	VPABSW     X9, X9; \
	VPABSW     X10, X10; \
	VPCMPGTW   X10, X9, X11; \
	VPBLENDVB  X11, c, b, X11; \
	VPMINSW    X10, X9, X9; \
	VPCMPGTW   X9, X8, X9; \
	VPBLENDVB  X9, X11, a, X11; \
	VPADDW     X11, raw, raw; \
	VPAND      X12, raw, a; \
	VPAND      X13, raw, raw; \
	VPACKUSWB  raw, raw, raw

// LOADPX loads the 4 bytes at addr into the words of x.
#define LOADPX(addr, x) \
	MOVL       addr, x; \
	VPUNPCKLBW X15, x, x

// func averageRGBPairAVX(r0, r1, prev []byte, n int)
// Unfilters the first n pixels (n ≥ 1) of two Average rows of 3-byte
// pixels, r1 below r0 below prev, all of 3n+4 bytes or more: pixel j of
// r0, then pixel j-1 of r1, whose up pixel is r0's just made (kept in a
// register). Each row's pixels wait on their left neighbours; the two
// rows' chains overlap. Loads of the next pixels come before the stores
// that reach their first bytes (averageRGBAVX), and each store's fourth
// byte is the next pixel's, unchanged.
TEXT ·averageRGBPairAVX(SB), NOSPLIT, $0-80
	MOVQ r0_base+0(FP), SI
	MOVQ r1_base+24(FP), DI
	MOVQ prev_base+48(FP), DX
	MOVQ n+72(FP), CX
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12
	VPXOR   X0, X0, X0          // r0's left
	VPXOR   X4, X4, X4          // r1's left
	// Pixel 0 of r0.
	LOADPX((SI), X1)
	LOADPX((DX), X2)
	VPAND   X14, X2, X2
	MOVL    3(SI), R8
	AVGSTEP(X1, X2, X0, X8)
	MOVL    X1, (SI)
	VMOVDQA X0, X6              // r1's up
	LOADPX((DI), X5)
	DECQ    CX
	JZ      avgpairlast
avgpair:
	// Pixel j of r0 (its bytes in R8), pixel j-1 of r1 (in X5).
	VMOVD      R8, X1
	VPUNPCKLBW X15, X1, X1
	LOADPX(3(DX), X2)
	VPAND      X14, X2, X2
	MOVL       6(SI), R8
	AVGSTEP(X1, X2, X0, X8)
	MOVL       X1, 3(SI)
	MOVL       3(DI), R9
	AVGSTEP(X5, X6, X4, X9)
	MOVL       X5, (DI)
	VMOVDQA    X0, X6
	VMOVD      R9, X5
	VPUNPCKLBW X15, X5, X5
	ADDQ       $3, SI
	ADDQ       $3, DI
	ADDQ       $3, DX
	DECQ       CX
	JNZ        avgpair
avgpairlast:
	// Pixel n-1 of r1.
	AVGSTEP(X5, X6, X4, X9)
	MOVL X5, (DI)
	RET

// func paethRGBPairAVX(r0, r1, prev []byte, n int)
// Unfilters the first n pixels (n ≥ 1) of two Paeth rows as
// averageRGBPairAVX does two Average rows.
TEXT ·paethRGBPairAVX(SB), NOSPLIT, $0-80
	MOVQ r0_base+0(FP), SI
	MOVQ r1_base+24(FP), DI
	MOVQ prev_base+48(FP), DX
	MOVQ n+72(FP), CX
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12
	VPXOR   X0, X0, X0          // r0's left a
	VPXOR   X3, X3, X3          // r0's up-left c
	VPXOR   X4, X4, X4          // r1's left
	VPXOR   X7, X7, X7          // r1's up-left
	// Pixel 0 of r0.
	LOADPX((SI), X1)
	LOADPX((DX), X2)
	VPAND   X14, X2, X2
	MOVL    3(SI), R8
	PAETHSTEP(X1, X0, X2, X3)
	MOVL    X1, (SI)
	VMOVDQA X2, X3
	VMOVDQA X0, X6              // r1's up
	LOADPX((DI), X5)
	DECQ    CX
	JZ      paethpairlast
paethpair:
	VMOVD      R8, X1
	VPUNPCKLBW X15, X1, X1
	LOADPX(3(DX), X2)
	VPAND      X14, X2, X2
	MOVL       6(SI), R8
	PAETHSTEP(X1, X0, X2, X3)
	MOVL       X1, 3(SI)
	VMOVDQA    X2, X3
	MOVL       3(DI), R9
	PAETHSTEP(X5, X4, X6, X7)
	MOVL       X5, (DI)
	VMOVDQA    X6, X7
	VMOVDQA    X0, X6
	VMOVD      R9, X5
	VPUNPCKLBW X15, X5, X5
	ADDQ       $3, SI
	ADDQ       $3, DI
	ADDQ       $3, DX
	DECQ       CX
	JNZ        paethpair
paethpairlast:
	PAETHSTEP(X5, X4, X6, X7)
	MOVL X5, (DI)
	RET

// GREYSTEP is one step of unfilterGrey8AVX: byte J of each of the 8
// rows' diagonal (row k's at SI + k*(stride-1) + J, through SI, BX and
// R8), the previous row's bytes at D(DI); Paeth, Average, Sub and Up of
// all 8 at once, selected by the filter masks X12-X15.
#define GREYSTEP(J, D) \
	MOVBLZX J(SI), R9; \
	VMOVD R9, X3; \
	VPINSRB $1, J(SI)(DX*1), X3, X3; \
	VPINSRB $2, J(SI)(DX*2), X3, X3; \
	VPINSRB $3, J(BX), X3, X3; \
	VPINSRB $4, J(SI)(DX*4), X3, X3; \
	VPINSRB $5, J(BX)(DX*2), X3, X3; \
	VPINSRB $6, J(R8), X3, X3; \
	VPINSRB $7, J(BX)(DX*4), X3, X3; \
	VPMOVZXBW X3, X3; \
	GREYPRED(D); \
	VPACKUSWB X0, X0, X5; \
	VPEXTRB $0, X5, J(SI); \
	VPEXTRB $1, X5, J(SI)(DX*1); \
	VPEXTRB $2, X5, J(SI)(DX*2); \
	VPEXTRB $3, X5, J(BX); \
	VPEXTRB $4, X5, J(SI)(DX*4); \
	VPEXTRB $5, X5, J(BX)(DX*2); \
	VPEXTRB $6, X5, J(R8); \
	VPEXTRB $7, X5, J(BX)(DX*4)

// GREYPRED unfilters a step's 8 bytes, the filtered bytes in the words
// of X3, the left ones in X0 and the up-left ones in X1: their up bytes
// are X0's one word on, and the previous row's at D(DI) for row 0; the
// result goes to X0, the up bytes to X1, for the next step. The chain
// from one step's bytes to the next's bounds the kernels (~2 cycles an
// instruction on Zen 5): it is 6 instructions here (VPALIGNR, the sum of
// Paeth's pc, its absolute value, the compares, two blends). Every
// candidate is added to the filtered bytes by VPADDB before the choice
// (the words' high bytes are 0, the low bytes' carry is dropped), the
// other filters' choice is made first and stands for Paeth's a (pa forced
// to -1 in the rows not Paeth, X7, so that it is taken there), and
// a+b-2c is (a-2c)+b, a ready before b.
#define GREYPRED(D) \
	VPMOVZXBW D(DI), X4; \
	VPADDW X1, X1, X5; \
	VPSUBW X5, X0, X5; \
	VPSUBW X1, X0, X9; \
	VPADDB X3, X0, X11; \
	VPALIGNR $14, X4, X0, X2; \
	VPADDW X2, X5, X10; \
	VPSUBW X1, X2, X8; \
	VPABSW X9, X9; \
	VPABSW X10, X10; \
	VPABSW X8, X8; \
	VPOR X7, X8, X8; \
	VPCMPGTW X10, X9, X12; \
	VPMINSW X10, X9, X9; \
	VPCMPGTW X9, X8, X9; \
	VPADDB X3, X2, X10; \
	VPADDB X3, X1, X8; \
	VPBLENDVB X12, X8, X10, X12; \
	VPADDW X0, X2, X5; \
	VPSRLW $1, X5, X5; \
	VPADDB X3, X5, X5; \
	VPAND X15, X2, X6; \
	VPADDB X3, X6, X6; \
	VPBLENDVB X14, X11, X6, X6; \
	VPBLENDVB X13, X5, X6, X6; \
	VPBLENDVB X9, X12, X6, X0; \
	VMOVDQA X2, X1

// RGBSTEP is one step of unfilterRGB8AVX512: pixel J of each of the 8
// rows' diagonal (row k's pointer in SI, BX, R8-R13), loaded one step
// ahead (the next step's pixels, at N, are loaded before this step's
// stores, so that no load waits on an overlapping store). The chain from
// a step's pixels to the next's is 6 instructions of ~2 cycles: VPALIGNR
// (the row above's pixel: within a 128-bit lane, whose first row takes
// it from the lane below as it was two steps before, Z23, by VALIGNQ
// off the chain: a lane-crossing shift takes ~5 cycles), the sum of
// Paeth's pc, its absolute value, the minimum, the sign of a difference
// for each choice (VPSRAW: a compare into a k mask and a blend took ~8
// cycles), a VPTERNLOGQ select. Every candidate is added to the
// filtered bytes (words 0-2, Z17) by VPADDB before the choice, the other
// filters' choice (K5 Up, K3 Sub and Paeth's a, K4 Average) stands for
// Paeth's a (pa forced to -1 by Z7 in the rows not Paeth), a+b-2c is
// (a-2c)+b; word 3 of every candidate is 0 (of the up pixel too, masked
// by Z16), and the next pixel's first byte (Z18) is put back for the
// stores.
#define RGBSTEP(J, N) \
	VPMOVZXBW Y20, Z3; \
	VPANDQ Z16, Z3, Z17; \
	VPANDNQ Z3, Z16, Z18; \
	VMOVD J(DI), X4; \
	VPMOVZXBW X4, X4; \
	VPANDQ X16, X4, X4; \
	VPBROADCASTQ X4, Z4; \
	VALIGNQ $6, Z4, Z23, Z4; \
	VMOVDQA64 Z0, Z23; \
	VPADDW Z1, Z1, Z5; \
	VPSUBW Z5, Z0, Z5; \
	VPSUBW Z1, Z0, Z9; \
	VPABSW Z9, Z9; \
	VPADDB Z17, Z0, Z11; \
	VPADDB Z17, Z1, Z19; \
	VPALIGNR $8, Z4, Z0, Z2; \
	VPADDW Z2, Z5, Z10; \
	VPABSW Z10, Z10; \
	VPSUBW Z1, Z2, Z8; \
	VPABSW Z8, Z8; \
	VPORQ Z7, Z8, Z8; \
	VPSUBW Z9, Z10, Z22; \
	VPSRAW $15, Z22, Z22; \
	VPMINSW Z10, Z9, Z9; \
	VPADDB Z17, Z2, Z10; \
	VPTERNLOGQ $0xCA, Z10, Z19, Z22; \
	VPADDW Z0, Z2, Z5; \
	VPSRLW $1, Z5, Z5; \
	VPADDB Z17, Z5, Z5; \
	VPBLENDMW Z10, Z17, K5, Z6; \
	VMOVDQU16 Z11, K3, Z6; \
	VMOVDQU16 Z5, K4, Z6; \
	VPSUBW Z8, Z9, Z0; \
	VPSRAW $15, Z0, Z0; \
	VPTERNLOGQ $0xCA, Z6, Z22, Z0; \
	VMOVDQA64 Z2, Z1; \
	VPORQ Z18, Z0, Z3; \
	VMOVD N(SI), X20; \
	VPINSRD $1, N(BX), X20, X20; \
	VPINSRD $2, N(R8), X20, X20; \
	VPINSRD $3, N(R9), X20, X20; \
	VMOVD N(R10), X21; \
	VPINSRD $1, N(R11), X21, X21; \
	VPINSRD $2, N(R12), X21, X21; \
	VPINSRD $3, N(R13), X21, X21; \
	VINSERTI32X4 $1, X21, Y20, Y20; \
	VPMOVWB Z3, Y5; \
	VEXTRACTI128 $1, Y5, X6; \
	VMOVD X5, J(SI); \
	VPEXTRD $1, X5, J(BX); \
	VPEXTRD $2, X5, J(R8); \
	VPEXTRD $3, X5, J(R9); \
	VMOVD X6, J(R10); \
	VPEXTRD $1, X6, J(R11); \
	VPEXTRD $2, X6, J(R12); \
	VPEXTRD $3, X6, J(R13)

// func unfilterGrey8AVX(base *byte, stride int, prev *byte, chunks int, masks *[4][8]uint16, state *[2][8]uint16)
// Unfilters 8 grey rows (each row's bytes stride apart, the first below
// prev) along their diagonals, 8 steps a chunk: at step t, byte t-k of
// row k in word k (its up byte, row k-1's, made at step t-1, and prev's
// byte t for row 0), the predictions of the filters made in words and
// each row's chosen by masks (Paeth, Average, Sub, Up; None where none is
// set). base is row 0's byte t0 (the first step), prev prev's byte t0
// (t0 >= 8: bytes t0-7..t0 are read); state holds the words of the left
// and up-left bytes at step t0. A step's 8 bytes are inserted into a
// register from their rows and extracted back into them (gathered through
// the stack, each 8-byte load of 8 byte stores waited for them to reach
// the cache: store forwarding fails).
TEXT ·unfilterGrey8AVX(SB), NOSPLIT, $0-48
	MOVQ    base+0(FP), SI
	MOVQ    stride+8(FP), DX
	DECQ    DX
	MOVQ    prev+16(FP), DI
	MOVQ    chunks+24(FP), CX
	MOVQ    masks+32(FP), AX
	VMOVDQU 0(AX), X12
	VMOVDQU 16(AX), X13
	VMOVDQU 32(AX), X14
	VMOVDQU 48(AX), X15
	VPXOR   X7, X7, X7
	VPCMPEQW X12, X7, X7        // the rows not Paeth
	VPOR    X12, X14, X14       // the rows of a: Sub, and Paeth's a
	MOVQ    state+40(FP), AX
	VMOVDQU 0(AX), X0
	VMOVDQU 16(AX), X1
	TESTQ   CX, CX
	JZ      grey8done

grey8chunk:
	// Row k's byte t0-k+j at SI + k*(stride-1) + j: SI, BX = SI+3(stride-1)
	// and R8 = SI+6(stride-1) with DX = stride-1 scaled by 1, 2 or 4.
	LEAQ    (SI)(DX*2), BX
	ADDQ    DX, BX
	LEAQ    (BX)(DX*2), R8
	ADDQ    DX, R8
	// Steps t0+0 to t0+7.
	GREYSTEP(0, -7)
	GREYSTEP(1, -6)
	GREYSTEP(2, -5)
	GREYSTEP(3, -4)
	GREYSTEP(4, -3)
	GREYSTEP(5, -2)
	GREYSTEP(6, -1)
	GREYSTEP(7, 0)
	ADDQ    $8, SI
	ADDQ    $8, DI
	DECQ    CX
	JNZ     grey8chunk

grey8done:
	RET

// GREY16STEP is one step of unfilterGrey16AVX512: the 16 rows' bytes of
// step J (IDX, its transposition) into the dwords of Z3, the up byte of
// row 0 from the previous row at J(DI), the result into lane L of OUT.
// The chain from a step's bytes to the next's is RGBSTEP's 6
// instructions (VALIGND, pc's sum, its absolute value, the compares into
// K1 and K2, two blends), for 16 bytes a step instead of 8.
#define GREY16STEP(J, IDX, L, OUT) \
	VMOVDQA64 IDX, Z3; \
	VPERMI2B.Z Z21, Z20, K7, Z3; \
	MOVBLZX J(DI), AX; \
	VPBROADCASTD AX, Z4; \
	VPADDD Z1, Z1, Z5; \
	VPSUBD Z5, Z0, Z5; \
	VPSUBD Z1, Z0, Z9; \
	VPABSD Z9, Z9; \
	VPADDB Z3, Z0, Z11; \
	VPADDB Z3, Z1, Z12; \
	VALIGND $15, Z4, Z0, Z2; \
	VPADDD Z2, Z5, Z10; \
	VPABSD Z10, Z10; \
	VPSUBD Z1, Z2, Z8; \
	VPABSD Z8, Z8; \
	VPCMPGTD Z10, Z9, K1; \
	VPMINSD Z10, Z9, Z9; \
	VPCMPGTD Z9, Z8, K6, K2; \
	VPADDB Z3, Z2, Z10; \
	VPBLENDMD Z12, Z10, K1, Z13; \
	VPADDD Z0, Z2, Z5; \
	VPSRLD $1, Z5, Z5; \
	VPADDB Z3, Z5, Z5; \
	VPBLENDMD Z10, Z3, K5, Z6; \
	VMOVDQU32 Z11, K3, Z6; \
	VMOVDQU32 Z5, K4, Z6; \
	VPBLENDMD Z13, Z6, K2, Z0; \
	VMOVDQA64 Z2, Z1; \
	VPMOVDB Z0, X5; \
	VINSERTI32X4 $L, X5, OUT, OUT

// GREY16LOAD loads the 8 bytes of a chunk of 8 rows into the qwords of
// Z (row 0 at R, rows DX apart; R3 = R+3DX, R6 = R+6DX).
#define GREY16LOAD(R, R3, R6, Z, X, Y) \
	VMOVQ   (R), X; \
	VPINSRQ $1, (R)(DX*1), X, X; \
	VMOVQ   (R)(DX*2), X22; \
	VPINSRQ $1, (R3), X22, X22; \
	VINSERTI32X4 $1, X22, Y, Y; \
	VMOVQ   (R)(DX*4), X22; \
	VPINSRQ $1, (R3)(DX*2), X22, X22; \
	VMOVQ   (R6), X23; \
	VPINSRQ $1, (R3)(DX*4), X23, X23; \
	VINSERTI32X4 $1, X23, Y22, Y22; \
	VINSERTI64X4 $1, Y22, Z, Z

// GREY16STORE stores the qwords of Z into 8 rows as GREY16LOAD loads them.
#define GREY16STORE(R, R3, R6, Z, X) \
	VMOVQ   X, (R); \
	VPEXTRQ $1, X, (R)(DX*1); \
	VEXTRACTI32X4 $1, Z, X22; \
	VMOVQ   X22, (R)(DX*2); \
	VPEXTRQ $1, X22, (R3); \
	VEXTRACTI32X4 $2, Z, X22; \
	VMOVQ   X22, (R)(DX*4); \
	VPEXTRQ $1, X22, (R3)(DX*2); \
	VEXTRACTI32X4 $3, Z, X22; \
	VMOVQ   X22, (R6); \
	VPEXTRQ $1, X22, (R3)(DX*4)

// func unfilterGrey16AVX512(base *byte, stride int, prev *byte, chunks int, masks *[4]uint16, state *[2][16]uint32)
// unfilterGrey8AVX for 16 rows (AVX-512 F, BW, VBMI): at step t byte t-k
// of row k in dword k, the row above's byte one dword on (VALIGND), the
// filters' choices by masks (bit k of Paeth, Average, Sub and Up), state
// the dwords of the left and up-left bytes of each row's first byte. A
// chunk's 8 bytes of each row are loaded and stored as qwords, moved
// into and out of the steps' dwords by VPERMI2B. The chain of dependent
// steps bound the 8-row kernel: here a step does 16 bytes.
TEXT ·unfilterGrey16AVX512(SB), NOSPLIT, $0-48
	MOVQ    base+0(FP), SI
	MOVQ    stride+8(FP), DX
	DECQ    DX
	MOVQ    prev+16(FP), DI
	MOVQ    chunks+24(FP), CX
	MOVQ    masks+32(FP), AX
	KMOVW   0(AX), K6           // Paeth
	KMOVW   2(AX), K4           // Average
	KMOVW   4(AX), K3
	KORW    K3, K6, K3          // Sub, and Paeth's a
	KMOVW   6(AX), K5           // Up
	MOVQ    state+40(FP), AX
	VMOVDQU32 0(AX), Z0
	VMOVDQU32 64(AX), Z1
	MOVQ    $0x1111111111111111, AX
	KMOVQ   AX, K7              // the dwords' low bytes
	VMOVDQU64 grey16Step0<>(SB), Z24
	VMOVDQU64 grey16Step1<>(SB), Z25
	VMOVDQU64 grey16Step2<>(SB), Z26
	VMOVDQU64 grey16Step3<>(SB), Z27
	VMOVDQU64 grey16Step4<>(SB), Z28
	VMOVDQU64 grey16Step5<>(SB), Z29
	VMOVDQU64 grey16Step6<>(SB), Z30
	VMOVDQU64 grey16Step7<>(SB), Z31
	VMOVDQU64 grey16Back0<>(SB), Z16
	VMOVDQU64 grey16Back1<>(SB), Z17
	TESTQ   CX, CX
	JZ      grey16done

grey16chunk:
	// Row k's bytes t0-k+j at SI + k*(stride-1) + j: rows 0-7 from SI
	// (BX = SI+3(stride-1), R8 = SI+6(stride-1)), rows 8-15 from R10 =
	// SI+8(stride-1) (R11, R12 likewise).
	LEAQ    (SI)(DX*2), BX
	ADDQ    DX, BX
	LEAQ    (BX)(DX*2), R8
	ADDQ    DX, R8
	LEAQ    (SI)(DX*8), R10
	LEAQ    (R10)(DX*2), R11
	ADDQ    DX, R11
	LEAQ    (R11)(DX*2), R12
	ADDQ    DX, R12
	GREY16LOAD(SI, BX, R8, Z20, X20, Y20)
	GREY16LOAD(R10, R11, R12, Z21, X21, Y21)
	GREY16STEP(0, Z24, 0, Z14)
	GREY16STEP(1, Z25, 1, Z14)
	GREY16STEP(2, Z26, 2, Z14)
	GREY16STEP(3, Z27, 3, Z14)
	GREY16STEP(4, Z28, 0, Z15)
	GREY16STEP(5, Z29, 1, Z15)
	GREY16STEP(6, Z30, 2, Z15)
	GREY16STEP(7, Z31, 3, Z15)
	VMOVDQA64 Z16, Z18
	VPERMI2B  Z15, Z14, Z18
	VMOVDQA64 Z17, Z19
	VPERMI2B  Z15, Z14, Z19
	GREY16STORE(SI, BX, R8, Z18, X18)
	GREY16STORE(R10, R11, R12, Z19, X19)
	ADDQ    $8, SI
	ADDQ    $8, DI
	DECQ    CX
	JNZ     grey16chunk

grey16done:
	VZEROUPPER
	RET

// func unfilterRGB8AVX512(base *byte, stride int, prev *byte, chunks int, masks *[5][32]uint16, state *[3][32]uint16)
// unfilterGrey8AVX for 8 rows of 3-byte pixels: at step t, pixel
// t-rgbLag[k] of row k in words 4k..4k+2 of a ZMM register (word 4k+3,
// the next pixel's first byte, predicted 0 by the filters' masks, so that
// it is stored back unchanged), the row above's pixel as RGBSTEP takes
// it, and prev's pixel t for row 0. masks: Paeth, Average, Sub and Up
// words, the state's bytes; state the left and up-left pixels of each
// row's first and the left pixel two steps before. base is row 0's pixel
// t0, prev prev's pixel t0. The pixels are loaded and stored 4 bytes
// each; a step's pixels are loaded before the step before stores its
// own, whose fourth bytes they start with (loaded after, each load
// waited for those stores to reach the cache: a store that covers part
// of a load is not forwarded to it).
TEXT ·unfilterRGB8AVX512(SB), NOSPLIT, $0-48
	MOVQ      base+0(FP), SI
	MOVQ      stride+8(FP), DX
	MOVQ      prev+16(FP), DI
	MOVQ      chunks+24(FP), CX
	MOVQ      masks+32(FP), AX
	VMOVDQU64 0(AX), Z12
	VMOVDQU64 64(AX), Z13
	VMOVDQU64 128(AX), Z14
	VMOVDQU64 192(AX), Z15
	VMOVDQU64 256(AX), Z16
	VPMOVW2M  Z13, K4           // Average
	VPMOVW2M  Z15, K5           // Up
	VPORQ     Z12, Z14, Z7
	VPMOVW2M  Z7, K3            // Sub, and Paeth's a
	VPTERNLOGQ $0xff, Z7, Z7, Z7
	VPXORQ    Z12, Z7, Z7       // the words not Paeth
	MOVQ      state+40(FP), AX
	VMOVDQU64 0(AX), Z0
	VMOVDQU64 64(AX), Z1
	VMOVDQU64 128(AX), Z23
	TESTQ     CX, CX
	JZ        rgb8done
	// Row k's pixel t0-lag(k)+j, lag 0, 1, 3, 4, 6, 7, 9, 10 (rows 2L
	// and 2L+1 in lane L, each lane 3 pixels behind the one below): at SI +
	// k*stride - 3*lag(k), in SI, BX, R8-R13.
	LEAQ    -3(SI)(DX*1), BX
	LEAQ    -9(SI)(DX*2), R8
	LEAQ    (DX)(DX*2), AX
	LEAQ    -12(SI)(AX*1), R9
	LEAQ    -18(SI)(DX*4), R10
	LEAQ    (DX)(DX*4), AX
	LEAQ    -21(SI)(AX*1), R11
	ADDQ    DX, AX
	LEAQ    -27(SI)(AX*1), R12
	ADDQ    DX, AX
	LEAQ    -30(SI)(AX*1), R13
	VMOVD     0(SI), X20
	VPINSRD   $1, 0(BX), X20, X20
	VPINSRD   $2, 0(R8), X20, X20
	VPINSRD   $3, 0(R9), X20, X20
	VMOVD     0(R10), X21
	VPINSRD   $1, 0(R11), X21, X21
	VPINSRD   $2, 0(R12), X21, X21
	VPINSRD   $3, 0(R13), X21, X21
	VINSERTI32X4 $1, X21, Y20, Y20

rgb8chunk:
	// Steps t0+0 to t0+7.
	RGBSTEP(0, 3)
	RGBSTEP(3, 6)
	RGBSTEP(6, 9)
	RGBSTEP(9, 12)
	RGBSTEP(12, 15)
	RGBSTEP(15, 18)
	RGBSTEP(18, 21)
	RGBSTEP(21, 24)
	ADDQ    $24, SI
	ADDQ    $24, BX
	ADDQ    $24, R8
	ADDQ    $24, R9
	ADDQ    $24, R10
	ADDQ    $24, R11
	ADDQ    $24, R12
	ADDQ    $24, R13
	ADDQ    $24, DI
	DECQ    CX
	JNZ     rgb8chunk

rgb8done:
	VZEROUPPER
	RET
