#include "textflag.h"

// The kernels' constants, 4 copies each (one AVX register) at these
// offsets from AX: rgbaConsts.
#define K_ZERO 0    // chromaZero
#define K_CR 32     // crScale
#define K_CB 64     // cbScale
#define K_KR 96     // kr
#define K_KB 128    // kb
#define K_KG 160    // kg
#define K_MAX 192   // 255
#define K_HALF 224  // 1/2
#define K_ONE 256   // 1
#define K_NINE 288  // 9
#define K_THREE 320 // 3
#define K_16TH 352  // 1/16
#define K_KGF 384   // kg (as a factor of luma)
#define K_ICB 416   // 1/cbScale (of the float64 cbScale)
#define K_ICR 448   // 1/crScale

// QUANT rounds the 4 values in V as Quantize8 and leaves them as int32 in
// X (Y4 scratch): the maximum against 0 (Y7, returned for NaN), the minimum
// against 255, the truncation plus 1 where the fraction is at least 1/2:
// the truncation and the exact fraction of roundPositive.
#define QUANT(V, X) \
	VMAXPD Y7, V, V \
	VMINPD K_MAX(AX), V, V \
	VROUNDPD $3, V, Y4 \
	VSUBPD Y4, V, V \
	VCMPPD $0x1d, K_HALF(AX), V, V \
	VANDPD K_ONE(AX), V, V \
	VADDPD V, Y4, V \
	VCVTTPD2DQY V, X

// RGBA4 converts the 4 Y' samples at YOFF(SI) with the Cb and Cr in
// registers CB and CR (both overwritten) as rgbaRow does, and stores the
// 16 bytes of their pixels at DOFF(DI): toRGB's operations in its order
// (products rounded by VMULPD, no fused multiply-add; the division by kg
// by VDIVPD, IEEE like DIVSD), then QUANT, alpha 0xff (X6). Y0-Y4 scratch.
#define RGBA4(YOFF, CB, CR, DOFF) \
	VMOVUPD YOFF(SI), Y0 \
	VSUBPD K_ZERO(AX), CR, CR \
	VMULPD K_CR(AX), CR, CR \
	VADDPD CR, Y0, Y1 \
	VSUBPD K_ZERO(AX), CB, CB \
	VMULPD K_CB(AX), CB, CB \
	VADDPD CB, Y0, Y2 \
	VMULPD K_KR(AX), Y1, Y3 \
	VSUBPD Y3, Y0, Y0 \
	VMULPD K_KB(AX), Y2, Y3 \
	VSUBPD Y3, Y0, Y0 \
	VDIVPD K_KG(AX), Y0, Y0 \
	QUANT(Y1, X1) \
	QUANT(Y0, X0) \
	QUANT(Y2, X2) \
	VPSLLD $8, X0, X0 \
	VPSLLD $16, X2, X2 \
	VPOR X0, X1, X1 \
	VPOR X2, X1, X1 \
	VPOR X6, X1, X1 \
	VMOVDQU X1, DOFF(DI)

// SETUP clears Y7 and sets X6 to the alpha of 4 pixels.
#define SETUP \
	VXORPD Y7, Y7, Y7 \
	VPCMPEQD X6, X6, X6 \
	VPSLLD $24, X6, X6

// func rgbaRowAVX(dst []uint8, y, cb, cr []float64, k *rgbaTable)
// rgbaRow for len(y)/4 groups of 4 samples (cb, cr at least as long, dst
// at least 4·len(y)), RGBA4 each.
TEXT ·rgbaRowAVX(SB), NOSPLIT, $0-104
	MOVQ dst_base+0(FP), DI
	MOVQ y_base+24(FP), SI
	MOVQ y_len+32(FP), CX
	MOVQ cb_base+48(FP), R8
	MOVQ cr_base+72(FP), R9
	MOVQ k+96(FP), AX
	SHRQ $2, CX
	JZ   done
	SETUP
loop:
	VMOVUPD (R8), Y8
	VMOVUPD (R9), Y9
	RGBA4(0, Y8, Y9, 0)
	ADDQ $16, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  loop
	VZEROUPPER
done:
	RET

// DOUBLE4 doubles the 4 half-resolution samples a..a+3 of the row pair
// at RA and RB (which point at a−1) into E (samples 2a, 2a+2, ...) and O
// (2a+1, 2a+3, ...), as doubledRow sums them: ((9·ra[a] + 3·ra[b]) +
// 3·rb[a]) + rb[b], b = a∓1, times 1/16 (exact, as its division by 16).
// Y12-Y15 scratch.
#define DOUBLE4(RA, RB, E, O) \
	VMOVUPD 8(RA), Y12 \
	VMULPD K_NINE(AX), Y12, Y12 \
	VMOVUPD 8(RB), Y13 \
	VMULPD K_THREE(AX), Y13, Y13 \
	VMOVUPD (RA), Y14 \
	VMULPD K_THREE(AX), Y14, Y14 \
	VADDPD Y14, Y12, E \
	VADDPD Y13, E, E \
	VADDPD (RB), E, E \
	VMULPD K_16TH(AX), E, E \
	VMOVUPD 16(RA), Y15 \
	VMULPD K_THREE(AX), Y15, Y15 \
	VADDPD Y15, Y12, O \
	VADDPD Y13, O, O \
	VADDPD 16(RB), O, O \
	VMULPD K_16TH(AX), O, O

// INTERLEAVE puts E and O in pixel order: LO = E0 O0 E1 O1, HI = E2 O2
// E3 O3 (E and O overwritten).
#define INTERLEAVE(E, O, LO, HI) \
	VUNPCKLPD O, E, Y12 \
	VUNPCKHPD O, E, Y13 \
	VPERM2F128 $0x20, Y13, Y12, LO \
	VPERM2F128 $0x31, Y13, Y12, HI

// func rgba420AVX(dst []uint8, y, cbA, cbB, crA, crB []float64, k *rgbaTable)
// rgba420Row for len(y)/8 groups of 8 pixels: the chroma rows from their
// sample a−1 for the group of pixels 2a..2a+7 (DOUBLE4 reads a−1..a+4).
TEXT ·rgba420AVX(SB), NOSPLIT, $0-152
	MOVQ dst_base+0(FP), DI
	MOVQ y_base+24(FP), SI
	MOVQ y_len+32(FP), CX
	MOVQ cbA_base+48(FP), R8
	MOVQ cbB_base+72(FP), R9
	MOVQ crA_base+96(FP), R10
	MOVQ crB_base+120(FP), R11
	MOVQ k+144(FP), AX
	SHRQ $3, CX
	JZ   done420
	SETUP
loop420:
	DOUBLE4(R8, R9, Y8, Y9)
	INTERLEAVE(Y8, Y9, Y8, Y10)
	DOUBLE4(R10, R11, Y9, Y5)
	INTERLEAVE(Y9, Y5, Y9, Y11)
	RGBA4(0, Y8, Y9, 0)
	RGBA4(32, Y10, Y11, 16)
	ADDQ $32, DI
	ADDQ $64, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ  loop420
	VZEROUPPER
done420:
	RET

// func yccRowAVX(y, cb, cr []float64, pix []uint8, k *rgbaTable) int
// yccRow for len(y)/4 groups of 4 RGBA pixels (pix at least 4·len(y)
// bytes; cb, cr at least as long as y) up to the first group with a pixel
// not opaque (VPTEST of the alpha bits), returning the pixels done: the bytes R, G, B to
// float64, luma's ((kr·R + kg·G) + kb·B) with products rounded (VMULPD, no
// fused multiply-add), R itself where R = G = B (VBLENDVPD), then
// chromaZero + (B − Y')/cbScale and chromaZero + (R − Y')/crScale by
// VDIVPD, as YCbCr computes them.
TEXT ·yccRowAVX(SB), NOSPLIT, $0-112
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ cb_base+24(FP), R8
	MOVQ cr_base+48(FP), R9
	MOVQ pix_base+72(FP), SI
	MOVQ k+96(FP), AX
	SHRQ $2, CX
	JZ   doneycc
	VPCMPEQD X7, X7, X7
	VPSLLD $24, X7, X8       // 0xff000000 in each int32 lane: alpha
	VPSRLD $24, X7, X7       // 0xff in each int32 lane
loopycc:
	VMOVDQU (SI), X0         // 4 pixels R G B A
	VPTEST X8, X0            // CF: every alpha bit set
	JCC  stopycc
	VPAND X7, X0, X1
	VCVTDQ2PD X1, Y1         // R
	VPSRLD $8, X0, X2
	VPAND X7, X2, X2
	VCVTDQ2PD X2, Y2         // G
	VPSRLD $16, X0, X3
	VPAND X7, X3, X3
	VCVTDQ2PD X3, Y3         // B
	VMULPD K_KR(AX), Y1, Y4
	VMULPD K_KGF(AX), Y2, Y5
	VADDPD Y5, Y4, Y4
	VMULPD K_KB(AX), Y3, Y5
	VADDPD Y5, Y4, Y4        // kr·R + kg·G + kb·B
	VCMPPD $0, Y2, Y1, Y5    // R = G
	VCMPPD $0, Y3, Y2, Y6    // G = B
	VANDPD Y6, Y5, Y5
	VBLENDVPD Y5, Y1, Y4, Y4 // Y' = R where R = G = B
	VMOVUPD Y4, (DI)
	VSUBPD Y4, Y3, Y3
	VDIVPD K_CB(AX), Y3, Y3
	VADDPD K_ZERO(AX), Y3, Y3
	VMOVUPD Y3, (R8)
	VSUBPD Y4, Y1, Y1
	VDIVPD K_CR(AX), Y1, Y1
	VADDPD K_ZERO(AX), Y1, Y1
	VMOVUPD Y1, (R9)
	ADDQ $16, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  loopycc
stopycc:
	VZEROUPPER
doneycc:
	SUBQ y_base+0(FP), DI
	SHRQ $3, DI
	MOVQ DI, ret+104(FP)
	RET

// YCC8 converts the 8 pixels whose R, G and B are in the int32 lanes of
// Y1, Y2 and Y3 to their Y', Cb and Cr at (DI), (R8) and (R9): R, G and B
// as float64 (Z1-Z3), Y' = kr·R + kg·G + kb·B, or R where R = G = B (Z4),
// then each chroma's (V − Y')/c as q = (V − Y')·(1/c), q + RN((V − Y') −
// q·c)·(1/c) (the exact x − q·c by VFNMADD231PD), plus chromaZero. Z5,
// Z6, K1, K2 scratch.
#define YCC8 \
	VCVTDQ2PD Y1, Z1 \
	VCVTDQ2PD Y2, Z2 \
	VCVTDQ2PD Y3, Z3 \
	VMULPD.BCST K_KR(AX), Z1, Z4 \
	VMULPD.BCST K_KGF(AX), Z2, Z5 \
	VADDPD Z5, Z4, Z4 \
	VMULPD.BCST K_KB(AX), Z3, Z5 \
	VADDPD Z5, Z4, Z4 \
	VCMPPD $0, Z2, Z1, K1 \
	VCMPPD $0, Z3, Z2, K2 \
	KANDW K2, K1, K1 \
	VMOVAPD Z1, K1, Z4 \
	VMOVUPD Z4, (DI) \
	VSUBPD Z4, Z3, Z3 \
	VMULPD.BCST K_ICB(AX), Z3, Z5 \
	VFNMADD231PD.BCST K_CB(AX), Z5, Z3 \
	VFMADD231PD.BCST K_ICB(AX), Z3, Z5 \
	VADDPD.BCST K_ZERO(AX), Z5, Z5 \
	VMOVUPD Z5, (R8) \
	VSUBPD Z4, Z1, Z1 \
	VMULPD.BCST K_ICR(AX), Z1, Z6 \
	VFNMADD231PD.BCST K_CR(AX), Z6, Z1 \
	VFMADD231PD.BCST K_ICR(AX), Z1, Z6 \
	VADDPD.BCST K_ZERO(AX), Z6, Z6 \
	VMOVUPD Z6, (R9)

// func yccRowAVX512(y, cb, cr []float64, pix []uint8, k *rgbaTable) int
// yccRowAVX for len(y)/8 groups of 8 RGBA pixels, 8 samples per AVX-512
// register: the same luma; each chroma's (V − Y')/c as q = (V − Y')·(1/c)
// then q + RN((V − Y') − q·c)·(1/c) by VFNMADD231PD and VFMADD231PD (the
// division's quotient for every 8-bit colour), plus chromaZero.
TEXT ·yccRowAVX512(SB), NOSPLIT, $0-112
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ cb_base+24(FP), R8
	MOVQ cr_base+48(FP), R9
	MOVQ pix_base+72(FP), SI
	MOVQ k+96(FP), AX
	SHRQ $3, CX
	JZ   doneycc512
	VPCMPEQD Y7, Y7, Y7
	VPSLLD $24, Y7, Y8       // 0xff000000 in each int32 lane: alpha
	VPSRLD $24, Y7, Y7       // 0xff in each int32 lane
loopycc512:
	VMOVDQU (SI), Y0         // 8 pixels R G B A
	VPTEST Y8, Y0            // CF: every alpha bit set
	JCC  stopycc512
	VPAND Y7, Y0, Y1         // R
	VPSRLD $8, Y0, Y2
	VPAND Y7, Y2, Y2         // G
	VPSRLD $16, Y0, Y3
	VPAND Y7, Y3, Y3         // B
	YCC8
	ADDQ $32, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	DECQ CX
	JNZ  loopycc512
stopycc512:
	VZEROUPPER
doneycc512:
	SUBQ y_base+0(FP), DI
	SHRQ $3, DI
	MOVQ DI, ret+104(FP)
	RET

// The AVX-512 kernel's steps (16 pixels a step, 8 per register), with
// the constants of rgbaConsts broadcast from their first copy.

// QUANT8 is QUANT for the 8 values in V, left as int32 in the 8 lanes of
// X: the truncation plus 1 where the fraction is at least 1/2 (masked
// addition, K1), the same integers.
#define QUANT8(V, X) \
	VMAXPD Z7, V, V \
	VMINPD.BCST K_MAX(AX), V, V \
	VRNDSCALEPD $3, V, Z4 \
	VSUBPD Z4, V, V \
	VCMPPD.BCST $0x1d, K_HALF(AX), V, K1 \
	VADDPD.BCST K_ONE(AX), Z4, K1, Z4 \
	VCVTTPD2DQ Z4, X

// RGBA8 is RGBA4 for the 8 Y' samples at YOFF(SI), storing the 32 bytes
// of their pixels at DOFF(DI) (alpha in Y6). Z0-Z4 scratch.
#define RGBA8(YOFF, CB, CR, DOFF) \
	VMOVUPD YOFF(SI), Z0 \
	VSUBPD.BCST K_ZERO(AX), CR, CR \
	VMULPD.BCST K_CR(AX), CR, CR \
	VADDPD CR, Z0, Z1 \
	VSUBPD.BCST K_ZERO(AX), CB, CB \
	VMULPD.BCST K_CB(AX), CB, CB \
	VADDPD CB, Z0, Z2 \
	VMULPD.BCST K_KR(AX), Z1, Z3 \
	VSUBPD Z3, Z0, Z0 \
	VMULPD.BCST K_KB(AX), Z2, Z3 \
	VSUBPD Z3, Z0, Z0 \
	VDIVPD.BCST K_KG(AX), Z0, Z0 \
	QUANT8(Z1, Y1) \
	QUANT8(Z0, Y0) \
	QUANT8(Z2, Y2) \
	VPSLLD $8, Y0, Y0 \
	VPSLLD $16, Y2, Y2 \
	VPOR Y0, Y1, Y1 \
	VPOR Y2, Y1, Y1 \
	VPOR Y6, Y1, Y1 \
	VMOVDQU Y1, DOFF(DI)

// DOUBLE8 is DOUBLE4 for the 8 half-resolution samples a..a+7 (RA and RB
// point at a−1). Z12-Z15 scratch.
#define DOUBLE8(RA, RB, E, O) \
	VMOVUPD 8(RA), Z12 \
	VMULPD.BCST K_NINE(AX), Z12, Z12 \
	VMOVUPD 8(RB), Z13 \
	VMULPD.BCST K_THREE(AX), Z13, Z13 \
	VMOVUPD (RA), Z14 \
	VMULPD.BCST K_THREE(AX), Z14, Z14 \
	VADDPD Z14, Z12, E \
	VADDPD Z13, E, E \
	VADDPD (RB), E, E \
	VMULPD.BCST K_16TH(AX), E, E \
	VMOVUPD 16(RA), Z15 \
	VMULPD.BCST K_THREE(AX), Z15, Z15 \
	VADDPD Z15, Z12, O \
	VADDPD Z13, O, O \
	VADDPD 16(RB), O, O \
	VMULPD.BCST K_16TH(AX), O, O

// INTERLEAVE8 puts E and O in pixel order: LO = E0 O0 ... E3 O3, HI = E4
// O4 ... E7 O7 (Z28, Z29: the permutations' indices).
#define INTERLEAVE8(E, O, LO, HI) \
	VMOVAPD E, LO \
	VPERMT2PD O, Z28, LO \
	VMOVAPD E, HI \
	VPERMT2PD O, Z29, HI

DATA interleave8<>+0(SB)/8, $0
DATA interleave8<>+8(SB)/8, $8
DATA interleave8<>+16(SB)/8, $1
DATA interleave8<>+24(SB)/8, $9
DATA interleave8<>+32(SB)/8, $2
DATA interleave8<>+40(SB)/8, $10
DATA interleave8<>+48(SB)/8, $3
DATA interleave8<>+56(SB)/8, $11
DATA interleave8<>+64(SB)/8, $4
DATA interleave8<>+72(SB)/8, $12
DATA interleave8<>+80(SB)/8, $5
DATA interleave8<>+88(SB)/8, $13
DATA interleave8<>+96(SB)/8, $6
DATA interleave8<>+104(SB)/8, $14
DATA interleave8<>+112(SB)/8, $7
DATA interleave8<>+120(SB)/8, $15
GLOBL interleave8<>(SB), RODATA|NOPTR, $128

// func rgba420AVX512(dst []uint8, y, cbA, cbB, crA, crB []float64, k *rgbaTable)
// rgba420AVX for len(y)/16 groups of 16 pixels: the chroma rows from
// their sample a−1 for the group of pixels 2a..2a+15 (DOUBLE8 reads
// a−1..a+8).
TEXT ·rgba420AVX512(SB), NOSPLIT, $0-152
	MOVQ dst_base+0(FP), DI
	MOVQ y_base+24(FP), SI
	MOVQ y_len+32(FP), CX
	MOVQ cbA_base+48(FP), R8
	MOVQ cbB_base+72(FP), R9
	MOVQ crA_base+96(FP), R10
	MOVQ crB_base+120(FP), R11
	MOVQ k+144(FP), AX
	SHRQ $4, CX
	JZ   done512
	VPXORQ Z7, Z7, Z7
	VPCMPEQD Y6, Y6, Y6
	VPSLLD $24, Y6, Y6
	VMOVDQU64 interleave8<>+0(SB), Z28
	VMOVDQU64 interleave8<>+64(SB), Z29
loop512:
	DOUBLE8(R8, R9, Z16, Z17)
	INTERLEAVE8(Z16, Z17, Z18, Z19)
	DOUBLE8(R10, R11, Z20, Z21)
	INTERLEAVE8(Z20, Z21, Z22, Z23)
	RGBA8(0, Z18, Z22, 0)
	RGBA8(64, Z19, Z23, 32)
	ADDQ $64, DI
	ADDQ $128, SI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	DECQ CX
	JNZ  loop512
	VZEROUPPER
done512:
	RET

// Byte indices of VPERMB for yccRGBRowAVX512: pixel p's R (rgbR), G
// (rgbG) or B (rgbB), byte 3p, 3p+1 or 3p+2 of the 24 loaded, to byte 4p,
// the low byte of its int32 lane (the others zeroed by the mask K4).
DATA rgbR<>+0(SB)/8, $0x0000000300000000
DATA rgbR<>+8(SB)/8, $0x0000000900000006
DATA rgbR<>+16(SB)/8, $0x0000000f0000000c
DATA rgbR<>+24(SB)/8, $0x0000001500000012
GLOBL rgbR<>(SB), RODATA|NOPTR, $32
DATA rgbG<>+0(SB)/8, $0x0000000400000001
DATA rgbG<>+8(SB)/8, $0x0000000a00000007
DATA rgbG<>+16(SB)/8, $0x000000100000000d
DATA rgbG<>+24(SB)/8, $0x0000001600000013
GLOBL rgbG<>(SB), RODATA|NOPTR, $32
DATA rgbB<>+0(SB)/8, $0x0000000500000002
DATA rgbB<>+8(SB)/8, $0x0000000b00000008
DATA rgbB<>+16(SB)/8, $0x000000110000000e
DATA rgbB<>+24(SB)/8, $0x0000001700000014
GLOBL rgbB<>(SB), RODATA|NOPTR, $32

// func yccRGBRowAVX512(y, cb, cr []float64, pix []uint8, k *rgbaTable)
// yccRowAVX512 of len(y)/8 groups of 8 RGB pixels, 3 bytes each (24 bytes
// a group, loaded under a mask: none past them), R, G and B each to the
// int32 lanes by a VPERMB.
TEXT ·yccRGBRowAVX512(SB), NOSPLIT, $0-104
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ cb_base+24(FP), R8
	MOVQ cr_base+48(FP), R9
	MOVQ pix_base+72(FP), SI
	MOVQ k+96(FP), AX
	SHRQ $3, CX
	JZ   donergb512
	VMOVDQU rgbR<>(SB), Y9
	VMOVDQU rgbG<>(SB), Y10
	VMOVDQU rgbB<>(SB), Y11
	MOVL $0xffffff, BX
	KMOVD BX, K3             // a group's 24 bytes
	MOVL $0x11111111, BX
	KMOVD BX, K4             // the low byte of each int32 lane
looprgb512:
	VMOVDQU8.Z (SI), K3, Y0
	VPERMB.Z Y0, Y9, K4, Y1  // R
	VPERMB.Z Y0, Y10, K4, Y2 // G
	VPERMB.Z Y0, Y11, K4, Y3 // B
	YCC8
	ADDQ $24, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	DECQ CX
	JNZ  looprgb512
	VZEROUPPER
donergb512:
	RET
