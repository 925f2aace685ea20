#include "textflag.h"

// HUFFARGS loads the arguments the Huffman kernels share: DI the output
// at out[o], R8 and R9 the bits and their number, SI to CX the bytes.
#define HUFFARGS \
	MOVQ out_base+0(FP), DI; \
	ADDQ o+24(FP), DI; \
	MOVQ acc+32(FP), R8; \
	MOVQ n+40(FP), R9; \
	MOVQ p_base+48(FP), SI; \
	MOVQ p_len+56(FP), CX; \
	ADDQ SI, CX

// HUFFFLUSH stores the 8 bytes of the accumulator R8 at DI and moves DI
// past its whole bytes (R9 bits of them), keeping the rest (fewer than 8).
#define HUFFFLUSH \
	MOVQ  R8, (DI); \
	MOVQ  R9, BX; \
	ANDQ  $-8, BX; \
	SHRXQ BX, R8, R8; \
	SHRQ  $3, BX; \
	ADDQ  BX, DI; \
	ANDQ  $7, R9

// ADLEROUT ends the Adler-32 block kernels: a, the sum of Y0's qwords;
// b, the sum of Y1's qwords (the sums before each block) shifted by shift
// (times the block's bytes) plus the sum of Y2's dwords.
#define ADLEROUT(shift) \
	VEXTRACTI128 $1, Y0, X4; \
	VPADDQ       X4, X0, X0; \
	VPSHUFD      $0x4e, X0, X4; \
	VPADDQ       X4, X0, X0; \
	MOVQ         X0, AX; \
	VEXTRACTI128 $1, Y1, X4; \
	VPADDQ       X4, X1, X1; \
	VPSHUFD      $0x4e, X1, X4; \
	VPADDQ       X4, X1, X1; \
	MOVQ         X1, BX; \
	VEXTRACTI128 $1, Y2, X4; \
	VPADDD       X4, X2, X2; \
	VPSHUFD      $0x4e, X2, X4; \
	VPADDD       X4, X2, X2; \
	VPSHUFD      $0xb1, X2, X4; \
	VPADDD       X4, X2, X2; \
	MOVL         X2, DX; \
	SHLQ         $shift, BX; \
	ADDQ         DX, BX; \
	MOVQ         AX, a+24(FP); \
	MOVQ         BX, b+32(FP); \
	VZEROUPPER; \
	RET

// Weights of the 32 bytes of a block in Adler-32's second sum: 32 down to 1.
DATA adlerWeights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights<>+8(SB)/8, $0x1112131415161718
DATA adlerWeights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights<>+24(SB)/8, $0x0102030405060708
GLOBL adlerWeights<>(SB), RODATA|NOPTR, $32

DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32

// func adlerBlocksAVX2(p []byte) (a, b uint64)
// Per 32-byte block: the byte sums by VPSADBW (64-bit lanes, added into
// Y0), the sums before the block (Y1: 32 times them go to b), and the
// bytes weighted 32..1 (VPMADDUBSW, VPMADDWD: 32-bit lanes, at most
// 31,110 a block, so 2,048 blocks stay below 2^26 a lane).
TEXT ·adlerBlocksAVX2(SB), NOSPLIT, $0-40
	MOVQ    p_base+0(FP), SI
	MOVQ    p_len+8(FP), CX
	VPXOR   Y0, Y0, Y0
	VPXOR   Y1, Y1, Y1
	VPXOR   Y2, Y2, Y2
	VPXOR   Y15, Y15, Y15
	VMOVDQU adlerWeights<>(SB), Y14
	VMOVDQU ones16<>(SB), Y13

adlerLoop:
	VMOVDQU    (SI), Y3
	VPADDQ     Y0, Y1, Y1
	VPSADBW    Y15, Y3, Y4
	VPADDQ     Y4, Y0, Y0
	VPMADDUBSW Y14, Y3, Y5
	VPMADDWD   Y13, Y5, Y5
	VPADDD     Y5, Y2, Y2
	ADDQ       $32, SI
	SUBQ       $32, CX
	JNZ        adlerLoop

	ADLEROUT(5)

// Bytes 0-2, 4-6, 8-10, 12-14 of each lane to its first 12 bytes.
DATA packRGB<>+0(SB)/8, $0x0908060504020100
DATA packRGB<>+8(SB)/8, $0x808080800e0d0c0a
DATA packRGB<>+16(SB)/8, $0x0908060504020100
DATA packRGB<>+24(SB)/8, $0x808080800e0d0c0a
GLOBL packRGB<>(SB), RODATA|NOPTR, $32

// Dwords 0-2 and 4-6: the two lanes' 12 bytes side by side.
DATA joinRGB<>+0(SB)/8, $0x0000000100000000
DATA joinRGB<>+8(SB)/8, $0x0000000400000002
DATA joinRGB<>+16(SB)/8, $0x0000000600000005
DATA joinRGB<>+24(SB)/8, $0x0000000700000003
GLOBL joinRGB<>(SB), RODATA|NOPTR, $32

// Weights of the 64 bytes of a block in Adler-32's second sum: 64 down to 1.
DATA adlerWeights64<>+0(SB)/8, $0x393a3b3c3d3e3f40
DATA adlerWeights64<>+8(SB)/8, $0x3132333435363738
DATA adlerWeights64<>+16(SB)/8, $0x292a2b2c2d2e2f30
DATA adlerWeights64<>+24(SB)/8, $0x2122232425262728
DATA adlerWeights64<>+32(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights64<>+40(SB)/8, $0x1112131415161718
DATA adlerWeights64<>+48(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights64<>+56(SB)/8, $0x0102030405060708
GLOBL adlerWeights64<>(SB), RODATA|NOPTR, $64

// func adlerBlocksAVX512(p []byte) (a, b uint64)
// adlerBlocksAVX2 on 64-byte blocks (len(p) a multiple of 64): bytes
// weighted 64..1 (VPMADDUBSW: at most 32,385 a word; VPMADDWD: 65,280 a
// dword a block, so 1,024 blocks stay below 2^27 a lane), the sums before
// each block 64 times to b.
TEXT ·adlerBlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ         p_base+0(FP), SI
	MOVQ         p_len+8(FP), CX
	VPXORQ       Z0, Z0, Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	VPXORQ       Z15, Z15, Z15
	VMOVDQU64    adlerWeights64<>(SB), Z14
	MOVL         $0x00010001, AX
	VPBROADCASTD AX, Z13

adler512Loop:
	VMOVDQU64  (SI), Z3
	VPADDQ     Z0, Z1, Z1
	VPSADBW    Z15, Z3, Z4
	VPADDQ     Z4, Z0, Z0
	VPMADDUBSW Z14, Z3, Z5
	VPMADDWD   Z13, Z5, Z5
	VPADDD     Z5, Z2, Z2
	ADDQ       $64, SI
	SUBQ       $64, CX
	JNZ        adler512Loop

	VEXTRACTI64X4 $1, Z0, Y4
	VPADDQ        Y4, Y0, Y0
	VEXTRACTI64X4 $1, Z1, Y4
	VPADDQ        Y4, Y1, Y1
	VEXTRACTI64X4 $1, Z2, Y4
	VPADDD        Y4, Y2, Y2
	ADLEROUT(6)

// func subRGBAVX2(dst, src []byte, n int)
// Pixels 1 to 8n: each RGBA pixel minus the one before it (a load 4
// bytes back), alpha dropped, 24 bytes stored a step.
TEXT ·subRGBAVX2(SB), NOSPLIT, $0-56
	MOVQ    dst_base+0(FP), DI
	MOVQ    src_base+24(FP), SI
	MOVQ    n+48(FP), CX
	ADDQ    $3, DI
	ADDQ    $4, SI
	VMOVDQU packRGB<>(SB), Y15
	VMOVDQU joinRGB<>(SB), Y14

subLoop:
	VMOVDQU      (SI), Y0
	VMOVDQU      -4(SI), Y1
	VPSUBB       Y1, Y0, Y0
	VPSHUFB      Y15, Y0, Y0
	VPERMD       Y0, Y14, Y0
	VMOVDQU      X0, (DI)
	VEXTRACTI128 $1, Y0, X1
	MOVQ         X1, 16(DI)
	ADDQ         $32, SI
	ADDQ         $24, DI
	DECQ         CX
	JNZ          subLoop
	VZEROUPPER
	RET

// func subBytesAVX2(dst, src []byte, bpp, n int)
// Bytes bpp to bpp+32n-1: each byte of src minus the byte bpp before it,
// 32 a step.
TEXT ·subBytesAVX2(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ bpp+48(FP), AX
	MOVQ n+56(FP), CX
	ADDQ AX, DI
	MOVQ SI, R8
	ADDQ AX, SI

subBytesLoop:
	VMOVDQU (SI), Y0
	VPSUBB  (R8), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    CX
	JNZ     subBytesLoop
	VZEROUPPER
	RET

// func huffLitsBMI2(out []byte, o int, acc uint64, n uint, p []byte, code *[257]uint32, lens *[257]uint8) (int, uint64, uint)
// flushSampled's loop: each step stores the accumulator's 8 bytes at
// out[o], keeps its bits past the whole bytes (fewer than 8), then ORs in
// three literals' codes (at most 45 bits), each shifted by the bits
// before it.
TEXT ·huffLitsBMI2(SB), NOSPLIT, $0-112
	HUFFARGS
	MOVQ code+72(FP), R10
	MOVQ lens+80(FP), R11
	CMPQ SI, CX
	JAE  huffDone

huffLoop:
	HUFFFLUSH
	MOVBLZX (SI), AX
	MOVWLZX (R10)(AX*4), DX
	MOVBLZX (R11)(AX*1), AX
	SHLXQ   R9, DX, DX
	ORQ     DX, R8
	ADDQ    AX, R9
	MOVBLZX 1(SI), AX
	MOVWLZX (R10)(AX*4), DX
	MOVBLZX (R11)(AX*1), AX
	SHLXQ   R9, DX, DX
	ORQ     DX, R8
	ADDQ    AX, R9
	MOVBLZX 2(SI), AX
	MOVWLZX (R10)(AX*4), DX
	MOVBLZX (R11)(AX*1), AX
	SHLXQ   R9, DX, DX
	ORQ     DX, R8
	ADDQ    AX, R9
	ADDQ    $3, SI
	CMPQ    SI, CX
	JB      huffLoop

huffDone:
	SUBQ out_base+0(FP), DI
	MOVQ DI, ret+88(FP)
	MOVQ R8, ret1+96(FP)
	MOVQ R9, ret2+104(FP)
	RET

// func countBytesAsm(c *[4][256]uint32, p []byte)
// Adds the bytes of p (len(p) a multiple of 8) to the four counting
// arrays in turn, eight bytes from one load.
TEXT ·countBytesAsm(SB), NOSPLIT, $0-32
	MOVQ c+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	ADDQ SI, CX
	CMPQ SI, CX
	JAE  countDone

countLoop:
	MOVQ    (SI), AX
	MOVBLZX AL, BX
	INCL    (DI)(BX*4)
	MOVBLZX AH, DX
	INCL    1024(DI)(DX*4)
	SHRQ    $16, AX
	MOVBLZX AL, BX
	INCL    2048(DI)(BX*4)
	MOVBLZX AH, DX
	INCL    3072(DI)(DX*4)
	SHRQ    $16, AX
	MOVBLZX AL, BX
	INCL    (DI)(BX*4)
	MOVBLZX AH, DX
	INCL    1024(DI)(DX*4)
	SHRQ    $16, AX
	MOVBLZX AL, BX
	INCL    2048(DI)(BX*4)
	MOVBLZX AH, DX
	INCL    3072(DI)(DX*4)
	ADDQ    $8, SI
	CMPQ    SI, CX
	JB      countLoop

countDone:
	RET

// func countCommonAVX512(c *[4][256]uint32, p []byte, rare *[countPiece + 64]byte) int
// Counts the bytes of p (len(p) a multiple of 64, at most countPiece)
// that are -6 to 5 as signed residuals (t = byte+6 below 12) in byte
// lanes, one accumulator per value (Z0-Z11: at most countPiece/64 < 256
// a lane), adds them to c[0] at the end, and packs the other bytes into
// rare (VPCOMPRESSB, 64 bytes stored a step, the pointer moved by their
// number), returning how many.
TEXT ·countCommonAVX512(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ rare+32(FP), DX
	MOVQ DX, R8
	ADDQ SI, CX
	MOVL         $0, AX
	VPBROADCASTB AX, Z12
	VPXORQ       Z0, Z0, Z0
	MOVL         $1, AX
	VPBROADCASTB AX, Z13
	VPXORQ       Z1, Z1, Z1
	MOVL         $2, AX
	VPBROADCASTB AX, Z14
	VPXORQ       Z2, Z2, Z2
	MOVL         $3, AX
	VPBROADCASTB AX, Z15
	VPXORQ       Z3, Z3, Z3
	MOVL         $4, AX
	VPBROADCASTB AX, Z16
	VPXORQ       Z4, Z4, Z4
	MOVL         $5, AX
	VPBROADCASTB AX, Z17
	VPXORQ       Z5, Z5, Z5
	MOVL         $6, AX
	VPBROADCASTB AX, Z18
	VPXORQ       Z6, Z6, Z6
	MOVL         $7, AX
	VPBROADCASTB AX, Z19
	VPXORQ       Z7, Z7, Z7
	MOVL         $8, AX
	VPBROADCASTB AX, Z20
	VPXORQ       Z8, Z8, Z8
	MOVL         $9, AX
	VPBROADCASTB AX, Z21
	VPXORQ       Z9, Z9, Z9
	MOVL         $10, AX
	VPBROADCASTB AX, Z22
	VPXORQ       Z10, Z10, Z10
	MOVL         $11, AX
	VPBROADCASTB AX, Z23
	VPXORQ       Z11, Z11, Z11
	MOVL         $6, AX
	VPBROADCASTB AX, Z24
	MOVL         $12, AX
	VPBROADCASTB AX, Z25
	VPTERNLOGD   $0xff, Z26, Z26, Z26
	VPXORQ       Z30, Z30, Z30
	CMPQ         SI, CX
	JAE          commonDone

commonLoop:
	VMOVDQU8    (SI), Z27
	VPADDB      Z24, Z27, Z28
	VPCMPUB     $5, Z25, Z28, K2
	VPCOMPRESSB Z27, K2, Z29
	VMOVDQU8    Z29, (DX)
	KMOVQ       K2, AX
	POPCNTQ     AX, AX
	ADDQ        AX, DX
	VPCMPEQB Z12, Z28, K1
	VPSUBB   Z26, Z0, K1, Z0
	VPCMPEQB Z13, Z28, K1
	VPSUBB   Z26, Z1, K1, Z1
	VPCMPEQB Z14, Z28, K1
	VPSUBB   Z26, Z2, K1, Z2
	VPCMPEQB Z15, Z28, K1
	VPSUBB   Z26, Z3, K1, Z3
	VPCMPEQB Z16, Z28, K1
	VPSUBB   Z26, Z4, K1, Z4
	VPCMPEQB Z17, Z28, K1
	VPSUBB   Z26, Z5, K1, Z5
	VPCMPEQB Z18, Z28, K1
	VPSUBB   Z26, Z6, K1, Z6
	VPCMPEQB Z19, Z28, K1
	VPSUBB   Z26, Z7, K1, Z7
	VPCMPEQB Z20, Z28, K1
	VPSUBB   Z26, Z8, K1, Z8
	VPCMPEQB Z21, Z28, K1
	VPSUBB   Z26, Z9, K1, Z9
	VPCMPEQB Z22, Z28, K1
	VPSUBB   Z26, Z10, K1, Z10
	VPCMPEQB Z23, Z28, K1
	VPSUBB   Z26, Z11, K1, Z11
	ADDQ        $64, SI
	CMPQ        SI, CX
	JB          commonLoop

commonDone:
	VPSADBW       Z30, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y12
	VPADDQ        Y12, Y0, Y0
	VEXTRACTI128  $1, Y0, X12
	VPADDQ        X12, X0, X0
	VPSHUFD       $0x4e, X0, X12
	VPADDQ        X12, X0, X0
	MOVQ          X0, AX
	ADDL          AX, 1000(DI)
	VPSADBW       Z30, Z1, Z1
	VEXTRACTI64X4 $1, Z1, Y12
	VPADDQ        Y12, Y1, Y1
	VEXTRACTI128  $1, Y1, X12
	VPADDQ        X12, X1, X1
	VPSHUFD       $0x4e, X1, X12
	VPADDQ        X12, X1, X1
	MOVQ          X1, AX
	ADDL          AX, 1004(DI)
	VPSADBW       Z30, Z2, Z2
	VEXTRACTI64X4 $1, Z2, Y12
	VPADDQ        Y12, Y2, Y2
	VEXTRACTI128  $1, Y2, X12
	VPADDQ        X12, X2, X2
	VPSHUFD       $0x4e, X2, X12
	VPADDQ        X12, X2, X2
	MOVQ          X2, AX
	ADDL          AX, 1008(DI)
	VPSADBW       Z30, Z3, Z3
	VEXTRACTI64X4 $1, Z3, Y12
	VPADDQ        Y12, Y3, Y3
	VEXTRACTI128  $1, Y3, X12
	VPADDQ        X12, X3, X3
	VPSHUFD       $0x4e, X3, X12
	VPADDQ        X12, X3, X3
	MOVQ          X3, AX
	ADDL          AX, 1012(DI)
	VPSADBW       Z30, Z4, Z4
	VEXTRACTI64X4 $1, Z4, Y12
	VPADDQ        Y12, Y4, Y4
	VEXTRACTI128  $1, Y4, X12
	VPADDQ        X12, X4, X4
	VPSHUFD       $0x4e, X4, X12
	VPADDQ        X12, X4, X4
	MOVQ          X4, AX
	ADDL          AX, 1016(DI)
	VPSADBW       Z30, Z5, Z5
	VEXTRACTI64X4 $1, Z5, Y12
	VPADDQ        Y12, Y5, Y5
	VEXTRACTI128  $1, Y5, X12
	VPADDQ        X12, X5, X5
	VPSHUFD       $0x4e, X5, X12
	VPADDQ        X12, X5, X5
	MOVQ          X5, AX
	ADDL          AX, 1020(DI)
	VPSADBW       Z30, Z6, Z6
	VEXTRACTI64X4 $1, Z6, Y12
	VPADDQ        Y12, Y6, Y6
	VEXTRACTI128  $1, Y6, X12
	VPADDQ        X12, X6, X6
	VPSHUFD       $0x4e, X6, X12
	VPADDQ        X12, X6, X6
	MOVQ          X6, AX
	ADDL          AX, 0(DI)
	VPSADBW       Z30, Z7, Z7
	VEXTRACTI64X4 $1, Z7, Y12
	VPADDQ        Y12, Y7, Y7
	VEXTRACTI128  $1, Y7, X12
	VPADDQ        X12, X7, X7
	VPSHUFD       $0x4e, X7, X12
	VPADDQ        X12, X7, X7
	MOVQ          X7, AX
	ADDL          AX, 4(DI)
	VPSADBW       Z30, Z8, Z8
	VEXTRACTI64X4 $1, Z8, Y12
	VPADDQ        Y12, Y8, Y8
	VEXTRACTI128  $1, Y8, X12
	VPADDQ        X12, X8, X8
	VPSHUFD       $0x4e, X8, X12
	VPADDQ        X12, X8, X8
	MOVQ          X8, AX
	ADDL          AX, 8(DI)
	VPSADBW       Z30, Z9, Z9
	VEXTRACTI64X4 $1, Z9, Y12
	VPADDQ        Y12, Y9, Y9
	VEXTRACTI128  $1, Y9, X12
	VPADDQ        X12, X9, X9
	VPSHUFD       $0x4e, X9, X12
	VPADDQ        X12, X9, X9
	MOVQ          X9, AX
	ADDL          AX, 12(DI)
	VPSADBW       Z30, Z10, Z10
	VEXTRACTI64X4 $1, Z10, Y12
	VPADDQ        Y12, Y10, Y10
	VEXTRACTI128  $1, Y10, X12
	VPADDQ        X12, X10, X10
	VPSHUFD       $0x4e, X10, X12
	VPADDQ        X12, X10, X10
	MOVQ          X10, AX
	ADDL          AX, 16(DI)
	VPSADBW       Z30, Z11, Z11
	VEXTRACTI64X4 $1, Z11, Y12
	VPADDQ        Y12, Y11, Y11
	VEXTRACTI128  $1, Y11, X12
	VPADDQ        X12, X11, X11
	VPSHUFD       $0x4e, X11, X12
	VPADDQ        X12, X11, X11
	MOVQ          X11, AX
	ADDL          AX, 20(DI)
	SUBQ R8, DX
	MOVQ DX, ret+40(FP)
	VZEROUPPER
	RET

// huffPerm orders a block's 64 bytes so that VPUNPCKLBW and VPUNPCKHBW
// of their lookups give the words of bytes 0-31 and 32-63 in order: in
// each 128-bit lane j, bytes 8j to 8j+7 then 32+8j to 32+8j+7.
DATA huffPerm<>+0(SB)/8, $0x0706050403020100
DATA huffPerm<>+8(SB)/8, $0x2726252423222120
DATA huffPerm<>+16(SB)/8, $0x0f0e0d0c0b0a0908
DATA huffPerm<>+24(SB)/8, $0x2f2e2d2c2b2a2928
DATA huffPerm<>+32(SB)/8, $0x1716151413121110
DATA huffPerm<>+40(SB)/8, $0x3736353433323130
DATA huffPerm<>+48(SB)/8, $0x1f1e1d1c1b1a1918
DATA huffPerm<>+56(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL huffPerm<>(SB), RODATA|NOPTR, $64

// HUFFLOOKUP sets Z to the entries of the 256-byte table in T0-T3 (64
// bytes each) at the bytes of Z0, K1 marking the bytes of 128 or more.
#define HUFFLOOKUP(T0, T1, T2, T3, Z, W) \
	VMOVDQU64 Z0, Z; \
	VPERMI2B  T1, T0, Z; \
	VMOVDQU64 Z0, W; \
	VPERMI2B  T3, T2, W; \
	VPBLENDMB W, Z, K1, Z

// HUFFJOIN joins the 32 codes of the words of C (lengths in the words of
// L) four at a time: C's qwords become the four codes of their words,
// the first in the low bits, and L's their bits (at most 60).
#define HUFFJOIN(C, L) \
	VPSRLD     $16, C, Z8; \
	VPANDD     Z29, L, Z9; \
	VPSLLVD    Z9, Z8, Z8; \
	VPTERNLOGD $0xF8, Z29, C, Z8; \
	VPMADDWD   Z30, L, L; \
	VPSRLQ     $32, Z8, C; \
	VPANDQ     Z31, L, Z9; \
	VPSLLVQ    Z9, C, C; \
	VPTERNLOGQ $0xF8, Z31, Z8, C; \
	VPSRLQ     $32, L, L; \
	VPADDQ     Z9, L, L

// HUFFSTEP looks up and joins the codes of the 64 bytes at SI into
// Z4/Z5 (their qwords' codes) and Z6/Z7 (their bits), or jumps to exit if
// a qword holds more than 56 bits.
#define HUFFSTEP(exit) \
	VMOVDQU64  (SI), Z0; \
	VPERMB     Z0, Z28, Z0; \
	VPMOVB2M   Z0, K1; \
	HUFFLOOKUP(Z16, Z17, Z18, Z19, Z1, Z4); \
	HUFFLOOKUP(Z20, Z21, Z22, Z23, Z2, Z5); \
	HUFFLOOKUP(Z24, Z25, Z26, Z27, Z3, Z6); \
	VPUNPCKLBW Z2, Z1, Z4; \
	VPUNPCKHBW Z2, Z1, Z5; \
	VPUNPCKLBW Z14, Z3, Z6; \
	VPUNPCKHBW Z14, Z3, Z7; \
	HUFFJOIN(Z4, Z6); \
	HUFFJOIN(Z5, Z7); \
	VPMAXUQ    Z6, Z7, Z10; \
	VPCMPUQ    $6, Z15, Z10, K2; \
	KORTESTW   K2, K2; \
	JNZ        exit

// HUFFSTORE stores HUFFSTEP's vectors at R: codes at 0-127, bits at
// 128-255, lane by lane.
#define HUFFSTORE(R) \
	VMOVDQU64 Z4, 0(R); \
	VMOVDQU64 Z5, 64(R); \
	VMOVDQU64 Z6, 128(R); \
	VMOVDQU64 Z7, 192(R)

// HUFFLANE appends the codes at off(R11) (off+128(R11) bits of them) to
// the accumulator R8 (R9 bits, fewer than 8; with the codes at most 63)
// and stores its 8 bytes at DI, keeping the bits past its whole bytes.
#define HUFFLANE(off) \
	MOVQ  off(R11), DX; \
	MOVQ  off+128(R11), AX; \
	SHLXQ R9, DX, DX; \
	ORQ   DX, R8; \
	ADDQ  AX, R9; \
	HUFFFLUSH

#define HUFFLANES \
	HUFFLANE(0); \
	HUFFLANE(8); \
	HUFFLANE(16); \
	HUFFLANE(24); \
	HUFFLANE(32); \
	HUFFLANE(40); \
	HUFFLANE(48); \
	HUFFLANE(56); \
	HUFFLANE(64); \
	HUFFLANE(72); \
	HUFFLANE(80); \
	HUFFLANE(88); \
	HUFFLANE(96); \
	HUFFLANE(104); \
	HUFFLANE(112); \
	HUFFLANE(120)

// func huffLitsAVX512(out []byte, o int, acc uint64, n uint, p []byte, lut *[3][256]byte) (int, int, uint64, uint)
// huffLitsBMI2's work on 64 bytes a step (len(p) a multiple of 64): the
// bytes' codes and lengths looked up from lut (code bits 0-7, 8-15 and
// the length of each byte value) by VPERMI2B, widened to words, joined
// four at a time into qwords (VPSLLVD, VPSLLVQ), which the accumulator
// takes one at a time as flushSampled's loop takes three codes. The
// qwords go through one of two stack buffers, read a step after they
// were stored (read at once, their loads waited on the 64-byte stores:
// no forwarding). A step whose qwords hold more than 56 bits of codes (R9
// and those bits would overflow the accumulator) is left undone: the
// kernel returns how many bytes of p it coded first. The accumulator may
// come with up to 63 bits (n); it leaves fewer than 8.
TEXT ·huffLitsAVX512(SB), NOSPLIT, $512-112
	HUFFARGS
	MOVQ  lut+72(FP), R10
	HUFFFLUSH // R9 < 8 from here
	CMPQ  SI, CX
	JAE   huff512Done
	VMOVDQU64    0(R10), Z16
	VMOVDQU64    64(R10), Z17
	VMOVDQU64    128(R10), Z18
	VMOVDQU64    192(R10), Z19
	VMOVDQU64    256(R10), Z20
	VMOVDQU64    320(R10), Z21
	VMOVDQU64    384(R10), Z22
	VMOVDQU64    448(R10), Z23
	VMOVDQU64    512(R10), Z24
	VMOVDQU64    576(R10), Z25
	VMOVDQU64    640(R10), Z26
	VMOVDQU64    704(R10), Z27
	VMOVDQU64    huffPerm<>(SB), Z28
	MOVL         $0xffff, AX
	VPBROADCASTD AX, Z29
	MOVL         $0x00010001, AX
	VPBROADCASTD AX, Z30
	MOVL         $0xffffffff, AX
	VPBROADCASTQ AX, Z31
	MOVL         $56, AX
	VPBROADCASTQ AX, Z15
	VPXORQ       Z14, Z14, Z14
	LEAQ         0(SP), R11
	LEAQ         256(SP), R12
	HUFFSTEP(huff512Done)
	HUFFSTORE(R11)
	ADDQ         $64, SI

huff512Loop:
	CMPQ SI, CX
	JAE  huff512Last
	HUFFSTEP(huff512Last)
	HUFFSTORE(R12)
	HUFFLANES
	XCHGQ R11, R12
	ADDQ  $64, SI
	JMP   huff512Loop

huff512Last:
	HUFFLANES

huff512Done:
	VZEROUPPER
	SUBQ p_base+48(FP), SI
	MOVQ SI, ret+80(FP)
	SUBQ out_base+0(FP), DI
	MOVQ DI, ret1+88(FP)
	MOVQ R8, ret2+96(FP)
	MOVQ R9, ret3+104(FP)
	RET
