#include "textflag.h"

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

	VEXTRACTI128 $1, Y0, X4
	VPADDQ       X4, X0, X0
	VPSHUFD      $0x4e, X0, X4
	VPADDQ       X4, X0, X0
	MOVQ         X0, AX
	VEXTRACTI128 $1, Y1, X4
	VPADDQ       X4, X1, X1
	VPSHUFD      $0x4e, X1, X4
	VPADDQ       X4, X1, X1
	MOVQ         X1, BX
	VEXTRACTI128 $1, Y2, X4
	VPADDD       X4, X2, X2
	VPSHUFD      $0x4e, X2, X4
	VPADDD       X4, X2, X2
	VPSHUFD      $0xb1, X2, X4
	VPADDD       X4, X2, X2
	MOVL         X2, DX
	SHLQ         $5, BX
	ADDQ         DX, BX
	MOVQ         AX, a+24(FP)
	MOVQ         BX, b+32(FP)
	VZEROUPPER
	RET

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
	MOVQ out_base+0(FP), DI
	ADDQ o+24(FP), DI
	MOVQ acc+32(FP), R8
	MOVQ n+40(FP), R9
	MOVQ p_base+48(FP), SI
	MOVQ p_len+56(FP), CX
	ADDQ SI, CX
	MOVQ code+72(FP), R10
	MOVQ lens+80(FP), R11
	CMPQ SI, CX
	JAE  huffDone

huffLoop:
	MOVQ    R8, (DI)
	MOVQ    R9, BX
	ANDQ    $-8, BX
	SHRXQ   BX, R8, R8
	SHRQ    $3, BX
	ADDQ    BX, DI
	ANDQ    $7, R9
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
